//! Compound statements: the header runs first (its exceptions are the module's); a `for`
//! over a known iterable and an `if` whose condition is known run their blocks as Python
//! does; any other block is not evaluated, and what it binds becomes unknown.

use super::names::{collect_bound_names, collect_changed_names, mentions_name};
use super::{first_line_span, span, Evaluator};
use crate::fields::{Field, FieldChild};
use crate::value::{Value, ValueKind};
use std::collections::HashSet;
use tree_sitter::Node;

/// What loops may run per file, counted as the bytes of each block run: nested loops over
/// long lists, or a long block run many times, stay bounded (linear in the file's size).
pub(super) const MAX_LOOP_WORK: usize = 100_000;

/// What a block may hold that this evaluator does not run in its turn.
const JUMPS: [&str; 7] = [
    "break_statement",
    "continue_statement",
    "return_statement",
    "yield",
    "global_statement",
    "nonlocal_statement",
    "await",
];

impl Evaluator<'_> {
    pub(super) fn compound_statement(&mut self, node: Node) {
        let header = self.block_header(node);
        if self.model.load_error.is_some() {
            return;
        }
        // `for i in 5:` raises before the block, as a comprehension over 5 does.
        if let (true, Some(iterable)) = (node.kind() == "for_statement", &header) {
            if iterable.not_iterable() {
                let message = format!("'{}' object is not iterable", iterable.exception_type_name());
                return self.fail(iterable.span.clone(), "TypeError", message);
            }
        }
        let decided_by = header.as_ref().and_then(environment_decides_header);
        let ran = match (node.kind(), header) {
            ("for_statement", Some(iterable)) => self.run_for(node, &iterable),
            ("if_statement", Some(condition)) => self.run_if(node, &condition),
            _ => false,
        };
        if !ran {
            self.block_not_evaluated(node, decided_by.as_deref());
        }
    }

    /// `for target in iterable: block`, item by item, where the items are known, there are
    /// not too many, the block does not jump (`break`, ...) and does not name the iterable.
    fn run_for(&mut self, node: Node, iterable: &Value) -> bool {
        let (Some(target), Some(right), Some(body)) =
            (node.field(Field::Left), node.field(Field::Right), node.child_by_field_name("body"))
        else {
            return false;
        };
        let items = match iterable.iterated() {
            Some(items) if !items.iter().any(Value::contains_unknown_but_items) => items,
            _ => return false,
        };
        let names_iterable = right.kind() == "identifier" && mentions_name(body, self.text, self.t(right));
        if node.child_by_field_name("alternative").is_some()
            || names_iterable
            || has_jump(body)
            || self.loop_work + items.len() * body.byte_range().len() > MAX_LOOP_WORK
        {
            return false;
        }
        self.loop_work += items.len() * body.byte_range().len();
        for item in items {
            self.bind(target, item);
            if self.model.load_error.is_some() || !self.run_block(body) {
                return true;
            }
        }
        true
    }

    /// `if` / `elif` / `else`: the branch the known conditions choose (each condition runs in
    /// its turn); false where one is not known.
    fn run_if(&mut self, node: Node, condition: &Value) -> bool {
        let mut cursor = node.walk();
        let alternatives: Vec<Node> = node.children_by_field_name("alternative", &mut cursor).collect();
        if has_jump(node) {
            return false;
        }
        let Some(taken) = condition.truthy() else { return false };
        // Run, whether or not it raised (`run_block`'s false): it is no block left unevaluated.
        if taken {
            if let Some(body) = node.child_by_field_name("consequence") {
                self.run_block(body);
            }
            return true;
        }
        for (at, &alternative) in alternatives.iter().enumerate() {
            match alternative.kind() {
                "elif_clause" => {
                    let Some(test) = alternative.child_by_field_name("condition") else { return false };
                    let value = self.expr(test);
                    if self.model.load_error.is_some() {
                        return true;
                    }
                    match value.truthy() {
                        Some(true) => {}
                        Some(false) => continue,
                        // Not known: this clause and every one after it may run.
                        None => {
                            let decided_by = environment_decides_header(&value);
                            for clause in &alternatives[at..] {
                                self.block_not_evaluated(*clause, decided_by.as_deref());
                            }
                            return true;
                        }
                    }
                    if let Some(body) = alternative.child_by_field_name("consequence") {
                        self.run_block(body);
                    }
                    return true;
                }
                "else_clause" => {
                    if let Some(body) = alternative.child_by_field_name("body") {
                        self.run_block(body);
                    }
                    return true;
                }
                _ => {}
            }
        }
        true
    }

    /// The statements of `block`, in order; false where one raised.
    fn run_block(&mut self, block: Node) -> bool {
        let mut cursor = block.walk();
        let statements: Vec<Node> = block.named_children(&mut cursor).collect();
        for statement in statements {
            self.statement(statement);
            if self.model.load_error.is_some() || self.stopped.is_some() {
                return false;
            }
            collect_bound_names(statement, self.text, &mut self.bound_before);
        }
        true
    }

    /// What a compound statement evaluates before its block: the `if` or `while` condition,
    /// the iterable of a `for`, a `match` subject, the first context manager of a `with`.
    fn block_header(&mut self, node: Node) -> Option<Value> {
        let header = match node.kind() {
            "if_statement" | "while_statement" => node.child_by_field_name("condition"),
            "for_statement" => node.field(Field::Right),
            "match_statement" => node.child_by_field_name("subject"),
            "with_statement" => {
                let mut cursor = node.walk();
                let clause = node.named_children(&mut cursor).find(|c| c.kind() == "with_clause");
                let item = clause.and_then(|c| c.named_child(0)).filter(|i| i.kind() == "with_item");
                // `with a as b`: the item's value is `a` (an `as_pattern`'s first child).
                item.and_then(|i| i.field(Field::Value)).map(|v| match v.kind() {
                    "as_pattern" => v.named_child(0).unwrap_or(v),
                    _ => v,
                })
            }
            _ => None,
        };
        header.map(|header| self.expr(header))
    }

    /// A block that is not evaluated: whatever it binds becomes unknown, and a `manifest` it
    /// uses is open. `decided_by`: why its header is not known, where only the environment
    /// knows it (`if torch.cuda.is_available():`): then so do the names it binds.
    fn block_not_evaluated(&mut self, node: Node, decided_by: Option<&str>) {
        // `if not torch.cuda.is_available(): raise ...`: said, not assumed silently.
        let ending = ending_statement(node, self.text);
        if let Some(ending) = ending {
            let code: String = self.t(ending).lines().next().unwrap_or("").chars().take(60).collect();
            let header = decided_by.map(|why| format!(" ({why})")).unwrap_or_default();
            let message = format!(
                "`{code}` ends loading where it runs, and whether it runs is only known when Python runs it{header}; the findings assume it does not"
            );
            self.note(first_line_span(ending, self.text), message);
        }
        // Blocks are not evaluated: whatever they bind becomes unknown.
        self.block_may_change_shared(node);
        let mut names = HashSet::new();
        collect_bound_names(node, self.text, &mut names);
        self.bound_before.extend(names.iter().cloned());
        let touches_manifest = mentions_name(node, self.text, "manifest");
        for name in names {
            let why = match decided_by {
                Some(header) => {
                    format!("`{name}` is assigned inside a block that runs or not as the environment decides: {header}")
                }
                None => format!("`{name}` is assigned inside a block"),
            };
            self.env.insert(name.clone(), Value::unknown(why, span(node)));
        }
        // `c[k] = v` or `c.append(v)` in the block: c may hold what it did not.
        let mut changed = HashSet::new();
        collect_changed_names(node, self.text, &mut changed);
        changed.remove("manifest");
        for name in changed {
            if let Some(value) = self.env.get_mut(&name) {
                let why = format!("`{name}` may be changed inside a block that is not evaluated statically");
                *value = Value::unknown(why, span(node));
            }
        }
        if touches_manifest {
            if let Some(m) = self.env.get_mut("manifest") {
                if let ValueKind::Dict(d) = &mut m.kind {
                    d.open = true;
                }
            }
            self.note(
                first_line_span(node, self.text),
                format!(
                    "`manifest` is used inside this `{}` block, which is not evaluated statically; findings assume the block does not change it",
                    node.kind().trim_end_matches("_statement").trim_end_matches("_clause")
                ),
            );
        }
        // `if torch.cuda.is_available(): x = undefined_name`: said too, once the names the
        // block binds are not known.
        if ending.is_none() {
            let mut cursor = node.walk();
            let alternatives: Vec<Node> = node.children_by_field_name("alternative", &mut cursor).collect();
            for clause in std::iter::once(node).chain(alternatives) {
                self.block_may_raise(clause, decided_by);
            }
        }
    }
}

