//! The one place that converts between byte offsets and (line, column) positions.
//!
//! Everything inside the core works in byte offsets, because tree-sitter does. Editors
//! speak LSP positions: a zero-based line and a column counted in UTF-16 code units by
//! default, or in bytes when the client negotiated UTF-8. Lines end at `\n`, `\r\n` or
//! `\r` only, as LSP defines them; U+2028, NEL and form feed are ordinary characters here
//! even though ropey would break lines at them.
//!
//! Invariants: conversions never panic; a position past the end of a line clamps to the
//! line's end, a line past the end of the text clamps to the end of the text, and an
//! offset inside a multi-byte character or between `\r` and `\n` clamps back to the
//! character or line boundary.

/// How columns are counted in positions exchanged with a client.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum PositionEncoding {
    /// LSP's default: UTF-16 code units.
    #[default]
    Utf16,
    /// Bytes of UTF-8, when the client offers `utf-8`.
    Utf8,
    /// Unicode scalar values, when the client offers `utf-32`.
    Utf32,
}

/// A zero-based line and column, the column counted in some [`PositionEncoding`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Default, serde::Serialize)]
pub struct LineCol {
    pub line: u32,
    pub col: u32,
}

/// Start offsets of every line of a text, for fast conversions.
#[derive(Clone, Debug)]
pub struct LineIndex {
    /// Byte offset at which each line starts; always begins with 0.
    line_starts: Vec<usize>,
    len: usize,
}

impl LineIndex {
    pub fn new(text: &str) -> LineIndex {
        let bytes = text.as_bytes();
        let mut line_starts = vec![0];
        let mut i = 0;
        while i < bytes.len() {
            match bytes[i] {
                b'\n' => line_starts.push(i + 1),
                b'\r' => {
                    if bytes.get(i + 1) == Some(&b'\n') {
                        i += 1;
                    }
                    line_starts.push(i + 1);
                }
                _ => {}
            }
            i += 1;
        }
        LineIndex { line_starts, len: text.len() }
    }

    pub fn line_count(&self) -> usize {
        self.line_starts.len()
    }

    /// Byte range of line `line` without its terminator.
    fn line_bounds(&self, text: &str, line: usize) -> (usize, usize) {
        let start = self.line_starts[line];
        let mut end = self.line_starts.get(line + 1).copied().unwrap_or(self.len);
        let bytes = text.as_bytes();
        while end > start && matches!(bytes[end - 1], b'\n' | b'\r') {
            end -= 1;
        }
        (start, end)
    }

    /// Zero-based line number holding byte `offset` (clamped to the text).
    pub fn line_of(&self, offset: usize) -> usize {
        let offset = offset.min(self.len);
        match self.line_starts.binary_search(&offset) {
            Ok(line) => line,
            Err(next) => next - 1,
        }
    }

    /// Converts a byte offset to a position whose column is counted in `encoding`.
    pub fn position(&self, text: &str, offset: usize, encoding: PositionEncoding) -> LineCol {
        let line = self.line_of(offset);
        let (start, end) = self.line_bounds(text, line);
        let mut offset = offset.clamp(start, end);
        while !text.is_char_boundary(offset) {
            offset -= 1;
        }
        let col = column_width(&text[start..offset], encoding);
        LineCol { line: line as u32, col: col as u32 }
    }

    /// Converts a position to a byte offset, clamping out-of-range lines and columns.
    pub fn offset(&self, text: &str, pos: LineCol, encoding: PositionEncoding) -> usize {
        let line = pos.line as usize;
        if line >= self.line_starts.len() {
            return self.len;
        }
        let (start, end) = self.line_bounds(text, line);
        let mut remaining = pos.col as usize;
        for (i, ch) in text[start..end].char_indices() {
            let width = char_width(ch, encoding);
            if remaining < width {
                // Inside a character (e.g. between the halves of a surrogate pair).
                return start + i;
            }
            remaining -= width;
            if remaining == 0 {
                return start + i + ch.len_utf8();
            }
        }
        if pos.col == 0 {
            return start;
        }
        end
    }
}

