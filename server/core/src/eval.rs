//! Static evaluation of a manifest module with Python's meaning, without running it.
//!
//! Module-level statements run top to bottom in an environment of known names: imports of
//! `torch` (and aliases), constants, the `manifest = {...}` literal (also annotated), and
//! later `manifest["key"] = value`, `.update(...)`, `.append(...)` and `del` statements.
//! Expressions cover literals of every kind, raw and concatenated strings, `+` and friends
//! on known operands, `torch.<dtype>` attributes, `**splat` of a known dict and subscripts of
//! known containers.
//!
//! Anything else is [`ValueKind::Unknown`] with a reason, which becomes an information
//! note; it is never guessed. Where the module would certainly raise when executed (a name
//! that is never defined, an unhashable dict key, a missing key in a subscript), the
//! failure is recorded as a [`LoadError`], which is what `check-manifest` reports as
//! `Failed to parse manifest: ...`.

use crate::findings::{Finding, Origin, Severity};
use crate::schema::schema;
use crate::syntax::node_text;
use crate::value::{py_eq, Dict, Span, Value, ValueKind};
use std::collections::{HashMap, HashSet};
use tree_sitter::{Node, Tree};

/// Expressions nested deeper than this are not evaluated (keeps recursion bounded); above
/// the 200 brackets CPython accepts.
const MAX_DEPTH: usize = 256;

/// What evaluating the module tells about `manifest`.
#[derive(Clone, Debug, Default)]
pub struct ManifestModel {
    /// The value bound to `manifest` when the module finishes, if it is ever bound.
    pub manifest: Option<Value>,
    /// The `manifest` name in the assignment that bound it (for module-level findings).
    pub name_span: Option<Span>,
    /// The first exception executing the module would certainly raise.
    pub load_error: Option<LoadError>,
    /// Notes on what could not be evaluated, and hints found while evaluating.
    pub notes: Vec<Finding>,
    /// Whether `torch` is imported at module level (the real loader needs it for dtypes).
    pub imports_torch: bool,
}

/// An exception the module raises when executed, as `str(exc)` prints it.
#[derive(Clone, Debug, PartialEq)]
pub struct LoadError {
    pub span: Span,
    /// `NameError`, `TypeError`, `KeyError`, ...
    pub exception: &'static str,
    /// `str(exc)`, the text after `Failed to parse manifest: `.
    pub message: String,
}

pub fn evaluate(tree: &Tree, text: &str) -> ManifestModel {
    let mut ev = Evaluator {
        text,
        env: HashMap::new(),
        model: ManifestModel::default(),
        bound_before: HashSet::new(),
        depth: 0,
    };
    let root = tree.root_node();
    // Error recovery may wrap intact statements in an ERROR node; evaluate them anyway.
    let mut statements = Vec::new();
    let mut pending = vec![root];
    while let Some(node) = pending.pop() {
        let mut cursor = node.walk();
        let children: Vec<Node> = node.named_children(&mut cursor).collect();
        for child in children.into_iter().rev() {
            if crate::syntax::recovered_manifest_pairs(child, text).is_some() {
                statements.push(child);
            } else if child.kind() == "ERROR" {
                pending.push(child);
            } else {
                statements.push(child);
            }
        }
        // Keep source order: ERROR contents are expanded where they stand.
        statements.sort_by_key(|n| n.start_byte());
    }
    for statement in statements {
        if ev.model.load_error.is_some() {
            break;
        }
        ev.statement(statement);
        collect_bound_names(statement, text, &mut ev.bound_before);
    }
    if let Some(value) = ev.env.get("manifest") {
        ev.model.manifest = Some(value.clone());
    }
    ev.model
}

struct Evaluator<'a> {
    text: &'a str,
    env: HashMap<String, Value>,
    model: ManifestModel,
    /// Names bound anywhere (including in blocks we do not evaluate) by earlier statements.
    bound_before: HashSet<String>,
    depth: usize,
}

fn span(node: Node) -> Span {
    node.start_byte()..node.end_byte()
}

