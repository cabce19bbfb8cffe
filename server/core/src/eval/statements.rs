//! The interpreter's statements: assignments (also to `manifest[...]`), imports, the
//! `.update(...)`-style mutations of known containers, `del`, and blocks left unevaluated.

use super::builtins::STDLIB_MODULES;
use super::in_place::apply_method;
use super::items::{subscript_chain, ItemOp, Reached};
use super::modules::may_set_attribute;
use super::names::mentions_name;
use super::unpacking::splat_in_chain;
use super::{span, Evaluator};
use crate::fields::{Field, FieldChild};
use crate::regex_check::PythonVersion;
use crate::schema::schema;
use crate::value::{Dict, Span, TypeForm, Value, ValueKind};
use tree_sitter::Node;

/// Where a chained assignment's value waits while its targets are bound.
const CHAINED_VALUE: &str = "<value of a chained assignment>";

impl Evaluator<'_> {
    pub(super) fn statement(&mut self, node: Node) {
        if node.start_byte() < self.absorbed_until {
            return;
        }
        match node.kind() {
            "expression_statement" => {
                let mut cursor = node.walk();
                let children: Vec<Node> = node.named_children(&mut cursor).collect();
                // `*a.b, c` alone: a tuple, built as any (tree-sitter gives its items here);
                // so is `*sorted,` (a star alone is the compiler's error, found before).
                let expressions = children.iter().filter(|c| c.kind() != "comment").count();
                // (`*torch.x,`: tree-sitter reads the attribute of `*torch`.)
                let starred = children.first().is_some_and(|c| crate::syntax::leading_star(*c).is_some());
                if (expressions > 1 || starred) && children.iter().all(|c| !c.kind().contains("assignment")) {
                    let _ = self.expr(node);
                    return;
                }
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
            "raise_statement" => self.raise_statement(node),
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
                    self.model.recovered = Some(name.start_byte()..end);
                    self.env.insert("manifest".into(), Value::new(ValueKind::Dict(d), name.start_byte()..end));
                }
            }
            "if_statement" | "for_statement" | "while_statement" | "try_statement" | "with_statement"
            | "match_statement" => self.compound_statement(node),
            "function_definition" | "class_definition" | "decorated_definition" => self.definition(node),
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
                    if self.import_fails(name, full) || self.submodule_import_fails(name, full) {
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
                    let module = self.module_value(&first, span(name));
                    self.env.insert(first, module);
                }
                "aliased_import" => {
                    let module = name.field(Field::Name).map(|n| self.t(n)).unwrap_or("");
                    if self.import_fails(name, module) || self.submodule_import_fails(name, module) {
                        return;
                    }
                    if let Some(alias) = name.field(Field::Alias) {
                        if module == "torch" {
                            self.model.imports_torch = true;
                        }
                        let value = self.module_value(module, span(name));
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
        let Some(missing) = self.loading.importable.and_then(|m| m.certainly_missing(module)) else { return false };
        self.fail(span(node), "ModuleNotFoundError", format!("No module named '{missing}'"));
        true
    }

    fn import_from(&mut self, node: Node) {
        let module = node.field(Field::ModuleName).map(|n| self.t(n)).unwrap_or("");
        // torchcts loads the file as a top-level module `manifest`: it has no package.
        if module.starts_with('.') {
            self.fail(span(node), "ImportError", "attempted relative import with no known parent package".into());
            return;
        }
        if let Some(name) = node.field(Field::ModuleName) {
            if self.import_fails(name, module) || self.submodule_import_fails(name, module) {
                return;
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
            // Whether the module has the name is only known by importing it (the error names
            // the module's file): what follows is claimed as if it had. As for `import`, the
            // standard library's are taken to be there.
            if self.imported_name_missing(name, module, imported) {
                return;
            }
            let top = module.split('.').next().unwrap_or(module);
            let torch_has = |name: &str| schema().torch_attributes.iter().any(|a| a == name);
            let known = match module {
                "torch" => torch_has(imported) || schema().dtype_by_attr(imported).is_some(),
                _ => STDLIB_MODULES.contains(&top),
            };
            if !known && !imported.is_empty() {
                self.note(
                    span(name),
                    format!("whether `{module}.{imported}` can be imported is only known when Python loads the manifest (check-manifest fails if it cannot)"),
                );
            }
            let value = if module == "torch" {
                match schema().dtype_by_attr(imported) {
                    Some(d) => Value::new(
                        ValueKind::Dtype { attr: d.attr.clone(), canonical: d.canonical.clone() },
                        span(name),
                    ),
                    None if !may_set_attribute(self.text, imported) => {
                        super::modules::typed_module_attribute(module, imported, self.loading.version, span(name))
                    }
                    None => Value::unknown(format!("`{imported}` from torch is not a dtype"), span(name)),
                }
            } else if module == "sys" && imported == super::modules::SYS_EXIT && !may_set_attribute(self.text, imported)
            {
                Value::new(ValueKind::Builtin(super::modules::SYS_EXIT), span(name))
            } else if known && !may_set_attribute(self.text, imported) {
                super::modules::typed_module_attribute(module, imported, self.loading.version, span(name))
            } else {
                Value::unknown(format!("`{bound}` is imported from `{module}`"), span(name))
            };
            self.env.insert(bound.to_string(), value);
        }
    }

    fn assignment(&mut self, node: Node) {
        if !self.annotated_statement_read_otherwise(node) {
            self.plain_assignment(node);
        }
    }

    /// An assignment tree-sitter read as Python does.
    pub(super) fn plain_assignment(&mut self, node: Node) {
        let Some(left) = node.field(Field::Left) else { return };
        let Some(right) = node.field(Field::Right) else {
            // `x: int` binds nothing, but a module's annotations are evaluated; a target that
            // is no name has its object (and key) evaluated first (`d["k"].a: T`: KeyError).
            match left.kind() {
                "attribute" => {
                    let _ = left.field(Field::Object).map(|object| self.expr(object));
                }
                "subscript" => {
                    let _ = left.field(Field::Value).map(|object| self.expr(object));
                    if self.model.load_error.is_none() {
                        let _ = self.subscript_key(left);
                    }
                }
                _ => {}
            }
            if self.model.load_error.is_none() {
                self.annotation(node);
            }
            return;
        };
        // Chained `a = b = value`: the value is evaluated once, then bound to each target
        // from left to right.
        let mut targets = vec![left];
        let mut value_node = right;
        while value_node.kind() == "assignment" {
            let (Some(target), Some(next)) = (value_node.field(Field::Left), value_node.field(Field::Right)) else {
                return;
            };
            targets.push(target);
            value_node = next;
        }
        let mut value = self.expr(value_node);
        if self.model.load_error.is_some() {
            return;
        }
        // Each target is bound to the one object: a change through one is seen by all.
        if targets.len() > 1 {
            self.sharing.label(&mut value);
        }
        let (last, first) = targets.split_last().expect("one target at least");
        for target in first {
            // Held in the environment while a target is bound, so that a change made through
            // it (`d["k"] = m = {"d": d}` puts m into d, which m holds) is in what the next
            // target gets. No Python name reads it: it is no identifier.
            self.env.insert(CHAINED_VALUE.to_string(), value.clone());
            self.bind(*target, value);
            let Some(now) = self.env.remove(CHAINED_VALUE) else { return };
            value = now;
            if self.model.load_error.is_some() {
                return;
            }
        }
        let left = *last;
        self.bind(left, value);
        // `x: T = value` stores x, then evaluates T (NameError for a name never imported).
        if self.model.load_error.is_none() {
            self.annotation(node);
        }
    }

    pub(super) fn bind(&mut self, target: Node, mut value: Value) {
        // `(name) = value`: parentheses around one target make no tuple.
        if target.kind() == "tuple_pattern" && !has_comma(target) {
            let mut cursor = target.walk();
            let inner = target.named_children(&mut cursor).find(|c| c.kind() != "comment");
            if let Some(inner) = inner {
                return self.bind(inner, value);
            }
        }
        if matches!(target.kind(), "identifier" | "subscript" | "attribute") {
            value.forget_passing_items();
        }
        match target.kind() {
            "identifier" => {
                let name = self.t(target).to_string();
                if name == "manifest" {
                    self.model.name_span = Some(span(target));
                }
                self.env.insert(name, value);
            }
            // (`tuple`, `list`: a target read again as an expression, `misread_lines`.)
            "pattern_list" | "tuple_pattern" | "list_pattern" | "tuple" | "list" => self.unpack(target, value),
            "parenthesized_expression" => {
                if let Some(inner) = target.named_child(0) {
                    self.bind(inner, value);
                }
            }
            // `*rest` of `a, *rest = ...`: the list the other targets leave.
            "list_splat_pattern" | "list_splat" => {
                let mut cursor = target.walk();
                let inner = target.named_children(&mut cursor).find(|c| c.kind() != "comment");
                if let Some(inner) = inner {
                    self.bind(inner, value);
                }
            }
            // `*a.b` of `*a.b, = v`: the star is the target's (`*(a.b)`).
            "attribute" | "subscript" if splat_in_chain(target).is_some() => self.bind_starred_chain(target, value),
            "subscript" => self.item_statement(target, ItemOp::Assign(value)),
            // `x.attr = value`: x is evaluated; the builtin types take no new attributes.
            "attribute" => self.assign_attribute(target, value),
            _ => {}
        }
    }

    /// `x.attr = value`: x is evaluated; a module keeps the value; the builtin types take no
    /// new attributes, and their methods and a number's data attributes are read-only.
    fn assign_attribute(&mut self, target: Node, value: Value) {
        let Some(object) = target.field(Field::Object) else { return };
        let owner = self.expr(object);
        self.set_attribute(&owner, target, value);
    }

    /// `owner.attr = value` where `target` is the `owner.attr` node (owner evaluated).
    pub(super) fn set_attribute(&mut self, owner: &Value, target: Node, value: Value) {
        let Some(attr) = target.field(Field::Attribute) else { return };
        if let ValueKind::Module { name: module, .. } = &owner.kind {
            self.module_attributes.insert((module.clone(), self.t(attr).to_string()), value);
            return;
        }
        if owner.is_unknown() {
            self.attributes_set_on_unknown.insert(self.t(attr).to_string());
        }
        if self.model.load_error.is_some() {
            return;
        }
        // 3.13 says why a new attribute cannot be set.
        let no_dict = if self.loading.version >= PythonVersion::V3_13 {
            " and no __dict__ for setting new attributes"
        } else {
            ""
        };
        if let ValueKind::TypeForm(form) = &owner.kind {
            // A union or an alias keeps no attributes of its own but these read-only ones
            // (3.10-3.13 alike); other dunders are not claimed.
            let attr = self.t(attr);
            let read_only = matches!((&**form, attr), (_, "__args__") | (TypeForm::Alias { .. }, "__origin__"));
            let message = match read_only {
                true => "readonly attribute".to_string(),
                false if attr.starts_with("__") && attr.ends_with("__") && attr != "__name__" => return,
                false => format!("'{}' object has no attribute '{attr}'{no_dict}", owner.exception_type_name()),
            };
            return self.fail(span(target), "AttributeError", message);
        }
        if let ValueKind::Builtin(name) = &owner.kind {
            // A builtin class is immutable; a builtin function has no `__dict__` (its dunders
            // are not claimed). CPython 3.10-3.13 word each alike, 3.13 adding `no_dict`.
            let attr = self.t(attr);
            let (exception, message) = match crate::value::is_builtin_class(name) {
                true => ("TypeError", format!("cannot set '{attr}' attribute of immutable type '{name}'")),
                false if attr.starts_with("__") && attr.ends_with("__") => return,
                false => {
                    ("AttributeError", format!("'{}' object has no attribute '{attr}'{no_dict}", owner.type_name()))
                }
            };
            return self.fail(span(target), exception, message);
        }
        if !owner.is_builtin_instance() {
            return;
        }
        // A method the type has is read-only on its instances.
        let numeric = matches!(owner.kind, ValueKind::Int(_) | ValueKind::Bool(_) | ValueKind::Float(_));
        let message = match owner.builtin_method(self.t(attr)) {
            Some(_) => format!("'{}' object attribute '{}' is read-only", owner.type_name(), self.t(attr)),
            // `(1).real = 2`: a number's data attributes.
            None if numeric && owner.lacks_attribute(self.t(attr)).is_none() && !self.t(attr).starts_with("__") => {
                // A bool's are int's.
                let type_name = if matches!(owner.kind, ValueKind::Bool(_)) { "int" } else { owner.type_name() };
                format!("attribute '{}' of '{type_name}' objects is not writable", self.t(attr))
            }
            None => format!("'{}' object has no attribute '{}'{no_dict}", owner.type_name(), self.t(attr)),
        };
        self.fail(span(target), "AttributeError", message);
    }

    /// Calls as statements: the mutations of `manifest` we understand.
    fn call_statement(&mut self, call: Node) {
        let Some(function) = call.field(Field::Function) else { return };
        if function.kind() == "attribute" && self.known_method_call(call, function) {
            return;
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

    /// `name[k1]...[kn].method(args)` on a value we hold: the object, then the method's
    /// lookup (`AttributeError`), then the arguments, then the mutations we understand.
    /// False when the call is not understood (the caller evaluates it as any call).
    fn known_method_call(&mut self, call: Node, function: Node) -> bool {
        let (Some(object), Some(attr)) = (function.field(Field::Object), function.field(Field::Attribute)) else {
            return false;
        };
        let Some((root_node, keys)) = subscript_chain(object) else { return false };
        if root_node.kind() != "identifier" || !self.env.contains_key(self.t(root_node)) {
            return false;
        }
        let (root, path) = match self.reach(root_node, &keys) {
            Reached::Known(root, path) => (root, path),
            Reached::Raised => return true,
            Reached::Unknown => return false,
        };
        let method = self.t(attr);
        // A module's function (`sys.exit(...)`) is looked up, then called, as any call is.
        if !self.at_path(&root, &path).is_some_and(|v| v.is_builtin_instance()) {
            return false;
        }
        if let Some(type_name) = self.at_path(&root, &path).and_then(|v| v.lacks_attribute(method)) {
            self.fail(span(function), "AttributeError", format!("'{type_name}' object has no attribute '{method}'"));
            return true;
        }
        let held = self.at_path(&root, &path);
        let callee =
            held.filter(|v| v.builtin_method(method).is_some()).map(|v| format!("{}.{method}()", v.type_name()));
        let arguments = self.call_arguments(call, callee.as_deref());
        if self.model.load_error.is_some() {
            return true;
        }
        if let (Some(type_name), Some(callee)) = (arguments.lone_star_not_iterable, callee) {
            let message = format!("{callee} argument after * must be an iterable, not {type_name}");
            self.fail(span(call), "TypeError", message);
            return true;
        }
        if arguments.unpacked || !arguments.keywords.is_empty() {
            return false;
        }
        let type_name = self.at_path(&root, &path).map(|v| v.type_name());
        let wrong_count = type_name
            .and_then(|t| super::methods::arity_error(t, method, arguments.positional.len(), self.loading.version));
        if let Some(message) = wrong_count {
            self.fail(span(call), "TypeError", message);
            return true;
        }
        // Raised (None): the call is understood.
        self.apply_in_place(root, path, method, Some(&arguments.positional), span(call), false).unwrap_or(true)
    }

    /// `x = name[k]...[k].method(args)`: the call's value was taken from the object as it
    /// was; the change the method makes in place (`pop`, `append`, ...) follows, as it does
    /// for the call on a line of its own, or the container becomes unknown.
    pub(super) fn changed_by_method_in_expression(
        &mut self,
        function: Node,
        method: &str,
        args: Option<&[Value]>,
        s: Span,
    ) {
        let Some((root_node, keys)) = function.field(Field::Object).and_then(subscript_chain) else { return };
        if root_node.kind() != "identifier" || !self.env.contains_key(self.t(root_node)) {
            return;
        }
        let Reached::Known(root, path) = self.reach(root_node, &keys) else { return };
        self.apply_in_place(root, path, method, args, s, true);
    }

    /// `method(args)` applied to the container at `path` under `root`, then to its copies
    /// (`sharing.rs`): None where it certainly raised (recorded), else whether it was
    /// understood; `unknown_otherwise` makes a container it could not change unknown.
    fn apply_in_place(
        &mut self,
        root: String,
        path: Vec<Value>,
        method: &str,
        args: Option<&[Value]>,
        s: Span,
        unknown_otherwise: bool,
    ) -> Option<bool> {
        let mut raises = None;
        let mut understood = false;
        // Taken out while the environment is borrowed, and put back.
        let version = self.loading.version;
        let mut sharing = std::mem::take(&mut self.sharing);
        let mut self_copy = None;
        if let Some(current) = self.at_path(&root, &path) {
            // `a.append(b)` where b holds a: the container comes to hold itself, held as a
            // copy of itself one level down (`Sharing::unroll_self_reference`).
            let identity = current.identity;
            let recursive = identity != 0
                && args.is_some_and(|args| args.iter().any(|a| super::items::holds_identity(a, identity)));
            let mut unrolled = None;
            if let (true, Some(args)) = (recursive, args) {
                let bundle = Value::new(ValueKind::Tuple(args.to_vec()), s.clone());
                let apply = |copy: &mut Value, cut: Value| {
                    let ValueKind::Tuple(cut) = cut.kind else { return false };
                    let mut raised = None;
                    apply_method(copy, method, &cut, s.clone(), &mut raised, version) && raised.is_none()
                };
                if let Some((value, copy)) = sharing.unroll_self_reference(current, &bundle, apply) {
                    self_copy = Some((identity, copy));
                    unrolled = match value.kind {
                        ValueKind::Tuple(items) => Some(items),
                        _ => None,
                    };
                }
            }
            let args = if recursive { unrolled.as_deref() } else { args };
            understood = args.is_some_and(|args| apply_method(current, method, args, s, &mut raises, version));
            if !understood && unknown_otherwise {
                let identity = current.identity;
                *current = Value::unknown("changed by a method not evaluated statically", current.span.clone());
                current.identity = identity;
            }
        }
        self.sharing = sharing;
        if let Some((s, exception, message)) = raises {
            self.fail(s, exception, message);
            return None;
        }
        self.changed_in_place(root, path);
        if let Some((holder, copy)) = self_copy {
            self.sharing.record_self_copy(holder, copy);
        }
        Some(understood)
    }

    fn delete(&mut self, node: Node) {
        let mut cursor = node.walk();
        let mut targets: Vec<Node> = node.named_children(&mut cursor).filter(|t| t.kind() != "comment").collect();
        // `del a, b`: one list of targets, deleted left to right.
        if let [list] = targets[..] {
            if list.kind() == "expression_list" {
                let mut cursor = list.walk();
                targets = list.named_children(&mut cursor).filter(|t| t.kind() != "comment").collect();
            }
        }
        for target in targets {
            match target.kind() {
                "subscript" => self.item_statement(target, ItemOp::Delete),
                "identifier" => {
                    let name = self.t(target);
                    if self.env.remove(name).is_none() {
                        let _ = self.name(target);
                    }
                    // Unbound from here on, whatever bound it before.
                    self.bound_before.remove(name);
                }
                _ => {}
            }
            if self.model.load_error.is_some() {
                return;
            }
        }
    }
}

fn has_comma(node: Node) -> bool {
    let mut cursor = node.walk();
    let found = node.children(&mut cursor).any(|c| c.kind() == ",");
    found
}