fn char_width(ch: char, encoding: PositionEncoding) -> usize {
    match encoding {
        PositionEncoding::Utf16 => ch.len_utf16(),
        PositionEncoding::Utf8 => ch.len_utf8(),
        PositionEncoding::Utf32 => 1,
    }
}

fn column_width(prefix: &str, encoding: PositionEncoding) -> usize {
    match encoding {
        PositionEncoding::Utf8 => prefix.len(),
        PositionEncoding::Utf16 => prefix.chars().map(char::len_utf16).sum(),
        PositionEncoding::Utf32 => prefix.chars().count(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn roundtrip(text: &str, encoding: PositionEncoding) {
        let index = LineIndex::new(text);
        for (offset, ch) in text.char_indices() {
            // The \n of a \r\n pair is not a position of its own.
            if ch == '\n' && text[..offset].ends_with('\r') {
                continue;
            }
            let pos = index.position(text, offset, encoding);
            assert_eq!(index.offset(text, pos, encoding), offset, "offset {offset} in {text:?}");
        }
    }

    #[test]
    fn utf16_columns_count_surrogate_pairs_twice() {
        let text = "a = \"😀é\"\nb";
        let index = LineIndex::new(text);
        let b_quote_end = text.find("é").unwrap() + "é".len();
        assert_eq!(index.position(text, b_quote_end, PositionEncoding::Utf16), LineCol { line: 0, col: 8 });
        assert_eq!(index.position(text, b_quote_end, PositionEncoding::Utf8), LineCol { line: 0, col: 11 });
        assert_eq!(index.position(text, b_quote_end, PositionEncoding::Utf32), LineCol { line: 0, col: 7 });
    }

    #[test]
    fn cjk_emoji_and_combining_marks_roundtrip() {
        for enc in [PositionEncoding::Utf16, PositionEncoding::Utf8, PositionEncoding::Utf32] {
            roundtrip("# 漢字 e\u{301} 👩‍👩‍👧\nx = '😀'\r\ny", enc);
        }
    }

    #[test]
    fn only_lsp_line_breaks_count() {
        // U+2028, NEL and form feed are not line breaks for LSP, unlike ropey's default.
        let text = "a\u{2028}b\u{85}c\u{c}d\r\ne\rf\ng";
        let index = LineIndex::new(text);
        assert_eq!(index.line_count(), 4);
        let g = text.find('g').unwrap();
        assert_eq!(index.position(text, g, PositionEncoding::Utf16), LineCol { line: 3, col: 0 });
        let d = text.find('d').unwrap();
        assert_eq!(index.position(text, d, PositionEncoding::Utf16), LineCol { line: 0, col: 6 });
    }

    #[test]
    fn crlf_end_of_line_clamps_before_the_terminator() {
        let text = "ab\r\ncd";
        let index = LineIndex::new(text);
        assert_eq!(index.offset(text, LineCol { line: 0, col: 99 }, PositionEncoding::Utf16), 2);
        // An offset between \r and \n maps to the end of the line.
        assert_eq!(index.position(text, 3, PositionEncoding::Utf16), LineCol { line: 0, col: 2 });
    }

    #[test]
    fn out_of_range_positions_clamp() {
        let text = "ab\ncd";
        let index = LineIndex::new(text);
        assert_eq!(index.offset(text, LineCol { line: 9, col: 0 }, PositionEncoding::Utf16), 5);
        assert_eq!(index.position(text, 99, PositionEncoding::Utf16), LineCol { line: 1, col: 2 });
        // A column inside a surrogate pair lands on the character's start.
        let text = "😀x";
        let index = LineIndex::new(text);
        assert_eq!(index.offset(text, LineCol { line: 0, col: 1 }, PositionEncoding::Utf16), 0);
    }
}
