//! The free-name scan: which names a statement binds, and the first name an expression
//! uses that is never defined (a `NameError` when the module runs).

use super::{span, Evaluator};
use crate::fields::{Field, FieldChild};
use crate::syntax::node_text;
use crate::value::{Value, ValueKind};
use std::collections::HashSet;
use tree_sitter::Node;

impl Evaluator<'_> {
    /// `(name := value)`: the value, bound to the name in the module (a comprehension's
    /// own `:=` is not run here: `comprehensions.rs` leaves those to the scan).
    pub(super) fn named_expression(&mut self, node: Node) -> Value {
        let (Some(name), Some(value)) = (node.field(Field::Name), node.field(Field::Value)) else {
            self.scan_names(node);
            return Value::unknown("an incomplete assignment expression", span(node));
        };
        let mut value = self.expr(value);
        value.forget_passing_items();
        // The name and the expression hold one object: a container changed through the one
        // would be stale in the other's copy.
        if holds_container(&value) {
            value = Value::unknown("a container bound by `:=` (one object under two names)", value.span.clone());
        }
        if self.model.load_error.is_none() && name.kind() == "identifier" {
            self.env.insert(self.t(name).to_string(), value.clone());
        }
        Value::new(value.kind, span(node))
    }

    /// `lambda a=x: body`: its defaults are evaluated now, its body only when it is called.
    pub(super) fn lambda(&mut self, node: Node) -> Value {
        self.scan_names(node);
        self.sharing.new_object(Value::new(ValueKind::Function { name: "<lambda>".into(), at: usize::MAX }, span(node)))
    }

    /// Reports a NameError for the first undefined name used inside `node`.
    pub(super) fn scan_names(&mut self, node: Node) {
        // Each node with its parent: `Node::parent` walks down from the root, so calling it
        // per identifier would cost O(depth²) on a long chain like `a.b.b.b...`.
        let mut stack = vec![(node, node.parent())];
        let mut local: HashSet<String> = HashSet::new();
        // Comprehension and lambda variables are local to them.
        collect_local_bindings(node, self.text, &mut local);
        while let Some((n, parent)) = stack.pop() {
            if n.kind() == "identifier" {
                let parent_kind = parent.map(|p| p.kind()).unwrap_or("");
                let is_attr_name = parent
                    .filter(|p| p.kind() == "attribute")
                    .and_then(|p| p.field(Field::Attribute))
                    .map(|a| a.id() == n.id())
                    .unwrap_or(false);
                let is_kwarg_name = parent_kind == "keyword_argument"
                    && parent.and_then(|p| p.field(Field::Name)).map(|a| a.id() == n.id()).unwrap_or(false);
                let name = self.t(n);
                if !is_attr_name && !is_kwarg_name && !local.contains(name) {
                    let _ = self.name(n);
                    if self.model.load_error.is_some() {
                        return;
                    }
                }
                continue;
            }
            let mut cursor = n.walk();
            let children: Vec<Node> = match n.kind() {
                // A lambda's body runs when it is called: only its defaults are read now.
                "lambda" => lambda_defaults(n),
                // `y := x` reads x and binds y in the enclosing scope (a comprehension's
                // too), to a value not known here.
                "named_expression" => {
                    if let Some(name) = n.field(Field::Name) {
                        let why = "bound by `:=` in an expression not evaluated statically";
                        self.env.insert(self.t(name).to_string(), Value::unknown(why, span(name)));
                    }
                    n.field(Field::Value).into_iter().collect()
                }
                "list_comprehension" | "set_comprehension" | "dictionary_comprehension" | "generator_expression" => {
                    match self.comprehension_reached(n, &local) {
                        Some(parts) => parts,
                        None => return,
                    }
                }
                _ => n.named_children(&mut cursor).collect(),
            };
            for child in children.into_iter().rev() {
                stack.push((child, Some(n)));
            }
        }
    }
}