impl<'a> Evaluator<'a> {
    fn t(&self, node: Node) -> &'a str {
        node_text(node, self.text)
    }

    fn note(&mut self, span: Span, message: String) {
        // One note per place is enough; repeated evaluation of the same constant would
        // otherwise duplicate it.
        if self.model.notes.iter().any(|n| n.span == span && n.message == message) {
            return;
        }
        self.model.notes.push(Finding::new(span, Severity::Information, message, "not-evaluated", Origin::Lsp));
    }

    fn fail(&mut self, span: Span, exception: &'static str, message: String) {
        if self.model.load_error.is_none() {
            self.model.load_error = Some(LoadError { span, exception, message });
        }
    }

    fn statement(&mut self, node: Node) {
        match node.kind() {
            "expression_statement" => {
                let mut cursor = node.walk();
                let children: Vec<Node> = node.named_children(&mut cursor).collect();
                for child in children {
                    match child.kind() {
                        "assignment" => self.assignment(child),
                        "augmented_assignment" => self.augmented_assignment(child),
                        "call" => self.call_statement(child),
                        _ => {
                            // A bare expression: evaluate for its errors (NameError) only.
                            let _ = self.expr(child);
                        }
                    }
                }
            }
            "import_statement" => self.import(node),
            "import_from_statement" => self.import_from(node),
            "delete_statement" => self.delete(node),
            "comment" | "pass_statement" | "future_import_statement" => {}
            "ERROR" => {
                // `manifest = {` with entries, broken by the text being typed.
                if let Some((name, pairs)) = crate::syntax::recovered_manifest_pairs(node, self.text) {
                    let mut d = Dict { open: true, ..Dict::default() };
                    for pair in pairs {
                        self.dict_entry(pair, &mut d);
                    }
                    self.model.name_span = Some(span(name));
                    let end = node.end_byte();
                    self.env.insert("manifest".into(), Value::new(ValueKind::Dict(d), name.start_byte()..end));
                }
            }
            "if_statement" | "for_statement" | "while_statement" | "try_statement" | "with_statement"
            | "match_statement" => {
                // Blocks are not evaluated: whatever they bind becomes unknown.
                let mut names = HashSet::new();
                collect_bound_names(node, self.text, &mut names);
                let touches_manifest = mentions_name(node, self.text, "manifest");
                for name in names {
                    self.env.insert(
                        name.clone(),
                        Value::unknown(format!("`{name}` is assigned inside a block"), span(node)),
                    );
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
                            node.kind().trim_end_matches("_statement")
                        ),
                    );
                }
            }
            "function_definition" | "class_definition" | "decorated_definition" => {
                let mut names = HashSet::new();
                collect_bound_names(node, self.text, &mut names);
                for name in names {
                    self.env
                        .insert(name.clone(), Value::unknown(format!("`{name}` is a function or class"), span(node)));
                }
            }
            _ => {}
        }
    }

    fn import(&mut self, node: Node) {
        let mut cursor = node.walk();
        let names: Vec<Node> = node.children_by_field_name("name", &mut cursor).collect();
        for name in names {
            match name.kind() {
                "dotted_name" => {
                    let full = self.t(name);
                    let first = full.split('.').next().unwrap_or(full).to_string();
                    if first == "torch" {
                        self.model.imports_torch = true;
                    } else if !STDLIB_MODULES.contains(&first.as_str()) {
                        self.note(
                            span(name),
                            format!("whether `{full}` can be imported is only known when Python loads the manifest (check-manifest fails if it cannot)"),
                        );
                    }
                    self.env.insert(first.clone(), Value::new(ValueKind::Module(first), span(name)));
                }
                "aliased_import" => {
                    let module = name.child_by_field_name("name").map(|n| self.t(n)).unwrap_or("");
                    if let Some(alias) = name.child_by_field_name("alias") {
                        if module == "torch" {
                            self.model.imports_torch = true;
                        }
                        let value = if module == "torch" {
                            Value::new(ValueKind::Module("torch".into()), span(name))
                        } else {
                            Value::new(ValueKind::Module(module.to_string()), span(name))
                        };
                        self.env.insert(self.t(alias).to_string(), value);
                    }
                }
                _ => {}
            }
        }
    }

    fn import_from(&mut self, node: Node) {
        let module = node.child_by_field_name("module_name").map(|n| self.t(n)).unwrap_or("");
        let mut cursor = node.walk();
        let names: Vec<Node> = node.children_by_field_name("name", &mut cursor).collect();
        if names.is_empty() {
            // `from x import *`: any later name might come from it.
            self.note(span(node), format!("names imported with `from {module} import *` are not known statically"));
        }
        for name in names {
            let (imported, bound) = match name.kind() {
                "aliased_import" => (
                    name.child_by_field_name("name").map(|n| self.t(n)).unwrap_or(""),
                    name.child_by_field_name("alias").map(|n| self.t(n)).unwrap_or(""),
                ),
                _ => (self.t(name), self.t(name)),
            };
            let value = if module == "torch" {
                match schema().dtype_by_attr(imported) {
                    Some(d) => Value::new(
                        ValueKind::Dtype { attr: d.attr.clone(), canonical: d.canonical.clone() },
                        span(name),
                    ),
                    None => Value::unknown(format!("`{imported}` from torch is not a dtype"), span(name)),
                }
            } else {
                Value::unknown(format!("`{bound}` is imported from `{module}`"), span(name))
            };
            self.env.insert(bound.to_string(), value);
        }
    }

    fn assignment(&mut self, node: Node) {
        let Some(left) = node.child_by_field_name("left") else { return };
        let Some(right) = node.child_by_field_name("right") else {
            return; // `x: int` binds nothing
        };
        // Chained `a = b = value`: the right side is itself an assignment.
        let value = if right.kind() == "assignment" {
            self.assignment(right);
            match right.child_by_field_name("left") {
                Some(inner) if inner.kind() == "identifier" => self
                    .env
                    .get(self.t(inner))
                    .cloned()
                    .unwrap_or_else(|| Value::unknown("chained assignment", span(right))),
                _ => Value::unknown("chained assignment", span(right)),
            }
        } else {
            self.expr(right)
        };
        if self.model.load_error.is_some() {
            return;
        }
        self.bind(left, value);
    }

    fn bind(&mut self, target: Node, value: Value) {
        match target.kind() {
            "identifier" => {
                let name = self.t(target).to_string();
                if name == "manifest" {
                    self.model.name_span = Some(span(target));
                }
                self.env.insert(name, value);
            }
            "pattern_list" | "tuple_pattern" | "list_pattern" => {
                let mut cursor = target.walk();
                let targets: Vec<Node> = target.named_children(&mut cursor).collect();
                let items = match &value.kind {
                    ValueKind::Tuple(items) | ValueKind::List(items) if items.len() == targets.len() => {
                        Some(items.clone())
                    }
                    _ => None,
                };
                for (i, t) in targets.iter().enumerate() {
                    let v = match &items {
                        Some(items) => items[i].clone(),
                        None => Value::unknown("unpacked from a value not known statically", span(*t)),
                    };
                    self.bind(*t, v);
                }
            }
            "subscript" => self.subscript_assign(target, value),
            _ => {}
        }
    }

    /// `manifest["a"]["b"] = value`: walks the chain of subscripts from the root name.
    fn subscript_assign(&mut self, target: Node, value: Value) {
        let mut keys = Vec::new();
        let mut node = target;
        while node.kind() == "subscript" {
            let Some(index) = node.child_by_field_name("subscript") else { return };
            keys.push(index);
            let Some(inner) = node.child_by_field_name("value") else { return };
            node = inner;
        }
        if node.kind() != "identifier" {
            return;
        }
        let root = self.t(node).to_string();
        keys.reverse();
        let mut key_values = Vec::new();
        for k in &keys {
            let kv = self.expr(*k);
            if self.model.load_error.is_some() {
                return;
            }
            key_values.push(kv);
        }
        if !self.env.contains_key(&root) {
            if !self.bound_before.contains(&root) {
                self.fail(span(node), "NameError", format!("name '{root}' is not defined"));
            }
            return;
        }
        let mut failure = None;
        {
            let Some(mut current) = self.env.get_mut(&root) else { return };
            let last = key_values.len() - 1;
            for (i, key) in key_values.into_iter().enumerate() {
                if key.is_unknown() {
                    if let ValueKind::Dict(d) = &mut current.kind {
                        d.open = true;
                    }
                    break;
                }
                match &mut current.kind {
                    ValueKind::Dict(d) => {
                        if i == last {
                            if let Err(t) = key.hashable() {
                                failure = Some((key.span.clone(), "TypeError", format!("unhashable type: '{t}'")));
                                break;
                            }
                            d.insert(key, value);
                            break;
                        }
                        match d.position(&key) {
                            Some(p) => current = &mut d.entries[p].value,
                            None if d.open => break,
                            None => {
                                failure = Some((key.span.clone(), "KeyError", key.repr()));
                                break;
                            }
                        }
                    }
                    ValueKind::List(items) => {
                        let idx = match key.kind {
                            ValueKind::Int(i) => i,
                            _ => break,
                        };
                        let len = items.len() as i128;
                        let real = if idx < 0 { idx + len } else { idx };
                        if real < 0 || real >= len {
                            failure =
                                Some((key.span.clone(), "IndexError", "list assignment index out of range".into()));
                            break;
                        }
                        if i == last {
                            items[real as usize] = value;
                            break;
                        }
                        current = &mut items[real as usize];
                    }
                    _ => break,
                }
            }
        }
        if let Some((s, e, m)) = failure {
            self.fail(s, e, m);
        }
    }

    fn augmented_assignment(&mut self, node: Node) {
        let (Some(left), Some(right), Some(op)) =
            (node.child_by_field_name("left"), node.child_by_field_name("right"), node.child_by_field_name("operator"))
        else {
            return;
        };
        let current = self.expr(left);
        let rhs = self.expr(right);
        if self.model.load_error.is_some() {
            return;
        }
        let op = self.t(op).trim_end_matches('=').to_string();
        let result = match binary(&op, &current, &rhs, span(node)) {
            Ok(v) => v,
            Err((exception, message)) => {
                self.fail(span(node), exception, message);
                return;
            }
        };
        self.bind(left, result);
    }

    /// Calls as statements: the mutations of `manifest` we understand.
    fn call_statement(&mut self, call: Node) {
        let Some(function) = call.child_by_field_name("function") else { return };
        let args = call.child_by_field_name("arguments");
        if function.kind() == "attribute" {
            let object = function.child_by_field_name("object");
            let method = function.child_by_field_name("attribute").map(|n| self.t(n)).unwrap_or("");
            if let (Some(object), Some(args)) = (object, args) {
                let mut cursor = args.walk();
                let arg_nodes: Vec<Node> = args.named_children(&mut cursor).collect();
                let arg_values: Vec<Value> =
                    arg_nodes.iter().filter(|n| n.kind() != "comment").map(|n| self.expr(*n)).collect();
                if self.model.load_error.is_some() {
                    return;
                }
                if self.mutate(object, method, arg_values, span(call)) {
                    return;
                }
            }
        }
        // Any other call: evaluate it for NameErrors; a call that may change `manifest`
        // makes it uncertain.
        let _ = self.expr(call);
        if self.model.load_error.is_some() {
            return;
        }
        if !mentions_name(call, self.text, "manifest") {
            let callee = self.t(function).to_string();
            if !matches!(callee.as_str(), "print" | "warnings.warn") {
                self.note(
                    span(call),
                    format!("`{callee}(...)` runs when torchcts loads the manifest; its effects are not evaluated statically"),
                );
            }
        }
        if mentions_name(call, self.text, "manifest") {
            if let Some(m) = self.env.get_mut("manifest") {
                if let ValueKind::Dict(d) = &mut m.kind {
                    d.open = true;
                }
            }
            self.note(span(call), "this call may change `manifest`; it is not evaluated statically".to_string());
        }
    }

    /// Applies `obj.method(args)` to a known container; false when not understood.
    fn mutate(&mut self, object: Node, method: &str, args: Vec<Value>, call_span: Span) -> bool {
        // Resolve the object as an lvalue path from a root name.
        let mut keys = Vec::new();
        let mut node = object;
        while node.kind() == "subscript" {
            let Some(index) = node.child_by_field_name("subscript") else { return false };
            keys.push(index);
            let Some(inner) = node.child_by_field_name("value") else { return false };
            node = inner;
        }
        if node.kind() != "identifier" {
            return false;
        }
        keys.reverse();
        let key_values: Vec<Value> = keys.iter().map(|k| self.expr(*k)).collect();
        let root = self.t(node).to_string();
        let Some(mut current) = self.env.get_mut(&root) else { return false };
        for key in &key_values {
            match &mut current.kind {
                ValueKind::Dict(d) => {
                    match d.position(key) {
                        Some(p) => current = &mut d.entries[p].value,
                        None => return false,
                    }
                }
                _ => return false,
            }
        }
        match (&mut current.kind, method) {
            (ValueKind::Dict(d), "update") if args.len() == 1 => {
                match &args[0].kind {
                    ValueKind::Dict(other) => {
                        for e in other.entries.clone() {
                            d.insert(e.key, e.value);
                        }
                        d.open |= other.open;
                    }
                    _ => d.open = true,
                }
                true
            }
            (ValueKind::Dict(d), "setdefault") if !args.is_empty() => {
                if d.position(&args[0]).is_none() {
                    let value = args.get(1).cloned().unwrap_or_else(|| Value::new(ValueKind::None, call_span));
                    d.insert(args[0].clone(), value);
                }
                true
            }
            (ValueKind::Dict(d), "pop") if !args.is_empty() => {
                d.remove(&args[0]);
                true
            }
            (ValueKind::List(items), "append") if args.len() == 1 => {
                items.push(args[0].clone());
                true
            }
            (ValueKind::List(items), "extend") if args.len() == 1 => match &args[0].kind {
                ValueKind::List(more) | ValueKind::Tuple(more) => {
                    items.extend(more.iter().cloned());
                    true
                }
                _ => {
                    let s = current.span.clone();
                    *current = Value::unknown("extended with a value not known statically", s);
                    true
                }
            },
            (ValueKind::List(items), "insert") if args.len() == 2 => {
                if let ValueKind::Int(i) = args[0].kind {
                    let len = items.len() as i128;
                    let at = if i < 0 { (i + len).max(0) } else { i.min(len) } as usize;
                    items.insert(at, args[1].clone());
                    return true;
                }
                false
            }
            (ValueKind::List(items), "remove") if args.len() == 1 => {
                if let Some(p) = items.iter().position(|v| py_eq(v, &args[0]) == Some(true)) {
                    items.remove(p);
                }
                true
            }
            _ => false,
        }
    }

    fn delete(&mut self, node: Node) {
        let mut cursor = node.walk();
        let targets: Vec<Node> = node.named_children(&mut cursor).collect();
        for target in targets {
            if target.kind() == "subscript" {
                if let (Some(obj), Some(key)) =
                    (target.child_by_field_name("value"), target.child_by_field_name("subscript"))
                {
                    let key = self.expr(key);
                    let _ = self.mutate(obj, "pop", vec![key], span(target));
                }
            } else if target.kind() == "identifier" {
                self.env.remove(self.t(target));
            }
        }
    }

    // ---- expressions -------------------------------------------------------------------

    fn expr(&mut self, node: Node) -> Value {
        if self.depth >= MAX_DEPTH {
            return Value::unknown("expression nested too deeply to evaluate", span(node));
        }
        self.depth += 1;
        let value = self.expr_inner(node);
        self.depth -= 1;
        value
    }

    fn expr_inner(&mut self, node: Node) -> Value {
        let s = span(node);
        match node.kind() {
            "string" => self.string(node),
            "concatenated_string" => {
                let mut cursor = node.walk();
                let parts: Vec<Node> = node.named_children(&mut cursor).filter(|n| n.kind() == "string").collect();
                let mut out = String::new();
                let mut bytes: Option<Vec<u8>> = None;
                for part in parts {
                    match self.string(part).kind {
                        ValueKind::Str(p) => out.push_str(&p),
                        ValueKind::Bytes(b) => bytes.get_or_insert_with(Vec::new).extend(b),
                        ValueKind::Unknown(why) => return Value::unknown(why, s),
                        _ => {}
                    }
                }
                match bytes {
                    Some(b) if out.is_empty() => Value::new(ValueKind::Bytes(b), s),
                    Some(_) => Value::unknown("cannot mix bytes and str literals", s),
                    None => Value::new(ValueKind::Str(out), s),
                }
            }
            "integer" => parse_int(self.t(node), s),
            "float" => parse_float(self.t(node), s),
            "true" => Value::new(ValueKind::Bool(true), s),
            "false" => Value::new(ValueKind::Bool(false), s),
            "none" => Value::new(ValueKind::None, s),
            "identifier" => self.name(node),
            "parenthesized_expression" => match first_named(node) {
                Some(inner) => {
                    let mut v = self.expr(inner);
                    v.span = s;
                    v
                }
                None => Value::new(ValueKind::Tuple(vec![]), s),
            },
            "list" | "tuple" | "expression_list" => {
                let mut items = Vec::new();
                let mut cursor = node.walk();
                let children: Vec<Node> = node.named_children(&mut cursor).collect();
                for child in children {
                    match child.kind() {
                        "comment" => {}
                        "list_splat" => {
                            let Some(inner) = first_named(child) else { continue };
                            let v = self.expr(inner);
                            match v.kind {
                                ValueKind::List(more) | ValueKind::Tuple(more) => items.extend(more),
                                _ => return Value::unknown("`*` unpacking of a value not known statically", s),
                            }
                        }
                        _ => items.push(self.expr(child)),
                    }
                }
                if node.kind() == "list" {
                    Value::new(ValueKind::List(items), s)
                } else {
                    Value::new(ValueKind::Tuple(items), s)
                }
            }
            "dictionary" => self.dictionary(node),
            "attribute" => self.attribute(node),
            "subscript" => self.subscript(node),
            "unary_operator" => {
                let (Some(op), Some(arg)) =
                    (node.child_by_field_name("operator"), node.child_by_field_name("argument"))
                else {
                    return Value::unknown("incomplete expression", s);
                };
                let v = self.expr(arg);
                match (self.t(op), &v.kind) {
                    ("-", ValueKind::Int(i)) => Value::new(ValueKind::Int(-i), s),
                    ("-", ValueKind::Float(f)) => Value::new(ValueKind::Float(-f), s),
                    ("-", ValueKind::Bool(b)) => Value::new(ValueKind::Int(-(*b as i128)), s),
                    ("+", ValueKind::Int(_) | ValueKind::Float(_)) => Value::new(v.kind, s),
                    ("+", ValueKind::Bool(b)) => Value::new(ValueKind::Int(*b as i128), s),
                    ("~", ValueKind::Int(i)) => Value::new(ValueKind::Int(!i), s),
                    ("~", ValueKind::Bool(b)) => Value::new(ValueKind::Int(!(*b as i128)), s),
                    (op @ ("-" | "+" | "~"), kind) if !matches!(kind, ValueKind::Unknown(_)) => {
                        let type_name = if matches!(kind, ValueKind::Dtype { .. }) { "torch.dtype" } else { v.type_name() };
                        let message = format!("bad operand type for unary {op}: '{type_name}'");
                        self.fail(s.clone(), "TypeError", message);
                        Value::unknown("raises TypeError", s)
                    }
                    _ => Value::unknown(format!("`{}` is not evaluated statically", self.t(node)), s),
                }
            }
            "not_operator" => {
                let v = node.child_by_field_name("argument").map(|a| self.expr(a));
                match v.and_then(|v| v.truthy()) {
                    Some(b) => Value::new(ValueKind::Bool(!b), s),
                    None => Value::unknown("`not` of a value not known statically", s),
                }
            }
            "boolean_operator" => {
                let (Some(l), Some(r), Some(op)) = (
                    node.child_by_field_name("left"),
                    node.child_by_field_name("right"),
                    node.child_by_field_name("operator"),
                ) else {
                    return Value::unknown("incomplete expression", s);
                };
                let left = self.expr(l);
                let is_and = self.t(op) == "and";
                match left.truthy() {
                    Some(t) if t == is_and => self.expr(r),
                    Some(_) => left,
                    None => Value::unknown("boolean expression of a value not known statically", s),
                }
            }
            "conditional_expression" => {
                let mut cursor = node.walk();
                let parts: Vec<Node> = node.named_children(&mut cursor).collect();
                if parts.len() != 3 {
                    return Value::unknown("incomplete conditional expression", s);
                }
                match self.expr(parts[1]).truthy() {
                    Some(true) => self.expr(parts[0]),
                    Some(false) => self.expr(parts[2]),
                    None => Value::unknown("conditional expression whose condition is not known statically", s),
                }
            }
            "binary_operator" => {
                let (Some(l), Some(r), Some(op)) = (
                    node.child_by_field_name("left"),
                    node.child_by_field_name("right"),
                    node.child_by_field_name("operator"),
                ) else {
                    return Value::unknown("incomplete expression", s);
                };
                let left = self.expr(l);
                let right = self.expr(r);
                let op = self.t(op).to_string();
                match binary(&op, &left, &right, s.clone()) {
                    Ok(v) => v,
                    Err((exception, message)) => {
                        self.fail(s.clone(), exception, message);
                        Value::unknown("raises", s)
                    }
                }
            }
            "call" => self.call(node),
            "ERROR" => Value::unknown("syntax error", s),
            kind => {
                // Still look inside for names that do not exist (NameError at load time).
                self.scan_names(node);
                Value::unknown(format!("{} expressions are not evaluated statically", kind.replace('_', " ")), s)
            }
        }
    }

    /// Reports a NameError for the first undefined name used inside `node`.
    fn scan_names(&mut self, node: Node) {
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
                    .and_then(|p| p.child_by_field_name("attribute"))
                    .map(|a| a.id() == n.id())
                    .unwrap_or(false);
                let is_kwarg_name = parent_kind == "keyword_argument"
                    && parent.and_then(|p| p.child_by_field_name("name")).map(|a| a.id() == n.id()).unwrap_or(false);
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
            let children: Vec<Node> = n.named_children(&mut cursor).collect();
            for child in children.into_iter().rev() {
                stack.push((child, Some(n)));
            }
        }
    }

    fn name(&mut self, node: Node) -> Value {
        let name = self.t(node);
        let s = span(node);
        if let Some(v) = self.env.get(name) {
            let mut v = v.clone();
            v.span = s;
            return v;
        }
        if self.bound_before.contains(name) {
            return Value::unknown(format!("`{name}` is assigned in code that is not evaluated statically"), s);
        }
        if PYTHON_BUILTINS.contains(&name) {
            return Value::unknown(format!("`{name}` is a Python builtin"), s);
        }
        self.fail(s.clone(), "NameError", format!("name '{name}' is not defined"));
        Value::unknown(format!("`{name}` is not defined"), s)
    }

    fn attribute(&mut self, node: Node) -> Value {
        let s = span(node);
        let (Some(object), Some(attr)) = (node.child_by_field_name("object"), node.child_by_field_name("attribute"))
        else {
            return Value::unknown("incomplete attribute", s);
        };
        let base = self.expr(object);
        let attr = self.t(attr);
        match &base.kind {
            ValueKind::Module(m) if m == "torch" => match schema().dtype_by_attr(attr) {
                Some(d) => Value::new(ValueKind::Dtype { attr: d.attr.clone(), canonical: d.canonical.clone() }, s),
                None if schema().torch_attributes.iter().any(|a| a == attr) => {
                    Value::unknown(format!("`torch.{attr}` is not a dtype"), s)
                }
                None => {
                    self.fail(s.clone(), "AttributeError", format!("module 'torch' has no attribute '{attr}'"));
                    Value::unknown(format!("torch {} has no attribute `{attr}`", schema().torch_version), s)
                }
            },
            ValueKind::Module(m) => Value::unknown(format!("`{m}.{attr}` is not evaluated statically"), s),
            ValueKind::Unknown(_) => Value::unknown(format!("`{}` is not known statically", self.t(node)), s),
            _ => Value::unknown(format!("attribute `{attr}` is not evaluated statically"), s),
        }
    }

    fn subscript(&mut self, node: Node) -> Value {
        let s = span(node);
        let (Some(obj), Some(index)) = (node.child_by_field_name("value"), node.child_by_field_name("subscript"))
        else {
            return Value::unknown("incomplete subscript", s);
        };
        let base = self.expr(obj);
        let key = self.expr(index);
        match (&base.kind, &key.kind) {
            (ValueKind::Dict(d), _) if !key.is_unknown() => {
                match d.entries.iter().find(|e| py_eq(&e.key, &key) == Some(true)) {
                    Some(e) => e.value.clone(),
                    None if d.open => Value::unknown("key of a dict that is not fully known", s),
                    None => {
                        self.fail(key.span.clone(), "KeyError", key.repr());
                        Value::unknown("missing key", s)
                    }
                }
            }
            (ValueKind::List(items) | ValueKind::Tuple(items), ValueKind::Int(i)) => {
                let len = items.len() as i128;
                let real = if *i < 0 { i + len } else { *i };
                if real >= 0 && real < len {
                    items[real as usize].clone()
                } else {
                    Value::unknown("index out of range", s)
                }
            }
            _ => Value::unknown(format!("`{}` is not evaluated statically", self.t(node)), s),
        }
    }

    fn call(&mut self, node: Node) -> Value {
        let s = span(node);
        let function = node.child_by_field_name("function");
        let fname = function.map(|f| self.t(f)).unwrap_or("");
        // Evaluate arguments for NameErrors whatever the callee.
        self.scan_names(node);
        if self.model.load_error.is_some() {
            return Value::unknown("call", s);
        }
        if let Some(v) = self.builtin_call(node, fname) {
            return v;
        }
        if fname == "dict" && !self.env.contains_key("dict") {
            if let Some(args) = node.child_by_field_name("arguments") {
                let mut d = Dict::default();
                let mut cursor = args.walk();
                let children: Vec<Node> = args.named_children(&mut cursor).collect();
                for child in children {
                    match child.kind() {
                        "keyword_argument" => {
                            let (Some(k), Some(v)) =
                                (child.child_by_field_name("name"), child.child_by_field_name("value"))
                            else {
                                continue;
                            };
                            let key = Value::new(ValueKind::Str(self.t(k).to_string()), span(k));
                            let value = self.expr(v);
                            d.insert(key, value);
                        }
                        "comment" => {}
                        _ => {
                            let v = self.expr(child);
                            match v.kind {
                                ValueKind::Dict(other) if d.entries.is_empty() => d = other,
                                _ => return Value::unknown("`dict(...)` of a value not known statically", s),
                            }
                        }
                    }
                }
                return Value::new(ValueKind::Dict(d), s);
            }
        }
        Value::unknown(
            format!("the call `{}(...)` is not evaluated statically", fname.chars().take(40).collect::<String>()),
            s,
        )
    }

    /// `float("nan")`, `int("4")`, `str(x)`, `len(x)`, `list(x)`, `tuple(x)`, `sorted(x)`
    /// and `bool(x)` on known arguments (unless the name was rebound).
    fn builtin_call(&mut self, node: Node, fname: &str) -> Option<Value> {
        if !matches!(fname, "float" | "int" | "str" | "bool" | "len" | "list" | "tuple" | "sorted")
            || self.env.contains_key(fname)
            || self.bound_before.contains(fname)
        {
            return None;
        }
        let s = span(node);
        let args = node.child_by_field_name("arguments")?;
        let mut cursor = args.walk();
        let arg_nodes: Vec<Node> = args.named_children(&mut cursor).filter(|n| n.kind() != "comment").collect();
        if arg_nodes.iter().any(|a| a.kind() == "keyword_argument" || a.kind().ends_with("splat"))
            || arg_nodes.len() > 1
        {
            return None;
        }
        let arg = match arg_nodes.first() {
            Some(a) => self.expr(*a),
            None => {
                return Some(Value::new(
                    match fname {
                        "float" => ValueKind::Float(0.0),
                        "int" => ValueKind::Int(0),
                        "str" => ValueKind::Str(String::new()),
                        "bool" => ValueKind::Bool(false),
                        "list" => ValueKind::List(vec![]),
                        "tuple" => ValueKind::Tuple(vec![]),
                        _ => return None,
                    },
                    s,
                ))
            }
        };
        if arg.contains_unknown() {
            return None;
        }
        let items = |v: &Value| -> Option<Vec<Value>> {
            match &v.kind {
                ValueKind::List(i) | ValueKind::Tuple(i) => Some(i.clone()),
                ValueKind::Str(t) => {
                    Some(t.chars().map(|c| Value::new(ValueKind::Str(c.to_string()), v.span.clone())).collect())
                }
                ValueKind::Dict(d) => Some(d.entries.iter().map(|e| e.key.clone()).collect()),
                _ => None,
            }
        };
        let kind = match fname {
            "float" => match &arg.kind {
                ValueKind::Str(t) => {
                    let t = crate::schema::python_strip(t).to_ascii_lowercase().replace('_', "");
                    let parsed = match t.as_str() {
                        "nan" | "+nan" | "-nan" => Some(f64::NAN),
                        "inf" | "+inf" | "infinity" | "+infinity" => Some(f64::INFINITY),
                        "-inf" | "-infinity" => Some(f64::NEG_INFINITY),
                        _ => t.parse::<f64>().ok(),
                    };
                    match parsed {
                        Some(f) => ValueKind::Float(f),
                        None => {
                            self.fail(
                                s.clone(),
                                "ValueError",
                                format!("could not convert string to float: {}", arg.repr()),
                            );
                            return Some(Value::unknown("raises", s));
                        }
                    }
                }
                _ => ValueKind::Float(arg.as_number()?),
            },
            "int" => match &arg.kind {
                ValueKind::Float(f) if f.is_finite() => ValueKind::Int(f.trunc() as i128),
                ValueKind::Int(i) => ValueKind::Int(*i),
                ValueKind::Bool(b) => ValueKind::Int(*b as i128),
                ValueKind::Str(t) => ValueKind::Int(crate::schema::python_strip(t).replace('_', "").parse().ok()?),
                _ => return None,
            },
            "str" => ValueKind::Str(arg.py_str()),
            "bool" => ValueKind::Bool(arg.truthy()?),
            "len" => ValueKind::Int(items(&arg)?.len() as i128),
            "list" => ValueKind::List(items(&arg)?),
            "tuple" => ValueKind::Tuple(items(&arg)?),
            "sorted" => {
                let mut v = items(&arg)?;
                if v.iter().all(|x| x.as_str().is_some()) {
                    v.sort_by(|a, b| a.as_str().cmp(&b.as_str()));
                } else if v.iter().all(|x| x.as_number().is_some()) {
                    v.sort_by(|a, b| a.as_number().partial_cmp(&b.as_number()).unwrap_or(std::cmp::Ordering::Equal));
                } else {
                    return None;
                }
                ValueKind::List(v)
            }
            _ => return None,
        };
        Some(Value::new(kind, s))
    }

    /// Adds one `pair` or `**splat` of a dict literal to `d`; false when loading would raise.
    fn dict_entry(&mut self, child: Node, d: &mut Dict) -> bool {
        match child.kind() {
            "pair" => {
                let (Some(k), Some(v)) = (child.child_by_field_name("key"), child.child_by_field_name("value")) else {
                    return true;
                };
                let key = self.expr(k);
                // A pair that swallowed a syntax error may have the wrong value.
                let value = if child.has_error() {
                    d.open = true;
                    Value::unknown("syntax error in this entry", span(v))
                } else {
                    self.expr(v)
                };
                if self.model.load_error.is_some() {
                    return false;
                }
                if let Err(t) = key.hashable() {
                    self.fail(key.span.clone(), "TypeError", format!("unhashable type: '{t}'"));
                    return false;
                }
                if key.is_unknown() {
                    if let ValueKind::Unknown(why) = &key.kind {
                        let why = why.clone();
                        self.note(key.span.clone(), format!("This key is not known statically: {why}"));
                    }
                    d.open = true;
                    return true;
                }
                if let ValueKind::Unknown(why) = &value.kind {
                    if !why.contains("not defined") && !why.starts_with("syntax error") {
                        self.note(value.span.clone(), format!("Not evaluated statically: {why}"));
                    }
                }
                d.insert(key, value);
            }
            "dictionary_splat" => {
                let Some(inner) = first_named(child) else { return true };
                let v = self.expr(inner);
                match v.kind {
                    ValueKind::Dict(other) => {
                        for e in other.entries {
                            d.insert(e.key, e.value);
                        }
                        d.open |= other.open;
                    }
                    ValueKind::Unknown(why) => {
                        self.note(span(child), format!("Keys from this `**` are not known statically: {why}"));
                        d.open = true;
                    }
                    _ => {
                        self.fail(span(inner), "TypeError", format!("'{}' object is not a mapping", v.type_name()));
                        return false;
                    }
                }
            }
            "comment" => {}
            _ => {
                // A `{a, b}` set or a malformed entry inside an ERROR.
            }
        }
        true
    }

    fn dictionary(&mut self, node: Node) -> Value {
        let s = span(node);
        let mut d = Dict::default();
        let mut cursor = node.walk();
        let children: Vec<Node> = node.named_children(&mut cursor).collect();
        for child in children {
            if !self.dict_entry(child, &mut d) {
                return Value::unknown("load error", s);
            }
        }
        // Entries lost in a syntax error may hold any key.
        if node.has_error() {
            d.open = true;
        }
        Value::new(ValueKind::Dict(d), s)
    }

    fn string(&mut self, node: Node) -> Value {
        let s = span(node);
        let mut cursor = node.walk();
        let has_interpolation = node.named_children(&mut cursor).any(|c| c.kind() == "interpolation");
        if has_interpolation {
            self.scan_names(node);
            return Value::unknown("f-strings with replacement fields are not evaluated statically", s);
        }
        decode_string_literal(self.t(node), s)
    }
}

