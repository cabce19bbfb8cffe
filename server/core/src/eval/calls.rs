//! Calls: the callee, then the arguments left to right, then the call itself (a method of
//! a known value, a builtin, one of the manifest's simple functions, a generic alias's
//! class), in Python's order, with the first exception among them the one loading raises.

use super::builtins::{CallArguments, PYTHON_BUILTINS};
use super::{first_named, span, Evaluator};
use crate::fields::{Field, FieldChild};
use crate::value::{Callable, Dict, Operators, Span, TypeForm, Value, ValueKind};
use tree_sitter::Node;

impl Evaluator<'_> {
    pub(super) fn call(&mut self, node: Node) -> Value {
        let s = span(node);
        // `*f(x)`, read as a call of `*f`: Python stars the call (see `starred_operand`).
        let function = node.field(Field::Function).map(|f| match f.kind() {
            "list_splat" => f.named_child(0).unwrap_or(f),
            _ => f,
        });
        let fname = function.map(|f| self.t(f)).unwrap_or("");
        // Python evaluates the callee, then the arguments left to right, then calls: the
        // first exception among them is the one loading raises.
        let callee = self.callee(function);
        let arguments = self.call_arguments(node, callee.name.as_deref());
        if self.model.load_error.is_some() {
            return Value::unknown("call", s);
        }
        if let Some(message) = call_refused(&callee, &arguments) {
            self.fail(s.clone(), "TypeError", message);
            return Value::unknown("call", s);
        }
        let Callee { bound, exits, alias_origin, .. } = callee;
        if exits {
            return self.system_exit(&arguments, s);
        }
        if let Some((object, method)) = bound.as_ref() {
            let value = self.method_call(object, method, &arguments, s.clone());
            if self.model.load_error.is_none() && super::in_place::changes_in_place(&object.kind, method) {
                if let Some(f) = function {
                    let args =
                        (!arguments.unpacked && arguments.keywords.is_empty()).then_some(&arguments.positional[..]);
                    self.changed_by_method_in_expression(f, method, args, s.clone());
                }
            }
            if let Some(v) = value {
                return v;
            }
            if let Some(v) = self.in_place_result(object, method, &arguments, s.clone()) {
                return v;
            }
        }
        let builtin = alias_origin.filter(|origin| !self.env.contains_key(*origin)).unwrap_or(fname);
        if let Some(v) = self.builtin_call(builtin, &arguments, s.clone()) {
            return v;
        }
        let callee =
            function.filter(|f| f.kind() == "identifier" && !arguments.unpacked).and_then(|f| self.env.get(self.t(f)));
        if let Some(v) =
            callee.cloned().and_then(|c| self.call_function(&c, &arguments.positional, &arguments.keywords, s.clone()))
        {
            return v;
        }
        if builtin == "dict" && !self.env.contains_key("dict") && !arguments.unpacked {
            return self.dict_call(arguments, s);
        }
        let torch = matches!(self.env.get("torch"), Some(Value { kind: ValueKind::Module { name, .. }, .. }) if name == "torch");
        // `open(path)`: the file system is the machine's too, and opening may raise there.
        let opens = builtin == "open" && !self.env.contains_key("open") && !self.bound_before.contains("open");
        if opens {
            let message = format!(
                "`open()` {}: whether it raises is only known when Python runs it",
                crate::value::ON_THE_MACHINE
            );
            self.note(s.clone(), message);
        }
        let why = match (torch && crate::value::MACHINE_QUERIES.contains(&fname)) || opens {
            true => format!("`{fname}()` {}", crate::value::ON_THE_MACHINE),
            false => {
                format!("the call `{}(...)` is not evaluated statically", fname.chars().take(40).collect::<String>())
            }
        };
        let shadowed = self.env.contains_key(builtin) || self.bound_before.contains(builtin);
        match super::builtins::result_type(builtin, &arguments) {
            Some(type_name) if !shadowed && function.is_some_and(|f| f.kind() == "identifier") => {
                let mut value = Value::unknown_of_type(type_name, Operators::NoneDefined, Callable::No, why, s.clone());
                // An exception made, not raised: what `raise` of it prints (`str()` of it).
                if crate::value::raisable(builtin) && !arguments.unpacked && arguments.keywords.is_empty() {
                    value.set_shown(super::load_error::exception_message(builtin, &arguments.positional));
                }
                // A range iterates as often as asked; an iterator once.
                match super::comprehensions::builtin_items(builtin, &arguments.positional, s) {
                    Some(items) => value.with_items(items, builtin != "range"),
                    None => value,
                }
            }
            _ => Value::unknown(why, s),
        }
    }

    /// The callee, evaluated (a name is looked at, not copied: a large dict bound to it
    /// would be cloned for nothing).
    fn callee(&mut self, function: Option<Node>) -> Callee {
        let mut bound = None;
        let sys_exit = |v: &Value| matches!(v.kind, ValueKind::Builtin(super::modules::SYS_EXIT));
        let mut exits = false;
        let mut alias_origin = None;
        let mut callee_name = None;
        let mut unbound = None;
        let not_callable = match function {
            Some(f) if f.kind() == "identifier" => match self.env.get(self.t(f)) {
                Some(v) => {
                    exits = sys_exit(v);
                    callee_name = function_str(v, None);
                    v.not_callable().then(|| v.exception_type_name())
                }
                None => {
                    // site's `exit` and `quit` raise SystemExit as `sys.exit` does.
                    let name = self.t(f);
                    exits = matches!(name, "exit" | "quit") && !self.bound_before.contains(name);
                    // site's names are objects whose str() is a sentence (`exit`, `help`).
                    let site = matches!(name, "exit" | "quit" | "help" | "license" | "copyright" | "credits");
                    let builtin = PYTHON_BUILTINS.contains(&name) && !site && !self.bound_before.contains(name);
                    callee_name = builtin.then(|| format!("{name}()"));
                    let _ = self.name(f);
                    None
                }
            },
            Some(f) if f.kind() == "attribute" => {
                let (object, method) = self.method_lookup(f);
                if let ValueKind::Method { name, type_name: "method_descriptor", owner } = method.kind {
                    unbound = (!owner.is_empty()).then_some((owner, name));
                }
                callee_name = function_str(&method, object.as_ref());
                bound = object;
                exits = sys_exit(&method);
                method.not_callable().then(|| method.exception_type_name())
            }
            Some(f) => {
                let value = self.expr(f);
                alias_origin = alias_class(&value);
                callee_name = function_str(&value, None);
                value.not_callable().then(|| value.exception_type_name())
            }
            None => None,
        };
        Callee { bound, exits, alias_origin, name: callee_name, not_callable, unbound }
    }

    /// `dict(...)`: a copy of a dict, or the dict of an iterable of pairs, with the
    /// keywords added.
    fn dict_call(&mut self, arguments: CallArguments, s: crate::value::Span) -> Value {
        let mut d = Dict::default();
        match arguments.positional.as_slice() {
            [] => {}
            [Value { kind: ValueKind::Dict(other), .. }] => d = other.clone(),
            // No `keys` and no iteration (`dict(1, b=2)`) raises, keywords or not.
            [pairs] => match super::comprehensions::dict_of_pairs(pairs) {
                Some(Ok(built)) => d = built,
                Some(Err((_, exception, message))) => {
                    self.fail(s.clone(), exception, message);
                    return Value::unknown("raises", s);
                }
                None => return Value::unknown("`dict(...)` of a value not known statically", s),
            },
            // The same wording in 3.10-3.13.
            more => {
                let message = format!("dict expected at most 1 argument, got {}", more.len());
                self.fail(s.clone(), "TypeError", message);
                return Value::unknown("raises", s);
            }
        }
        for (key, value) in arguments.keywords {
            d.insert(key, value);
        }
        Value::new(ValueKind::Dict(d), s)
    }

    /// The arguments of a call, evaluated in order (stopping at the first exception).
    /// `callee`: how an argument error names it, where known (`**1` raises naming it).
    pub(super) fn call_arguments(&mut self, call: Node, callee: Option<&str>) -> CallArguments {
        let mut out = CallArguments::default();
        let Some(args) = call.field(Field::Arguments) else { return out };
        if args.kind() != "argument_list" {
            // `f(x for x in y)`: a generator, evaluated lazily by the callee.
            out.unpacked = true;
            let _ = self.expr(args);
            return out;
        }
        let mut cursor = args.walk();
        let children: Vec<Node> = args.named_children(&mut cursor).filter(|n| n.kind() != "comment").collect();
        let positional_count =
            children.iter().filter(|c| !matches!(c.kind(), "keyword_argument" | "dictionary_splat")).count();
        // With a `**`, the keywords are merged into one dict in order, a name given twice
        // raising there; None once a mapping not known whole is merged.
        let splats = children.iter().any(|c| c.kind() == "dictionary_splat");
        let mut merged: Option<Vec<String>> = splats.then(Vec::new);
        for child in children {
            if self.model.load_error.is_some() {
                break;
            }
            match child.kind() {
                "keyword_argument" => {
                    let (Some(k), Some(v)) = (child.field(Field::Name), child.field(Field::Value)) else {
                        out.unpacked = true;
                        continue;
                    };
                    let value = self.expr(v);
                    let name = self.t(k).to_string();
                    self.merge_keyword(&mut merged, &name, callee, span(child));
                    out.keywords.push((Value::new(ValueKind::Str(name), span(k)), value));
                }
                "dictionary_splat" => {
                    let Some(inner) = first_named(child) else {
                        out.unpacked = true;
                        continue;
                    };
                    let value = self.expr(inner);
                    // Merged where it stands: only a dict is a mapping among the values
                    // known here.
                    if let (false, false, Some(callee)) =
                        (value.is_unknown(), matches!(value.kind, ValueKind::Dict(_)), callee)
                    {
                        let type_name = value.exception_type_name();
                        let message = format!("{callee} argument after ** must be a mapping, not {type_name}");
                        self.fail(span(child), "TypeError", message);
                    }
                    // A dict known whole gives its items as the keywords they are
                    // (`dict(**defaults, training=True)`).
                    match &value.kind {
                        ValueKind::Dict(d) if !d.open && !value.contains_unknown() => {
                            for entry in &d.entries {
                                match &entry.key.kind {
                                    ValueKind::Str(name) => self.merge_keyword(&mut merged, name, callee, span(child)),
                                    _ => out.key_not_a_string = true,
                                }
                                out.keywords.push((entry.key.clone(), entry.value.clone()));
                            }
                            out.unpacked |= out.key_not_a_string;
                        }
                        _ => {
                            merged = None;
                            out.unpacked = true;
                        }
                    }
                }
                _ if super::items::starts_with_star(child) => {
                    let value = self.starred(child);
                    if self.model.load_error.is_some() {
                        break;
                    }
                    // Beside other positional arguments, `*x` extends a list (a message
                    // naming no function); alone it becomes the argument tuple at the call.
                    if positional_count > 1 && value.not_iterable() {
                        let message = format!("Value after * must be an iterable, not {}", value.exception_type_name());
                        self.fail(span(child), "TypeError", message);
                    } else if value.not_iterable() {
                        out.unpacked = true;
                        out.lone_star_not_iterable.get_or_insert(value.exception_type_name());
                    } else {
                        // Known items are the arguments they are (`f(" ", *[1])`).
                        match value.iterated() {
                            Some(items) => out.positional.extend(items),
                            None => out.unpacked = true,
                        }
                    }
                }
                _ => {
                    let value = self.expr(child);
                    out.positional.push(value);
                }
            }
        }
        out
    }
}

