//! Module-level annotations, which CPython evaluates into `__annotations__` (unless
//! `from __future__ import annotations`): tree-sitter's type syntax read back as the
//! expressions it is (`list[int]`, `d["k"]`, `a[b][c]`).

use super::{span, Evaluator};
use crate::fields::{Field, FieldChild};
use crate::value::{Value, ValueKind};
use tree_sitter::Node;

impl Evaluator<'_> {
    /// A module-level annotation is evaluated (into `__annotations__`) unless
    /// `from __future__ import annotations` keeps it as text.
    pub(super) fn annotation(&mut self, node: Node) {
        let Some(annotation) = node.field(Field::Type) else { return };
        if !self.future_annotations && self.chained_annotation(node) {
            return;
        }
        if !self.future_annotations {
            // Evaluated as any expression: `x: d["k"] = 1` raises KeyError where d lacks k.
            let _ = self.annotation_value(annotation);
        }
    }

    /// `x: a[b][c] = v`: tree-sitter reads the subscripts after the first as an error and a
    /// list; they are read here as the subscripts they are. False for any other annotation.
    fn chained_annotation(&mut self, node: Node) -> bool {
        let mut cursor = node.walk();
        let children: Vec<Node> = node.children(&mut cursor).collect();
        let Some(colon) = children.iter().position(|c| c.kind() == ":") else { return false };
        let end = children.iter().position(|c| c.kind() == "=").unwrap_or(children.len());
        let between = &children[(colon + 1).min(end)..end];
        if !between.iter().any(|c| c.kind() == "ERROR") {
            return false;
        }
        let parts: Vec<Node> = between
            .iter()
            .flat_map(|c| match c.kind() {
                "ERROR" => {
                    let mut cursor = c.walk();
                    c.named_children(&mut cursor).collect::<Vec<_>>()
                }
                _ => vec![*c],
            })
            .collect();
        fn list_of<'t>(n: &Node<'t>) -> Option<Node<'t>> {
            n.named_child(0).filter(|l| n.kind() == "type" && l.kind() == "list")
        }
        let Some((first, rest)) = parts.split_first() else { return false };
        if first.kind() != "type" || rest.is_empty() || !rest.iter().all(|r| list_of(r).is_some()) {
            return false;
        }
        let mut value = self.annotation_value(*first);
        for list in rest.iter().filter_map(list_of) {
            if self.model.load_error.is_some() {
                return true;
            }
            let mut cursor = list.walk();
            let items: Vec<Node> = list.named_children(&mut cursor).filter(|c| c.kind() != "comment").collect();
            if items.iter().any(|i| i.kind() == "list_splat") {
                return true;
            }
            let mut cursor = list.walk();
            let comma = list.children(&mut cursor).any(|c| c.kind() == ",");
            let keys: Vec<Value> = items.iter().map(|i| self.expr(*i)).collect();
            if self.model.load_error.is_some() {
                return true;
            }
            let key = match <[Value; 1]>::try_from(keys) {
                Ok([one]) if !comma => one,
                Ok([one]) => Value::new(ValueKind::Tuple(vec![one]), span(list)),
                Err(keys) => Value::new(ValueKind::Tuple(keys), span(list)),
            };
            value = self.read_item(value, key, list);
        }
        true
    }

    /// An annotation's value: tree-sitter reads `d["k"]` there as a generic type, which
    /// Python evaluates as the subscript it is.
    fn annotation_value(&mut self, node: Node) -> Value {
        match node.kind() {
            "type" => match node.named_child(0) {
                Some(inner) => self.annotation_value(inner),
                None => Value::unknown("empty annotation", span(node)),
            },
            "generic_type" => {
                let (Some(base), Some(parameters)) = (node.named_child(0), node.named_child(1)) else {
                    return Value::unknown("incomplete annotation", span(node));
                };
                let base = self.annotation_value(base);
                let mut cursor = parameters.walk();
                let parts: Vec<Node> = parameters.named_children(&mut cursor).collect();
                let mut keys = Vec::with_capacity(parts.len());
                let mut starred = false;
                for part in parts {
                    // `list[*x]`: x's items are spliced into the key (3.11).
                    let splat = Some(part).filter(|p| p.kind() == "type").and_then(|p| p.named_child(0));
                    // A star tree-sitter did not read lost its byte in the copy it parsed
                    // (`syntax::leniency::subscript_stars`): the text still has it.
                    let lost_star = self.star_before(part).then_some(part);
                    match splat.filter(|s| s.kind() == "splat_type").and_then(|s| s.named_child(0)).or(lost_star) {
                        Some(inner) => {
                            starred = true;
                            let iterable = self.annotation_value(inner);
                            if iterable.not_iterable() && self.model.load_error.is_none() {
                                let message = format!(
                                    "Value after * must be an iterable, not {}",
                                    iterable.exception_type_name()
                                );
                                self.fail(span(part), "TypeError", message);
                            }
                            match iterable.iterated() {
                                Some(items) => keys.extend(items),
                                None => {
                                    return Value::unknown("a starred annotation item not known statically", span(node))
                                }
                            }
                        }
                        None => keys.push(self.annotation_value(part)),
                    }
                    if self.model.load_error.is_some() {
                        return Value::unknown("raises", span(node));
                    }
                }
                let key = match <[Value; 1]>::try_from(keys) {
                    Ok([one]) if !starred => one,
                    Ok([one]) => Value::new(ValueKind::Tuple(vec![one]), span(parameters)),
                    Err(keys) => Value::new(ValueKind::Tuple(keys), span(parameters)),
                };
                self.read_item(base, key, node)
            }
            _ => self.expr(node),
        }
    }
}
