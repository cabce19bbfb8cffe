//! Document outline (sections and entries of the manifest) and folding ranges.

use crate::fields::{Field, FieldChild};
use crate::locate::key_text;
use crate::syntax::node_text;
use crate::value::Span;
use tree_sitter::{Node, Tree};

#[derive(Clone, Debug, PartialEq)]
pub struct Symbol {
    pub name: String,
    /// Short description of the value: `dict (5)`, `True`, `'cpu'`.
    pub detail: String,
    pub kind: SymbolKind,
    pub span: Span,
    pub selection: Span,
    pub children: Vec<Symbol>,
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum SymbolKind {
    Manifest,
    Section,
    Entry,
}

pub fn document_symbols(tree: &Tree, text: &str) -> Vec<Symbol> {
    let mut out = Vec::new();
    let root = tree.root_node();
    let mut stack = vec![root];
    while let Some(node) = stack.pop() {
        if node.kind() == "assignment" {
            let left = node.field(Field::Left);
            let right = node.field(Field::Right);
            if let (Some(left), Some(right)) = (left, right) {
                if left.kind() == "identifier" && node_text(left, text) == "manifest" {
                    out.push(Symbol {
                        name: "manifest".into(),
                        detail: describe(right, text),
                        kind: SymbolKind::Manifest,
                        span: node.start_byte()..node.end_byte(),
                        selection: left.start_byte()..left.end_byte(),
                        children: entries(right, text, 0),
                    });
                } else if left.kind() == "subscript" && node_text(left, text).starts_with("manifest") {
                    out.push(Symbol {
                        name: node_text(left, text).to_string(),
                        detail: describe(right, text),
                        kind: SymbolKind::Section,
                        span: node.start_byte()..node.end_byte(),
                        selection: left.start_byte()..left.end_byte(),
                        children: entries(right, text, 1),
                    });
                }
            }
            continue;
        }
        if let Some((name, pairs)) = crate::syntax::recovered_manifest_pairs(node, text) {
            let children =
                pairs.into_iter().filter(|p| p.kind() == "pair").filter_map(|p| pair_symbol(p, text, 0)).collect();
            out.push(Symbol {
                name: "manifest".into(),
                detail: "incomplete".into(),
                kind: SymbolKind::Manifest,
                span: node.start_byte()..node.end_byte(),
                selection: name.start_byte()..name.end_byte(),
                children,
            });
            continue;
        }
        if matches!(node.kind(), "module" | "expression_statement" | "ERROR") {
            let mut cursor = node.walk();
            let children: Vec<Node> = node.named_children(&mut cursor).collect();
            stack.extend(children.into_iter().rev());
        }
    }
    out
}

fn entries(dict: Node, text: &str, depth: usize) -> Vec<Symbol> {
    if dict.kind() != "dictionary" || depth > 2 {
        return Vec::new();
    }
    let mut cursor = dict.walk();
    let pairs: Vec<Node> = dict.named_children(&mut cursor).filter(|c| c.kind() == "pair").collect();
    pairs.into_iter().filter_map(|pair| pair_symbol(pair, text, depth)).collect()
}

fn pair_symbol(pair: Node, text: &str, depth: usize) -> Option<Symbol> {
    let key = pair.field(Field::Key)?;
    let value = pair.field(Field::Value);
    Some(Symbol {
        name: key_text(key, text),
        detail: if pair.has_error() {
            "incomplete".into()
        } else {
            value.map(|v| describe(v, text)).unwrap_or_default()
        },
        kind: if value.is_some_and(|v| v.kind() == "dictionary") { SymbolKind::Section } else { SymbolKind::Entry },
        span: pair.start_byte()..pair.end_byte(),
        selection: key.start_byte()..key.end_byte(),
        children: value.map(|v| entries(v, text, depth + 1)).unwrap_or_default(),
    })
}

fn describe(value: Node, text: &str) -> String {
    let count = |node: Node, kind: &str| {
        let mut cursor = node.walk();
        let n = node
            .named_children(&mut cursor)
            .filter(|c| c.kind() != "comment" && (kind.is_empty() || c.kind() == kind))
            .count();
        n
    };
    match value.kind() {
        "dictionary" => format!("{} entries", count(value, "")),
        "list" | "tuple" => format!("{} items", count(value, "")),
        _ => {
            let t = node_text(value, text);
            if t.chars().count() > 40 {
                format!("{}…", t.chars().take(40).collect::<String>())
            } else {
                t.to_string()
            }
        }
    }
}

/// Byte spans of multi-line dicts and lists inside manifest assignments, for folding.
pub fn folding_ranges(tree: &Tree, text: &str) -> Vec<Span> {
    let mut out = Vec::new();
    let mut stack = vec![tree.root_node()];
    while let Some(node) = stack.pop() {
        let foldable = matches!(node.kind(), "dictionary" | "list" | "tuple" | "parenthesized_expression")
            || crate::syntax::recovered_manifest_pairs(node, text).is_some();
        if foldable && text[node.start_byte()..node.end_byte()].contains('\n') {
            out.push(node.start_byte()..node.end_byte());
        }
        let mut cursor = node.walk();
        stack.extend(node.named_children(&mut cursor));
    }
    out.sort_by_key(|s| s.start);
    out
}