impl Evaluator<'_> {
    /// The keyword `name` merged into a call's keywords (`merged`, where they are all
    /// known): given before, it raises naming the callee (where that is known).
    fn merge_keyword(&mut self, merged: &mut Option<Vec<String>>, name: &str, callee: Option<&str>, s: Span) {
        let Some(names) = merged else { return };
        if !names.iter().any(|n| n == name) {
            names.push(name.to_string());
            return;
        }
        match callee {
            Some(callee) => {
                let message = format!("{callee} got multiple values for keyword argument '{name}'");
                self.fail(s, "TypeError", message);
            }
            None => *merged = None,
        }
    }
}

/// The class a generic alias (`list[int]`) calls when it is called.
fn alias_class(value: &Value) -> Option<&'static str> {
    match &value.kind {
        ValueKind::TypeForm(form) => match **form {
            TypeForm::Alias { origin, .. } => Some(origin),
            TypeForm::Union(_) => None,
        },
        _ => None,
    }
}

/// What a call knows of its callee before the arguments are evaluated.
struct Callee {
    /// A method's object, kept for the call (`"a".upper()`, `[1].remove(2)`).
    bound: Option<(Value, String)>,
    /// `sys.exit`, or site's `exit` or `quit`.
    exits: bool,
    /// `tuple[str, int]("cpu", 1)`: an alias calls its class.
    alias_origin: Option<&'static str>,
    /// How an argument error names the callee (`print()`, `list.append()`), where known.
    name: Option<String>,
    /// The callee's type where it is not callable.
    not_callable: Option<&'static str>,
    /// A builtin class's method descriptor (`list.pop`): its class and name.
    unbound: Option<(&'static str, &'static str)>,
}

