//! Expressions: literals, names, attributes, subscripts, calls, dict literals and the
//! operators, evaluated to a [`Value`] or to `Unknown` with a reason.

use super::builtins::{builtin_object, PYTHON_BUILTINS};
use super::literals::{decode_string_literal, parse_float, parse_int};
use super::operators::binary;
use super::{first_named, span, Evaluator};
use crate::fields::{Field, FieldChild};
use crate::schema::schema;
use crate::value::{Callable, Dict, Operators, Value, ValueKind};
use tree_sitter::Node;

/// Expressions nested deeper than this are not evaluated (an information note says so);
/// above the 200 brackets CPython accepts.
const MAX_DEPTH: usize = 256;

impl Evaluator<'_> {
    pub(super) fn expr(&mut self, node: Node) -> Value {
        if self.depth >= MAX_DEPTH {
            // Not evaluated, but a name it uses that is never defined still fails the load.
            self.scan_names(node);
            return Value::unknown("expression nested too deeply to evaluate", span(node));
        }
        self.depth += 1;
        // An unoptimised build needs ~8 KB a level: 256 levels outgrow a 2 MB thread.
        let value = stacker::maybe_grow(64 * 1024, 1024 * 1024, || self.expr_inner(node));
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
                        ValueKind::Unknown(why) => return Value::unknown(why.why, s),
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
            "true" | "false" => Value::new(ValueKind::Bool(node.kind() == "true"), s),
            "none" => Value::new(ValueKind::None, s),
            "ellipsis" => Value::ellipsis(s),
            "identifier" => self.name(node),
            "parenthesized_expression" => match first_named(node) {
                Some(inner) => {
                    let mut v = self.expr(inner);
                    v.span = s;
                    v
                }
                None => Value::new(ValueKind::Tuple(vec![]), s),
            },
            // A statement that is a bare tuple (`a, *b`) has its items as children.
            "list" | "tuple" | "expression_list" | "expression_statement" => {
                let mut items = Vec::new();
                let mut cursor = node.walk();
                let children: Vec<Node> = node.named_children(&mut cursor).collect();
                for (index, child) in children.into_iter().enumerate() {
                    if self.given_up(index) {
                        return Value::unknown("cancelled", s);
                    }
                    match child.kind() {
                        "comment" => {}
                        _ if super::items::starts_with_star(child) || self.star_before(child) => {
                            // `*x` iterates x: a str's characters, a dict's keys. A star the
                            // parse left out (`for x in *a, b:`) is read from the text.
                            let v = match super::items::starts_with_star(child) {
                                true => self.starred(child),
                                false => self.expr(child),
                            };
                            if self.model.load_error.is_some() {
                                return Value::unknown("raises", s);
                            }
                            if v.not_iterable() {
                                let type_name = v.exception_type_name();
                                let message = format!("Value after * must be an iterable, not {type_name}");
                                self.fail(v.span.clone(), "TypeError", message);
                                return Value::unknown("raises", s);
                            }
                            match v.iterated() {
                                Some(more) => items.extend(more),
                                None => return Value::unknown("`*` unpacking of a value not known statically", s),
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
            "set" => self.set(node),
            "attribute" => self.attribute(node),
            "subscript" => self.subscript(node),
            "unary_operator" => self.unary(node),
            "not_operator" => {
                let v = node.field(Field::Argument).map(|a| self.expr(a));
                match (v.as_ref().and_then(Value::truthy), v.map(|v| v.kind)) {
                    (Some(b), _) => Value::new(ValueKind::Bool(!b), s),
                    // Why the operand is not known is why its negation is not; a bool all the same.
                    (None, Some(ValueKind::Unknown(why))) => {
                        Value::unknown_of_type("bool", Operators::NotModelled, Callable::No, why.why, s)
                    }
                    (None, _) => Value::unknown_of_type(
                        "bool",
                        Operators::NotModelled,
                        Callable::No,
                        "`not` of a value not known statically",
                        s,
                    ),
                }
            }
            "boolean_operator" => self.boolean_operator(node),
            "conditional_expression" => self.conditional_expression(node),
            "binary_operator" => {
                let (Some(l), Some(r), Some(op)) =
                    (node.field(Field::Left), node.field(Field::Right), node.field(Field::Operator))
                else {
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
            "comparison_operator" => self.comparison(node),
            "slice" => self.slice(node),
            "ERROR" => {
                self.model.misread.get_or_insert((s.clone(), node.start_position().row + 1));
                Value::unknown("syntax error", s)
            }
            "lambda" => self.lambda(node),
            "named_expression" => self.named_expression(node),
            kind if kind.ends_with("comprehension") || kind == "generator_expression" => self.comprehension(node),
            kind => {
                // Still look inside for names that do not exist (NameError at load time).
                self.scan_names(node);
                Value::unknown(format!("{} expressions are not evaluated statically", kind.replace('_', " ")), s)
            }
        }
    }

    /// `-x`, `+x`, `~x` on known operands, with the TypeError for the types without them.
    /// The value a starred item unpacks (`*x`, or the whole `a[k] | b` of `*a[k] | b`),
    /// its operator chain evaluated from the left without recursion.
    pub(super) fn starred(&mut self, item: Node) -> Value {
        let mut chain = Vec::new();
        let mut at = item;
        while at.kind() == "binary_operator" {
            chain.push(at);
            let Some(left) = at.field(Field::Left) else { return Value::unknown("incomplete expression", span(item)) };
            at = left;
        }
        let Some(mut value) = self.starred_operand(at) else {
            return Value::unknown("a starred item not known statically", span(item));
        };
        for operation in chain.into_iter().rev() {
            if self.model.load_error.is_some() {
                return Value::unknown("raises", span(item));
            }
            let s = span(operation);
            let (Some(r), Some(op)) = (operation.field(Field::Right), operation.field(Field::Operator)) else {
                return Value::unknown("incomplete expression", s);
            };
            let right = self.expr(r);
            value = match binary(self.t(op), &value, &right, s.clone()) {
                Ok(v) => v,
                Err((exception, message)) => {
                    self.fail(s.clone(), exception, message);
                    Value::unknown("raises", s)
                }
            };
        }
        value
    }

    fn unary(&mut self, node: Node) -> Value {
        let s = span(node);
        let (Some(op), Some(arg)) = (node.field(Field::Operator), node.field(Field::Argument)) else {
            return Value::unknown("incomplete expression", s);
        };
        let v = self.expr(arg);
        if let (Some(bits), "-" | "+" | "~") = (v.huge_int_bits(), self.t(op)) {
            // `~x` is `-x - 1`.
            return Value::huge_int(if self.t(op) == "~" { bits - 1 } else { bits }, s);
        }
        // `-len(x)`, `-(x == y)`: an int, not known; `-(x / 3)` a float (`~` of one raises, below).
        let result_type = match (v.known_type(), self.t(op)) {
            (Some("int" | "bool"), "-" | "+" | "~") => Some("int"),
            (Some("float"), "-" | "+") => Some("float"),
            _ => None,
        };
        if let Some(type_name) = result_type {
            return Value::number_not_known(type_name, s);
        }
        // `+sys.argv`: a list, whatever its items.
        let v = match v.type_known() {
            Some(typed) if matches!(self.t(op), "-" | "+" | "~") => typed,
            _ => v,
        };
        match (self.t(op), &v.kind) {
            ("-", ValueKind::Int(_) | ValueKind::BigInt(_)) => {
                Value::int(-super::integers::big_of(&v).unwrap_or_default(), s)
            }
            ("~", ValueKind::BigInt(b)) => Value::int(!(**b).clone(), s),
            ("-", ValueKind::Float(f)) => Value::new(ValueKind::Float(-f), s),
            ("-", ValueKind::Bool(b)) => Value::new(ValueKind::Int(-(*b as i128)), s),
            ("+", ValueKind::Int(_) | ValueKind::BigInt(_) | ValueKind::Float(_)) => Value::new(v.kind, s),
            ("+", ValueKind::Bool(b)) => Value::new(ValueKind::Int(*b as i128), s),
            ("~", ValueKind::Int(i)) => Value::new(ValueKind::Int(!i), s),
            ("~", ValueKind::Bool(b)) => Value::new(ValueKind::Int(!(*b as i128)), s),
            // No other type a value not known may have defines a unary operator (`-range(3)`).
            (op @ ("-" | "+" | "~"), kind) if !matches!(kind, ValueKind::Unknown(_)) || v.known_type().is_some() => {
                let type_name = v.known_type().unwrap_or_else(|| v.exception_type_name());
                let message = format!("bad operand type for unary {op}: '{type_name}'");
                self.fail(s.clone(), "TypeError", message);
                Value::unknown("raises TypeError", s)
            }
            _ => Value::unknown(format!("`{}` is not evaluated statically", self.t(node)), s),
        }
    }

    pub(super) fn name(&mut self, node: Node) -> Value {
        let name = self.t(node);
        let s = span(node);
        if let Some(mut v) = self.read_shared(name) {
            v.span = s;
            return v;
        }
        if self.bound_before.contains(name) {
            return Value::unknown(format!("`{name}` is assigned in code that is not evaluated statically"), s);
        }
        if let Some(builtin) = builtin_object(name) {
            return Value::new(ValueKind::Builtin(builtin), s);
        }
        if name == "Ellipsis" {
            return Value::ellipsis(s);
        }
        // torchcts loads the file as the module `manifest` (check-manifest and conftest alike).
        if name == "__name__" {
            return Value::new(ValueKind::Str("manifest".into()), s);
        }
        if PYTHON_BUILTINS.contains(&name) {
            return Value::unknown(format!("`{name}` is a Python builtin"), s);
        }
        self.fail(s.clone(), "NameError", format!("name '{}' is not defined", c_format_200(name)));
        Value::unknown(format!("`{name}` is not defined"), s)
    }

    fn attribute(&mut self, node: Node) -> Value {
        let s = span(node);
        let (Some(object), Some(attr)) = (node.field(Field::Object), node.field(Field::Attribute)) else {
            return Value::unknown("incomplete attribute", s);
        };
        let base = self.expr(object);
        self.attribute_of(&base, self.t(attr), node)
    }

    /// `base.attr`, `base` evaluated (`node` is the attribute expression).
    pub(super) fn attribute_of(&mut self, base: &Value, attr: &str, node: Node) -> Value {
        let s = span(node);
        let method = base.builtin_method(attr);
        match &base.kind {
            ValueKind::Module { name: m, .. }
                if self.module_attributes.contains_key(&(m.clone(), attr.to_string())) =>
            {
                self.assigned_module_attribute(m, attr, s)
            }
            ValueKind::Module { name: m, .. } if m == "torch" => match schema().dtype_by_attr(attr) {
                Some(d) => Value::new(ValueKind::Dtype { attr: d.attr.clone(), canonical: d.canonical.clone() }, s),
                None if !super::modules::module_lacks("torch", attr, self.loading.version)
                    || self.module_attribute_changed_unseen(attr) =>
                {
                    match attr {
                        // A str subclass: its binary operators are str's.
                        "__version__" => Value::unknown_of_type(
                            "TorchVersion",
                            crate::value::Operators::NotModelled,
                            crate::value::Callable::No,
                            format!("`torch.__version__` {}", crate::value::INSTALLED_TORCH),
                            s,
                        ),
                        _ if self.module_attribute_changed_unseen(attr) => {
                            Value::unknown(format!("`torch.{attr}` may be set by code not evaluated statically"), s)
                        }
                        _ => self.torch_attribute(attr, s),
                    }
                }
                None => {
                    self.fail(s.clone(), "AttributeError", format!("module 'torch' has no attribute '{attr}'"));
                    Value::unknown(format!("torch {} has no attribute `{attr}`", schema().torch_version), s)
                }
            },
            ValueKind::Module { name: m, .. } => match self.module_attribute(&m.clone(), attr, s.clone()) {
                Some(raised) => raised,
                None => Value::unknown(format!("`{m}.{attr}` is not evaluated statically"), s),
            },
            ValueKind::Unknown(_) if base.type_known().is_some_and(|t| t.lacks_attribute(attr).is_some()) => {
                let type_name = base.type_known().map_or("object", |t| t.exception_type_name());
                self.fail(s.clone(), "AttributeError", format!("'{type_name}' object has no attribute '{attr}'"));
                Value::unknown(format!("`{type_name}` has no attribute `{attr}`"), s)
            }
            ValueKind::Unknown(_) | ValueKind::Function { .. }
                if base.object_lacks_attribute(attr).is_some()
                    && !(base.takes_attributes() && super::modules::may_set_attribute(self.text, attr)) =>
            {
                let type_name = base.object_lacks_attribute(attr).unwrap_or("object");
                self.fail(s.clone(), "AttributeError", format!("'{type_name}' object has no attribute '{attr}'"));
                Value::unknown(format!("`{type_name}` has no attribute `{attr}`"), s)
            }
            ValueKind::Unknown(_) => Value::unknown(format!("`{}` is not known statically", self.t(node)), s),
            ValueKind::Builtin(name) if matches!(attr, "__name__" | "__qualname__") => {
                Value::new(ValueKind::Str(name.to_string()), s)
            }
            ValueKind::Builtin(name)
                if crate::value::is_builtin_class(name) && crate::value::class_lacks(name, attr) =>
            {
                self.fail(s.clone(), "AttributeError", format!("type object '{name}' has no attribute '{attr}'"));
                Value::unknown(format!("`{name}` has no attribute `{attr}`"), s)
            }
            ValueKind::TypeForm(form) => match form.lacks_attribute(attr) {
                Some(message) => {
                    self.fail(s.clone(), "AttributeError", message);
                    Value::unknown(format!("`{}` has no attribute `{attr}`", form.type_name()), s)
                }
                None => match (form.data_attribute(attr, s.clone()), base.descriptor_attribute(attr)) {
                    (Some(data), _) => data,
                    (None, Some(descriptor)) => Value::new(descriptor, s),
                    (None, None) => {
                        Value::unknown(format!("attribute `{attr}` of a typing form is not evaluated statically"), s)
                    }
                },
            },
            ValueKind::Builtin(_) if base.descriptor_attribute(attr).is_some() => {
                Value::new(base.descriptor_attribute(attr).unwrap_or(ValueKind::None), s)
            }
            _ if number_attribute(&base.kind, attr).is_some() => {
                Value::new(number_attribute(&base.kind, attr).unwrap_or(ValueKind::None), s)
            }
            _ if method.is_some() => Value::new(
                ValueKind::Method {
                    name: method.unwrap_or_default(),
                    type_name: "builtin_function_or_method",
                    owner: "",
                },
                s,
            ),
            _ if base.lacks_attribute(attr).is_some() => {
                let type_name = base.lacks_attribute(attr).unwrap_or("object");
                self.fail(s.clone(), "AttributeError", format!("'{type_name}' object has no attribute '{attr}'"));
                Value::unknown(format!("`{type_name}` has no attribute `{attr}`"), s)
            }
            _ => Value::unknown(format!("attribute `{attr}` is not evaluated statically"), s),
        }
    }

    fn subscript(&mut self, node: Node) -> Value {
        let s = span(node);
        let (Some(obj), Some(_)) = (node.field(Field::Value), node.field(Field::Subscript)) else {
            return Value::unknown("incomplete subscript", s);
        };
        let base = self.expr(obj);
        let key = self.subscript_key(node);
        if self.model.load_error.is_some() {
            return Value::unknown("raises", s);
        }
        self.read_item(base, key, node)
    }

    /// Adds one `pair` or `**splat` of a dict literal to `d`; false when loading would raise.
    pub(super) fn dict_entry(&mut self, child: Node, d: &mut Dict) -> bool {
        match child.kind() {
            "pair" => {
                let (Some(k), Some(v)) = (child.field(Field::Key), child.field(Field::Value)) else {
                    return true;
                };
                let key = self.expr(k);
                // A pair that swallowed a syntax error may have the wrong value.
                let value = if child.has_error() {
                    d.open = true;
                    self.model.misread.get_or_insert((span(child), child.start_position().row + 1));
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
        // Sized to the literal: growth by doubling left most small dicts at twice their size.
        d.entries.reserve_exact(children.len());
        for (index, child) in children.into_iter().enumerate() {
            if self.given_up(index) {
                return Value::unknown("cancelled", s);
            }
            if !self.dict_entry(child, &mut d) {
                return Value::unknown("load error", s);
            }
        }
        d.entries.shrink_to_fit();
        // Entries lost in a syntax error may hold any key (where the text compiles,
        // tree-sitter misread them: `ManifestModel::misread`).
        if node.has_error() {
            d.open = true;
            self.model.misread.get_or_insert((s.clone(), node.start_position().row + 1));
        }
        Value::new(ValueKind::Dict(d), s)
    }

    /// A set display: its elements are evaluated, in order, and must be hashable; the set
    /// keeps the first of equal elements.
    fn set(&mut self, node: Node) -> Value {
        let s = span(node);
        let mut cursor = node.walk();
        let children: Vec<Node> = node.named_children(&mut cursor).filter(|c| c.kind() != "comment").collect();
        let mut elements: Option<Vec<Value>> = Some(Vec::new());
        // Whether the display certainly makes a set: every element known hashable (an
        // element not known may be unhashable, and the display raise).
        let mut certainly_a_set = true;
        let displayed = children.len();
        // A starred element is added item by item at run time (`SET_UPDATE`): never folded.
        let constness: Vec<Option<bool>> = children
            .iter()
            .map(|c| if super::items::starts_with_star(*c) { Some(false) } else { super::sets::constant(*c) })
            .collect();
        for child in children {
            let element = match child.kind() {
                _ if super::items::starts_with_star(child) => {
                    // A set display updates itself from the iterable (`set.update`'s message).
                    let iterable = self.starred(child);
                    if iterable.not_iterable() && self.model.load_error.is_none() {
                        let type_name = iterable.exception_type_name();
                        self.fail(span(child), "TypeError", format!("'{type_name}' object is not iterable"));
                    }
                    if self.model.load_error.is_some() {
                        return Value::unknown("raises", s);
                    }
                    let items = iterable.iterated().filter(|items| !items.iter().any(Value::contains_unknown));
                    certainly_a_set &= items.is_some();
                    if let Some(t) = items.iter().flatten().find_map(|item| item.hashable().err()) {
                        self.fail(span(child), "TypeError", format!("unhashable type: '{t}'"));
                        return Value::unknown("raises", s);
                    }
                    // Its items join in iteration order, each once.
                    match (&mut elements, items) {
                        (Some(known), Some(items)) => {
                            for item in items {
                                if known.iter().all(|e| crate::value::py_eq(e, &item) == Some(false)) {
                                    known.push(item);
                                }
                            }
                        }
                        _ => elements = None,
                    }
                    continue;
                }
                _ => self.expr(child),
            };
            if self.model.load_error.is_some() {
                return Value::unknown("raises", s);
            }
            if let Err(t) = element.hashable() {
                self.fail(element.span.clone(), "TypeError", format!("unhashable type: '{t}'"));
                return Value::unknown("raises", s);
            }
            if element.contains_unknown() {
                elements = None;
                certainly_a_set &= element.certainly_hashable();
            }
            if let Some(known) = &mut elements {
                if known.iter().all(|e| crate::value::py_eq(e, &element) == Some(false)) {
                    known.push(element);
                }
            }
        }
        match elements.and_then(|e| super::sets::as_built(e, displayed, &constness)) {
            Some(elements) => Value::new(ValueKind::Set(elements), s),
            None if !certainly_a_set => Value::unknown("set of elements not known statically", s),
            // Still a set: its type's errors stand (`{*a} + {1}`).
            None => Value::unknown_of_type(
                "set",
                crate::value::Operators::NotModelled,
                crate::value::Callable::No,
                "set of elements not known statically",
                s,
            ),
        }
    }

    pub(super) fn string(&mut self, node: Node) -> Value {
        let mut cursor = node.walk();
        let fields: Vec<Node> = node.named_children(&mut cursor).filter(|c| c.kind() == "interpolation").collect();
        if fields.is_empty() {
            return decode_string_literal(self.t(node), span(node));
        }
        self.f_string(node, &fields)
    }
}

/// A number's data attributes (`(1).real` is `1`, `True.numerator` the int `1`, `2.5.imag`
/// is `0.0`): the int a bool is, or the number itself.
fn number_attribute(number: &ValueKind, attr: &str) -> Option<ValueKind> {
    Some(match (number, attr) {
        (ValueKind::Bool(b), "real" | "numerator") => ValueKind::Int(*b as i128),
        (ValueKind::Int(_) | ValueKind::BigInt(_), "real" | "numerator") => number.clone(),
        (ValueKind::Int(_) | ValueKind::BigInt(_) | ValueKind::Bool(_), "denominator") => ValueKind::Int(1),
        (ValueKind::Int(_) | ValueKind::BigInt(_) | ValueKind::Bool(_), "imag") => ValueKind::Int(0),
        (ValueKind::Float(_), "real") => number.clone(),
        (ValueKind::Float(_), "imag") => ValueKind::Float(0.0),
        _ => return None,
    })
}

/// A name as CPython's `%.200s` formats it in a message (`NAME_ERROR_MSG`): its first 200
/// bytes of UTF-8, a character cut in two read as U+FFFD (CPython 3.10-3.13 alike).
fn c_format_200(name: &str) -> std::borrow::Cow<'_, str> {
    match name.len() <= 200 {
        true => std::borrow::Cow::Borrowed(name),
        false => String::from_utf8_lossy(&name.as_bytes()[..200]),
    }
}
