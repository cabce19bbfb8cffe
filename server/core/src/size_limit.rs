//! The size past which a manifest is not analysed, and what to tell the user instead.
//!
//! A manifest is a few KB (the complete template 4.5 KB). The costliest shape measured
//! (`tolerance_overrides` entries that are all errors) costs ~5 KB of memory and ~50 µs per
//! entry to analyse, most of it tree-sitter's tree, so past this size one analysis would
//! pass ~100 MB and a second (docs/performance.md, "Scaling"). Such a file gets one clear
//! message that names the construct that makes it large; the CLI can be told to analyse it
//! anyway.

use crate::lex::{lex, TokenKind};

/// The largest manifest analysed (as it is typed, and by the CLI unless told otherwise).
pub const ANALYSIS_MAX_BYTES: usize = 512 * 1024;

/// The literal (bracketed, or a string) that holds most of a text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LargestConstruct {
    /// The source before its opening bracket on its own line or entry (`"tolerance_overrides":`),
    /// shortened.
    pub label: String,
    /// 1-based line of the opening bracket.
    pub line: usize,
    pub bytes: usize,
    /// Its top-level entries (separating commas + 1); `None` for a string.
    pub entries: Option<usize>,
}

/// The literal (bracketed or a string) that makes `text` large: the deepest one that holds at
/// least half the text (`manifest = {"tolerance_overrides": {...}}` names the
/// `tolerance_overrides` value, a huge regex names its string), else the largest outermost
/// one. One pass of the lexer.
pub fn largest_construct(text: &str) -> Option<LargestConstruct> {
    struct Open {
        start: usize,
        line: usize,
        label: std::ops::Range<usize>,
        commas: usize,
        depth: usize,
        string: bool,
    }
    let mut open: Vec<Open> = Vec::new();
    // Per depth (the first few only are reported): where the current entry's source starts.
    const DEPTHS: usize = 6;
    let mut entry_start = [0usize; DEPTHS];
    let mut best: [Option<LargestConstruct>; DEPTHS] = Default::default();
    let close = |o: Open, end: usize, best: &mut [Option<LargestConstruct>; DEPTHS]| {
        let Some(slot) = best.get_mut(o.depth) else { return };
        let bytes = end.saturating_sub(o.start);
        if slot.as_ref().is_none_or(|b| bytes > b.bytes) {
            let label = shorten(text.get(o.label.clone()).unwrap_or_default().trim());
            let entries = (!o.string).then_some(o.commas + 1);
            *slot = Some(LargestConstruct { label, line: o.line, bytes, entries });
        }
    };
    for token in lex(text) {
        let depth = token.depth;
        match token.kind {
            TokenKind::Newline if depth == 0 => entry_start[0] = token.span.end,
            // A huge string (a regex, an embedded blob) is a literal of its own.
            TokenKind::String(_) => {
                let from = entry_start.get(depth).copied().unwrap_or(token.span.start);
                let string = Open {
                    start: token.span.start,
                    line: token.line,
                    label: from.min(token.span.start)..token.span.start,
                    commas: 0,
                    depth,
                    string: true,
                };
                close(string, token.span.end, &mut best);
            }
            TokenKind::Op => {
                let op = token.text(text);
                match op {
                    "(" | "[" | "{" => {
                        let from = entry_start.get(depth).copied().unwrap_or(token.span.start);
                        open.push(Open {
                            start: token.span.start,
                            line: token.line,
                            label: from.min(token.span.start)..token.span.start,
                            commas: 0,
                            depth,
                            string: false,
                        });
                        if let Some(start) = entry_start.get_mut(depth + 1) {
                            *start = token.span.end;
                        }
                    }
                    ")" | "]" | "}" => {
                        if let Some(o) = open.pop() {
                            close(o, token.span.end, &mut best);
                        }
                    }
                    "," => {
                        if let Some(o) = open.last_mut().filter(|o| o.depth + 1 == depth) {
                            o.commas += 1;
                        }
                        if let Some(start) = entry_start.get_mut(depth) {
                            *start = token.span.end;
                        }
                    }
                    _ => {}
                }
            }
            _ => {}
        }
    }
    while let Some(o) = open.pop() {
        close(o, text.len(), &mut best);
    }
    // The deepest literal that still holds half the text names it best; else the outermost.
    let [outer, inner @ ..] = best;
    let mut named = outer;
    for literal in inner.into_iter().flatten() {
        if literal.bytes * 2 < text.len() {
            break;
        }
        named = Some(literal);
    }
    named
}

fn shorten(label: &str) -> String {
    let one_line = label.split_whitespace().collect::<Vec<_>>().join(" ");
    match one_line.char_indices().nth(60) {
        Some((at, _)) => format!("{}...", &one_line[..at]),
        None => one_line,
    }
}

