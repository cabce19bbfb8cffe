//! Positions of one version of a document in the negotiated encoding: byte offsets to LSP
//! positions and back, the one place positions are counted (the session's edits inbound,
//! `to_proto` outbound). Depends on nothing else in the server.

use ropey::Rope;
use torchcts_core::{LineCol, LineIndex, PositionEncoding};
use tower_lsp_server::ls_types::{Position, Range};

/// Positions of one version of a text in the negotiated encoding. Lines end at `\n`, `\r\n`
/// or `\r` only, as LSP defines them.
///
/// Two sources, one set of rules: an open document's [`Rope`] (its edits are placed
/// through it, ropey built with `cr_lines` alone, so it breaks lines where LSP does), and a
/// materialised text with the core's [`LineIndex`] (an analysis, which holds both, and
/// files read whole). A test holds the two to the same answers on every offset and position
/// of generated texts with every kind of line break, multi-byte and astral characters.
///
/// Never panics: a position past the end of a line clamps to the line's end, a line past
/// the end of the text to the end of the text, and an offset inside a character or between
/// `\r` and `\n` back to the character or line boundary (`LineIndex`'s rules).
pub struct Positions<'a> {
    source: Source<'a>,
    encoding: PositionEncoding,
}

enum Source<'a> {
    Text { text: &'a str, index: &'a LineIndex },
    Rope(&'a Rope),
}

impl<'a> Positions<'a> {
    /// `index` must be the line index of `text`.
    pub fn new(text: &'a str, index: &'a LineIndex, encoding: PositionEncoding) -> Positions<'a> {
        Positions { source: Source::Text { text, index }, encoding }
    }

    /// Positions of an open document's rope.
    pub fn of_rope(rope: &'a Rope, encoding: PositionEncoding) -> Positions<'a> {
        Positions { source: Source::Rope(rope), encoding }
    }

    pub fn position(&self, offset: usize) -> Position {
        match self.source {
            Source::Text { text, index } => {
                let lc = index.position(text, offset, self.encoding);
                Position { line: lc.line, character: lc.col }
            }
            Source::Rope(rope) => {
                let char_idx = rope.byte_to_char(offset.min(rope.len_bytes()));
                let line = rope.char_to_line(char_idx);
                let line_start = rope.line_to_char(line);
                let char_idx = char_idx.min(line_start + content_chars(rope, line));
                let character = match self.encoding {
                    PositionEncoding::Utf8 => rope.char_to_byte(char_idx) - rope.char_to_byte(line_start),
                    PositionEncoding::Utf16 => rope.char_to_utf16_cu(char_idx) - rope.char_to_utf16_cu(line_start),
                    PositionEncoding::Utf32 => char_idx - line_start,
                };
                Position { line: line as u32, character: character as u32 }
            }
        }
    }

    pub fn range(&self, span: &std::ops::Range<usize>) -> Range {
        Range { start: self.position(span.start), end: self.position(span.end.max(span.start)) }
    }

    /// The byte offset of an LSP position (clamped into the text).
    pub fn offset(&self, position: Position) -> usize {
        match self.source {
            Source::Text { text, index } => {
                index.offset(text, LineCol { line: position.line, col: position.character }, self.encoding)
            }
            Source::Rope(rope) => {
                let line = position.line as usize;
                if line >= rope.len_lines() {
                    return rope.len_bytes();
                }
                let line_start = rope.line_to_char(line);
                let content = rope.line(line).slice(..content_chars(rope, line));
                let column = position.character as usize;
                let chars_in = match self.encoding {
                    // A column inside a character (or a surrogate pair) clamps back to its start.
                    PositionEncoding::Utf8 => content.byte_to_char(column.min(content.len_bytes())),
                    PositionEncoding::Utf16 => content.utf16_cu_to_char(column.min(content.len_utf16_cu())),
                    PositionEncoding::Utf32 => column.min(content.len_chars()),
                };
                rope.char_to_byte(line_start + chars_in)
            }
        }
    }

    /// The zero-based line holding byte `offset`.
    pub fn line(&self, offset: usize) -> u32 {
        match self.source {
            Source::Text { index, .. } => index.line_of(offset) as u32,
            Source::Rope(rope) => rope.char_to_line(rope.byte_to_char(offset.min(rope.len_bytes()))) as u32,
        }
    }

    /// tree-sitter's point of byte `offset`: the row as LSP counts lines (tree-sitter counts
    /// `\n` only, which differs after a lone `\r`; the core never reads points) and the
    /// column in bytes from the line's start.
    pub fn point(&self, offset: usize) -> tree_sitter::Point {
        let row = self.line(offset) as usize;
        let (offset, line_start) = match self.source {
            Source::Text { text, index } => {
                // Column 0 of a line is its first byte, in every encoding.
                let start = index.offset(text, LineCol { line: row as u32, col: 0 }, PositionEncoding::Utf8);
                (offset.min(text.len()), start)
            }
            Source::Rope(rope) => (offset.min(rope.len_bytes()), rope.line_to_byte(row)),
        };
        tree_sitter::Point { row, column: offset - line_start }
    }
}