/// Decodes one Python string literal (prefix, quotes and body) into its value.
pub fn decode_string_literal(literal: &str, s: Span) -> Value {
    let prefix_len = literal.find(['\'', '"']).unwrap_or(0);
    let prefix = literal[..prefix_len].to_ascii_lowercase();
    let body_with_quotes = &literal[prefix_len..];
    let quote_len = if body_with_quotes.starts_with("'''") || body_with_quotes.starts_with("\"\"\"") { 3 } else { 1 };
    if body_with_quotes.len() < 2 * quote_len {
        return Value::unknown("unterminated string", s);
    }
    let body = &body_with_quotes[quote_len..body_with_quotes.len() - quote_len];
    let raw = prefix.contains('r');
    let is_bytes = prefix.contains('b');
    let is_f = prefix.contains('f');
    // Python normalises newlines inside literals to \n.
    let body = body.replace("\r\n", "\n").replace('\r', "\n");
    let mut decoded = if raw {
        body.clone()
    } else {
        match decode_escapes(&body, is_bytes) {
            Some(d) => d,
            None => return Value::unknown("a `\\N{...}` escape the server does not know", s),
        }
    };
    if is_f {
        decoded = decoded.replace("{{", "{").replace("}}", "}");
    }
    if is_bytes {
        Value::new(ValueKind::Bytes(decoded.chars().map(|c| c as u32 as u8).collect()), s)
    } else {
        Value::new(ValueKind::Str(decoded), s)
    }
}

