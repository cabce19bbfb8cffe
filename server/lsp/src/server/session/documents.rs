//! Open documents: the text in a rope (the server's one text model), the version and the
//! last syntax tree, with LSP edits applied in order. An edit costs O(log n) in the rope and
//! in the tree's edit, whatever the file's size: no whole-text copy or scan per edit. A
//! clone of the rope (what an analysis takes) shares its nodes and is O(1); an edit
//! arriving while an analysis reads the old version copies only the nodes it touches.

use crate::server::positions::Positions;
use ropey::Rope;
use std::collections::HashMap;
use std::sync::Arc;
use torchcts_core::accounting_view::{ManifestFacts, Summary};
use torchcts_core::{Analysis, PositionEncoding};
use tower_lsp_server::ls_types::{TextDocumentContentChangeEvent, Uri};
use tree_sitter::{InputEdit, Tree};

pub struct Document {
    /// The text; an analysis takes an O(1) clone and reads its chunks.
    pub text: Rope,
    pub version: i32,
    /// Which text this is, store-wide: a new number on every open and change, so a finished
    /// analysis knows it read the current text (a client may reopen a file at the same
    /// version) without comparing the texts.
    pub revision: u64,
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
    /// The evidence lens lines' counts, for what they were computed from
    /// (`server::evidence::entry_lines`: computing them asks the accounting twice per entry).
    pub evidence_lens: Option<Arc<EvidenceLensCache>>,
    /// Facts at the last on-save run, to find the entries changed since.
    pub last_run_facts: Option<ManifestFacts>,
    /// The running analysis of this document (at most one at a time), cancelled when a
    /// newer refresh makes its result stale.
    pub analysing: Option<super::Cancel>,
    /// The text or what the analysis reads changed while it ran: analyse again after it.
    pub analyse_again: bool,
    /// The committed version ("vs HEAD") and the reviews against it.
    pub committed: super::review::CommittedSlot,
    /// CPython's `compile()` answer for a text of this document (`server/cpython.rs`): every
    /// analysis of that same text applies it (the core checks the text), none of another.
    pub compile_answer: Option<Arc<torchcts_core::cpython::CompileAnswer>>,
}

/// The counts behind a document's evidence lens lines and what they were computed from:
/// they hold while the manifest's facts, its entries, the device setting, the inventory and
/// the evidence index (the same one, at the same [`runner::evidence::EvidenceIndex::version`])
/// do. Kept without ages (the clock moves; the lines say the age at each request) and without
/// the failures (the lens does not list them).
pub struct EvidenceLensCache {
    pub facts: ManifestFacts,
    pub device_setting: Option<String>,
    pub inventory: &'static torchcts_core::accounting_view::Inventory,
    /// Which index: weak, so that a forgotten index is freed (its allocation stays, so the
    /// pointer is not reused while this is kept).
    pub index: std::sync::Weak<std::sync::Mutex<runner::evidence::EvidenceIndex>>,
    pub version: u64,
    /// Every entry (`torchcts_core::evidence::entries`, in order): its kind and key path,
    /// and the device and counts of its tests when it has any.
    pub entries: Vec<EvidenceLensEntry>,
}

/// One entry of an [`EvidenceLensCache`].
pub struct EvidenceLensEntry {
    pub kind: torchcts_core::evidence::EntryKind,
    pub key_path: Vec<String>,
    pub counts: Option<(String, torchcts_core::evidence::Tally)>,
}

#[derive(Default)]
pub struct DocumentStore {
    docs: HashMap<Uri, Document>,
    /// The last [`Document::revision`] given.
    revision: u64,
}