/// Characters of the rope's `line` before its terminator.
fn content_chars(rope: &Rope, line: usize) -> usize {
    let slice = rope.line(line);
    let n = slice.len_chars();
    let last = |i: usize| if n >= i { Some(slice.char(n - i)) } else { None };
    match (last(2), last(1)) {
        (Some('\r'), Some('\n')) => n - 2,
        (_, Some('\n' | '\r')) => n - 1,
        _ => n,
    }
}

#[cfg(test)]
mod tests {
    use super::Positions;
    use ropey::Rope;
    use torchcts_core::{LineCol, LineIndex, PositionEncoding};
    use tower_lsp_server::ls_types::Position;

    const ENCODINGS: [PositionEncoding; 3] = [PositionEncoding::Utf8, PositionEncoding::Utf16, PositionEncoding::Utf32];

    /// Texts of line breaks of every kind (LSP's and the Unicode ones LSP does not count),
    /// multi-byte (é, CJK) and astral (emoji) characters, from a fixed-seed generator.
    fn texts() -> Vec<String> {
        let pieces =
            ["a", "bc", "\n", "\r", "\r\n", "é", "漢字", "😀", "\u{2028}", "\u{2029}", "\u{85}", "\u{b}", "\u{c}", " "];
        let mut seed: u64 = 0x2545_f491_4f6c_dd1d;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        let mut out = vec![String::new(), "\r\n".into(), "x\r".into(), "\r\r\n\n".into()];
        for _ in 0..400 {
            let len = (next() % 12) as usize;
            out.push((0..len).map(|_| pieces[(next() % pieces.len() as u64) as usize]).collect());
        }
        out
    }

    /// The server's two sources of positions (an open document's rope, an analysis's text
    /// and the core's `LineIndex`, which the CLI uses too) give the same answers for every
    /// offset, every position (columns past the line's end included) and every point.
    #[test]
    fn rope_positions_agree_with_the_cores_line_index_in_every_encoding() {
        for text in texts() {
            let rope = Rope::from_str(&text);
            let index = LineIndex::new(&text);
            assert_eq!(rope.len_lines(), index.line_count(), "{text:?}");
            for encoding in ENCODINGS {
                let of_rope = Positions::of_rope(&rope, encoding);
                let of_text = Positions::new(&text, &index, encoding);
                for offset in 0..=text.len() + 2 {
                    let expected = index.position(&text, offset, encoding);
                    let got = of_rope.position(offset);
                    assert_eq!(
                        (got.line, got.character),
                        (expected.line, expected.col),
                        "{text:?} {offset} {encoding:?}"
                    );
                    assert_eq!(of_text.position(offset), got, "{text:?} {offset} {encoding:?}");
                    assert_eq!(of_rope.line(offset), of_text.line(offset), "{text:?} {offset}");
                    assert_eq!(of_rope.point(offset), of_text.point(offset), "{text:?} {offset}");
                }
                for line in 0..index.line_count() as u32 + 2 {
                    for character in 0..12 {
                        let expected = index.offset(&text, LineCol { line, col: character }, encoding);
                        let position = Position { line, character };
                        assert_eq!(of_rope.offset(position), expected, "{text:?} {line}:{character} {encoding:?}");
                        assert_eq!(of_text.offset(position), expected, "{text:?} {line}:{character} {encoding:?}");
                    }
                }
            }
        }
    }

    #[test]
    fn only_lsp_line_breaks_start_lines() {
        let text = "a\u{2028}b\u{85}c\u{c}d\re\r\nf\ng";
        let index = LineIndex::new(text);
        let rope = Rope::from_str(text);
        assert_eq!(index.line_count(), 4);
        assert_eq!(rope.len_lines(), 4);
        for positions in
            [Positions::new(text, &index, PositionEncoding::Utf16), Positions::of_rope(&rope, PositionEncoding::Utf16)]
        {
            assert_eq!(positions.position(text.len()), Position { line: 3, character: 1 });
            // U+2028 is 3 bytes and one UTF-16 unit; NEL 2 bytes and one unit.
            assert_eq!(positions.position(text.find('c').unwrap()), Position { line: 0, character: 4 });
        }
    }

    /// A point's row is the LSP line and its column the bytes since the line's start, also
    /// between the `\r` and `\n` of a line break (where an edit may end).
    #[test]
    fn points_count_lsp_lines_and_bytes() {
        let text = "ab\r\nc\rdé\n";
        let index = LineIndex::new(text);
        let rope = Rope::from_str(text);
        for positions in
            [Positions::new(text, &index, PositionEncoding::Utf16), Positions::of_rope(&rope, PositionEncoding::Utf16)]
        {
            let point = |offset| {
                let p = positions.point(offset);
                (p.row, p.column)
            };
            assert_eq!(point(0), (0, 0));
            assert_eq!(point(3), (0, 3));
            assert_eq!(point(4), (1, 0));
            assert_eq!(point(6), (2, 0));
            assert_eq!(point(9), (2, 3));
            assert_eq!(point(99), (3, 0));
        }
    }
}