fn decode_escapes(body: &str, is_bytes: bool) -> Option<String> {
    let mut out = String::with_capacity(body.len());
    let mut chars = body.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        let Some(e) = chars.next() else {
            out.push('\\');
            break;
        };
        match e {
            '\n' => {}
            '\\' => out.push('\\'),
            '\'' => out.push('\''),
            '"' => out.push('"'),
            'a' => out.push('\u{7}'),
            'b' => out.push('\u{8}'),
            'f' => out.push('\u{c}'),
            'n' => out.push('\n'),
            'r' => out.push('\r'),
            't' => out.push('\t'),
            'v' => out.push('\u{b}'),
            '0'..='7' => {
                let mut value = e.to_digit(8).unwrap_or(0);
                for _ in 0..2 {
                    match chars.peek().and_then(|d| d.to_digit(8)) {
                        Some(d) => {
                            value = value * 8 + d;
                            chars.next();
                        }
                        None => break,
                    }
                }
                out.push(char::from_u32(value).unwrap_or('\u{fffd}'));
            }
            'x' | 'u' | 'U' if e == 'x' || !is_bytes => {
                let n = match e {
                    'x' => 2,
                    'u' => 4,
                    _ => 8,
                };
                let hex: String = (0..n).filter_map(|_| chars.next()).collect();
                let value = u32::from_str_radix(&hex, 16).ok()?;
                out.push(char::from_u32(value)?);
            }
            'N' if !is_bytes => {
                // Named escapes need the Unicode name table; only a few common ones here.
                if chars.next() != Some('{') {
                    return None;
                }
                let name: String = chars.by_ref().take_while(|&c| c != '}').collect();
                out.push(crate::syntax::unicode_character_named(&name)?);
            }
            other => {
                // Unknown escapes keep the backslash (a DeprecationWarning in 3.11).
                out.push('\\');
                out.push(other);
            }
        }
    }
    Some(out)
}

