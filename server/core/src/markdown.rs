//! Untrusted text in the markdown we produce (issue 35, item 5): a record's error message,
//! node id, torch version, hardware key or time comes from a results file anyone can commit,
//! and the hover, `report --format markdown` and `diff --format markdown` place it in
//! markdown that an editor or GitHub renders. Escaped, it is shown as the text it is: no raw
//! HTML (`<script>`, `<img onerror>`), no link, emphasis, heading, table cell break or new
//! block.

/// `text` as plain markdown text: line breaks become spaces (no new block or list item),
/// `<`, `>` and `&` become entities (no raw HTML), and the punctuation that starts markup
/// mid-line (emphasis, code, links, table cells, strike-through, escapes) is
/// backslash-escaped. What is markup only at a line's start (`-`, `+`, `1.`) cannot be
/// there: the text has no line breaks and callers place it after their own words.
pub fn escape_text(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        match c {
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '&' => out.push_str("&amp;"),
            '\n' | '\r' | '\t' => out.push(' '),
            '\\' | '`' | '*' | '_' | '[' | ']' | '#' | '|' | '~' => {
                out.push('\\');
                out.push(c);
            }
            c if c.is_control() => out.push(' '),
            c => out.push(c),
        }
    }
    out
}

/// `text` as one inline code span, whatever backticks it holds: the fence is one backtick
/// longer than its longest run, padded with a space where the text starts or ends with a
/// backtick (CommonMark strips one space each side); line breaks become spaces. Inside a code
/// span nothing is markup, HTML included. A `|` is escaped (`\|`) so the span cannot end a
/// table cell (GitHub reads the table's cells before the spans).
pub fn code_span(text: &str) -> String {
    let text: String = text.chars().map(|c| if c == '\n' || c == '\r' || c.is_control() { ' ' } else { c }).collect();
    let mut longest = 0;
    let mut run = 0;
    for c in text.chars() {
        run = if c == '`' { run + 1 } else { 0 };
        longest = longest.max(run);
    }
    let fence = "`".repeat(longest + 1);
    let pad = if text.starts_with('`') || text.ends_with('`') { " " } else { "" };
    format!("{fence}{pad}{}{pad}{fence}", text.replace('|', "\\|"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_keeps_no_markup() {
        assert_eq!(escape_text("<script>alert(1)</script>"), "&lt;script&gt;alert(1)&lt;/script&gt;");
        assert_eq!(escape_text("<img src=x onerror=alert(1)>"), "&lt;img src=x onerror=alert(1)&gt;");
        assert_eq!(escape_text("[click](http://evil) &amp;"), "\\[click\\](http://evil) &amp;amp;");
        assert_eq!(escape_text("**bold** _it_ `code`"), "\\*\\*bold\\*\\* \\_it\\_ \\`code\\`");
        assert_eq!(escape_text("a\n# heading\n- item | cell"), "a \\# heading - item \\| cell");
        assert_eq!(escape_text("2.12.1+cu130 skip_ops += add"), "2.12.1+cu130 skip\\_ops += add");
        assert_eq!(escape_text("plain words"), "plain words");
    }

    #[test]
    fn code_spans_hold_any_backticks() {
        assert_eq!(code_span("a.py::t[x]"), "`a.py::t[x]`");
        assert_eq!(code_span("a`b"), "``a`b``");
        assert_eq!(code_span("`x``"), "``` `x`` ```");
        assert_eq!(code_span("<script>\nx"), "`<script> x`");
        assert_eq!(code_span("a|b"), "`a\\|b`");
    }
}
