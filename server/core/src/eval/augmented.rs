//! Augmented assignment (`x += y`, `m["k"]["j"] *= 2`) in CPython's order: the target's
//! object and key once, the item read, the value, the in-place operation, the store; with
//! the in-place operators' own semantics (`list +=` extends with any iterable, `dict |=`
//! updates) and messages (`unsupported operand type(s) for +=: ...`), as
//! `tests/fixture/binary_operators.tsv` records CPython 3.11's answers.

use super::items::{apply_item_op, character_at, item_at, item_index, subscript_chain, ItemOp, Reached};
use super::operators::binary;
use super::{span, Evaluator};
use crate::fields::{Field, FieldChild};
use crate::value::{Span, Value, ValueKind};
use tree_sitter::Node;

impl Evaluator<'_> {
    pub(super) fn augmented_assignment(&mut self, node: Node) {
        let (Some(left), Some(right), Some(op)) =
            (node.field(Field::Left), node.field(Field::Right), node.field(Field::Operator))
        else {
            return;
        };
        let op = self.t(op).trim_end_matches('=').to_string();
        let s = span(node);
        match left.kind() {
            "subscript" => self.augmented_item(left, right, &op, s),
            "identifier" => {
                let current = self.name(left);
                if self.model.load_error.is_some() {
                    return;
                }
                let Some(mut result) = self.operate_in_place(&op, &current, right, s) else { return };
                result.identity = same_object(&op, &current);
                self.bind(left, result);
                // `list +=`, `list *=` and `dict |=` change the object other names may hold.
                self.changed_in_place(self.t(left).to_string(), Vec::new());
            }
            "attribute" => {
                // `x.attr += v`: the object, its attribute, the value, the operation, then
                // the attribute set (which may refuse: `(1).real += 1`).
                let Some(object) = left.field(Field::Object) else { return };
                let owner = self.expr(object);
                if self.model.load_error.is_some() {
                    return;
                }
                let attr = left.field(Field::Attribute).map(|a| self.t(a).to_string()).unwrap_or_default();
                let current = self.attribute_of(&owner, &attr, left);
                if self.model.load_error.is_some() {
                    return;
                }
                let Some(result) = self.operate_in_place(&op, &current, right, s) else { return };
                self.set_attribute(&owner, left, result);
            }
            _ => {
                let _ = self.expr(left);
                if self.model.load_error.is_none() {
                    let _ = self.expr(right);
                }
            }
        }
    }

    /// Evaluates the value, then `current op= value`; `None` when it raised (recorded).
    fn operate_in_place(&mut self, op: &str, current: &Value, right: Node, s: Span) -> Option<Value> {
        let rhs = self.expr(right);
        if self.model.load_error.is_some() {
            return None;
        }
        match in_place(op, current, &rhs, s.clone()) {
            Ok(v) => Some(v),
            Err((exception, message)) => {
                self.fail(s, exception, message);
                None
            }
        }
    }

    /// `object[k1]...[kn] op= value`.
    fn augmented_item(&mut self, target: Node, right: Node, op: &str, s: Span) {
        let Some((object, keys)) = subscript_chain(target) else {
            let _ = self.expr(target);
            return;
        };
        let Some((last, containers)) = keys.split_last() else { return };
        let held = object.kind() == "identifier" && self.env.contains_key(self.t(object));
        // The container: a path into a name we hold, or a value evaluated here.
        let (mut place, path) = if held {
            match self.reach(object, containers) {
                Reached::Known(root, path) => (Err(root), path),
                Reached::Raised => return,
                Reached::Unknown => (Ok(Value::unknown("not known", s.clone())), Vec::new()),
            }
        } else {
            let mut value = self.expr(object);
            for k in containers {
                if self.model.load_error.is_some() {
                    return;
                }
                let key = self.subscript_key(*k);
                if self.model.load_error.is_some() {
                    return;
                }
                value = self.read_item(value, key, *k);
            }
            (Ok(value), Vec::new())
        };
        if self.model.load_error.is_some() {
            return;
        }
        let key = self.subscript_key(*last);
        if self.model.load_error.is_some() {
            return;
        }
        // The item read.
        let read = {
            let container = match &mut place {
                Ok(value) => Some(value),
                Err(root) => self.at_path(root, &path),
            };
            match (container, &key.kind) {
                // `name[0:] += "c"`: the slice is read, then stored (a str refuses that).
                (Some(c), ValueKind::Slice(parts)) if super::slices::sliceable(c) => {
                    super::slices::slice_of(c, parts, s.clone()).map_err(|(e, m)| (key.span.clone(), e, m))
                }
                (Some(c), _) => item_index(c, &key).map(|i| match i {
                    Some(i) => item_at(c, i).cloned(),
                    None => character_at(c, &key),
                }),
                (None, _) => Ok(None),
            }
        };
        let current = match read {
            Ok(Some(v)) => v,
            Ok(None) => Value::unknown("an item not known statically", s.clone()),
            Err((at, exception, message)) => {
                self.fail(at, exception, message);
                return;
            }
        };
        let Some(mut result) = self.operate_in_place(op, &current, right, s) else { return };
        result.identity = same_object(op, &current);
        // An unknown operation may have raised before the store: claim nothing of the store.
        let store_claimed = !result.is_unknown();
        let container = match &mut place {
            Ok(value) => Some(value),
            Err(root) => self.at_path(root, &path),
        };
        let Some(container) = container else { return };
        let outcome = apply_item_op(container, key.clone(), ItemOp::Assign(result));
        if let (Err((at, exception, message)), true) = (outcome, store_claimed) {
            self.fail(at, exception, message);
        }
        if let Err(root) = place {
            // The container took a new item, and the item itself may have changed in place.
            self.changed_in_place(root.clone(), path.clone());
            let mut item_path = path;
            item_path.push(key);
            self.changed_in_place(root, item_path);
        }
    }
}