fn parse_int(literal: &str, s: Span) -> Value {
    let clean: String = literal.chars().filter(|&c| c != '_').collect();
    let lower = clean.to_ascii_lowercase();
    let parsed = if let Some(h) = lower.strip_prefix("0x") {
        i128::from_str_radix(h, 16).ok()
    } else if let Some(o) = lower.strip_prefix("0o") {
        i128::from_str_radix(o, 8).ok()
    } else if let Some(b) = lower.strip_prefix("0b") {
        i128::from_str_radix(b, 2).ok()
    } else {
        lower.parse::<i128>().ok()
    };
    match parsed {
        Some(i) => Value::new(ValueKind::Int(i), s),
        None => Value::unknown("integer literal too large to evaluate", s),
    }
}

fn parse_float(literal: &str, s: Span) -> Value {
    let clean: String = literal.chars().filter(|&c| c != '_').collect();
    if clean.ends_with(['j', 'J']) {
        return Value::unknown("complex numbers are not evaluated statically", s);
    }
    match clean.parse::<f64>() {
        Ok(f) => Value::new(ValueKind::Float(f), s),
        Err(_) => Value::unknown("float literal the server cannot read", s),
    }
}

/// Python binary operators on known operands; unknown otherwise.
fn binary(op: &str, left: &Value, right: &Value, s: Span) -> Result<Value, (&'static str, String)> {
    use ValueKind::*;
    let zero_division = |float: bool| -> Result<Value, (&'static str, String)> {
        let message = match (op, float) {
            ("/", false) => "division by zero",
            ("/", true) => "float division by zero",
            ("%", true) => "float modulo",
            ("//", true) => "float floor division by zero",
            _ => "integer division or modulo by zero",
        };
        Err(("ZeroDivisionError", message.to_string()))
    };
    if matches!(op, "/" | "//" | "%") && right.as_number() == Some(0.0) && left.as_number().is_some() {
        let float = matches!(left.kind, Float(_)) || matches!(right.kind, Float(_));
        return zero_division(float);
    }
    Ok(binary_value(op, left, right, s))
}