impl Evaluator<'_> {
    /// The parts of a comprehension that certainly run, its clauses read in order: the first
    /// iterable is evaluated (in the enclosing scope, as Python does), and so is each later
    /// iterable or condition that reads no comprehension variable; the clauses go on being
    /// reached while each loop is known to run and each condition to hold, and the body runs
    /// where they all are. A generator runs nothing but its first iterable (it is lazy).
    /// None where evaluating raised.
    ///
    /// `local`: the names comprehensions and lambdas bind: a part that reads one is only
    /// scanned, and ends what is known to be reached.
    fn comprehension_reached<'t>(&mut self, comprehension: Node<'t>, local: &HashSet<String>) -> Option<Vec<Node<'t>>> {
        let mut cursor = comprehension.walk();
        let parts: Vec<Node> = comprehension.named_children(&mut cursor).filter(|c| c.kind() != "comment").collect();
        let first = parts.iter().position(|p| p.kind() == "for_in_clause")?;
        let mut scanned = Vec::new();
        for (k, clause) in parts[first..].iter().enumerate() {
            let (part, is_loop) = match clause.kind() {
                "for_in_clause" => (clause.field(Field::Right)?, true),
                _ => (clause.named_child(0)?, false),
            };
            if local.iter().any(|name| mentions_name(part, self.text, name)) {
                scanned.push(part);
                return Some(scanned);
            }
            let value = self.expr(part);
            if self.model.load_error.is_some() {
                return None;
            }
            let reached = match is_loop {
                true => value.iterated().is_some_and(|items| !items.is_empty()),
                false => value.truthy() == Some(true),
            };
            if !reached || (k == 0 && comprehension.kind() == "generator_expression") {
                return Some(scanned);
            }
        }
        scanned.extend_from_slice(&parts[..first]);
        Some(scanned)
    }
}

/// Whether the identifier `name` appears anywhere inside `node`.
pub(super) fn mentions_name(node: Node, text: &str, name: &str) -> bool {
    let mut stack = vec![node];
    while let Some(n) = stack.pop() {
        if n.kind() == "identifier" && node_text(n, text) == name {
            return true;
        }
        let mut cursor = n.walk();
        stack.extend(n.named_children(&mut cursor));
    }
    false
}

/// Names a statement binds at module scope (assignments, imports, loops, defs, ...),
/// including inside blocks, but not inside function or class bodies.
/// Names whose value a block may change without rebinding them: the root of a subscript or
/// attribute target (`c[k] = v`, `c.x += 1`, `del c[k]`) and the object of a method that
/// changes its object in place (`c.append(v)`, `c.update(d)`). Function and class bodies,
/// which the block does not run, are left out.
pub(super) fn collect_changed_names(node: Node, text: &str, out: &mut HashSet<String>) {
    const CHANGING: [&str; 14] = [
        "append",
        "extend",
        "insert",
        "remove",
        "pop",
        "clear",
        "sort",
        "reverse",
        "update",
        "setdefault",
        "popitem",
        "add",
        "discard",
        "__setitem__",
    ];
    fn root<'t>(mut n: Node<'t>) -> Option<Node<'t>> {
        loop {
            match n.kind() {
                "identifier" => return Some(n),
                "subscript" => n = n.field(Field::Value)?,
                "attribute" => n = n.field(Field::Object)?,
                _ => return None,
            }
        }
    }
    let mut stack = vec![node];
    while let Some(n) = stack.pop() {
        let changed = match n.kind() {
            "function_definition" | "class_definition" | "lambda" => continue,
            "assignment"
            | "augmented_assignment"
            | "delete_statement"
            | "pattern_list"
            | "tuple_pattern"
            | "list_pattern"
            | "expression_list" => {
                let mut cursor = n.walk();
                let targets: Vec<Node> = n.named_children(&mut cursor).collect();
                targets
                    .into_iter()
                    .filter(|t| matches!(t.kind(), "subscript" | "attribute"))
                    .filter_map(|t| root(t))
                    .collect()
            }
            "call" => n
                .field(Field::Function)
                .filter(|f| f.kind() == "attribute")
                .filter(|f| f.field(Field::Attribute).is_some_and(|a| CHANGING.contains(&node_text(a, text))))
                .and_then(|f| f.field(Field::Object))
                .and_then(root)
                .into_iter()
                .collect(),
            _ => Vec::new(),
        };
        out.extend(changed.into_iter().map(|r| node_text(r, text).to_string()));
        let mut cursor = n.walk();
        stack.extend(n.named_children(&mut cursor));
    }
}