/// The `TypeError` the call raises before its callee runs, in CPython's order: a lone `*x`
/// that does not iterate becomes the argument tuple, the callee is not callable, a `**`
/// key is no str (the same wording in 3.10-3.13), a method descriptor has no object of
/// its class to bind (see [`unbound_method_error`]).
fn call_refused(callee: &Callee, arguments: &CallArguments) -> Option<String> {
    if let (Some(type_name), Some(name)) = (arguments.lone_star_not_iterable, &callee.name) {
        return Some(format!("{name} argument after * must be an iterable, not {type_name}"));
    }
    if let Some(type_name) = callee.not_callable {
        return Some(format!("'{type_name}' object is not callable"));
    }
    if arguments.key_not_a_string {
        return Some("keywords must be strings".into());
    }
    let (owner, name) = callee.unbound.filter(|_| !arguments.unpacked && arguments.keywords.is_empty())?;
    unbound_method_error(owner, name, &arguments.positional)
}

/// `list.pop()`, `list.append(1)`: a method descriptor called with no object, or with one
/// of another type (CPython 3.10-3.13 alike). A bool is an int; `object`'s methods take
/// anything; a value not of a builtin type is not claimed.
fn unbound_method_error(owner: &str, name: &str, positional: &[Value]) -> Option<String> {
    let Some(first) = positional.first() else {
        return Some(format!("unbound method {owner}.{name}() needs an argument"));
    };
    use ValueKind::*;
    let exact = matches!(
        first.kind,
        None | Bool(_) | Int(_) | BigInt(_) | Float(_) | Str(_) | Bytes(_) | List(_) | Tuple(_) | Dict(_) | Set(_)
    );
    let applies = first.type_name() == owner || (owner == "int" && matches!(first.kind, Bool(_))) || owner == "object";
    (exact && !applies).then(|| {
        format!("descriptor '{name}' for '{owner}' objects doesn't apply to a '{}' object", first.exception_type_name())
    })
}

/// `_PyObject_FunctionStr`: how CPython names a callee in an argument error. A builtin
/// function or class by its name, the manifest's function by its module's (`manifest`,
/// as torchcts loads it), a builtin value's method by its type; another object by `str()`.
/// None where not known.
fn function_str(callee: &Value, bound_to: Option<&(Value, String)>) -> Option<String> {
    match (&callee.kind, bound_to) {
        (ValueKind::Method { type_name: "builtin_function_or_method", .. }, Some((object, method))) => {
            Some(format!("{}.{method}()", object.exception_type_name()))
        }
        (ValueKind::Builtin(super::modules::SYS_EXIT), None) => Some("sys.exit()".into()),
        (ValueKind::Builtin(name), None) => Some(format!("{name}()")),
        (ValueKind::Function { name, .. }, None) => Some(format!("manifest.{name}()")),
        (_, None) if callee.not_callable() && callee.repr_is_exact() => Some(callee.py_str()),
        _ => None,
    }
}
