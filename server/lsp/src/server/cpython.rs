//! CPython's own verdict on a document our parsers find broken (issue 34): the emulation's
//! diagnostics are published first, then the document's text goes to the long-lived worker
//! of its environment's CPython (`host::cpython::Workers`) on the blocking pool; the answer
//! is kept on the document, and when it says something else than the emulation did, the
//! document is analysed and published again (`Change::Findings`), now with CPython's
//! message and line. A question for a text that is no longer the document's is dropped
//! before it is asked; an answer is applied only to the text it answers (the core checks).
//! Without a CPython to ask (none found, not 3.10+, `cpythonCompile: false`), the log says
//! once that syntax errors are the emulation's.

use crate::server::log::Level;
use crate::server::pool;
use crate::server::session::{Cancel, Change, Session};
use std::path::PathBuf;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use torchcts_core::Analysis;
use tower_lsp_server::ls_types::Uri;

/// A question for CPython about one analysed version of a document.
pub struct Question {
    uri: Uri,
    revision: u64,
    python: Option<PathBuf>,
    file_name: String,
    analysis: Arc<Analysis>,
}

/// The question to ask after publishing `analysis` (revision `revision` of `uri`), if our
/// parsers are in doubt about its syntax and no CPython answered for it yet.
pub fn question(uri: &Uri, revision: u64, python: Option<PathBuf>, analysis: &Arc<Analysis>) -> Option<Question> {
    analysis.syntax_in_doubt().then(|| Question {
        uri: uri.clone(),
        revision,
        python,
        file_name: analysis.file_name.clone(),
        analysis: analysis.clone(),
    })
}

/// Asks the question in the background (never on the request loop: the pool) and, when
/// CPython's answer differs from what was published, has the document published again.
pub fn ask(session: &Session, question: Question) {
    let Some(python) = question.python.clone() else {
        say_once(session, "syntax errors are torchcts-lsp's emulation of CPython 3.11's compile(): no CPython 3.10 or newer may be asked for this manifest (the environment's Python, or `cpythonCompile` / `cpython-compile` is false)".into());
        return;
    };
    let session = session.clone();
    tokio::spawn(async move {
        let worker_session = session.clone();
        let uri = question.uri.clone();
        let asked = pool::run("cpython compile", Cancel::default(), move |_| {
            let current = worker_session.lock().documents.get(&question.uri).map(|d| d.revision);
            if current != Some(question.revision) {
                return None;
            }
            let text = &question.analysis.text;
            Some((worker_session.cpython.compile(&python, text, &question.file_name), question))
        })
        .await;
        let Some((answer, question)) = asked else { return };
        let answer = match answer {
            Ok(answer) => Arc::new(answer),
            Err(e) => {
                say_once(&session, format!("CPython gave no verdict on a syntax error ({e}); the emulation's stands"));
                return;
            }
        };
        let agrees = answer.agrees_with(question.analysis.syntax_error.as_ref());
        {
            let mut state = session.lock();
            let Some(doc) = state.documents.get_mut(&uri) else { return };
            if doc.revision != question.revision {
                return;
            }
            doc.compile_answer = Some(answer);
        }
        if !agrees {
            session.changed(Change::Findings(vec![uri]));
        }
    });
}

fn say_once(session: &Session, message: String) {
    if !session.cpython_said.swap(true, Ordering::Relaxed) {
        let session = session.clone();
        tokio::spawn(async move { session.log(Level::Info, message).await });
    }
}