pub(super) fn collect_bound_names(node: Node, text: &str, out: &mut HashSet<String>) {
    // Without `:=` no expression binds a name, so the literals that make up most of a
    // manifest need not be walked (this runs on every keystroke).
    let walrus = text[node.byte_range()].contains(":=");
    let mut stack = vec![node];
    while let Some(n) = stack.pop() {
        match n.kind() {
            "function_definition" | "class_definition" => {
                if let Some(name) = n.field(Field::Name) {
                    out.insert(node_text(name, text).to_string());
                }
                continue;
            }
            // `x: T` alone binds nothing (only `x: T = v` does).
            "assignment" if n.field(Field::Right).is_none() && n.field(Field::Type).is_some() => {}
            "assignment" | "augmented_assignment" | "for_statement" | "for_in_clause" => {
                if let Some(left) = n.field(Field::Left) {
                    collect_target_names(left, text, out);
                }
            }
            "named_expression" => {
                if let Some(name) = n.field(Field::Name) {
                    out.insert(node_text(name, text).to_string());
                }
            }
            "as_pattern" | "with_item" | "except_clause" => {
                if let Some(alias) = n.field(Field::Alias) {
                    collect_target_names(alias, text, out);
                }
                let mut cursor = n.walk();
                for c in n.named_children(&mut cursor) {
                    if c.kind() == "as_pattern_target" {
                        collect_target_names(c, text, out);
                    }
                }
            }
            "import_statement" | "import_from_statement" => {
                let mut cursor = n.walk();
                for c in n.children_by_field_name("name", &mut cursor) {
                    let bound = match c.kind() {
                        "aliased_import" => c.field(Field::Alias).map(|a| node_text(a, text).to_string()),
                        _ => node_text(c, text).split('.').next().map(str::to_string),
                    };
                    if let Some(b) = bound {
                        out.insert(b);
                    }
                }
            }
            "lambda"
            | "list_comprehension"
            | "dictionary_comprehension"
            | "set_comprehension"
            | "generator_expression" => continue,
            _ => {}
        }
        if !walrus && !n.has_error() && BINDS_NOTHING_WITHOUT_WALRUS.contains(&n.kind()) {
            continue;
        }
        let mut cursor = n.walk();
        stack.extend(n.named_children(&mut cursor));
    }
}

/// Expressions that hold no statement, `as` target or pattern: without `:=` nothing in
/// them binds a name. (Tuples and parentheses are not here: `with (a as b, c as d):`.)
const BINDS_NOTHING_WITHOUT_WALRUS: [&str; 15] = [
    "dictionary",
    "pair",
    "list",
    "set",
    "string",
    "concatenated_string",
    "call",
    "argument_list",
    "binary_operator",
    "boolean_operator",
    "comparison_operator",
    "unary_operator",
    "not_operator",
    "subscript",
    "attribute",
];

pub(super) fn collect_target_names(target: Node, text: &str, out: &mut HashSet<String>) {
    let mut stack = vec![target];
    while let Some(n) = stack.pop() {
        match n.kind() {
            "identifier" => {
                out.insert(node_text(n, text).to_string());
            }
            "subscript" | "attribute" => {}
            _ => {
                let mut cursor = n.walk();
                stack.extend(n.named_children(&mut cursor));
            }
        }
    }
}

/// Whether `value` is or holds a list, dict or set (an object that may change in place).
fn holds_container(value: &Value) -> bool {
    match &value.kind {
        ValueKind::List(_) | ValueKind::Dict(_) | ValueKind::Set(_) => true,
        ValueKind::Tuple(items) => items.iter().any(holds_container),
        _ => false,
    }
}

/// A lambda's default values, in order (`lambda a, b=x, *, c=y: ...` gives `x`, `y`).
fn lambda_defaults(lambda: Node) -> Vec<Node> {
    let Some(parameters) = lambda.child_by_field_name("parameters") else { return Vec::new() };
    let mut cursor = parameters.walk();
    let defaults = parameters.named_children(&mut cursor).filter_map(|p| p.field(Field::Value)).collect();
    defaults
}

/// The names a parameter list binds (not the names its defaults or annotations read).
fn collect_parameter_names(parameters: Node, text: &str, out: &mut HashSet<String>) {
    let mut cursor = parameters.walk();
    for parameter in parameters.named_children(&mut cursor) {
        let name = match parameter.kind() {
            "identifier" => Some(parameter),
            "default_parameter" | "typed_default_parameter" => parameter.field(Field::Name),
            // `x: int`, `*args`, `**kwargs`, `*args: int`: the first identifier inside.
            _ => {
                let mut inner = parameter;
                while inner.kind() != "identifier" {
                    match inner.named_child(0) {
                        Some(child) => inner = child,
                        None => break,
                    }
                }
                Some(inner).filter(|n| n.kind() == "identifier")
            }
        };
        if let Some(name) = name {
            out.insert(node_text(name, text).to_string());
        }
    }
}

/// Names bound by comprehensions and lambdas inside an expression.
fn collect_local_bindings(node: Node, text: &str, out: &mut HashSet<String>) {
    let mut stack = vec![node];
    while let Some(n) = stack.pop() {
        match n.kind() {
            "for_in_clause" => {
                if let Some(left) = n.field(Field::Left) {
                    collect_target_names(left, text, out);
                }
            }
            "lambda_parameters" | "parameters" => collect_parameter_names(n, text, out),
            // `(y := v)` binds y (in the enclosing scope): no NameError to look for.
            "named_expression" => {
                if let Some(name) = n.field(Field::Name) {
                    out.insert(node_text(name, text).to_string());
                }
            }
            _ => {}
        }
        let mut cursor = n.walk();
        stack.extend(n.named_children(&mut cursor));
    }
}
