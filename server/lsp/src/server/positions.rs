//! Positions of one version of a document in the negotiated encoding: byte offsets to LSP
//! positions and back, the one place positions are counted (the session's edits inbound,
//! `to_proto` outbound). Depends on nothing else in the server.

use torchcts_core::{LineCol, LineIndex, PositionEncoding};
use tower_lsp_server::ls_types::{Position, Range};

/// Positions of one version of a document in the negotiated encoding, counted through the
/// core's [`LineIndex`] of its text (the one text model: a `String` and its line index,
/// which the CLI uses too). Lines end at `\n`, `\r\n` or `\r` only, as LSP defines them.
///
/// Never panics: a position past the end of a line clamps to the line's end, a line past
/// the end of the text to the end of the text, and an offset inside a character or between
/// `\r` and `\n` back to the character or line boundary (`LineIndex`'s rules).
pub struct Positions<'a> {
    text: &'a str,
    index: &'a LineIndex,
    encoding: PositionEncoding,
}

impl<'a> Positions<'a> {
    /// `index` must be the line index of `text`.
    pub fn new(text: &'a str, index: &'a LineIndex, encoding: PositionEncoding) -> Positions<'a> {
        Positions { text, index, encoding }
    }

    pub fn position(&self, offset: usize) -> Position {
        let lc = self.index.position(self.text, offset, self.encoding);
        Position { line: lc.line, character: lc.col }
    }

    pub fn range(&self, span: &std::ops::Range<usize>) -> Range {
        Range { start: self.position(span.start), end: self.position(span.end.max(span.start)) }
    }

    /// The byte offset of an LSP position (clamped into the text).
    pub fn offset(&self, position: Position) -> usize {
        self.index.offset(self.text, LineCol { line: position.line, col: position.character }, self.encoding)
    }

    /// The zero-based line holding byte `offset`.
    pub fn line(&self, offset: usize) -> u32 {
        self.index.line_of(offset) as u32
    }

    /// tree-sitter's point of byte `offset`: the row as LSP counts lines (tree-sitter counts
    /// `\n` only, which differs after a lone `\r`; the core never reads points) and the
    /// column in bytes from the line's start.
    pub fn point(&self, offset: usize) -> tree_sitter::Point {
        let offset = offset.min(self.text.len());
        let row = self.index.line_of(offset);
        // Column 0 of a line is its first byte, in every encoding.
        let line_start = self.index.offset(self.text, LineCol { line: row as u32, col: 0 }, PositionEncoding::Utf8);
        tree_sitter::Point { row, column: offset - line_start }
    }
}

#[cfg(test)]
mod tests {
    use super::Positions;
    use torchcts_core::{LineIndex, PositionEncoding};
    use tower_lsp_server::ls_types::Position;

    #[test]
    fn only_lsp_line_breaks_start_lines() {
        let text = "a\u{2028}b\u{85}c\u{c}d\re\r\nf\ng";
        let index = LineIndex::new(text);
        assert_eq!(index.line_count(), 4);
        let positions = Positions::new(text, &index, PositionEncoding::Utf16);
        assert_eq!(positions.position(text.len()), Position { line: 3, character: 1 });
    }

    /// A point's row is the LSP line and its column the bytes since the line's start, also
    /// between the `\r` and `\n` of a line break (where an edit may end).
    #[test]
    fn points_count_lsp_lines_and_bytes() {
        let text = "ab\r\nc\rdé\n";
        let index = LineIndex::new(text);
        let positions = Positions::new(text, &index, PositionEncoding::Utf16);
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