fn binary_value(op: &str, left: &Value, right: &Value, s: Span) -> Value {
    use ValueKind::*;
    let unknown = || Value::unknown(format!("`{op}` on these operands is not evaluated statically"), s.clone());
    let int_of = |v: &Value| match v.kind {
        Int(i) => Some(i),
        Bool(b) => Some(b as i128),
        _ => Option::None,
    };
    match (&left.kind, &right.kind) {
        (Str(a), Str(b)) if op == "+" => Value::new(Str(format!("{a}{b}")), s),
        (Bytes(a), Bytes(b)) if op == "+" => Value::new(Bytes([a.clone(), b.clone()].concat()), s),
        (List(a), List(b)) if op == "+" => Value::new(List([a.clone(), b.clone()].concat()), s),
        (Tuple(a), Tuple(b)) if op == "+" => Value::new(Tuple([a.clone(), b.clone()].concat()), s),
        (Dict(a), Dict(b)) if op == "|" => {
            let mut d = a.clone();
            for e in b.entries.clone() {
                d.insert(e.key, e.value);
            }
            d.open |= b.open;
            Value::new(Dict(d), s)
        }
        (Str(a), _) | (_, Str(a)) if op == "*" => {
            let n = int_of(right).or_else(|| int_of(left));
            match n {
                Some(n) if n <= 10_000 => Value::new(Str(a.repeat(n.max(0) as usize)), s),
                _ => unknown(),
            }
        }
        (List(a), _) if op == "*" => match int_of(right) {
            Some(n) if n <= 10_000 && a.len() * (n.max(0) as usize) <= 100_000 => {
                Value::new(List(a.iter().cloned().cycle().take(a.len() * n.max(0) as usize).collect()), s)
            }
            _ => unknown(),
        },
        _ => {
            if let (Some(a), Some(b)) = (int_of(left), int_of(right)) {
                let r = match op {
                    "+" => a.checked_add(b),
                    "-" => a.checked_sub(b),
                    "*" => a.checked_mul(b),
                    "//" if b != 0 => Some(a.div_euclid(b) - if (a.rem_euclid(b) != 0) && (b < 0) { 1 } else { 0 }),
                    "%" if b != 0 => Some(((a % b) + b) % b),
                    "**" if (0..=126).contains(&b) => a.checked_pow(b as u32),
                    "<<" if (0..=126).contains(&b) => a.checked_shl(b as u32),
                    ">>" if b >= 0 => Some(a >> b.min(127)),
                    "|" => Some(a | b),
                    "&" => Some(a & b),
                    "^" => Some(a ^ b),
                    "/" if b != 0 => return Value::new(Float(a as f64 / b as f64), s),
                    _ => Option::None,
                };
                return match r {
                    Some(r) => Value::new(Int(r), s),
                    Option::None => unknown(),
                };
            }
            if let (Some(a), Some(b)) = (left.as_number(), right.as_number()) {
                let r = match op {
                    "+" => a + b,
                    "-" => a - b,
                    "*" => a * b,
                    "/" if b != 0.0 => a / b,
                    "**" => a.powf(b),
                    _ => return unknown(),
                };
                return Value::new(Float(r), s);
            }
            unknown()
        }
    }
}

