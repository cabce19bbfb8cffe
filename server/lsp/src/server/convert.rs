//! Conversions between core data (byte offsets, findings) and LSP types.
//!
//! Positions go through the core's `LineIndex`, the one place that counts columns; this
//! module only wraps its results in LSP types.

use torchcts_core::symbols::{Symbol, SymbolKind as CoreSymbolKind};
use torchcts_core::{Analysis, Finding, LineCol, LineIndex, Origin, PositionEncoding, Severity};
use tower_lsp_server::ls_types::{
    Diagnostic, DiagnosticRelatedInformation, DiagnosticSeverity, DocumentSymbol, Location, NumberOrString, Position,
    PositionEncodingKind, Range, SymbolKind, Uri,
};

pub fn encoding_kind(encoding: PositionEncoding) -> PositionEncodingKind {
    match encoding {
        PositionEncoding::Utf8 => PositionEncodingKind::UTF8,
        PositionEncoding::Utf16 => PositionEncodingKind::UTF16,
        PositionEncoding::Utf32 => PositionEncodingKind::UTF32,
    }
}

pub fn position(index: &LineIndex, text: &str, offset: usize, encoding: PositionEncoding) -> Position {
    let lc = index.position(text, offset, encoding);
    Position { line: lc.line, character: lc.col }
}

pub fn range(index: &LineIndex, text: &str, span: &std::ops::Range<usize>, encoding: PositionEncoding) -> Range {
    Range {
        start: position(index, text, span.start, encoding),
        end: position(index, text, span.end.max(span.start), encoding),
    }
}

pub fn offset(index: &LineIndex, text: &str, pos: Position, encoding: PositionEncoding) -> usize {
    index.offset(text, LineCol { line: pos.line, col: pos.character }, encoding)
}

pub fn diagnostic(analysis: &Analysis, finding: &Finding, uri: &Uri, encoding: PositionEncoding) -> Diagnostic {
    let (index, text) = (&analysis.line_index, analysis.text.as_str());
    let related: Vec<DiagnosticRelatedInformation> = finding
        .related
        .iter()
        .map(|(span, message)| DiagnosticRelatedInformation {
            location: Location { uri: uri.clone(), range: range(index, text, span, encoding) },
            message: message.clone(),
        })
        .collect();
    Diagnostic {
        range: range(index, text, &finding.span, encoding),
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
        data: finding.data.clone(),
        ..Default::default()
    }
}

#[allow(deprecated)] // `deprecated` is a required field of DocumentSymbol.
pub fn symbol(analysis: &Analysis, s: &Symbol, encoding: PositionEncoding) -> DocumentSymbol {
    let (index, text) = (&analysis.line_index, analysis.text.as_str());
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
        range: range(index, text, &s.span, encoding),
        selection_range: range(index, text, &s.selection, encoding),
        children: Some(s.children.iter().map(|c| symbol(analysis, c, encoding)).collect()),
    }
}
