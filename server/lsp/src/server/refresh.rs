//! The refresh loop: the one place that acts on [`Change`]s, which features (a finished
//! run, the inventory loader) and the open/save/watched-files handlers send instead of
//! doing the work themselves. It asks `diagnostics` to analyse and publish again (which in
//! turn asks each feature for its findings), reads evidence again through `dispatch` (on
//! the blocking pool: result folders, git blame), and asks the client for code lenses
//! and inlay hints again (`workspace/codeLens/refresh`, `workspace/inlayHint/refresh`, each
//! only to a client that declared it) once what they show changed. Evidence work runs in its own task: a result file that cannot be read soon (a
//! pipe, a slow disk) holds up neither the handlers nor the loop.

use crate::server::session::{Change, Session};
use crate::server::{diagnostics, dispatch, evidence};
use tokio::sync::mpsc::UnboundedReceiver;
use tower_lsp_server::ls_types::Uri;

/// Acts on each change in the order they were said, until the session ends.
pub async fn run(session: Session, mut changes: UnboundedReceiver<Change>) {
    while let Some(change) = changes.recv().await {
        match change {
            Change::Findings(uris) => {
                for uri in uris {
                    diagnostics::refresh(&session, uri).await;
                }
            }
            Change::Evidence(uris) => {
                let session = session.clone();
                tokio::spawn(async move {
                    for uri in &uris {
                        evidence_of(&session, uri).await;
                    }
                });
            }
            Change::Counts(uris) => {
                for uri in uris {
                    diagnostics::refresh(&session, uri).await;
                }
                ask_client_to_refresh(&session, true);
            }
            Change::Results(uris) => {
                let session = session.clone();
                tokio::spawn(async move { results_changed(&session, &uris).await });
            }
        }
    }
}

/// Result files changed: the evidence of `uris` again, and the client asked to fetch the
/// code lenses again.
async fn results_changed(session: &Session, uris: &[Uri]) {
    for uri in uris {
        evidence_of(session, uri).await;
    }
    ask_client_to_refresh(session, false);
}

/// Asks the client to fetch the code lenses (and the inlay hints, `with_hints`) again, each
/// only if it declared `refreshSupport`. Not awaited: a client slow to answer must not hold
/// up the loop; an error only means the client would not, and its next edit asks anyway.
fn ask_client_to_refresh(session: &Session, with_hints: bool) {
    let support = session.client_support();
    let client = session.client.clone();
    tokio::spawn(async move {
        if support.refresh_code_lens {
            let _ = client.code_lens_refresh().await;
        }
        if with_hints && support.refresh_inlay_hints {
            let _ = client.inlay_hint_refresh().await;
        }
    });
}

/// The evidence findings of `uri` again (on open and save), read on the blocking pool; the
/// document analysed and published again when they changed.
async fn evidence_of(session: &Session, uri: &Uri) {
    let work_uri = uri.clone();
    let changed = dispatch::background(session, "evidence", move |session, on_pool| {
        Some(evidence::update_warnings(session, &work_uri, on_pool))
    })
    .await;
    if changed == Some(true) {
        diagnostics::refresh(session, uri.clone()).await;
    }
}
