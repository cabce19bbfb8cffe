//! Every conversion between the core's data (byte offsets, findings, fixes, items) and LSP
//! types, both ways. The only module that converts positions: handlers convert in, call the
//! core, convert out through here.

use crate::server::session::Snapshot;
use ropey::Rope;
use torchcts_core::actions::QuickFix;
use torchcts_core::completion::{CompletionItem as CoreItem, ItemKind};
use torchcts_core::hover::HoverResult;
use torchcts_core::symbols::{Symbol, SymbolKind as CoreSymbolKind};
use torchcts_core::{Analysis, Finding, LineCol, LineIndex, Origin, PositionEncoding, Severity};
use tower_lsp_server::ls_types::{
    CodeAction, CodeActionKind, CodeActionOrCommand, Command, CompletionItem, CompletionItemKind, CompletionTextEdit,
    Diagnostic, DiagnosticRelatedInformation, DiagnosticSeverity, DocumentSymbol, Documentation, FoldingRange,
    FoldingRangeKind, Hover, HoverContents, InitializeParams, InlayHint, InlayHintLabel, Location, MarkupContent,
    MarkupKind, NumberOrString, Position, PositionEncodingKind, Range, SymbolKind, TextEdit, Uri, WorkspaceEdit,
};

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

impl Snapshot {
    pub fn positions(&self) -> Positions<'_> {
        Positions::new(&self.analysis.text, &self.analysis.line_index, self.encoding)
    }
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

/// UTF-8 when the client offers it (no conversion at all), else LSP's default UTF-16.
pub fn negotiate_encoding(params: &InitializeParams) -> PositionEncoding {
    let offered = params.capabilities.general.as_ref().and_then(|g| g.position_encodings.as_ref());
    match offered {
        Some(list) if list.contains(&PositionEncodingKind::UTF8) => PositionEncoding::Utf8,
        _ => PositionEncoding::Utf16,
    }
}

pub fn encoding_kind(encoding: PositionEncoding) -> PositionEncodingKind {
    match encoding {
        PositionEncoding::Utf8 => PositionEncodingKind::UTF8,
        PositionEncoding::Utf16 => PositionEncodingKind::UTF16,
        PositionEncoding::Utf32 => PositionEncodingKind::UTF32,
    }
}

pub fn diagnostic(positions: &Positions, finding: &Finding, uri: &Uri) -> Diagnostic {
    let related: Vec<DiagnosticRelatedInformation> = finding
        .related
        .iter()
        .map(|(span, message)| DiagnosticRelatedInformation {
            location: Location { uri: uri.clone(), range: positions.range(span) },
            message: message.clone(),
        })
        .collect();
    Diagnostic {
        range: positions.range(&finding.span),
        severity: Some(match finding.severity {
            Severity::Error => DiagnosticSeverity::ERROR,
            Severity::Warning => DiagnosticSeverity::WARNING,
            Severity::Information => DiagnosticSeverity::INFORMATION,
            Severity::Hint => DiagnosticSeverity::HINT,
        }),
        code: Some(NumberOrString::String(finding.code.to_string())),
        source: Some(
            match finding.origin {
                Origin::Torchcts => "torchcts",
                Origin::Lsp => "torchcts-lsp",
            }
            .to_string(),
        ),
        message: finding.message.clone(),
        related_information: (!related.is_empty()).then_some(related),
        // The same object as in the CLI's JSON (`Finding`'s serde form).
        data: finding.data.as_ref().and_then(|data| serde_json::to_value(data).ok()),
        ..Default::default()
    }
}

#[allow(deprecated)] // `deprecated` is a required field of DocumentSymbol.
pub fn symbol(positions: &Positions, s: &Symbol) -> DocumentSymbol {
    DocumentSymbol {
        name: s.name.clone(),
        detail: Some(s.detail.clone()),
        kind: match s.kind {
            CoreSymbolKind::Manifest => SymbolKind::VARIABLE,
            CoreSymbolKind::Section => SymbolKind::OBJECT,
            CoreSymbolKind::Entry => SymbolKind::PROPERTY,
        },
        tags: None,
        deprecated: None,
        range: positions.range(&s.span),
        selection_range: positions.range(&s.selection),
        children: Some(s.children.iter().map(|c| symbol(positions, c)).collect()),
    }
}