/// Bytes as people read them: `2.4 MiB`, `512 KiB`.
pub fn human_bytes(bytes: usize) -> String {
    if bytes >= 1 << 20 {
        format!("{:.1} MiB", bytes as f64 / f64::from(1 << 20))
    } else {
        format!("{} KiB", bytes.div_ceil(1024))
    }
}

/// What a file over `limit` is told: its size, the limit, and the construct that makes it
/// large (when `text` is given).
pub fn too_large_message(bytes: usize, limit: usize, text: Option<&str>) -> String {
    let mut message =
        format!("This file is {}: torchcts-lsp analyses manifests up to {}.", human_bytes(bytes), human_bytes(limit));
    if let Some(c) = text.and_then(largest_construct) {
        let what = match (c.label.is_empty(), c.entries) {
            (true, None) => "a string".to_string(),
            (true, Some(_)) => "a literal".to_string(),
            (false, None) => format!("the string `{} ...`", c.label),
            (false, Some(_)) => format!("`{} ...`", c.label),
        };
        let size = match c.entries {
            None => human_bytes(c.bytes),
            Some(1) => format!("{}, 1 entry", human_bytes(c.bytes)),
            Some(n) => format!("{}, about {} entries", human_bytes(c.bytes), group_thousands(n)),
        };
        message.push_str(&format!(" Most of it is {what} at line {} ({size}).", c.line));
    }
    message
}

fn group_thousands(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, ch) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(ch);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_value_that_holds_most_of_the_manifest_is_named() {
        let entries: String =
            (0..3000).map(|i| format!("        'op{i}:float32': {{'rtol': 0.1, 'atol': 0.1}},\n")).collect();
        let text = format!(
            "manifest = {{\n    \"backend\": \"x\",\n    \"tolerance_overrides\": {{\n{entries}    }},\n    \"skip_ops\": [],\n}}\n"
        );
        let c = largest_construct(&text).expect("a construct");
        assert_eq!(c.label, "\"tolerance_overrides\":");
        assert_eq!(c.line, 3);
        // 3,000 entries and the trailing comma.
        assert_eq!(c.entries, Some(3001));
        assert!(c.bytes * 10 > text.len() * 9, "{} of {}", c.bytes, text.len());
    }

    #[test]
    fn a_top_level_literal_is_named_by_its_statement() {
        let text = format!(
            "import torch\nX = {{{}}}\nmanifest = {{}}\n",
            (0..500).map(|i| format!("{i}: {i}, ")).collect::<String>()
        );
        let c = largest_construct(&text).expect("a construct");
        assert_eq!((c.label.as_str(), c.line, c.entries), ("X =", 2, Some(501)));
    }

    #[test]
    fn an_unclosed_bracket_runs_to_the_end_and_no_bracket_gives_none() {
        let c = largest_construct("manifest = [1, 2,\n3").expect("a construct");
        assert_eq!((c.label.as_str(), c.bytes, c.entries), ("manifest =", 8, Some(3)));
        assert_eq!(largest_construct("x = 1\n# no brackets\n"), None);
    }

    #[test]
    fn the_message_gives_size_limit_and_construct() {
        let text = format!("manifest = {{\"skip_ops\": [{}]}}\n", "\"op\", ".repeat(2000));
        // The list: 2,000 times `"op", ` (6 bytes) and its brackets, 12,002 bytes.
        let message = too_large_message(3 << 20, ANALYSIS_MAX_BYTES, Some(&text));
        assert_eq!(
            message,
            "This file is 3.0 MiB: torchcts-lsp analyses manifests up to 512 KiB. Most of it is `\"skip_ops\": ...` at line 1 (12 KiB, about 2,001 entries)."
        );
    }

    #[test]
    fn a_top_level_string_is_named_not_the_manifest() {
        // The bulk is `x = '...'` (600 KiB); the manifest dict is a few bytes.
        let text = format!("x = '{}'\nmanifest = {{\"skip_ops\": [\"add\"]}}\n", "a".repeat(600 * 1024));
        let c = largest_construct(&text).expect("a construct");
        assert_eq!((c.label.as_str(), c.line, c.entries), ("x =", 1, None));
        let message = too_large_message(text.len(), ANALYSIS_MAX_BYTES, Some(&text));
        assert!(message.ends_with("Most of it is the string `x = ...` at line 1 (601 KiB)."), "{message}");
    }

    #[test]
    fn one_huge_regex_in_a_list_is_the_string_not_one_entry() {
        let text =
            format!("manifest = {{\"supported_dtypes\": {{torch.float32: r'{}'}}}}\n", "(a|b)".repeat(120 * 1024));
        let message = too_large_message(text.len(), ANALYSIS_MAX_BYTES, Some(&text));
        assert!(!message.contains("entries") && !message.contains("1 entry"), "{message}");
        assert!(message.contains("the string `torch.float32: ...`"), "{message}");
    }
}