/// Whether `node` holds a jump out of its block (outside functions and classes).
fn has_jump(node: Node) -> bool {
    let mut stack = vec![node];
    while let Some(n) = stack.pop() {
        if JUMPS.contains(&n.kind()) {
            return true;
        }
        if matches!(n.kind(), "function_definition" | "class_definition" | "lambda") {
            continue;
        }
        let mut cursor = n.walk();
        stack.extend(n.named_children(&mut cursor));
    }
    false
}

/// The first `raise` or `sys.exit(...)` in a block not evaluated, outside functions,
/// classes and `try` statements (whose handlers decide what escapes).
fn ending_statement<'t>(node: Node<'t>, text: &str) -> Option<Node<'t>> {
    let mut stack = vec![node];
    while let Some(n) = stack.pop() {
        match n.kind() {
            "raise_statement" => return Some(n),
            "call" if n.field(Field::Function).is_some_and(|f| crate::syntax::node_text(f, text) == "sys.exit") => {
                return Some(n)
            }
            "function_definition" | "class_definition" | "lambda" | "try_statement" => continue,
            _ => {}
        }
        let mut cursor = n.walk();
        let children: Vec<Node> = n.named_children(&mut cursor).collect();
        stack.extend(children.into_iter().rev());
    }
    None
}

/// Why a block's header is not known, where only the environment that runs check-manifest
/// knows it (its machine, its command line, its torch).
fn environment_decides_header(header: &Value) -> Option<String> {
    let ValueKind::Unknown(why) = &header.kind else { return None };
    super::modules::environment_decides(why).then(|| why.to_string())
}
