//! Open documents: text, version and the last syntax tree, with LSP edits applied in order.

use crate::server::convert;
use std::collections::HashMap;
use torchcts_core::{LineIndex, PositionEncoding};
use tower_lsp_server::ls_types::{TextDocumentContentChangeEvent, Uri};
use tree_sitter::Tree;

pub struct Document {
    pub text: String,
    pub version: i32,
    /// The tree of the previous analysis, edited along with the text for incremental parsing.
    pub tree: Option<Tree>,
    /// The analysis of `version`, for read-only requests (hover, actions).
    pub analysis: Option<(i32, std::sync::Arc<torchcts_core::Analysis>)>,
    /// The accounting of the last analysed facts (recomputed only when they change).
    pub summary: Option<std::sync::Arc<torchcts_core::accounting_view::Summary>>,
    /// Inlay hints (offset, label) for the facts they were computed from.
    pub inlay_cache: Option<(torchcts_core::accounting_view::ManifestFacts, Vec<(usize, String)>)>,
    /// Results of the last run, shown as diagnostics on the entry it was about.
    pub run_results: Option<crate::server::runs::RunResults>,
    /// Facts at the last on-save run, to find the entries changed since.
    pub last_run_facts: Option<torchcts_core::accounting_view::ManifestFacts>,
}

#[derive(Default)]
pub struct DocumentStore {
    docs: HashMap<Uri, Document>,
}

impl DocumentStore {
    pub fn open(&mut self, uri: Uri, text: String, version: i32) {
        // A client may reopen a file (even at version 0): start afresh.
        self.docs.insert(
            uri,
            Document {
                text,
                version,
                tree: None,
                analysis: None,
                summary: None,
                inlay_cache: None,
                run_results: None,
                last_run_facts: None,
            },
        );
    }

    pub fn close(&mut self, uri: &Uri) {
        self.docs.remove(uri);
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
                    doc.text = change.text;
                    doc.tree = None;
                }
                Some(range) => {
                    let index = LineIndex::new(&doc.text);
                    let positions = convert::Positions::new(&index, &doc.text, encoding);
                    let (start, end) = (positions.offset(range.start), positions.offset(range.end));
                    let end = end.max(start);
                    torchcts_core::syntax::apply_edit(&mut doc.text, doc.tree.as_mut(), start..end, &change.text);
                }
            }
        }
        doc.version = version;
        true
    }
}
