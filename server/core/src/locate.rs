//! What is under the cursor: which manifest entry (by its key path), and whether the cursor
//! is on the key, the value or an item of a list value.
//!
//! Works on the syntax tree, so it answers in a half-typed file too. The manifest dict is
//! recognised as the right-hand side of `manifest = {...}` (also annotated) or of a later
//! `manifest["key"] = ...`.

use crate::eval::decode_string_literal;
use crate::fields::{Field, FieldChild};
use crate::syntax::node_text;
use crate::value::{Span, ValueKind};
use tree_sitter::{Node, Tree};

#[derive(Clone, Debug, PartialEq)]
pub enum Role {
    /// On the word `manifest` of the defining assignment.
    ManifestName,
    Key,
    Value,
    /// On the i-th item of a list or tuple value.
    ListItem(usize),
}

#[derive(Clone, Debug, PartialEq)]
pub struct Segment {
    /// The key as Python sees it when it is a string literal, else its source text.
    pub text: String,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Target {
    /// Keys from the manifest root to the entry under the cursor (inclusive).
    pub path: Vec<Segment>,
    pub role: Role,
    /// The node under the cursor for this role (key, value or item).
    pub span: Span,
    pub key_span: Option<Span>,
    pub value_span: Option<Span>,
}

impl Target {
    pub fn path_strs(&self) -> Vec<&str> {
        self.path.iter().map(|s| s.text.as_str()).collect()
    }
}

/// The text of a key node as Python sees it (a decoded string) or its source text.
pub fn key_text(node: Node, text: &str) -> String {
    if node.kind() == "string" || node.kind() == "concatenated_string" {
        if let ValueKind::Str(s) = decode_string_literal(node_text(node, text), 0..0).kind {
            return s;
        }
    }
    node_text(node, text).to_string()
}

/// `node` and its ancestors up to `root`, innermost first. Found by one walk down from the
/// root: `Node::parent` itself walks down from the root on every call, which made climbing
/// a long chain (`a.b.b.b...`, `1+1+1...`) cost O(depth²).
pub fn ancestors<'t>(root: Node<'t>, node: Node<'t>) -> Vec<Node<'t>> {
    let mut lineage = vec![root];
    let mut current = root;
    while current.id() != node.id() {
        match current.child_with_descendant(node) {
            Some(next) if next.id() != current.id() => {
                lineage.push(next);
                current = next;
            }
            _ => break,
        }
    }
    lineage.reverse();
    lineage
}

pub fn locate(tree: &Tree, text: &str, offset: usize) -> Option<Target> {
    let root = tree.root_node();
    // Prefer the node ending at the cursor when the cursor sits right after a token.
    let mut node = root.named_descendant_for_byte_range(offset, offset)?;
    if node.kind() == "module" && offset > 0 {
        node = root.named_descendant_for_byte_range(offset - 1, offset - 1)?;
    }
    // Climb out of string internals.
    while matches!(node.kind(), "string_content" | "string_start" | "string_end" | "escape_sequence") {
        node = node.parent()?;
    }

    let mut path: Vec<Segment> = Vec::new();
    let mut role: Option<Role> = None;
    let mut span: Option<Span> = None;
    let mut key_span = None;
    let mut value_span = None;
    let lineage = ancestors(root, node);
    for (depth, &current) in lineage.iter().enumerate() {
        let parent = lineage.get(depth + 1).copied();
        match current.kind() {
            "pair" => {
                let key = current.field(Field::Key)?;
                let value = current.field(Field::Value);
                if role.is_none() {
                    // The cursor is on the pair itself (e.g. on the colon): treat as key.
                    role = Some(Role::Key);
                    span = Some(key.start_byte()..key.end_byte());
                }
                if key_span.is_none() {
                    key_span = Some(key.start_byte()..key.end_byte());
                    value_span = value.map(|v| v.start_byte()..v.end_byte());
                }
                path.push(Segment { text: key_text(key, text), span: key.start_byte()..key.end_byte() });
            }
            "assignment" => {
                let left = current.field(Field::Left)?;
                if left.kind() == "identifier" && node_text(left, text) == "manifest" {
                    if role.is_none() && left.start_byte() <= offset && offset <= left.end_byte() {
                        return Some(Target {
                            path: vec![],
                            role: Role::ManifestName,
                            span: left.start_byte()..left.end_byte(),
                            key_span: None,
                            value_span: None,
                        });
                    }
                    break;
                }
                // `manifest["a"]["b"] = value`: the subscripts give the path prefix.
                let mut keys = Vec::new();
                let mut target = left;
                while target.kind() == "subscript" {
                    let index = target.field(Field::Subscript)?;
                    keys.push(Segment { text: key_text(index, text), span: index.start_byte()..index.end_byte() });
                    target = target.field(Field::Value)?;
                }
                if target.kind() == "identifier" && node_text(target, text) == "manifest" && !keys.is_empty() {
                    if role.is_none() {
                        let right = current.field(Field::Right);
                        let in_right = right.is_some_and(|r| r.start_byte() <= offset);
                        if !in_right {
                            let last = keys.first()?.clone();
                            role = Some(Role::Key);
                            span = Some(last.span.clone());
                        } else {
                            role = Some(Role::Value);
                            span = right.map(|r| r.start_byte()..r.end_byte());
                        }
                        key_span = Some(keys.first()?.span.clone());
                        value_span = current.field(Field::Right).map(|r| r.start_byte()..r.end_byte());
                    }
                    path.extend(keys);
                    break;
                }
                return None;
            }
            "module" => return None,
            _ => {
                if let Some(p) = parent {
                    if p.kind() == "pair" && role.is_none() {
                        let is_key = p.field(Field::Key).is_some_and(|k| k.id() == current.id());
                        role = Some(if is_key { Role::Key } else { Role::Value });
                        span = Some(current.start_byte()..current.end_byte());
                    }
                    if matches!(p.kind(), "list" | "tuple") && role.is_none() {
                        let grand = lineage.get(depth + 2);
                        if grand.is_some_and(|g| g.kind() == "pair") {
                            let mut cursor = p.walk();
                            let index = p
                                .named_children(&mut cursor)
                                .filter(|c| c.kind() != "comment")
                                .position(|c| c.id() == current.id())
                                .unwrap_or(0);
                            role = Some(Role::ListItem(index));
                            span = Some(current.start_byte()..current.end_byte());
                        }
                    }
                }
            }
        }
        parent?;
    }
    path.reverse();
    if path.is_empty() {
        return None;
    }
    Some(Target { path, role: role.unwrap_or(Role::Value), span: span.unwrap_or(offset..offset), key_span, value_span })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::syntax::parse;

    fn at(text_with_cursor: &str) -> Option<Target> {
        let offset = text_with_cursor.find("$0").unwrap();
        let text = text_with_cursor.replace("$0", "");
        locate(&parse(&text, None), &text, offset)
    }

    #[test]
    fn key_value_and_items() {
        let t = at("manifest = {\"capabilities\": {\"infe$0rence\": True}}").unwrap();
        assert_eq!(t.path_strs(), vec!["capabilities", "inference"]);
        assert_eq!(t.role, Role::Key);
        let t = at("manifest = {\"capabilities\": {\"inference\": Tr$0ue}}").unwrap();
        assert_eq!(t.role, Role::Value);
        let t = at("manifest = {\"skip_ops\": [\"a\", \"b$0\"]}").unwrap();
        assert_eq!(t.path_strs(), vec!["skip_ops"]);
        assert_eq!(t.role, Role::ListItem(1));
        let t = at("manif$0est = {}").unwrap();
        assert_eq!(t.role, Role::ManifestName);
    }

    #[test]
    fn later_subscript_assignment() {
        let t = at("manifest = {}\nmanifest[\"hardware\"] = {\"memory_$0model\": \"unified\"}").unwrap();
        assert_eq!(t.path_strs(), vec!["hardware", "memory_model"]);
    }

    #[test]
    fn other_dicts_are_not_the_manifest() {
        assert!(at("other = {\"capabilities\": {\"infe$0rence\": True}}").is_none());
    }
}