/// The identity of the result of `current op= ...`: `current`'s where the operator changes
/// it in place (`list +=`, `list *=`, `dict |=`), else a new object's.
fn same_object(op: &str, current: &Value) -> u32 {
    match (&current.kind, op) {
        (ValueKind::List(_), "+" | "*") | (ValueKind::Dict(_), "|") => current.identity,
        _ => 0,
    }
}

/// `current op= rhs` with the in-place semantics of the builtin types.
fn in_place(op: &str, current: &Value, rhs: &Value, s: Span) -> Result<Value, (&'static str, String)> {
    let unknown = || Ok(Value::unknown(format!("`{op}=` on these operands is not evaluated statically"), s.clone()));
    if current.is_unknown() {
        // A value known only by its type raises as any of that type (`sys.argv += 1`,
        // `{*a} += {1}`), and stays of its type where one of that type would (`|=` on a set).
        if let Some(typed) = current.type_known().filter(|_| !current.formats_unknown_text(op)) {
            let result = in_place(op, &typed, rhs, s.clone())?;
            return match result.type_name() == typed.type_name() {
                true => Ok(Value { span: s.clone(), ..current.clone() }),
                false => unknown(),
            };
        }
        // A dict view has no in-place operator: `v |= {...}` is `v = v | {...}`, a set.
        if let Some(result) = super::operators::view_set_operation(op, current, rhs, s.clone()) {
            return result;
        }
        if !current.lacks_operator(op) {
            return unknown();
        }
    }
    match (&current.kind, op) {
        (ValueKind::List(items), "+") => {
            if rhs.not_iterable() {
                return Err(("TypeError", format!("'{}' object is not iterable", rhs.exception_type_name())));
            }
            let Some(more) = rhs.iterated() else { return unknown() };
            let mut items = items.clone();
            items.extend(more);
            Ok(Value::new(ValueKind::List(items), s))
        }
        // `dict.update` with an iterable of key/value pairs.
        (ValueKind::Dict(d), "|") if !matches!(rhs.kind, ValueKind::Dict(_)) => {
            match super::comprehensions::dict_of_pairs(rhs) {
                Some(Ok(built)) => {
                    let mut d = d.clone();
                    built.entries.into_iter().for_each(|e| d.insert(e.key, e.value));
                    Ok(Value::new(ValueKind::Dict(d), s))
                }
                Some(Err((_, exception, message))) => Err((exception, message)),
                None => unknown(),
            }
        }
        // A dict or set has sequence methods but no repeat: the right operand's is not tried.
        (ValueKind::Dict(_) | ValueKind::Set(_), "*") if !rhs.is_unknown() => {
            let (l, r) = (current.exception_type_name(), rhs.exception_type_name());
            Err(("TypeError", format!("unsupported operand type(s) for *=: '{l}' and '{r}'")))
        }
        _ => binary(op, current, rhs, s).map_err(|(exception, message)| {
            // The in-place operator names itself where the operands' types lack it.
            let shown = if op == "**" { "** or pow()" } else { op };
            let prefix = format!("unsupported operand type(s) for {shown}:");
            match message.strip_prefix(&prefix) {
                Some(rest) => (exception, format!("unsupported operand type(s) for {op}=:{rest}")),
                None => (exception, message),
            }
        }),
    }
}
