//! Annotated statements (`x: T = v`) as CPython reads them: tree-sitter reads an
//! annotation with a type grammar narrower than Python's expressions (`x: d[:int]`,
//! `x: list[int]('ab')`), so the statement's parts are delimited by tokens and each is
//! parsed again as an expression where tree-sitter's reading fails.

use crate::lexer::{lex, TokenKind};
use tree_sitter::Node;

/// An annotated statement's parts as CPython's tokens delimit them, from the byte after
/// its `:`: where the annotation ends, the `=` (at bracket depth 0) if there is one, and
/// where the logical line ends (its NEWLINE, a `;`, a comment or the end of the text).
pub struct AnnotatedExtent {
    pub annotation_end: usize,
    pub equals: Option<usize>,
    pub end: usize,
}

pub fn annotated_extent(text: &str, after_colon: usize) -> AnnotatedExtent {
    let rest = text.get(after_colon..).unwrap_or("");
    let mut equals = None;
    let mut end = text.len();
    for token in lex(rest) {
        let at = after_colon + token.span.start;
        let ends_line = matches!(token.kind, TokenKind::Newline | TokenKind::EndOfFile)
            || token.depth == 0 && (token.kind == TokenKind::Comment || token.is_op(rest, ";"));
        if ends_line || token.error.is_some() {
            end = at;
            break;
        }
        if equals.is_none() && token.depth == 0 && token.is_op(rest, "=") {
            equals = Some(at);
        }
    }
    AnnotatedExtent { annotation_end: equals.unwrap_or(end), equals, end }
}

/// Whether an error tree-sitter found (`error`) lies in an annotation that CPython parses:
/// of an annotated statement ([`annotated_statement_parses`]: `x: dict[:int] = {}`), of a
/// parameter or of a function's return.
pub fn error_in_parsed_annotation(error: Node, text: &str) -> bool {
    let ancestors = || std::iter::successors(error.parent(), |p| p.parent());
    // In a def's header, a parameter's or the return annotation (`def f(a: d[:int:]) ->
    // d[::]:`), as CPython's tokens delimit it.
    let header = ancestors().take_while(|p| p.kind() != "block").find(|p| p.kind() == "function_definition");
    if let Some(function) = header {
        return function_annotations(function, text).into_iter().any(|(open, close)| {
            open < error.start_byte() && error.end_byte() <= close && parses_alone(text, open, close)
        });
    }
    let Some(assignment) = ancestors().find(|p| p.kind() == "assignment") else {
        return false;
    };
    // An error in the value is the value's: it is not parsed again (per error, a value as
    // long as the manifest would cost its length each time).
    if super::child_of_kind(assignment, "=").is_some_and(|equals| equals.start_byte() <= error.start_byte()) {
        return false;
    }
    let colon = super::child_of_kind(assignment, ":");
    colon.is_some_and(|c| c.end_byte() <= error.start_byte())
        && error.end_byte() <= colon.map_or(0, |c| annotated_extent(text, c.end_byte()).end)
        && annotated_statement_parses(assignment, text)
}

/// Whether the annotated `assignment`'s annotation and value (its text from the `:` as
/// CPython's tokens delimit them), each parsed again alone as an expression, hold no error:
/// tree-sitter's type grammar refuses some that Python's expressions take. Parsed again
/// only where a caller found tree-sitter's reading wrong.
pub fn annotated_statement_parses(assignment: Node, text: &str) -> bool {
    let Some(colon) = super::child_of_kind(assignment, ":") else { return false };
    let extent = annotated_extent(text, colon.end_byte());
    let clean = |open: usize, close: usize| parses_alone(text, open, close);
    // (`x.y := 1` reads as `x.y:` and `= 1`: no annotation at all.)
    let annotation = text.get(colon.end_byte()..extent.annotation_end).unwrap_or("");
    !annotation.trim().is_empty()
        && clean(colon.start_byte(), extent.annotation_end)
        && extent.equals.is_none_or(|equals| clean(equals, extent.end))
}

/// Whether the text between bytes `open` and `close`, parsed alone in brackets, is an
/// expression without error.
fn parses_alone(text: &str, open: usize, close: usize) -> bool {
    super::parse_parenthesized(text, open, close).is_some_and(|t| !t.root_node().has_error())
}

/// The annotations of a `def`'s parameters and return, each as the byte of its `:` (the
/// `>` of `->`) and where it ends: at a `,` or `=` (a `:` for the return) at its bracket
/// depth, at the parameters' closing bracket, or at the line's end.
fn function_annotations(function: Node, text: &str) -> Vec<(usize, usize)> {
    let end = |from: usize, stops: &[&str]| {
        let rest = text.get(from..).unwrap_or("");
        let stop = lex(rest).find(|token| {
            matches!(token.kind, TokenKind::Newline | TokenKind::EndOfFile)
                || token.error.is_some()
                || token.depth == 0 && stops.iter().any(|s| token.is_op(rest, s))
        });
        from + stop.map_or(rest.len(), |t| t.span.start)
    };
    let mut annotations = Vec::new();
    if let Some(parameters) = function.child_by_field_name("parameters") {
        let mut cursor = parameters.walk();
        for parameter in parameters.named_children(&mut cursor) {
            if let Some(colon) = super::child_of_kind(parameter, ":") {
                annotations.push((colon.start_byte(), end(colon.end_byte(), &[",", "="])));
            }
        }
    }
    if let Some(arrow) = super::child_of_kind(function, "->") {
        annotations.push((arrow.end_byte() - 1, end(arrow.end_byte(), &[":"])));
    }
    annotations
}

/// The extent of the parameter's or return annotation of a `def` that the type node
/// `annotation` starts (see [`function_annotations`]): tree-sitter's type node may end
/// short of it (`d[:int:]`).
pub fn function_annotation_extent(annotation: Node, text: &str) -> Option<(usize, usize)> {
    let function =
        std::iter::successors(annotation.parent(), |p| p.parent()).find(|p| p.kind() == "function_definition")?;
    let start = annotation.start_byte();
    function_annotations(function, text).into_iter().find(|&(open, close)| open < start && start < close)
}
