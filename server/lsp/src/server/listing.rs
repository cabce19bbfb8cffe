//! The environment's listing of modules kept current while the server runs: `pip install`
//! or `pip uninstall` in a running editor changes the modification time of the folder that
//! holds the module, and `check` (which lists on each run) would answer otherwise. Each
//! analysis's surroundings (`server/analysis.rs`) stat the listed folders (one `stat` each,
//! [`crate::host::Environment::claim_lapsed_listing`]); where one changed, the analysis
//! still answers with the kept listing (no keystroke waits for a `read_dir` of a large
//! site-packages), the folders are listed again on the pool, and where the modules differ,
//! every open document is analysed and published again (as CPython's answers are,
//! `server/cpython.rs`).

use crate::host::Environment;
use crate::server::pool;
use crate::server::session::{Cancel, Change, Session};
use std::sync::Arc;

/// Lists `environment` again in the background if its kept listing lapsed (and no one
/// lists it already), then republishes every open document when the modules changed.
pub fn list_again_if_lapsed(session: &Session, environment: &Arc<Environment>) {
    if !environment.claim_lapsed_listing() {
        return;
    }
    let Ok(runtime) = tokio::runtime::Handle::try_current() else {
        // Outside the server's runtime (never in the server): list here.
        environment.list_again();
        return;
    };
    let (session, environment) = (session.clone(), environment.clone());
    runtime.spawn(async move {
        let listed =
            pool::run("listing the environment again", Cancel::default(), move |_| Some(environment.list_again()));
        if listed.await == Some(true) {
            let uris = session.lock().documents.uris();
            session.changed(Change::Findings(uris));
        }
    });
}
