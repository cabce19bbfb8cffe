//! The analysis of a document, outside the session (which only holds state): the host's
//! surroundings of it (`crate::host`: the environment's Python and modules, the project's
//! configuration, the evidence notes), the core run on a version of its text outside any
//! lock, and the [`Snapshot`] read-only requests work on. A panic in the core becomes `None`
//! and a line on stderr, never a dead server.
//!
//! What is copied when: an edit copies nothing (the rope, `session/documents.rs`); an
//! analysis takes an O(1) clone of the rope, parses it chunk by chunk, and materialises the
//! text once as the `String` its `Analysis` keeps (the core reads one `&str`; requests read
//! that text). Several edits that arrive while an analysis runs cost one analysis, so one
//! copy, not one per edit.

use crate::host::{Environment, Place, Surroundings};
use crate::server::pool::{guarded, OnPool};
use crate::server::positions::Positions;
use crate::server::session::Session;
use ropey::Rope;
use std::sync::Arc;
use torchcts_core::accounting_view::Inventory;
use torchcts_core::{Analysis, Cancellable, Cancelled, PositionEncoding};
use tower_lsp_server::ls_types::Uri;
use tree_sitter::Tree;

/// The largest document analysed as it is typed: the core's limit (`size_limit`), which
/// the CLI applies too. A larger one gets one finding that says so instead.
pub(crate) const LIVE_ANALYSIS_MAX_BYTES: usize = torchcts_core::size_limit::ANALYSIS_MAX_BYTES;

/// One version of a document as read-only requests see it: its analysis, which holds the
/// text and its line index (positions are counted in them).
pub struct Snapshot {
    pub analysis: Arc<Analysis>,
    pub encoding: PositionEncoding,
}

impl Snapshot {
    pub fn positions(&self) -> Positions<'_> {
        Positions::new(&self.analysis.text, &self.analysis.line_index, self.encoding)
    }
}

/// The Python environment that loads the manifest `uri`: the project's `python`
/// (`[tool.torchcts-lsp]`) where the editor names none, as the CLI takes it; else the
/// session's (the editor's `python` setting or the workspace's). Detected once per
/// interpreter (file IO: on the pool).
pub fn environment_for(session: &Session, uri: &Uri, _: &OnPool) -> Option<Arc<Environment>> {
    let path = uri.to_file_path();
    let project_python = {
        let mut state = session.lock();
        let editor_python = state.settings.python.is_some();
        let config = path.as_deref().and_then(|p| state.project_configs.for_path(p));
        config.and_then(|c| c.python.as_ref()).map(|p| p.value.clone()).filter(|_| !editor_python)
    };
    let Some(python) = project_python else { return session.lock().environment.clone() };
    let known = session.lock().project_environments.get(&python).cloned();
    if let Some(environment) = known {
        return Some(environment);
    }
    let folder = path.as_deref().and_then(|p| p.parent());
    let environment = Arc::new(Environment::detect(Some(&python), folder));
    Some(session.lock().project_environments.entry(python).or_insert(environment).clone())
}

/// The host's surroundings of the document `uri` (a file: its folder, its project
/// configuration, its environment; untitled: none of them) with its evidence notes.
pub fn surroundings(session: &Session, uri: &Uri, on_pool: &OnPool) -> Surroundings {
    let path = uri.to_file_path();
    let (config, evidence, compiled, cpython_allowed) = {
        let mut state = session.lock();
        let config = path.as_deref().and_then(|p| state.project_configs.for_path(p).cloned());
        let document = state.documents.get(uri);
        let evidence = document.map(|d| d.evidence_notes.clone()).unwrap_or_default();
        let compiled = document.and_then(|d| d.compile_answer.clone());
        (config, evidence, compiled, state.settings.cpython_compile)
    };
    let environment = environment_for(session, uri, on_pool);
    // A folder of the environment's listing changed (`pip install` meanwhile): this
    // analysis answers with the kept listing, a new one is made in the background.
    if let Some(environment) = &environment {
        crate::server::listing::list_again_if_lapsed(session, environment);
    }
    crate::server::project_inventory::load_for_project(session, uri, environment.as_deref(), on_pool);
    let place = path.as_deref().map_or(Place::Nowhere, Place::File);
    let mut surroundings = Surroundings::of(place, environment.as_deref(), config.as_ref()).with_evidence(evidence);
    // The editor's `cpythonCompile: false` (VS Code's in an untrusted workspace) wins.
    if !cpython_allowed {
        surroundings.compile_python = None;
    }
    // The modules CPython's `find_spec` found where the listing saw none
    // (`server/cpython.rs`): the listing may be older than what CPython looked at.
    if let Some(python) = &surroundings.compile_python {
        let found = session.cpython.found_modules(python, &surroundings.module_folders);
        let files = session.cpython.module_files(python);
        surroundings.confirm_importable(found);
        surroundings.module_files = files;
    }
    // A CPython answer kept on the document applies only while CPython may be asked.
    surroundings.compiled = compiled.filter(|_| surroundings.compile_python.is_some());
    surroundings
}

/// Parses the rope chunk by chunk (no copy of the text for the parser), reusing `old_tree`
/// (edited to match) where it can. Stops (`None`) once `cancel` is set.
pub(crate) fn parse_rope(rope: &Rope, old_tree: Option<&Tree>, cancel: &torchcts_core::Cancel) -> Option<Tree> {
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

/// The analysis of the rope's text as the document `uri` in its `surroundings`, reusing
/// `old_tree`. `Err` once cancelled; `Ok(None)` if the core panicked.
pub fn run_analysis(
    uri: &Uri,
    surroundings: &Surroundings,
    rope: &Rope,
    old_tree: Option<&Tree>,
    inventory: Option<&Inventory>,
    on_pool: &OnPool,
) -> Cancellable<Option<Analysis>> {
    let analyse = || {
        let tree = parse_rope(rope, old_tree, on_pool).ok_or(Cancelled)?;
        // The one copy of this version's text: the analysis keeps it.
        surroundings.analyze_tree(rope.to_string(), tree, inventory, on_pool)
    };
    match guarded("analysis", analyse) {
        Some(Ok(analysis)) => Ok(Some(analysis)),
        Some(Err(Cancelled)) => Err(Cancelled),
        None => {
            crate::server::log::stderr(&format!("analysis failed for {}", uri.as_str()));
            Ok(None)
        }
    }
}

/// The analysis of the current version of `uri`, for read-only requests: the cached
/// one when it is current, else a fresh one of the current text (`None` if cancelled).
/// `None` for a document that is not a manifest.
pub fn snapshot(session: &Session, uri: &Uri, on_pool: &OnPool) -> Option<Snapshot> {
    if !session.is_manifest(uri) {
        return None;
    }
    let state = session.lock();
    let encoding = state.encoding;
    let doc = state.documents.get(uri)?;
    if let Some((version, analysis)) = &doc.analysis {
        if *version == doc.version {
            return Some(Snapshot { analysis: analysis.clone(), encoding });
        }
    }
    // An O(1) clone of the rope: an edit meanwhile copies only the nodes it touches.
    let text = doc.text.clone();
    drop(state);
    // Not analysed on request either: the document has its "too large" finding.
    if text.len_bytes() > LIVE_ANALYSIS_MAX_BYTES {
        return None;
    }
    let surroundings = surroundings(session, uri, on_pool);
    let analysis = run_analysis(uri, &surroundings, &text, None, Some(session.inventory(uri)), on_pool).ok()??;
    Some(Snapshot { analysis: Arc::new(analysis), encoding })
}
