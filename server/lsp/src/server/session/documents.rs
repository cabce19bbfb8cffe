//! Open documents: the text (a `String` and the core's `LineIndex` of it, the one text
//! model of the server, the CLI and the core), the version and the last syntax tree, with
//! LSP edits applied in order. An edit moves the text after it and indexes the lines again
//! (linear, ~1 µs per KB); the text is shared with a running analysis (`Arc`) and copied
//! only when an edit arrives while one still reads it.

use crate::server::positions::Positions;
use std::collections::HashMap;
use std::sync::Arc;
use torchcts_core::accounting_view::{ManifestFacts, Summary};
use torchcts_core::{Analysis, LineIndex, PositionEncoding};
use tower_lsp_server::ls_types::{TextDocumentContentChangeEvent, Uri};
use tree_sitter::{InputEdit, Tree};

pub struct Document {
    /// Shared with the analysis that reads it (an analysis never copies the text out).
    pub text: Arc<String>,
    /// The line index of `text`, for converting the positions of the next edit.
    pub line_index: LineIndex,
    pub version: i32,
    /// The tree of the previous analysis, edited along with the text for incremental parsing.
    pub tree: Option<Tree>,
    /// The analysis of `version` (with its text and line index), for read-only requests.
    pub analysis: Option<(i32, Arc<Analysis>)>,
    /// The accounting of the last analysed facts (recomputed only when they change).
    pub summary: Option<Arc<Summary>>,
    /// Inlay hints (offset, label) for the facts they were computed from.
    pub inlay_cache: Option<(ManifestFacts, Vec<(usize, String)>)>,
    /// Results of the last run, shown as diagnostics on the entry it was about.
    pub run_results: Option<super::runs::RunResults>,
    /// The findings of the runs' evidence (`torchcts_core::evidence::notes`), computed on
    /// open, save and when result files change (`server::evidence`), placed again by every
    /// analysis (`AnalysisInput::evidence`).
    pub evidence_notes: std::sync::Arc<Vec<torchcts_core::evidence::EvidenceNote>>,
    /// Facts at the last on-save run, to find the entries changed since.
    pub last_run_facts: Option<ManifestFacts>,
    /// The running analysis of this document (at most one at a time), cancelled when a
    /// newer refresh makes its result stale.
    pub analysing: Option<super::Cancel>,
    /// The text or what the analysis reads changed while it ran: analyse again after it.
    pub analyse_again: bool,
    /// The committed version ("vs HEAD") and the reviews against it.
    pub committed: super::review::CommittedSlot,
}

#[derive(Default)]
pub struct DocumentStore {
    docs: HashMap<Uri, Document>,
}

impl DocumentStore {
    pub fn open(&mut self, uri: Uri, text: &str, version: i32) {
        // A client may reopen a file (even at version 0): start afresh, but keep what was
        // read from git (read again only when HEAD moves).
        let committed = self.docs.get(&uri).map(|d| d.committed.clone()).unwrap_or_default();
        self.docs.insert(
            uri,
            Document {
                text: Arc::new(text.to_string()),
                line_index: LineIndex::new(text),
                version,
                tree: None,
                analysis: None,
                summary: None,
                inlay_cache: None,
                run_results: None,
                last_run_facts: None,
                evidence_notes: Default::default(),
                analysing: None,
                analyse_again: false,
                committed,
            },
        );
    }

    pub fn close(&mut self, uri: &Uri) {
        self.docs.remove(uri);
    }

    /// Drops every cached accounting summary (the inventory changed).
    pub fn forget_summaries(&mut self) {
        for doc in self.docs.values_mut() {
            doc.summary = None;
        }
    }

    pub fn uris(&self) -> Vec<Uri> {
        self.docs.keys().cloned().collect()
    }

    pub fn get(&self, uri: &Uri) -> Option<&Document> {
        self.docs.get(uri)
    }

    pub fn get_mut(&mut self, uri: &Uri) -> Option<&mut Document> {
        self.docs.get_mut(uri)
    }