impl DocumentStore {
    pub fn open(&mut self, uri: Uri, text: &str, version: i32) {
        // A client may reopen a file (even at version 0): start afresh, but keep what was
        // read from git (read again only when HEAD moves).
        let committed = self.docs.get(&uri).map(|d| d.committed.clone()).unwrap_or_default();
        self.revision += 1;
        self.docs.insert(
            uri,
            Document {
                text: Rope::from_str(text),
                version,
                revision: self.revision,
                tree: None,
                analysis: None,
                summary: None,
                inlay_cache: None,
                run_results: None,
                last_run_facts: None,
                evidence_notes: Default::default(),
                compile_answer: None,
                evidence_lens: None,
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
        self.revision += 1;
        doc.revision = self.revision;
        for change in changes {
            match change.range {
                None => {
                    doc.text = Rope::from_str(&change.text);
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
        let before = Positions::of_rope(&self.text, encoding);
        let start = before.offset(range.start);
        let end = before.offset(range.end).max(start);
        let (start_position, old_end_position) = (before.point(start), before.point(end));
        // `offset` answers character boundaries only, so these are exact.
        let (start_char, end_char) = (self.text.byte_to_char(start), self.text.byte_to_char(end));
        self.text.remove(start_char..end_char);
        self.text.insert(start_char, new_text);
        let new_end = start + new_text.len();
        if let Some(tree) = self.tree.as_mut() {
            let after = Positions::of_rope(&self.text, encoding);
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
    use crate::server::analysis::parse_rope;
    use crate::server::positions::Positions;
    use crate::server::session::Cancel;
    use crate::server::to_proto;
    use torchcts_core::analysis::{analyze, analyze_parsed_owned, AnalysisInput};
    use torchcts_core::{LineCol, LineIndex, PositionEncoding};
    use tower_lsp_server::ls_types::{Position, Range, TextDocumentContentChangeEvent, Uri};

    /// A fixed-seed xorshift: the same edits on every run.
    fn generator(mut seed: u64) -> impl FnMut(usize) -> usize {
        move |n: usize| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed % n as u64) as usize
        }
    }

    /// Random incremental edits (ranges in `encoding`, multi-byte and astral text, CJK,
    /// every line break LSP knows and U+2028, which it does not) applied to the document's
    /// rope and to a `String` reference (through the core's `LineIndex`, the CLI's
    /// converter) give the same text; every `check_every` edits the incrementally parsed
    /// tree equals a fresh parse, and the analysis of the rope (chunk-parsed, reusing the
    /// edited tree) gives the reference's findings, converted to the same LSP ranges.
    fn random_edits_match_a_string_model(encoding: PositionEncoding, seed: u64, edits: i32, check_every: i32) {
        let mut reference = include_str!("../../../../../examples/manifest.py").to_string();
        let uri: Uri = "file:///tmp/edits/manifest.py".parse().unwrap();
        let mut store = DocumentStore::default();
        store.open(uri.clone(), &reference, 0);
        let inserts = [
            "",
            "x",
            "é",
            "😀",
            "漢字",
            "\n",
            "\r\n",
            "\r",
            "\u{2028}",
            "\"a\": 1,\n",
            "]",
            "{",
            "# ü\r\n",
            "'\u{85}'",
        ];
        let mut next = generator(seed);
        for version in 1..=edits {
            let index = LineIndex::new(&reference);
            let position = |offset: usize| {
                let lc = index.position(&reference, offset, encoding);
                Position { line: lc.line, character: lc.col }
            };
            let start = next(reference.len() + 1);
            let end = (start + next(6)).min(reference.len());
            // Now and then a column past the line's end or a line past the text's (clamped).
            let (start_pos, end_pos) = match next(40) {
                0 => (position(start), Position { line: position(end).line, character: 999 }),
                1 => (position(start), Position { line: 99_999, character: 0 }),
                _ => (position(start), position(end)),
            };
            let text = inserts[next(inserts.len())].to_string();
            let offset = |p: Position| index.offset(&reference, LineCol { line: p.line, col: p.character }, encoding);
            let (a, b) = (offset(start_pos), offset(end_pos).max(offset(start_pos)));
            reference.replace_range(a..b, &text);
            let change = TextDocumentContentChangeEvent {
                range: Some(Range { start: start_pos, end: end_pos }),
                range_length: None,
                text,
            };
            assert!(store.change(&uri, version, vec![change], encoding));
            let doc = store.get_mut(&uri).unwrap();
            assert_eq!(doc.text.len_bytes(), reference.len(), "after edit {version}");
            if version % check_every != 0 {
                continue;
            }
            assert_eq!(doc.text.to_string(), reference, "after edit {version}");
            let incremental = parse_rope(&doc.text, doc.tree.as_ref(), &Cancel::default()).unwrap();
            let fresh = parse_rope(&doc.text, None, &Cancel::default()).unwrap();
            assert_eq!(incremental.root_node().to_sexp(), fresh.root_node().to_sexp(), "after edit {version}");
            doc.tree = Some(incremental.clone());
            let input = AnalysisInput::default();
            let of_rope = analyze_parsed_owned(doc.text.to_string(), incremental, &input, &Cancel::default()).unwrap();
            let of_string = analyze(&reference, &input);
            assert_eq!(of_rope.findings, of_string.findings, "after edit {version}");
            let rope_positions = Positions::of_rope(&doc.text, encoding);
            let string_positions = Positions::new(&of_string.text, &of_string.line_index, encoding);
            // Related places included, so that they are compared too.
            let client = crate::server::session::ClientSupport { related_information: true, ..Default::default() };
            for finding in &of_string.findings {
                assert_eq!(
                    to_proto::diagnostic(&client, &rope_positions, finding, &uri),
                    to_proto::diagnostic(&client, &string_positions, finding, &uri),
                    "after edit {version}"
                );
            }
        }
    }

    #[test]
    fn random_utf16_edits_match_a_string_model() {
        random_edits_match_a_string_model(PositionEncoding::Utf16, 0x9e37_79b9_7f4a_7c15, 2000, 50);
    }

    #[test]
    fn random_utf8_and_utf32_edits_match_a_string_model() {
        random_edits_match_a_string_model(PositionEncoding::Utf8, 0x2545_f491_4f6c_dd1d, 600, 40);
        random_edits_match_a_string_model(PositionEncoding::Utf32, 0x5851_f42d_4c95_7f2d, 600, 40);
    }

    /// A reopen at the same version and every change give the text a new revision (what a
    /// finished analysis compares instead of the texts).
    #[test]
    fn every_open_and_change_is_a_new_revision() {
        let uri: Uri = "file:///tmp/edits/revision.py".parse().unwrap();
        let mut store = DocumentStore::default();
        store.open(uri.clone(), "a", 0);
        let first = store.get(&uri).unwrap().revision;
        store.open(uri.clone(), "a", 0);
        let reopened = store.get(&uri).unwrap().revision;
        assert_ne!(first, reopened);
        let change = TextDocumentContentChangeEvent { range: None, range_length: None, text: "a".into() };
        assert!(store.change(&uri, 0, vec![change], PositionEncoding::Utf16));
        assert_ne!(store.get(&uri).unwrap().revision, reopened);
    }

    /// Edits that join or split a `\r\n` (a `\n` typed after a lone `\r`, a `\r\n`
    /// whose halves are edited apart) count lines as LSP does after each step.
    #[test]
    fn edits_that_join_and_split_crlf() {
        let uri: Uri = "file:///tmp/edits/crlf.py".parse().unwrap();
        let mut store = DocumentStore::default();
        store.open(uri.clone(), "a\rb", 0);
        let at = |line, character| Position { line, character };
        let edit = |store: &mut DocumentStore, version, start: Position, end: Position, text: &str| {
            let change = TextDocumentContentChangeEvent {
                range: Some(Range { start, end }),
                range_length: None,
                text: text.to_string(),
            };
            assert!(store.change(&uri, version, vec![change], PositionEncoding::Utf16));
            let text = store.get(&uri).unwrap().text.clone();
            (text.to_string(), text.len_lines())
        };
        // After the lone \r, at the start of line 1: the \n joins it into one \r\n.
        assert_eq!(edit(&mut store, 1, at(1, 0), at(1, 0), "\n"), ("a\r\nb".to_string(), 2));
        // Line 1 starts after the \n: typing there leaves the break whole.
        assert_eq!(edit(&mut store, 2, at(1, 0), at(1, 0), "x"), ("a\r\nxb".to_string(), 2));
        // Replacing line 0's end (before the \r) with a \r\n: two breaks.
        assert_eq!(edit(&mut store, 3, at(0, 1), at(0, 1), "\r\n"), ("a\r\n\r\nxb".to_string(), 3));
        // Deleting from line 0's end through line 2's start removes both breaks.
        assert_eq!(edit(&mut store, 4, at(0, 1), at(2, 0), ""), ("axb".to_string(), 1));
        // U+2028 and NEL are not line breaks.
        assert_eq!(edit(&mut store, 5, at(0, 1), at(0, 2), "\u{2028}\u{85}"), ("a\u{2028}\u{85}b".to_string(), 1));
        assert_eq!(edit(&mut store, 6, at(0, 2), at(0, 2), "😀"), ("a\u{2028}😀\u{85}b".to_string(), 1));
        // Column 4 in UTF-16: after the emoji's two units.
        assert_eq!(edit(&mut store, 7, at(0, 4), at(0, 4), "\r"), ("a\u{2028}😀\r\u{85}b".to_string(), 2));
    }
}
