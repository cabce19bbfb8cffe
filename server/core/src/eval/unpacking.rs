//! Unpacking assignments (`a, *b, c = v`): the counts CPython checks, and what each target
//! takes; a starred target tree-sitter reads as the star's attribute or item (`*a.b`).

use super::{span, Evaluator};
use crate::fields::{Field, FieldChild};
use crate::regex_check::PythonVersion;
use crate::value::{Span, TypeForm, Value, ValueKind};
use tree_sitter::Node;

impl Evaluator<'_> {
    /// `target = value` where `target` is a tuple or list of targets.
    pub(super) fn unpack(&mut self, target: Node, value: Value) {
        let mut cursor = target.walk();
        let targets: Vec<Node> = target.named_children(&mut cursor).filter(|t| t.kind() != "comment").collect();
        let starred = targets.iter().any(|t| is_starred_target(*t));
        // What iterating the value gives (a dict its keys), where it is known. A
        // generic alias gives itself unpacked (`*list[int]`) from 3.11 on.
        let alias = matches!(&value.kind, ValueKind::TypeForm(f) if matches!(**f, TypeForm::Alias { .. }));
        let iterates = !alias || self.loading.version >= PythonVersion::V3_11;
        let iterated = match alias {
            true => Some(vec![Value::unknown("an unpacked generic alias", value.span.clone())]),
            false => value.iterated(),
        };
        let message = match (&value.kind, &iterated) {
            _ if value.not_iterable() || !iterates => {
                Some(("TypeError", format!("cannot unpack non-iterable {} object", value.exception_type_name())))
            }
            (_, Some(items)) if !starred && items.len() > targets.len() => {
                Some(("ValueError", format!("too many values to unpack (expected {})", targets.len())))
            }
            (_, Some(items)) if !starred && items.len() < targets.len() => Some((
                "ValueError",
                format!("not enough values to unpack (expected {}, got {})", targets.len(), items.len()),
            )),
            (_, Some(items)) if starred && items.len() + 1 < targets.len() => Some((
                "ValueError",
                format!("not enough values to unpack (expected at least {}, got {})", targets.len() - 1, items.len()),
            )),
            // A str known but for the addresses it shows (`f"{f}"`): each `…` stands for one
            // hex digit or more, so it has at least as many characters as its text shows.
            (ValueKind::Unknown(_), None)
                if !starred && value.shown().is_some_and(|text| text.chars().count() > targets.len()) =>
            {
                Some(("ValueError", format!("too many values to unpack (expected {})", targets.len())))
            }
            _ => None,
        };
        if let Some((error, message)) = message {
            self.fail(span(target), error, message);
            return;
        }
        // How many items an unknown value has is Python's to say: unpacking may raise.
        if let (None, ValueKind::Unknown(why)) = (&iterated, &value.kind) {
            let message = format!("unpacking a value not known statically ({why}): whether it has {} item{} is only known when Python runs it", targets.len(), if targets.len() == 1 { "" } else { "s" });
            self.note(span(target), message);
        }
        let items = iterated.map(|items| starred_items(&targets, items, span(target)));
        for (i, t) in targets.iter().enumerate() {
            let v = match &items {
                Some(items) => items[i].clone(),
                None => Value::unknown("unpacked from a value not known statically", span(*t)),
            };
            self.bind(*t, v);
        }
    }

    /// A starred target tree-sitter read as `(*a).b` or `(*a)[k]`: `a.b = v` or `a[k] = v`,
    /// its object evaluated without the star (`*torch.x.y, = v` reads `torch.x` first).
    pub(super) fn bind_starred_chain(&mut self, target: Node, value: Value) {
        if target.kind() == "attribute" {
            let Some(object) = target.field(Field::Object) else { return };
            let owner = self.unstarred(object);
            if self.model.load_error.is_none() {
                self.set_attribute(&owner, target, value);
            }
            return;
        }
        self.item_statement(target, super::items::ItemOp::Assign(value));
    }
}

/// Whether a target is starred: `*b`, or `*a.b` / `*a[0]`, which tree-sitter reads as the
/// star's attribute or item.
fn is_starred_target(target: Node) -> bool {
    matches!(target.kind(), "list_splat_pattern" | "list_splat") || splat_in_chain(target).is_some()
}

/// The `*x` at the start of an attribute or subscript chain (`(*a).b.c`).
pub(super) fn splat_in_chain(target: Node) -> Option<Node> {
    let mut node = target;
    while matches!(node.kind(), "attribute" | "subscript") {
        node = node.field(Field::Object).or_else(|| node.field(Field::Value))?;
    }
    (node.kind() == "list_splat" && node.id() != target.id()).then_some(node)
}

/// What each target of `a, *b, c = items` takes: the starred one a list of the items the
/// others leave (where the counts fit, which the caller checked).
fn starred_items(targets: &[Node], mut items: Vec<Value>, s: Span) -> Vec<Value> {
    let Some(star) = targets.iter().position(|t| is_starred_target(*t)) else { return items };
    let after = targets.len() - star - 1;
    let rest: Vec<Value> = items.drain(star..items.len() - after).collect();
    items.insert(star, Value::new(ValueKind::List(rest), s));
    items
}
