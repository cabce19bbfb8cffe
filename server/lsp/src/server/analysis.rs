//! Runs the core on a version of a document's text, outside any lock; a panic in the core
//! becomes `None` and a line on stderr, never a dead server.
//!
//! What is copied when: an edit copies nothing (the rope, `session/documents.rs`); an
//! analysis takes an O(1) clone of the rope, parses it chunk by chunk, and materialises the
//! text once as the `String` its `Analysis` keeps (the core reads one `&str`; requests read
//! that text). Several edits that arrive while an analysis runs cost one analysis, so one
//! copy, not one per edit.

use ropey::Rope;
use std::path::PathBuf;
use torchcts_core::accounting_view::Inventory;
use torchcts_core::analysis::analyze_parsed_owned;
use torchcts_core::{Analysis, AnalysisInput, Cancellable, Cancelled};
use tree_sitter::Tree;

use crate::server::dispatch::guarded;
use crate::server::session::Cancel;
use tower_lsp_server::ls_types::Uri;

/// Parses the rope chunk by chunk (no copy of the text for the parser), reusing `old_tree`
/// (edited to match) where it can. Stops (`None`) once `cancel` is set.
pub(crate) fn parse_rope(rope: &Rope, old_tree: Option<&Tree>, cancel: &Cancel) -> Option<Tree> {
    let mut parser = tree_sitter::Parser::new();
    parser.set_language(&tree_sitter_python::LANGUAGE.into()).ok()?;
    let mut read = |byte: usize, _: tree_sitter::Point| -> &[u8] {
        match rope.get_chunk_at_byte(byte) {
            Some((chunk, chunk_start, _, _)) => &chunk.as_bytes()[byte - chunk_start..],
            None => &[],
        }
    };
    let mut stop = |_: &tree_sitter::ParseState| cancel.is_cancelled();
    parser.parse_with_options(&mut read, old_tree, Some(tree_sitter::ParseOptions::new().progress_callback(&mut stop)))
}

/// What the IO layer found around a document that its analysis takes as data: the runs'
/// evidence notes, the Python whose `re` answers, the modules its Python can import.
#[derive(Clone, Copy)]
pub struct Surroundings<'a> {
    pub evidence: &'a [torchcts_core::evidence::EvidenceNote],
    pub python: torchcts_core::regex_check::PythonVersion,
    pub importable: Option<&'a torchcts_core::eval::modules::ImportableModules>,
}

/// The analysis of the rope's text as the document `uri`: `custom_test_dirs` are checked relative
/// to its folder, and Python's SyntaxError names its file (untitled buffers read as
/// manifest.py). `Err` once `cancel` is set; `Ok(None)` if the core panicked.
pub fn run_analysis(
    uri: &Uri,
    rope: &Rope,
    old_tree: Option<&Tree>,
    inventory: Option<&Inventory>,
    environment: &Surroundings,
    cancel: &Cancel,
) -> Cancellable<Option<Analysis>> {
    let Surroundings { evidence, python, importable } = *environment;
    let path = uri.to_file_path();
    let base_dir: Option<PathBuf> = path.as_ref().and_then(|p| p.parent().map(|d| d.to_path_buf()));
    let file_name = path.as_ref().and_then(|p| p.file_name().and_then(|n| n.to_str()).map(str::to_string));
    let analysis = guarded("analysis", || {
        let tree = parse_rope(rope, old_tree, cancel).ok_or(Cancelled)?;
        // The one copy of this version's text: the analysis keeps it.
        let text = rope.to_string();
        let dir_exists = base_dir.as_deref().map(runner::environment::dir_exists_relative_to);
        let dir_exists_ref: Option<&dyn Fn(&str) -> bool> = dir_exists.as_ref().map(|f| f as &dyn Fn(&str) -> bool);
        let input = AnalysisInput {
            old_tree: None,
            dir_exists: dir_exists_ref,
            inventory,
            file_name: file_name.as_deref(),
            python,
            evidence: Some(evidence),
            importable,
        };
        analyze_parsed_owned(text, tree, &input, cancel)
    });
    match analysis {
        Some(Ok(analysis)) => Ok(Some(analysis)),
        Some(Err(Cancelled)) => Err(Cancelled),
        None => {
            crate::server::log::stderr(&format!("analysis failed for {}", uri.as_str()));
            Ok(None)
        }
    }
}
