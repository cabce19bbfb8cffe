//! Runs the core on a snapshot of a document, outside any lock; a panic in the core
//! becomes `None` and a line on stderr, never a dead server.

use std::path::PathBuf;
use torchcts_core::accounting_view::Inventory;
use torchcts_core::{analyze, Analysis, AnalysisInput};
use tower_lsp_server::ls_types::Uri;

/// Runs a read-only feature; a panic becomes `None` and a log line.
pub fn guarded<T>(what: &str, f: impl FnOnce() -> T) -> Option<T> {
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)) {
        Ok(v) => Some(v),
        Err(_) => {
            eprintln!("torchcts-lsp: {what} panicked");
            None
        }
    }
}

/// The analysis of `text` as the document `uri`: `custom_test_dirs` are checked relative
/// to its folder, and Python's SyntaxError names its file (untitled buffers read as
/// manifest.py).
pub fn run_analysis(
    uri: &Uri,
    text: &str,
    old_tree: Option<&tree_sitter::Tree>,
    inventory: Option<&Inventory>,
) -> Option<Analysis> {
    let path = uri.to_file_path();
    let base_dir: Option<PathBuf> = path.as_ref().and_then(|p| p.parent().map(|d| d.to_path_buf()));
    let file_name = path.as_ref().and_then(|p| p.file_name().and_then(|n| n.to_str()).map(str::to_string));
    let analysis = guarded("analysis", || {
        let dir_exists = base_dir.as_deref().map(runner::environment::dir_exists_relative_to);
        let dir_exists_ref: Option<&dyn Fn(&str) -> bool> = dir_exists.as_ref().map(|f| f as &dyn Fn(&str) -> bool);
        analyze(text, &AnalysisInput { old_tree, dir_exists: dir_exists_ref, inventory, file_name: file_name.as_deref() })
    });
    if analysis.is_none() {
        eprintln!("torchcts-lsp: analysis panicked for {}", uri.as_str());
    }
    analysis
}
