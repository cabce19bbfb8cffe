//! `initialize` (negotiate the position encoding, read what the client supports, settings
//! and every workspace folder, declare capabilities) and `initialized` (log the schema,
//! pull the settings where the client serves `workspace/configuration`, load the inventory).

use crate::server::log::{self, Level};
use crate::server::session::workspace::Folders;
use crate::server::session::{ClientSupport, Session, Settings};
use crate::server::to_proto;
use tower_lsp_server::jsonrpc::Result;
use tower_lsp_server::ls_types::*;

pub async fn initialize(session: &Session, params: InitializeParams) -> Result<InitializeResult> {
    let encoding = to_proto::negotiate_encoding(&params);
    let client = std::sync::Arc::new(ClientSupport::from_capabilities(&params.capabilities));
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
        state.client_support = client.clone();
        state.folders = Folders::new(uris.iter().filter_map(|u| u.to_file_path().map(|p| p.into_owned())).collect());
    }
    let settings = session.settings();
    apply_log_settings(session, &settings).await;
    Ok(to_proto::initialize_result(&client, encoding))
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
    let client = session.client_support();
    if client.watch_files {
        // Off the start-up path: a client answers the registration whenever it likes.
        let session = session.clone();
        tokio::spawn(async move {
            if let Err(e) = session.client.register_capability(vec![to_proto::file_watchers()]).await {
                session.log(Level::Debug, format!("cannot watch pyproject.toml and result files: {e}")).await;
            }
        });
    }
    if client.pull_configuration {
        // The settings first (they name the python and inventory the counts come from),
        // in a task: a client slow to answer holds up no message.
        let session = session.clone();
        tokio::spawn(async move {
            if let Some(settings) = pull_settings(&session).await {
                apply_log_settings(&session, &settings).await;
                session.lock().settings = settings;
            }
            crate::server::inventory::load_and_refresh(&session).await;
        });
    } else {
        crate::server::inventory::load_and_refresh(session).await;
    }
}

/// Applies `logLevel` and `logFile`; a log file that cannot be opened is a warning.
pub async fn apply_log_settings(session: &Session, settings: &Settings) {
    if let Err(e) = log::configure(settings.log_level, settings.log_file.as_deref()) {
        session.client.show_message(MessageType::WARNING, format!("torchcts: {e}")).await;
    }
}

/// How long the server waits for the client's answer to `workspace/configuration`.
const PULL_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(5);

/// The settings the client holds under `torchcts` (`workspace/configuration`); `None` when
/// it answers nothing usable (null, an error) or not within [`PULL_TIMEOUT`].
pub async fn pull_settings(session: &Session) -> Option<Settings> {
    let item = ConfigurationItem { scope_uri: None, section: Some("torchcts".into()) };
    let answer = tokio::time::timeout(PULL_TIMEOUT, session.client.configuration(vec![item])).await;
    match answer {
        Ok(Ok(values)) => values.into_iter().next().filter(|v| v.is_object()).map(|v| Settings::from_json(&v)),
        Ok(Err(e)) => {
            session.log(Level::Debug, format!("workspace/configuration failed: {e}")).await;
            None
        }
        Err(_) => {
            session.log(Level::Warn, "workspace/configuration: no answer within 5 s; settings kept").await;
            None
        }
    }
}
