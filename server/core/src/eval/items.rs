//! Items of known containers: `x[key]` read, assigned and deleted, in Python's order of
//! evaluation and with the exceptions CPython 3.11 raises (messages checked against
//! `python3.11 -c`: `'str' object doesn't support item deletion`, `list indices must be
//! integers or slices, not str`, ...).

use super::slices::{change_list_through_slice, slice_bounds, slice_of, sliceable};
use super::{span, Evaluator};
use crate::fields::{Field, FieldChild};
use crate::value::{type_form, Span, Value, ValueKind};
use tree_sitter::Node;

/// An exception: where, its type, `str()` of it.
pub(super) type Raised = (Span, &'static str, String);

/// What is done to the item a subscript target names.
pub(super) enum ItemOp {
    Assign(Value),
    Delete,
}

/// Where a chain of subscripts from a name leads.
pub(super) enum Reached {
    /// Evaluating it raised (recorded).
    Raised,
    /// The container is not known statically.
    Unknown,
    /// The name and the keys that lead to a known value.
    Known(String, Vec<Value>),
}

/// Where `container[key]` is, reading it as Python does: `Ok(Some(i))` the index of the item
/// in the dict's entries or the sequence's items, `Ok(None)` not known (or not a value we
/// hold, as a character of a str), or the exception reading it raises.
pub(super) fn item_index(container: &mut Value, key: &Value) -> Result<Option<usize>, Raised> {
    if key.is_unknown() {
        return Ok(None);
    }
    let at = key.span.clone();
    if let (ValueKind::Slice(parts), true) = (&key.kind, sliceable(container)) {
        // Not one item we hold, but the slice's parts are checked as Python reads it.
        return slice_bounds(parts).map(|_| None).map_err(|(exception, message)| (at, exception, message));
    }
    if sliceable(container) && beyond_index_size(key) {
        return Err((at, "IndexError", CANNOT_FIT.into()));
    }
    let key_type = key.exception_type_name();
    let int_key = match key.kind {
        ValueKind::Int(i) => Some(i),
        ValueKind::Bool(b) => Some(b as i128),
        _ => None,
    };
    let in_range =
        |len: usize| int_key.map(|i| if i < 0 { i + len as i128 } else { i }).filter(|i| (0..len as i128).contains(i));
    let type_name = container.exception_type_name();
    let subscriptable_if_unknown = !container.known_type_not_subscriptable();
    // A sequence known by its type only refuses a key of another type than an index,
    // whatever its length (`sys.argv["a"]`).
    let refuses_key = int_key.is_none() && !matches!(key.kind, ValueKind::Slice(_) | ValueKind::BigInt(_));
    let stand_in = container.type_known().filter(|_| refuses_key);
    match &mut container.kind {
        ValueKind::Dict(d) => {
            if let Err(t) = key.hashable() {
                return Err((at, "TypeError", format!("unhashable type: '{t}'")));
            }
            match d.position(key) {
                Some(p) => Ok(Some(p)),
                None if d.open => Ok(None),
                None => Err((at, "KeyError", key.repr())),
            }
        }
        ValueKind::List(items) | ValueKind::Tuple(items) => match (int_key, in_range(items.len())) {
            (Some(_), Some(i)) => Ok(Some(i as usize)),
            (Some(_), None) => Err((at, "IndexError", format!("{type_name} index out of range"))),
            (None, _) => {
                Err((at, "TypeError", format!("{type_name} indices must be integers or slices, not {key_type}")))
            }
        },
        ValueKind::Str(text) => match (int_key, in_range(text.chars().count())) {
            (Some(_), Some(_)) => Ok(None),
            (Some(_), None) => Err((at, "IndexError", "string index out of range".into())),
            (None, _) => Err((at, "TypeError", format!("string indices must be integers, not '{key_type}'"))),
        },
        ValueKind::Bytes(bytes) => match (int_key, in_range(bytes.len())) {
            (Some(_), Some(_)) => Ok(None),
            (Some(_), None) => Err((at, "IndexError", "index out of range".into())),
            (None, _) => Err((at, "TypeError", format!("byte indices must be integers or slices, not {key_type}"))),
        },
        // A class: `list[int]` is a generic alias, `int[0]` raises another message.
        ValueKind::Unknown(_) if subscriptable_if_unknown => match stand_in {
            Some(mut typed) => item_index(&mut typed, key).map(|_| None),
            None => Ok(None),
        },
        ValueKind::Builtin(name) if crate::value::is_builtin_class(name) => Ok(None),
        // What subscripting a class or a typing form raises is `type_form::subscript_error`'s.
        ValueKind::TypeForm(_) => Ok(None),
        _ => Err((at, "TypeError", format!("'{type_name}' object is not subscriptable"))),
    }
}

const CANNOT_FIT: &str = "cannot fit 'int' into an index-sized integer";

/// Whether an int index does not fit CPython's `Py_ssize_t` (64 bits).
fn beyond_index_size(key: &Value) -> bool {
    match key.kind {
        ValueKind::BigInt(_) => true,
        ValueKind::Int(i) => i64::try_from(i).is_err(),
        _ => false,
    }
}

/// `text[i]` of a str (a one-character str) or bytes (an int), where `key` is an index
/// [`item_index`] accepted.
pub(super) fn character_at(container: &Value, key: &Value) -> Option<Value> {
    let i = match key.kind {
        ValueKind::Int(i) => i,
        ValueKind::Bool(b) => b.into(),
        _ => return None,
    };
    let at = |len: usize| usize::try_from(if i < 0 { i + len as i128 } else { i }).ok();
    let s = key.span.clone();
    match &container.kind {
        ValueKind::Str(text) => {
            let n = text.chars().count();
            let c = text.chars().nth(at(n)?)?;
            Some(Value::new(ValueKind::Str(c.into()), s))
        }
        ValueKind::Bytes(bytes) => Some(Value::new(ValueKind::Int(bytes.get(at(bytes.len())?)?.to_owned().into()), s)),
        _ => None,
    }
}

/// The item at an index [`item_index`] gave.
pub(super) fn item_at(container: &mut Value, index: usize) -> Option<&mut Value> {
    match &mut container.kind {
        ValueKind::Dict(d) => d.entries.get_mut(index).map(|e| &mut e.value),
        ValueKind::List(items) | ValueKind::Tuple(items) => items.get_mut(index),
        _ => None,
    }
}

/// `container[key] = value` or `del container[key]` on a known container.
pub(super) fn apply_item_op(container: &mut Value, key: Value, op: ItemOp) -> Result<(), Raised> {
    let type_name = container.exception_type_name();
    let subscriptable_if_unknown = !container.known_type_not_subscriptable();
    let at = key.span.clone();
    if key.is_unknown() {
        // Any key may be the one set: the dict may now hold keys we do not know.
        if let (ValueKind::Dict(d), ItemOp::Assign(_)) = (&mut container.kind, &op) {
            d.open = true;
        }
        return Ok(());
    }
    match (&mut container.kind, op) {
        (ValueKind::Dict(d), ItemOp::Assign(value)) => {
            if let Err(t) = key.hashable() {
                return Err((at, "TypeError", format!("unhashable type: '{t}'")));
            }
            d.insert(key, value);
            Ok(())
        }
        (ValueKind::Dict(d), ItemOp::Delete) => {
            if let Err(t) = key.hashable() {
                return Err((at, "TypeError", format!("unhashable type: '{t}'")));
            }
            match d.remove(&key) || d.open {
                true => Ok(()),
                false => Err((at, "KeyError", key.repr())),
            }
        }
        (ValueKind::List(items), op) if matches!(key.kind, ValueKind::Slice(_)) => {
            let ValueKind::Slice(parts) = &key.kind else { return Ok(()) };
            let value = match &op {
                ItemOp::Assign(value) => Some(value),
                ItemOp::Delete => None,
            };
            let modelled = change_list_through_slice(items, parts, value)
                .map_err(|(exception, message)| (at, exception, message))?;
            if !modelled {
                let s = container.span.clone();
                // Still the same object: its copies become unknown too (`sharing.rs`).
                let identity = container.identity;
                *container = Value::unknown("changed through a slice", s);
                container.identity = identity;
            }
            Ok(())
        }
        (ValueKind::List(_), _) if beyond_index_size(&key) => Err((at, "IndexError", CANNOT_FIT.into())),
        (ValueKind::List(items), op) => {
            let len = items.len() as i128;
            let index = match key.kind {
                ValueKind::Int(i) => i,
                ValueKind::Bool(b) => b as i128,
                _ => {
                    let key_type = key.exception_type_name();
                    return Err((at, "TypeError", format!("list indices must be integers or slices, not {key_type}")));
                }
            };
            let real = if index < 0 { index + len } else { index };
            if !(0..len).contains(&real) {
                return Err((at, "IndexError", "list assignment index out of range".into()));
            }
            match op {
                ItemOp::Assign(value) => items[real as usize] = value,
                ItemOp::Delete => {
                    items.remove(real as usize);
                }
            }
            Ok(())
        }
        (ValueKind::Unknown(_), _) if subscriptable_if_unknown => Ok(()),
        (_, op) => Err(no_item_op(type_name, &key, op)),
    }
}

/// Types with sequence slots but no item assignment: an int key is read as an index first
/// (`PyObject_SetItem`, `PyObject_DelItem`), which decides the error.
const SEQUENCE_SLOTS: [&str; 9] =
    ["str", "bytes", "tuple", "set", "frozenset", "range", "dict_keys", "dict_values", "dict_items"];

/// What `object[key] = value` or `del object[key]` raises for an object of a type without
/// them (CPython 3.10-3.13 alike).
fn no_item_op(type_name: &str, key: &Value, op: ItemOp) -> Raised {
    let at = key.span.clone();
    let index = matches!(key.kind, ValueKind::Int(_) | ValueKind::Bool(_) | ValueKind::BigInt(_));
    let sequence = index && SEQUENCE_SLOTS.contains(&type_name);
    if sequence && beyond_index_size(key) {
        return (at, "IndexError", CANNOT_FIT.into());
    }
    let message = match op {
        ItemOp::Assign(_) => format!("'{type_name}' object does not support item assignment"),
        // `PySequence_DelItem`'s own wording, for an index into a sequence type.
        ItemOp::Delete if sequence => format!("'{type_name}' object doesn't support item deletion"),
        ItemOp::Delete => format!("'{type_name}' object does not support item deletion"),
    };
    (at, "TypeError", message)
}

/// A target's chain of subscripts: the innermost object and the `subscript` nodes, innermost
/// first (their keys are read with [`Evaluator::subscript_key`]).
pub(super) fn subscript_chain(target: Node) -> Option<(Node, Vec<Node>)> {
    let mut subscripts = Vec::new();
    let mut node = target;
    while node.kind() == "subscript" {
        node.field(Field::Subscript)?;
        subscripts.push(node);
        node = node.field(Field::Value)?;
    }
    subscripts.reverse();
    // `*d["k"], = v`, which tree-sitter reads as an item of `*d`: the star is the target's.
    if node.kind() == "list_splat" && !subscripts.is_empty() {
        node = node.named_child(0)?;
    }
    Some((node, subscripts))
}

impl Evaluator<'_> {
    /// Evaluates `object[k1][k2]...` in Python's order (the object, then each key and the
    /// item it reads), stopping at the first exception.
    pub(super) fn reach(&mut self, object: Node, keys: &[Node]) -> Reached {
        if object.kind() != "identifier" || !self.env.contains_key(self.t(object)) {
            // Not a name we hold: its errors (a NameError, say) and the keys' are still raised.
            let _ = self.expr(object);
            for k in keys {
                if self.model.load_error.is_some() {
                    break;
                }
                let _ = self.subscript_key(*k);
            }
            return if self.model.load_error.is_some() { Reached::Raised } else { Reached::Unknown };
        }
        let root = self.t(object).to_string();
        let mut path = Vec::new();
        for (i, k) in keys.iter().enumerate() {
            let key = self.subscript_key(*k);
            if self.model.load_error.is_some() {
                return Reached::Raised;
            }
            let read = match self.at_path(&root, &path) {
                Some(container) => {
                    // An item under a key we do not know may change: the dict is no longer
                    // known to hold only the keys we see.
                    if let (true, ValueKind::Dict(d)) = (key.is_unknown(), &mut container.kind) {
                        d.open = true;
                    }
                    item_index(container, &key)
                }
                None => Ok(None),
            };
            match read {
                Ok(Some(_)) => path.push(key),
                Ok(None) => {
                    // Not known from here on: the remaining keys still raise their own errors.
                    for k in &keys[i + 1..] {
                        let _ = self.subscript_key(*k);
                        if self.model.load_error.is_some() {
                            return Reached::Raised;
                        }
                    }
                    return Reached::Unknown;
                }
                Err((s, exception, message)) => {
                    self.fail(s, exception, message);
                    return Reached::Raised;
                }
            }
        }
        Reached::Known(root, path)
    }

    /// The value a path [`Evaluator::reach`] returned leads to.
    pub(super) fn at_path(&mut self, root: &str, path: &[Value]) -> Option<&mut Value> {
        let mut current = self.env.get_mut(root)?;
        for key in path {
            let index = item_index(current, key).ok()??;
            current = item_at(current, index)?;
        }
        Some(current)
    }

    /// `target = value` or `del target` where the target is a subscript.
    pub(super) fn item_statement(&mut self, target: Node, op: ItemOp) {
        let Some((object, keys)) = subscript_chain(target) else {
            // `x[*a] = v` and the like: the object is still evaluated.
            if let Some(object) = target.field(Field::Value) {
                let _ = self.expr(object);
            }
            return;
        };
        let Some((last, containers)) = keys.split_last() else { return };
        if object.kind() != "identifier" || !self.env.contains_key(self.t(object)) {
            return self.item_statement_on_a_value(object, containers, *last, op);
        }
        let (root, path) = match self.reach(object, containers) {
            Reached::Known(root, path) => (root, path),
            Reached::Raised => return,
            Reached::Unknown => {
                let _ = self.subscript_key(*last);
                return;
            }
        };
        let key = self.subscript_key(*last);
        if self.model.load_error.is_some() {
            return;
        }
        // Taken out while the environment is borrowed, and put back.
        let mut sharing = std::mem::take(&mut self.sharing);
        let Some(container) = self.at_path(&root, &path) else {
            self.sharing = sharing;
            return;
        };
        // `m["k"] = (m,)`: the container holds itself, which a copy one level down stands
        // for (its repr is cut short where it recurs).
        let identity = container.identity;
        let mut self_copy = None;
        let op = match op {
            ItemOp::Assign(value) if identity != 0 && holds_identity(&value, identity) => {
                let apply =
                    |copy: &mut Value, cut: Value| apply_item_op(copy, key.clone(), ItemOp::Assign(cut)).is_ok();
                match sharing.unroll_self_reference(container, &value, apply) {
                    Some((unrolled, copy)) => {
                        self_copy = Some(copy);
                        ItemOp::Assign(unrolled)
                    }
                    None => ItemOp::Assign(value),
                }
            }
            op => op,
        };
        self.sharing = sharing;
        let Some(container) = self.at_path(&root, &path) else { return };
        if let Err((s, exception, message)) = apply_item_op(container, key, op) {
            self.fail(s, exception, message);
        }
        self.changed_in_place(root, path);
        if let Some(copy) = self_copy {
            self.sharing.record_self_copy(identity, copy);
        }
    }

    /// `item_statement` where the object is not a name we hold (`["a"]["b"] = 1`, an unknown
    /// name): evaluated, read and changed as Python would, the result thrown away.
    fn item_statement_on_a_value(&mut self, object: Node, containers: &[Node], last: Node, op: ItemOp) {
        let mut value = self.expr(object);
        if self.model.load_error.is_some() {
            return;
        }
        for k in containers {
            let key = self.subscript_key(*k);
            if self.model.load_error.is_some() {
                return;
            }
            value = self.read_item(value, key, *k);
        }
        let key = self.subscript_key(last);
        if self.model.load_error.is_some() {
            return;
        }
        if let Err((s, exception, message)) = apply_item_op(&mut value, key, op) {
            self.fail(s, exception, message);
        }
    }

    /// The key of the subscript `node`: `x[a, b]` (or `x[a,]`) is the tuple `(a, b)`.
    pub(super) fn subscript_key(&mut self, node: Node) -> Value {
        let s = node.start_byte()..node.end_byte();
        let mut cursor = node.walk();
        let parts: Vec<Node> = node.children_by_field_name("subscript", &mut cursor).collect();
        let mut cursor = node.walk();
        let comma = node.children(&mut cursor).any(|c| !c.is_named() && c.kind() == ",");
        let starred = parts.iter().any(|p| starts_with_star(*p) || self.star_before(*p));
        match parts.as_slice() {
            [one] if !comma && !starred => self.expr(*one),
            _ => {
                let mut items = Vec::with_capacity(parts.len());
                for part in parts {
                    let iterable = match (starts_with_star(part), self.star_before(part)) {
                        (false, false) => {
                            items.push(self.expr(part));
                            None
                        }
                        (_, true) => Some(self.expr(part)),
                        (true, false) => Some(self.starred(part)),
                    };
                    if let Some(iterable) = iterable {
                        // `d[*a, 1]` (3.11+): the key is a tuple with `a`'s items spliced in.
                        if iterable.not_iterable() && self.model.load_error.is_none() {
                            let type_name = iterable.exception_type_name();
                            let message = format!("Value after * must be an iterable, not {type_name}");
                            self.fail(span(part), "TypeError", message);
                        }
                        match iterable.iterated() {
                            Some(spliced) => items.extend(spliced),
                            None => items.push(Value::unknown("a starred item not known statically", span(part))),
                        }
                    }
                    if self.model.load_error.is_some() {
                        break;
                    }
                }
                // An unknown count of spliced items: the key's length is not known either.
                if items.iter().any(|i| matches!(&i.kind, ValueKind::Unknown(why) if why.starts_with("a starred"))) {
                    return Value::unknown("a key with a starred item not known statically", s);
                }
                Value::new(ValueKind::Tuple(items), s)
            }
        }
    }

    /// Whether the item `part` is starred by a `*` tree-sitter did not read (see
    /// `syntax::leniency::subscript_stars` and `for_in_stars`): the text before it is `[*`,
    /// `,*` or a `for` statement's `in *`.
    pub(super) fn star_before(&self, part: Node) -> bool {
        let before = self.text.as_bytes()[..part.start_byte()].trim_ascii_end();
        let Some(rest) = before.strip_suffix(b"*").map(<[u8]>::trim_ascii_end) else { return false };
        let after_in = rest.strip_suffix(b"in").is_some_and(|r| r.last().is_some_and(|b| b.is_ascii_whitespace()));
        matches!(rest.last(), Some(b'[' | b',')) || after_in
    }

    /// What a starred item stars: tree-sitter reads `*a[k].b` as the item and attribute of
    /// `*a`, and `*d.keys()` as a call of `(*d).keys`, where Python stars `a[k].b` and
    /// `d.keys()`.
    pub(super) fn starred_operand(&mut self, part: Node) -> Option<Value> {
        match part.kind() {
            "list_splat" => part.named_child(0).map(|inner| self.expr(inner)),
            // The callee is read without the star (see `unstarred`).
            "call" => Some(self.call(part)),
            "subscript" => {
                let base = self.starred_operand(part.field(Field::Value)?)?;
                let key = self.subscript_key(part);
                Some(self.read_item(base, key, part))
            }
            "attribute" => {
                let base = self.starred_operand(part.field(Field::Object)?)?;
                let attr = self.t(part.field(Field::Attribute)?);
                Some(self.attribute_of(&base, attr, part))
            }
            _ => None,
        }
    }

    /// A callee or a method's object, which holds the star of a starred call as tree-sitter
    /// reads it (`*d.keys()`: `(*d).keys`): its value without the star, which Python gives
    /// the whole call.
    pub(super) fn unstarred(&mut self, node: Node) -> Value {
        match starts_with_star(node) {
            true => self.starred_operand(node).unwrap_or_else(|| Value::unknown("a starred call", span(node))),
            false => self.expr(node),
        }
    }

    /// Reads `object[key]` (the expression `node`) where both are evaluated.
    pub(super) fn read_item(&mut self, mut object: Value, key: Value, node: Node) -> Value {
        let s = node.start_byte()..node.end_byte();
        // `sys.argv[1:]`: a slice of a sequence known by its type only is one of that type,
        // once its bounds are checked as any such sequence checks them.
        if let (ValueKind::Slice(parts), Some(stand_in)) = (&key.kind, object.type_known()) {
            if sliceable(&stand_in) {
                if let Err((exception, message)) = slice_of(&stand_in, parts, s.clone()) {
                    self.fail(key.span.clone(), exception, message);
                    return Value::unknown("raises", s);
                }
                if let ValueKind::Unknown(mut not_known) = object.kind {
                    not_known.items = None;
                    return Value { kind: ValueKind::Unknown(not_known), span: s, identity: 0 };
                }
            }
        }
        if let ValueKind::Unknown(why) = &object.kind {
            if super::modules::environment_decides(why) {
                // `sys.argv[1]`: an IndexError with one command line, a str with another.
                self.note(s.clone(), format!("reading an item of a value not known statically ({why}): whether it raises is only known when Python runs it"));
            }
        }
        let not_known = |s: Span| Value::unknown(format!("`{}` is not evaluated statically", self.t(node)), s);
        if let (ValueKind::Slice(parts), true) = (&key.kind, sliceable(&object)) {
            return match slice_of(&object, parts, s.clone()) {
                Ok(Some(v)) => v,
                Ok(None) => not_known(s),
                Err((exception, message)) => {
                    self.fail(key.span.clone(), exception, message);
                    Value::unknown("raises", s)
                }
            };
        }
        if let ValueKind::Builtin(class) = &object.kind {
            if let Some(alias) = type_form::alias(class, &key, s.clone()) {
                return alias;
            }
        }
        if let Some(message) = type_form::subscript_error(&object, self.loading.version) {
            self.fail(s.clone(), "TypeError", message);
            return Value::unknown("raises", s);
        }
        match item_index(&mut object, &key) {
            Ok(Some(index)) => match item_at(&mut object, index) {
                Some(v) => v.clone(),
                None => not_known(s),
            },
            Ok(None) => match character_at(&object, &key) {
                Some(mut c) => {
                    c.span = s;
                    c
                }
                None => not_known(s),
            },
            Err((at, exception, message)) => {
                self.fail(at, exception, message);
                Value::unknown("raises", s)
            }
        }
    }
}

/// Whether `part` is a starred item, as tree-sitter reads it (`*a`, or `*a[k]` read as the
/// item of `*a`, `*f()` as a call of `*f`, or `*a | b` as the union of `*a` and `b`).
pub(super) fn starts_with_star(part: Node) -> bool {
    let mut node = part;
    loop {
        match node.kind() {
            "list_splat" => return true,
            // `*a | b`: Python's star takes the whole bitwise-or expression.
            "subscript" | "attribute" | "binary_operator" | "call" => match node.child(0) {
                Some(object) => node = object,
                None => return false,
            },
            _ => return false,
        }
    }
}

/// Whether `value` holds, at any depth, the container whose identity is `identity`.
pub(super) fn holds_identity(value: &Value, identity: u32) -> bool {
    let mut stack = vec![value];
    while let Some(v) = stack.pop() {
        if v.identity == identity {
            return true;
        }
        match &v.kind {
            ValueKind::List(items) | ValueKind::Tuple(items) | ValueKind::Set(items) => stack.extend(items),
            ValueKind::Dict(d) => stack.extend(d.entries.iter().map(|e| &e.value)),
            _ => {}
        }
    }
    false
}
