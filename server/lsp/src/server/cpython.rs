//! CPython's own verdict on a document our parsers find broken (issue 34): the emulation's
//! diagnostics are published first, then the document's text goes to the long-lived worker
//! of its environment's CPython (`host::cpython::Workers`) on the blocking pool; the answer
//! is kept on the document, and when it says something else than the emulation did, the
//! document is analysed and published again (`Change::Findings`), now with CPython's
//! message and line. A question for a text that is no longer the document's is dropped
//! before it is asked; an answer is applied only to the text it answers (the core checks).
//!
//! The same worker confirms `No module named 'X'`: where the text compiles and the analysis
//! says X cannot be imported (the listing of the environment's folders, made once per
//! environment), it is asked `PathFinder.find_spec(X, folders)` (no import executed); a
//! module it finds is importable to every later analysis of a document in those folders
//! (`server/analysis.rs`), and the document is published again, as the CLI answers
//! (`Surroundings::analyze_whole`). Its answers are kept per interpreter, module and folders
//! while no folder changes (`host::cpython::Workers::find_spec`), and forgotten when the
//! environment does (a `pyproject.toml`, the `python` setting).
//!
//! It also gives the file a module is loaded from, where the analysis wants it
//! (`from typing import X` where typing lacks X: the ImportError names typing's file);
//! kept per interpreter (`host::cpython::Workers::ask_module_file`), the document is
//! published again with the claim.
//!
//! Without a CPython to ask (none found, not 3.10+, `cpythonCompile: false`,
//! `cpython-compile = false`, `TORCHCTS_LSP_NO_CPYTHON`), the log says once that syntax
//! errors are the emulation's, and the listing's word on modules stands.

use crate::host::{missing_module, Surroundings};
use crate::server::log::Level;
use crate::server::pool;
use crate::server::session::{Cancel, Change, Session};
use std::path::PathBuf;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use torchcts_core::cpython::CompileAnswer;
use torchcts_core::Analysis;
use tower_lsp_server::ls_types::Uri;

/// A question for CPython about one analysed version of a document.
pub struct Question {
    uri: Uri,
    revision: u64,
    python: Option<PathBuf>,
    file_name: String,
    analysis: Arc<Analysis>,
    /// Where `find_spec` looks for a module the analysis says is missing
    /// (`Surroundings::module_folders`).
    module_folders: Vec<PathBuf>,
}

/// The question to ask after publishing `analysis` (revision `revision` of `uri`, analysed
/// in `surroundings`), if our parsers are in doubt about its syntax and no CPython answered
/// for it yet, or it says a module is missing (the listing's word, which CPython's
/// `find_spec` may not confirm).
pub fn question(uri: &Uri, revision: u64, surroundings: &Surroundings, analysis: &Arc<Analysis>) -> Option<Question> {
    let missing = surroundings.importable.is_some() && missing_module(analysis).is_some();
    let file_wanted = analysis.model.module_file_wanted.is_some();
    (analysis.syntax_in_doubt() || missing || file_wanted).then(|| Question {
        uri: uri.clone(),
        revision,
        python: surroundings.compile_python.clone(),
        file_name: analysis.file_name.clone(),
        analysis: analysis.clone(),
        module_folders: surroundings.module_folders.clone(),
    })
}

/// What the worker said of one question.
struct Answer {
    compiled: Arc<CompileAnswer>,
    /// `find_spec` finds the module the analysis says is missing, or the module file the
    /// analysis wanted was given. (Even an answer kept from
    /// before: another document's question may have found it after this analysis was made.
    /// The next analysis has it, so it is not asked again.)
    found: bool,
}

/// Asks the question in the background (never on the request loop: the pool) and, when
/// CPython's answer differs from what was published, has the document published again.
pub fn ask(session: &Session, question: Question) {
    let Some(python) = question.python.clone() else {
        say_once(session, "syntax errors are torchcts-lsp's emulation of CPython 3.11's compile(), and missing modules its listing of the environment's folders: no CPython 3.10 or newer may be asked for this manifest (the environment's Python, `cpythonCompile` / `cpython-compile` is false, or TORCHCTS_LSP_NO_CPYTHON is set)".into());
        return;
    };
    let session = session.clone();
    tokio::spawn(async move {
        let worker_session = session.clone();
        let uri = question.uri.clone();
        let asked = pool::run("cpython compile", Cancel::default(), move |_| {
            let known = {
                let state = worker_session.lock();
                let doc = state.documents.get(&question.uri).filter(|d| d.revision == question.revision)?;
                doc.compile_answer.clone()
            };
            Some((answer(&worker_session, &python, &question, known), question))
        })
        .await;
        let Some((answer, question)) = asked else { return };
        let Answer { compiled, found } = match answer {
            Ok(answer) => answer,
            Err(e) => {
                say_once(&session, format!("CPython gave no verdict on this manifest ({e}); the emulation's stands"));
                return;
            }
        };
        let agrees = compiled.agrees_with(question.analysis.syntax_error.as_ref());
        {
            let mut state = session.lock();
            let Some(doc) = state.documents.get_mut(&uri) else { return };
            if doc.revision != question.revision {
                return;
            }
            doc.compile_answer = Some(compiled);
        }
        // The module found is importable to the next analysis (`analysis::surroundings`).
        if !agrees || found {
            session.changed(Change::Findings(vec![uri]));
        }
    });
}

/// CPython's answer to `question` (on the pool): `compile()` of its text (the document's
/// answer where it already has one for that text), then, where the text compiles and the
/// analysis says a module is missing, `find_spec` of that module in the environment's
/// folders (an answer kept per module and folders is not asked again).
fn answer(
    session: &Session,
    python: &std::path::Path,
    question: &Question,
    known: Option<Arc<CompileAnswer>>,
) -> Result<Answer, String> {
    let text = &question.analysis.text;
    let compiled = match known.filter(|answer| answer.answers(text)) {
        Some(answer) => answer,
        None => Arc::new(session.cpython.compile(python, text, &question.file_name)?),
    };
    let missing = missing_module(&question.analysis).filter(|_| compiled.error.is_none());
    let mut found = match missing {
        Some(module) => session.cpython.find_spec(python, &module, &question.module_folders)?.found == Some(true),
        None => false,
    };
    // The file `from M import X` names where M lacks X: known to the next analysis
    // (`analysis::surroundings`).
    if let Some(module) = question.analysis.model.module_file_wanted.as_ref().filter(|_| compiled.error.is_none()) {
        found |= session.cpython.ask_module_file(python, module, &question.module_folders)?;
    }
    Ok(Answer { compiled, found })
}

fn say_once(session: &Session, message: String) {
    if !session.cpython_said.swap(true, Ordering::Relaxed) {
        let session = session.clone();
        tokio::spawn(async move { session.log(Level::Info, message).await });
    }
}