    /// Applies changes in order. Returns false when the document is not open.
    pub fn change(
        &mut self,
        uri: &Uri,
        version: i32,
        changes: Vec<TextDocumentContentChangeEvent>,
        encoding: PositionEncoding,
    ) -> bool {
        let Some(doc) = self.docs.get_mut(uri) else { return false };
        for change in changes {
            match change.range {
                None => {
                    doc.line_index = LineIndex::new(&change.text);
                    doc.text = Arc::new(change.text);
                    doc.tree = None;
                }
                Some(range) => doc.replace(range, &change.text, encoding),
            }
        }
        doc.version = version;
        true
    }
}

impl Document {
    /// Replaces an LSP range of the text and edits the tree to match, so the next parse can
    /// reuse it.
    fn replace(&mut self, range: tower_lsp_server::ls_types::Range, new_text: &str, encoding: PositionEncoding) {
        let before = Positions::new(&self.text, &self.line_index, encoding);
        let start = before.offset(range.start);
        let end = before.offset(range.end).max(start);
        let (start_position, old_end_position) = (before.point(start), before.point(end));
        // Copies the text only if an analysis still reads this version.
        let text = Arc::make_mut(&mut self.text);
        text.replace_range(start..end, new_text);
        self.line_index = LineIndex::new(text);
        let new_end = start + new_text.len();
        if let Some(tree) = self.tree.as_mut() {
            let after = Positions::new(&self.text, &self.line_index, encoding);
            tree.edit(&InputEdit {
                start_byte: start,
                old_end_byte: end,
                new_end_byte: new_end,
                start_position,
                old_end_position,
                new_end_position: after.point(new_end),
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::DocumentStore;
    use crate::host::parse_text;
    use crate::server::session::Cancel;
    use torchcts_core::{LineCol, LineIndex, PositionEncoding};
    use tower_lsp_server::ls_types::{Position, Range, TextDocumentContentChangeEvent, Uri};

    /// 2,000 random incremental edits (UTF-16 ranges, multi-byte text, every line break)
    /// give the text a `String` reference gets, and a tree that re-parses like a fresh one.
    #[test]
    fn random_edits_match_a_reference_and_a_fresh_parse() {
        let mut reference = include_str!("../../../../../examples/manifest.py").to_string();
        let uri: Uri = "file:///tmp/edits/manifest.py".parse().unwrap();
        let mut store = DocumentStore::default();
        store.open(uri.clone(), &reference, 0);
        let inserts = ["", "x", "é", "😀", "\n", "\r\n", "\r", "\"a\": 1,\n", "]", "{"];
        let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
        let mut next = move |n: usize| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed % n as u64) as usize
        };
        for version in 1..=2000 {
            let index = LineIndex::new(&reference);
            let position = |offset: usize| {
                let lc = index.position(&reference, offset, PositionEncoding::Utf16);
                Position { line: lc.line, character: lc.col }
            };
            let start = next(reference.len() + 1);
            let end = (start + next(6)).min(reference.len());
            let (start_pos, end_pos) = (position(start), position(end));
            let text = inserts[next(inserts.len())].to_string();
            let offset = |p: Position| {
                index.offset(&reference, LineCol { line: p.line, col: p.character }, PositionEncoding::Utf16)
            };
            let (a, b) = (offset(start_pos), offset(end_pos).max(offset(start_pos)));
            reference.replace_range(a..b, &text);
            let change = TextDocumentContentChangeEvent {
                range: Some(Range { start: start_pos, end: end_pos }),
                range_length: None,
                text,
            };
            assert!(store.change(&uri, version, vec![change], PositionEncoding::Utf16));
            let doc = store.get_mut(&uri).unwrap();
            assert_eq!(*doc.text, reference, "after edit {version}");
            if version % 50 == 0 {
                let incremental = parse_text(&doc.text, doc.tree.as_ref(), &Cancel::default()).unwrap();
                let fresh = parse_text(&doc.text, None, &Cancel::default()).unwrap();
                assert_eq!(incremental.root_node().to_sexp(), fresh.root_node().to_sexp(), "after edit {version}");
                doc.tree = Some(incremental);
            }
        }
    }
}
