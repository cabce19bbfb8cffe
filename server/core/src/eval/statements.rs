//! The interpreter's statements: assignments (also to `manifest[...]`), imports, the
//! `.update(...)`-style mutations of known containers, `del`, and blocks left unevaluated.

use super::builtins::STDLIB_MODULES;
use super::names::{collect_bound_names, mentions_name};
use super::operators::binary;
use super::{first_line_span, span, Evaluator};
use crate::fields::{Field, FieldChild};
use crate::schema::schema;
use crate::value::{py_eq, Dict, Span, Value, ValueKind};
use std::collections::HashSet;
use tree_sitter::Node;

impl Evaluator<'_> {
    pub(super) fn statement(&mut self, node: Node) {
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
            // Only `annotations` changes what evaluation sees (annotations stay text).
            "future_import_statement" => {
                let mut cursor = node.walk();
                let names: Vec<Node> = node.children_by_field_name("name", &mut cursor).collect();
                for name in names {
                    let imported = if name.kind() == "aliased_import" { name.field(Field::Name) } else { Some(name) };
                    self.future_annotations |= imported.is_some_and(|n| self.t(n) == "annotations");
                }
            }
            "comment" | "pass_statement" => {}
            "ERROR" => {
                // `manifest = {` with entries, broken by the text being typed.
                if let Some((name, pairs)) = crate::syntax::recovered_manifest_pairs(node, self.text) {
                    let mut d = Dict { open: true, ..Dict::default() };
                    for (index, pair) in pairs.into_iter().enumerate() {
                        if self.given_up(index) {
                            return;
                        }
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
                    if self.import_fails(name, full) {
                        return;
                    }
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
                    let module = name.field(Field::Name).map(|n| self.t(n)).unwrap_or("");
                    if self.import_fails(name, module) {
                        return;
                    }
                    if let Some(alias) = name.field(Field::Alias) {
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

    /// `ModuleNotFoundError` where the module is certainly missing (see
    /// [`super::modules`]); true when loading stops there.
    fn import_fails(&mut self, node: Node, module: &str) -> bool {
        let Some(missing) = self.importable.and_then(|m| m.certainly_missing(module)) else { return false };
        self.fail(span(node), "ModuleNotFoundError", format!("No module named '{missing}'"));
        true
    }

    fn import_from(&mut self, node: Node) {
        let module = node.field(Field::ModuleName).map(|n| self.t(n)).unwrap_or("");
        // A relative import (`from . import x`) fails otherwise; not claimed here.
        if !module.starts_with('.') {
            if let Some(name) = node.field(Field::ModuleName) {
                if self.import_fails(name, module) {
                    return;
                }
            }
        }
        let mut cursor = node.walk();
        let names: Vec<Node> = node.children_by_field_name("name", &mut cursor).collect();
        if names.is_empty() {
            // `from x import *`: any later name might come from it.
            self.note(span(node), format!("names imported with `from {module} import *` are not known statically"));
        }
        for name in names {
            let (imported, bound) = match name.kind() {
                "aliased_import" => (
                    name.field(Field::Name).map(|n| self.t(n)).unwrap_or(""),
                    name.field(Field::Alias).map(|n| self.t(n)).unwrap_or(""),
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
        let Some(left) = node.field(Field::Left) else { return };
        let Some(right) = node.field(Field::Right) else {
            // `x: int` binds nothing, but a module's annotations are evaluated.
            self.annotation(node);
            return;
        };
        // Chained `a = b = value`: the right side is itself an assignment.
        let value = if right.kind() == "assignment" {
            self.assignment(right);
            match right.field(Field::Left) {
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
        // `x: T = value` stores x, then evaluates T (NameError for a name never imported).
        if self.model.load_error.is_none() {
            self.annotation(node);
        }
    }

    /// A module-level annotation is evaluated (into `__annotations__`) unless
    /// `from __future__ import annotations` keeps it as text.
    fn annotation(&mut self, node: Node) {
        let Some(annotation) = node.field(Field::Type) else { return };
        if !self.future_annotations {
            self.scan_names(annotation);
        }
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
                let targets: Vec<Node> = target.named_children(&mut cursor).filter(|t| t.kind() != "comment").collect();
                let starred = targets.iter().any(|t| t.kind() == "list_splat_pattern");
                // What iterating the value gives (a dict its keys), where it is known.
                let iterated: Option<Vec<Value>> = match &value.kind {
                    ValueKind::Tuple(items) | ValueKind::List(items) => Some(items.clone()),
                    ValueKind::Dict(d) if !d.open => Some(d.entries.iter().map(|e| e.key.clone()).collect()),
                    _ => None,
                };
                let message = match (&value.kind, &iterated) {
                    (ValueKind::None | ValueKind::Bool(_) | ValueKind::Int(_) | ValueKind::Float(_), _) => {
                        Some(("TypeError", format!("cannot unpack non-iterable {} object", value.type_name())))
                    }
                    (_, Some(items)) if !starred && items.len() > targets.len() => {
                        Some(("ValueError", format!("too many values to unpack (expected {})", targets.len())))
                    }
                    (_, Some(items)) if !starred && items.len() < targets.len() => Some((
                        "ValueError",
                        format!("not enough values to unpack (expected {}, got {})", targets.len(), items.len()),
                    )),
                    _ => None,
                };
                if let Some((error, message)) = message {
                    self.fail(span(target), error, message);
                    return;
                }
                let items = iterated.filter(|items| !starred && items.len() == targets.len());
                for (i, t) in targets.iter().enumerate() {
                    let v = match &items {
                        Some(items) => items[i].clone(),
                        None => Value::unknown("unpacked from a value not known statically", span(*t)),
                    };
                    self.bind(*t, v);
                }
            }
            "subscript" => self.subscript_assign(target, value),
            // `x.attr = value`: x is evaluated; the builtin types take no new attributes.
            "attribute" => {
                let (Some(object), Some(attr)) = (target.field(Field::Object), target.field(Field::Attribute)) else {
                    return;
                };
                let owner = self.expr(object);
                if self.model.load_error.is_some() || !owner.is_builtin_instance() {
                    return;
                }
                let message = format!("'{}' object has no attribute '{}'", owner.type_name(), self.t(attr));
                self.fail(span(target), "AttributeError", message);
            }
            _ => {}
        }
    }

    /// `manifest["a"]["b"] = value`: walks the chain of subscripts from the root name.
    fn subscript_assign(&mut self, target: Node, value: Value) {
        let mut keys = Vec::new();
        let mut node = target;
        while node.kind() == "subscript" {
            let Some(index) = node.field(Field::Subscript) else { return };
            keys.push(index);
            let Some(inner) = node.field(Field::Value) else { return };
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
                let type_name = current.type_name();
                let scalar = matches!(
                    current.kind,
                    ValueKind::None | ValueKind::Bool(_) | ValueKind::Int(_) | ValueKind::Float(_)
                );
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
                    // No `__setitem__`, whatever the key; the scalars have no `__getitem__`
                    // either (what a str, bytes or tuple index reads is left unknown).
                    ValueKind::None
                    | ValueKind::Bool(_)
                    | ValueKind::Int(_)
                    | ValueKind::Float(_)
                    | ValueKind::Str(_)
                    | ValueKind::Bytes(_)
                    | ValueKind::Tuple(_) => {
                        let what = match i == last {
                            true => "does not support item assignment",
                            false if scalar => "is not subscriptable",
                            false => break,
                        };
                        let message = format!("'{type_name}' object {what}");
                        failure = Some((key.span.clone(), "TypeError", message));
                        break;
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
            (node.field(Field::Left), node.field(Field::Right), node.field(Field::Operator))
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
        let Some(function) = call.field(Field::Function) else { return };
        let args = call.field(Field::Arguments);
        if function.kind() == "attribute" {
            // The method is looked up before the arguments are evaluated.
            if self.missing_method(function) {
                return;
            }
            let object = function.field(Field::Object);
            let method = function.field(Field::Attribute).map(|n| self.t(n)).unwrap_or("");
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
            let Some(index) = node.field(Field::Subscript) else { return false };
            keys.push(index);
            let Some(inner) = node.field(Field::Value) else { return false };
            node = inner;
        }
        if node.kind() != "identifier" {
            return false;
        }
        keys.reverse();
        let key_values: Vec<Value> = keys.iter().map(|k| self.expr(*k)).collect();
        if self.model.load_error.is_some() {
            return true;
        }
        let root = self.t(node).to_string();
        // What the mutation certainly raises (recorded once its borrow of the environment ends).
        let mut raises: Option<Raised> = None;
        let understood = 'mutation: {
            let Some(mut current) = self.env.get_mut(&root) else { return false };
            for key in &key_values {
                match &mut current.kind {
                    ValueKind::Dict(d) => match d.position(key) {
                        Some(p) => current = &mut d.entries[p].value,
                        None => {
                            if !d.open && !key.contains_unknown() {
                                raises = Some((key.span.clone(), "KeyError", key.repr()));
                            }
                            break 'mutation raises.is_some();
                        }
                    },
                    _ => return false,
                }
            }
            apply_method(current, method, &args, call_span, &mut raises)
        };
        if let Some((s, exception, message)) = raises {
            self.fail(s, exception, message);
        }
        understood
    }

    /// `name.method` where `name` holds a dict or list without that attribute: fails
    /// (AttributeError) without copying the value.
    fn missing_method(&mut self, function: Node) -> bool {
        let (Some(object), Some(attr)) = (function.field(Field::Object), function.field(Field::Attribute)) else {
            return false;
        };
        if object.kind() != "identifier" {
            return false;
        }
        let attr = self.t(attr);
        let Some(type_name) = self.env.get(self.t(object)).and_then(|v| v.lacks_attribute(attr)) else {
            return false;
        };
        self.fail(span(function), "AttributeError", format!("'{type_name}' object has no attribute '{attr}'"));
        true
    }

    fn delete(&mut self, node: Node) {
        let mut cursor = node.walk();
        let targets: Vec<Node> = node.named_children(&mut cursor).collect();
        for target in targets {
            if target.kind() == "subscript" {
                if let (Some(obj), Some(key)) = (target.field(Field::Value), target.field(Field::Subscript)) {
                    // The object first: `del mafest[...]` is a NameError.
                    if obj.kind() == "identifier" && !self.env.contains_key(self.t(obj)) {
                        let _ = self.name(obj);
                    }
                    if self.model.load_error.is_some() {
                        return;
                    }
                    let key = self.expr(key);
                    let _ = self.mutate(obj, "pop", vec![key], span(target));
                }
            } else if target.kind() == "identifier" && self.env.remove(self.t(target)).is_none() {
                let _ = self.name(target);
            }
            if self.model.load_error.is_some() {
                return;
            }
        }
    }
}

/// An exception: where, its type, `str()` of it.
type Raised = (Span, &'static str, String);

/// `method(args)` on a known container `current`; false when not understood. What it
/// certainly raises (`pop`/`del` of a missing key, `remove` of an absent item) goes to `raises`.
fn apply_method(
    current: &mut Value,
    method: &str,
    args: &[Value],
    call_span: Span,
    raises: &mut Option<Raised>,
) -> bool {
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
            // `pop(key)` without a default raises where the key is missing.
            if !d.remove(&args[0]) && args.len() == 1 && !d.open && !args[0].contains_unknown() {
                *raises = Some((args[0].span.clone(), "KeyError", args[0].repr()));
            }
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
            let equal: Vec<Option<bool>> = items.iter().map(|v| py_eq(v, &args[0])).collect();
            match equal.iter().position(|e| *e == Some(true)) {
                // Only where every item before it is known to differ is it the one removed.
                Some(p) if equal[..p].iter().all(|e| *e == Some(false)) => {
                    items.remove(p);
                }
                Some(_) => {}
                None if equal.iter().all(|e| *e == Some(false)) => {
                    *raises = Some((call_span, "ValueError", "list.remove(x): x not in list".into()));
                }
                None => {}
            }
            true
        }
        _ => false,
    }
}
