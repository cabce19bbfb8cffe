//! The syntax errors tree-sitter finds, as findings: innermost ERROR nodes and MISSING
//! nodes.

use super::parse::node_text;
use crate::codes::Code;
use crate::findings::{Finding, Origin, Severity};
use tree_sitter::{Node, Tree};

/// One diagnostic per innermost ERROR node and per MISSING node, in source order, at
/// most `limit`. An ERROR node that contains other errors is only a recovery wrapper (it
/// may start lines before the real problem), so its inner errors are reported instead.
pub fn syntax_findings(tree: &Tree, text: &str, limit: usize) -> Vec<Finding> {
    let mut out = Vec::new();
    if !tree.root_node().has_error() {
        return out;
    }
    let mut stack = vec![tree.root_node()];
    while let Some(node) = stack.pop() {
        if out.len() >= limit {
            break;
        }
        if (node.is_missing() || node.is_error()) && super::annotated::error_in_parsed_annotation(node, text) {
            continue;
        }
        if node.is_missing() {
            out.push(Finding::new(
                node.start_byte()..node.end_byte(),
                Severity::Error,
                format!("Syntax error: missing `{}`", missing_name(node)),
                Code::SyntaxError,
                Origin::Lsp,
            ));
            continue;
        }
        if !node.has_error() {
            continue;
        }
        let mut cursor = node.walk();
        let children: Vec<Node> = node.children(&mut cursor).collect();
        let nested = children.iter().any(|c| c.has_error() || c.is_error() || c.is_missing());
        if node.is_error() && !nested {
            let span = error_span(node, text);
            let snippet: String = node_text(node, text).trim().chars().take(30).collect();
            let message = if snippet.is_empty() {
                "Syntax error".to_string()
            } else {
                format!("Syntax error: unexpected `{}`", snippet.lines().next().unwrap_or(""))
            };
            out.push(Finding::new(span, Severity::Error, message, Code::SyntaxError, Origin::Lsp));
            continue;
        }
        // Children in reverse so that the stack pops them in source order.
        for child in children.into_iter().rev() {
            stack.push(child);
        }
    }
    out
}

fn missing_name(node: Node) -> String {
    let kind = node.kind();
    if kind.chars().all(|c| c.is_ascii_punctuation()) {
        kind.to_string()
    } else {
        kind.replace('_', " ")
    }
}

/// An ERROR node can span many lines; mark only its first line so the squiggle stays
/// readable.
fn error_span(node: Node, text: &str) -> std::ops::Range<usize> {
    let start = node.start_byte();
    let end = node.end_byte();
    let line_end = text[start..end].find(['\n', '\r']).map(|i| start + i).unwrap_or(end);
    if line_end > start {
        start..line_end
    } else {
        start..end.max(start)
    }
}