/// A folded region, or `None` for one that does not span lines.
pub fn folding_range(positions: &Positions, span: &std::ops::Range<usize>) -> Option<FoldingRange> {
    let (start_line, end_line) = (positions.line(span.start), positions.line(span.end.saturating_sub(1)));
    (end_line > start_line).then(|| FoldingRange {
        start_line,
        end_line,
        kind: Some(FoldingRangeKind::Region),
        ..Default::default()
    })
}

pub fn hover(positions: &Positions, h: HoverResult) -> Hover {
    Hover {
        contents: HoverContents::Markup(MarkupContent { kind: MarkupKind::Markdown, value: h.markdown }),
        range: Some(positions.range(&h.span)),
    }
}

pub fn inlay_hint(positions: &Positions, offset: usize, label: String) -> InlayHint {
    InlayHint {
        position: positions.position(offset),
        label: InlayHintLabel::String(label),
        kind: None,
        text_edits: None,
        tooltip: None,
        padding_left: Some(true),
        padding_right: None,
        data: None,
    }
}

pub fn completion_item(positions: &Positions, item: CoreItem) -> CompletionItem {
    CompletionItem {
        label: item.label,
        kind: Some(match item.kind {
            ItemKind::Key => CompletionItemKind::PROPERTY,
            ItemKind::Value => CompletionItemKind::VALUE,
            ItemKind::Dtype => CompletionItemKind::ENUM_MEMBER,
            ItemKind::Operator => CompletionItemKind::FUNCTION,
        }),
        detail: item.detail,
        documentation: item
            .documentation
            .map(|d| Documentation::MarkupContent(MarkupContent { kind: MarkupKind::Markdown, value: d })),
        sort_text: Some(item.sort),
        filter_text: None,
        text_edit: Some(CompletionTextEdit::Edit(TextEdit {
            range: positions.range(&item.replace),
            new_text: item.insert_text,
        })),
        ..Default::default()
    }
}

/// A quick fix as a code action with its edits and the diagnostic it fixes.
pub fn quick_fix(positions: &Positions, analysis: &Analysis, fix: QuickFix, uri: &Uri) -> CodeActionOrCommand {
    let edits: Vec<TextEdit> =
        fix.edits.iter().map(|e| TextEdit { range: positions.range(&e.span), new_text: e.new_text.clone() }).collect();
    CodeActionOrCommand::CodeAction(CodeAction {
        title: fix.title,
        kind: Some(CodeActionKind::QUICKFIX),
        diagnostics: Some(vec![diagnostic(positions, &analysis.findings[fix.finding], uri)]),
        edit: Some(WorkspaceEdit {
            changes: Some(std::iter::once((uri.clone(), edits)).collect()),
            ..Default::default()
        }),
        is_preferred: Some(fix.preferred),
        ..Default::default()
    })
}

/// The `source.fixAll.torchcts` action: one edit that applies `count` safe fixes.
pub fn fix_all_action(
    positions: &Positions,
    edit: &torchcts_core::actions::TextEdit,
    count: usize,
    uri: &Uri,
) -> CodeActionOrCommand {
    let edit = TextEdit { range: positions.range(&edit.span), new_text: edit.new_text.clone() };
    let s = if count == 1 { "" } else { "es" };
    CodeActionOrCommand::CodeAction(CodeAction {
        title: format!("Fix all safe problems ({count} fix{s}, torchcts)"),
        kind: Some(crate::server::protocol::fix_all_kind()),
        edit: Some(WorkspaceEdit {
            changes: Some(std::iter::once((uri.clone(), vec![edit])).collect()),
            ..Default::default()
        }),
        ..Default::default()
    })
}

/// A code action that runs one of the server's commands (`source.torchcts.run`).
pub fn run_action(title: String, command: &str, argument: serde_json::Value) -> CodeActionOrCommand {
    CodeActionOrCommand::CodeAction(CodeAction {
        title: title.clone(),
        kind: Some(crate::server::protocol::run_action_kind()),
        command: Some(Command { title, command: command.into(), arguments: Some(vec![argument]) }),
        ..Default::default()
    })
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
