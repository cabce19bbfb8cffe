//! `initialize` (negotiate the position encoding, read settings and every workspace folder,
//! declare capabilities) and `initialized` (log the schema, load the inventory).

use crate::server::log::{self, Level};
use crate::server::session::workspace::Folders;
use crate::server::session::{Session, Settings};
use crate::server::to_proto;
use tower_lsp_server::jsonrpc::Result;
use tower_lsp_server::ls_types::*;

pub async fn initialize(session: &Session, params: InitializeParams) -> Result<InitializeResult> {
    let encoding = to_proto::negotiate_encoding(&params);
    {
        let mut state = session.lock();
        state.encoding = encoding;
        if let Some(options) = &params.initialization_options {
            state.settings = Settings::from_json(options);
        }
        // Every folder (multi-root); root_uri when the client sends no folders.
        #[allow(deprecated)] // root_uri is still what many clients send
        let uris: Vec<Uri> = match &params.workspace_folders {
            Some(folders) if !folders.is_empty() => folders.iter().map(|f| f.uri.clone()).collect(),
            _ => params.root_uri.iter().cloned().collect(),
        };
        let workspace = params.capabilities.workspace.as_ref();
        state.can_watch_files =
            workspace.and_then(|w| w.did_change_watched_files.as_ref()).and_then(|w| w.dynamic_registration)
                == Some(true);
        state.can_refresh_code_lens =
            workspace.and_then(|w| w.code_lens.as_ref()).and_then(|c| c.refresh_support) == Some(true);
        state.folders = Folders::new(uris.iter().filter_map(|u| u.to_file_path().map(|p| p.into_owned())).collect());
    }
    let settings = session.settings();
    apply_log_settings(session, &settings).await;
    Ok(to_proto::initialize_result(encoding))
}

pub async fn initialized(session: &Session, _: InitializedParams) {
    let s = torchcts_core::schema::schema();
    let ready = format!(
        "torchcts-lsp {} ready (schema of torchcts {} / torch {})",
        env!("CARGO_PKG_VERSION"),
        s.torchcts_version,
        s.torch_version
    );
    session.log(Level::Info, ready).await;
    let folders = session.lock().folders.all().to_vec();
    session.log(Level::Debug, format!("workspace folders: {folders:?}")).await;
    if session.lock().can_watch_files {
        // Off the start-up path: a client answers the registration whenever it likes.
        let session = session.clone();
        tokio::spawn(async move {
            if let Err(e) = session.client.register_capability(vec![to_proto::file_watchers()]).await {
                session.log(Level::Debug, format!("cannot watch pyproject.toml and result files: {e}")).await;
            }
        });
    }
    crate::server::inventory::load_and_refresh(session).await;
}

/// Applies `logLevel` and `logFile`; a log file that cannot be opened is a warning.
pub async fn apply_log_settings(session: &Session, settings: &Settings) {
    if let Err(e) = log::configure(settings.log_level, settings.log_file.as_deref()) {
        session.client.show_message(MessageType::WARNING, format!("torchcts: {e}")).await;
    }
}
