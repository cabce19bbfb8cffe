//! Every conversion between the core's data (byte offsets, findings, fixes, items) and LSP
//! types, both ways. The only module that converts positions: handlers convert in, call the
//! core, convert out through here.

use crate::server::session::Snapshot;
use ropey::Rope;
use torchcts_core::actions::QuickFix;
use torchcts_core::completion::{CompletionItem as CoreItem, ItemKind};
use torchcts_core::hover::HoverResult;
use torchcts_core::symbols::{Symbol, SymbolKind as CoreSymbolKind};
use torchcts_core::{Analysis, Finding, Origin, PositionEncoding, Severity};
use tower_lsp_server::ls_types::{
    CodeAction, CodeActionKind, CodeActionOrCommand, Command, CompletionItem, CompletionItemKind, CompletionTextEdit,
    Diagnostic, DiagnosticRelatedInformation, DiagnosticSeverity, DocumentSymbol, Documentation, FoldingRange,
    FoldingRangeKind, Hover, HoverContents, InitializeParams, InlayHint, InlayHintLabel, Location, MarkupContent,
    MarkupKind, NumberOrString, Position, PositionEncodingKind, Range, SymbolKind, TextEdit, Uri, WorkspaceEdit,
};

/// Positions of one version of a document in the negotiated encoding, counted through its
/// rope. Lines end at `\n`, `\r\n` or `\r` only (ropey's `cr_lines`), as LSP defines them.
///
/// Never panics: a position past the end of a line clamps to the line's end, a line past
/// the end of the text to the end of the text, and an offset inside a character or between
/// `\r` and `\n` back to the character or line boundary (as the core's `LineIndex` does
/// for the CLI; a test below holds the two to the same answers).
pub struct Positions<'a> {
    rope: &'a Rope,
    encoding: PositionEncoding,
}

impl Snapshot {
    pub fn positions(&self) -> Positions<'_> {
        Positions::new(&self.rope, self.encoding)
    }
}

impl Positions<'_> {
    pub fn new(rope: &Rope, encoding: PositionEncoding) -> Positions<'_> {
        Positions { rope, encoding }
    }

    /// Characters of `line` before its terminator.
    fn content_chars(&self, line: usize) -> usize {
        let slice = self.rope.line(line);
        let n = slice.len_chars();
        let last = |i: usize| if n >= i { Some(slice.char(n - i)) } else { None };
        match (last(2), last(1)) {
            (Some('\r'), Some('\n')) => n - 2,
            (_, Some('\n' | '\r')) => n - 1,
            _ => n,
        }
    }

    pub fn position(&self, offset: usize) -> Position {
        let rope = self.rope;
        let char_idx = rope.byte_to_char(offset.min(rope.len_bytes()));
        let line = rope.char_to_line(char_idx);
        let line_start = rope.line_to_char(line);
        let char_idx = char_idx.min(line_start + self.content_chars(line));
        let character = match self.encoding {
            PositionEncoding::Utf8 => rope.char_to_byte(char_idx) - rope.char_to_byte(line_start),
            PositionEncoding::Utf16 => rope.char_to_utf16_cu(char_idx) - rope.char_to_utf16_cu(line_start),
            PositionEncoding::Utf32 => char_idx - line_start,
        };
        Position { line: line as u32, character: character as u32 }
    }

    pub fn range(&self, span: &std::ops::Range<usize>) -> Range {
        Range { start: self.position(span.start), end: self.position(span.end.max(span.start)) }
    }

    /// The byte offset of an LSP position (clamped into the text).
    pub fn offset(&self, position: Position) -> usize {
        let rope = self.rope;
        let line = position.line as usize;
        if line >= rope.len_lines() {
            return rope.len_bytes();
        }
        let line_start = rope.line_to_char(line);
        let content = rope.line(line).slice(..self.content_chars(line));
        let column = position.character as usize;
        let chars_in = match self.encoding {
            // A column inside a character (or a surrogate pair) clamps back to its start.
            PositionEncoding::Utf8 => content.byte_to_char(column.min(content.len_bytes())),
            PositionEncoding::Utf16 => content.utf16_cu_to_char(column.min(content.len_utf16_cu())),
            PositionEncoding::Utf32 => column.min(content.len_chars()),
        };
        rope.char_to_byte(line_start + chars_in)
    }

    /// The zero-based line holding byte `offset`.
    pub fn line(&self, offset: usize) -> u32 {
        self.rope.byte_to_line(offset.min(self.rope.len_bytes())) as u32
    }

    /// tree-sitter's point of byte `offset`: the row as LSP counts lines (tree-sitter counts
    /// `\n` only, which differs after a lone `\r`; the core never reads points) and the
    /// column in bytes.
    pub fn point(&self, offset: usize) -> tree_sitter::Point {
        let offset = offset.min(self.rope.len_bytes());
        let row = self.rope.byte_to_line(offset);
        tree_sitter::Point { row, column: offset - self.rope.line_to_byte(row) }
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

    /// Texts of line breaks of every kind, multi-byte characters and astral ones, from a
    /// fixed-seed generator.
    fn texts() -> Vec<String> {
        let pieces = ["a", "bc", "\n", "\r", "\r\n", "é", "😀", "\u{2028}", "\u{85}", "\u{c}", " "];
        let mut seed: u64 = 0x2545_f491_4f6c_dd1d;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        let mut out = vec![String::new(), "\r\n".into(), "x\r".into()];
        for _ in 0..300 {
            let len = (next() % 12) as usize;
            out.push((0..len).map(|_| pieces[(next() % pieces.len() as u64) as usize]).collect());
        }
        out
    }

    #[test]
    fn rope_positions_agree_with_the_cores_line_index_in_every_encoding() {
        for text in texts() {
            let rope = Rope::from_str(&text);
            let index = LineIndex::new(&text);
            for encoding in ENCODINGS {
                let positions = Positions::new(&rope, encoding);
                for offset in 0..=text.len() + 2 {
                    let expected = index.position(&text, offset, encoding);
                    let got = positions.position(offset);
                    assert_eq!(
                        (got.line, got.character),
                        (expected.line, expected.col),
                        "{text:?} {offset} {encoding:?}"
                    );
                }
                for line in 0..index.line_count() as u32 + 2 {
                    for character in 0..12 {
                        let expected = index.offset(&text, LineCol { line, col: character }, encoding);
                        assert_eq!(
                            positions.offset(Position { line, character }),
                            expected,
                            "{text:?} {line}:{character} {encoding:?}"
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn only_lsp_line_breaks_start_lines() {
        let rope = Rope::from_str("a\u{2028}b\u{85}c\u{c}d\re\r\nf\ng");
        assert_eq!(rope.len_lines(), 4);
        let positions = Positions::new(&rope, PositionEncoding::Utf16);
        assert_eq!(positions.position(rope.len_bytes()), Position { line: 3, character: 1 });
    }
}