fn first_named(node: Node) -> Option<Node> {
    let mut cursor = node.walk();
    let found = node.named_children(&mut cursor).find(|c| c.kind() != "comment");
    found
}

fn first_line_span(node: Node, text: &str) -> Span {
    let start = node.start_byte();
    let end = text[start..node.end_byte()].find(['\n', '\r']).map(|i| start + i).unwrap_or(node.end_byte());
    start..end
}

/// Whether the identifier `name` appears anywhere inside `node`.
fn mentions_name(node: Node, text: &str, name: &str) -> bool {
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
fn collect_bound_names(node: Node, text: &str, out: &mut HashSet<String>) {
    let mut stack = vec![node];
    while let Some(n) = stack.pop() {
        match n.kind() {
            "function_definition" | "class_definition" => {
                if let Some(name) = n.child_by_field_name("name") {
                    out.insert(node_text(name, text).to_string());
                }
                continue;
            }
            "assignment" | "augmented_assignment" | "for_statement" | "for_in_clause" => {
                if let Some(left) = n.child_by_field_name("left") {
                    collect_target_names(left, text, out);
                }
            }
            "named_expression" => {
                if let Some(name) = n.child_by_field_name("name") {
                    out.insert(node_text(name, text).to_string());
                }
            }
            "as_pattern" | "with_item" | "except_clause" => {
                if let Some(alias) = n.child_by_field_name("alias") {
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
                        "aliased_import" => c.child_by_field_name("alias").map(|a| node_text(a, text).to_string()),
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
        let mut cursor = n.walk();
        stack.extend(n.named_children(&mut cursor));
    }
}

fn collect_target_names(target: Node, text: &str, out: &mut HashSet<String>) {
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

/// Names bound by comprehensions and lambdas inside an expression.
fn collect_local_bindings(node: Node, text: &str, out: &mut HashSet<String>) {
    let mut stack = vec![node];
    while let Some(n) = stack.pop() {
        match n.kind() {
            "for_in_clause" => {
                if let Some(left) = n.child_by_field_name("left") {
                    collect_target_names(left, text, out);
                }
            }
            "lambda_parameters" | "parameters" => collect_target_names(n, text, out),
            _ => {}
        }
        let mut cursor = n.walk();
        stack.extend(n.named_children(&mut cursor));
    }
}

/// Standard-library modules a manifest may import without risk of ImportError.
const STDLIB_MODULES: &[&str] = &[
    "os",
    "sys",
    "re",
    "math",
    "pathlib",
    "platform",
    "json",
    "typing",
    "warnings",
    "functools",
    "itertools",
    "collections",
    "copy",
    "enum",
    "dataclasses",
    "__future__",
    "shutil",
    "subprocess",
];

/// `dir(builtins)` of CPython 3.11, plus module dunders.
const PYTHON_BUILTINS: &[&str] = &[
    "ArithmeticError",
    "AssertionError",
    "AttributeError",
    "BaseException",
    "BaseExceptionGroup",
    "BlockingIOError",
    "BrokenPipeError",
    "BufferError",
    "BytesWarning",
    "ChildProcessError",
    "ConnectionAbortedError",
    "ConnectionError",
    "ConnectionRefusedError",
    "ConnectionResetError",
    "DeprecationWarning",
    "EOFError",
    "Ellipsis",
    "EncodingWarning",
    "EnvironmentError",
    "Exception",
    "ExceptionGroup",
    "False",
    "FileExistsError",
    "FileNotFoundError",
    "FloatingPointError",
    "FutureWarning",
    "GeneratorExit",
    "IOError",
    "ImportError",
    "ImportWarning",
    "IndentationError",
    "IndexError",
    "InterruptedError",
    "IsADirectoryError",
    "KeyError",
    "KeyboardInterrupt",
    "LookupError",
    "MemoryError",
    "ModuleNotFoundError",
    "NameError",
    "None",
    "NotADirectoryError",
    "NotImplemented",
    "NotImplementedError",
    "OSError",
    "OverflowError",
    "PendingDeprecationWarning",
    "PermissionError",
    "ProcessLookupError",
    "RecursionError",
    "ReferenceError",
    "ResourceWarning",
    "RuntimeError",
    "RuntimeWarning",
    "StopAsyncIteration",
    "StopIteration",
    "SyntaxError",
    "SyntaxWarning",
    "SystemError",
    "SystemExit",
    "TabError",
    "TimeoutError",
    "True",
    "TypeError",
    "UnboundLocalError",
    "UnicodeDecodeError",
    "UnicodeEncodeError",
    "UnicodeError",
    "UnicodeTranslateError",
    "UnicodeWarning",
    "UserWarning",
    "ValueError",
    "Warning",
    "ZeroDivisionError",
    "__build_class__",
    "__debug__",
    "__doc__",
    "__import__",
    "__loader__",
    "__name__",
    "__package__",
    "__spec__",
    "__file__",
    "__builtins__",
    "__cached__",
    "abs",
    "aiter",
    "all",
    "anext",
    "any",
    "ascii",
    "bin",
    "bool",
    "breakpoint",
    "bytearray",
    "bytes",
    "callable",
    "chr",
    "classmethod",
    "compile",
    "complex",
    "copyright",
    "credits",
    "delattr",
    "dict",
    "dir",
    "divmod",
    "enumerate",
    "eval",
    "exec",
    "exit",
    "filter",
    "float",
    "format",
    "frozenset",
    "getattr",
    "globals",
    "hasattr",
    "hash",
    "help",
    "hex",
    "id",
    "input",
    "int",
    "isinstance",
    "issubclass",
    "iter",
    "len",
    "license",
    "list",
    "locals",
    "map",
    "max",
    "memoryview",
    "min",
    "next",
    "object",
    "oct",
    "open",
    "ord",
    "pow",
    "print",
    "property",
    "quit",
    "range",
    "repr",
    "reversed",
    "round",
    "set",
    "setattr",
    "slice",
    "sorted",
    "staticmethod",
    "str",
    "sum",
    "super",
    "tuple",
    "type",
    "vars",
    "zip",
];

#[cfg(test)]
mod tests {
    use super::*;
    use crate::syntax::parse;

    fn eval(text: &str) -> ManifestModel {
        evaluate(&parse(text, None), text)
    }

    fn manifest(text: &str) -> Dict {
        eval(text).manifest.and_then(|v| v.as_dict().cloned()).expect("manifest dict")
    }

    #[test]
    fn literals_strings_and_dtypes() {
        let d = manifest(concat!(
            "import torch\n",
            "A = r'^(add|mul)$'\n",
            "manifest = {'s': 'a' 'b' + \"c\", 'r': A, 'd': {torch.half: True, 'float32': 1.5e-5}, 'n': None, 'i': 0x10, 't': (1,)}\n",
        ));
        assert_eq!(d.get("s").unwrap().value.repr(), "'abc'");
        assert_eq!(d.get("r").unwrap().value.repr(), "'^(add|mul)$'");
        assert_eq!(d.get("d").unwrap().value.repr(), "{torch.float16: True, 'float32': 1.5e-05}");
        assert_eq!(d.get("i").unwrap().value.repr(), "16");
        assert_eq!(d.get("t").unwrap().value.repr(), "(1,)");
    }

    #[test]
    fn duplicate_keys_keep_first_position_and_last_value() {
        let d = manifest("manifest = {'a': 1, 'b': 2, 'a': 3, 1: 'x', True: 'y'}\n");
        let reprs: Vec<String> = d.entries.iter().map(|e| format!("{}={}", e.key.repr(), e.value.repr())).collect();
        assert_eq!(reprs, vec!["'a'=3", "'b'=2", "1='y'"]);
        assert_eq!(d.get("a").unwrap().overridden.len(), 1);
    }

    #[test]
    fn splat_and_later_assignments() {
        let d = manifest(concat!(
            "BASE = {'device_name': 'cpu', 'skip_ops': ['a']}\n",
            "manifest = {**BASE, 'manifest_version': 1}\n",
            "manifest['semantic_level'] = 4\n",
            "manifest['skip_ops'].append('b')\n",
            "manifest.update({'device_name': 'cuda'})\n",
        ));
        assert_eq!(d.get("device_name").unwrap().value.repr(), "'cuda'");
        assert_eq!(d.get("semantic_level").unwrap().value.repr(), "4");
        assert_eq!(d.get("skip_ops").unwrap().value.repr(), "['a', 'b']");
    }

    #[test]
    fn undefined_name_is_a_load_error() {
        let m = eval("import torch\nmanifest = {'a': torch.float32, 'b': undefined_thing}\n");
        assert_eq!(m.load_error.unwrap().message, "name 'undefined_thing' is not defined");
    }

    #[test]
    fn calls_are_unknown_not_guessed() {
        let m = eval("import os\nmanifest = {'device_name': os.environ.get('DEV', 'cpu')}\n");
        assert!(m.load_error.is_none());
        let d = m.manifest.unwrap();
        assert!(d.as_dict().unwrap().get("device_name").unwrap().value.is_unknown());
        assert!(!m.notes.is_empty());
    }

    #[test]
    fn unhashable_key_is_a_type_error() {
        let m = eval("manifest = {['a']: 1}\n");
        assert_eq!(m.load_error.unwrap().message, "unhashable type: 'list'");
    }

    #[test]
    fn deep_nesting_does_not_overflow() {
        let text = format!("manifest = {}1{}\n", "[".repeat(5000), "]".repeat(5000));
        let m = eval(&text);
        assert!(m.manifest.is_some());
    }
}
