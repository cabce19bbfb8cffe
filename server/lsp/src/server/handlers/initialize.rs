//! `initialize` (negotiate the position encoding, read settings and the workspace root,
//! declare capabilities) and `initialized` (log the schema, load the inventory).

use crate::server::convert;
use crate::server::protocol::COMMANDS;
use crate::server::session::{Session, Settings};
use tower_lsp_server::jsonrpc::Result;
use tower_lsp_server::ls_types::*;

pub async fn initialize(session: &Session, params: InitializeParams) -> Result<InitializeResult> {
    let encoding = convert::negotiate_encoding(&params);
    {
        let mut state = session.lock();
        state.encoding = encoding;
        if let Some(options) = &params.initialization_options {
            state.settings = Settings::from_json(options);
        }
        #[allow(deprecated)] // root_uri is still what many clients send
        let root = params
            .workspace_folders
            .as_ref()
            .and_then(|f| f.first())
            .map(|f| f.uri.clone())
            .or(params.root_uri.clone());
        state.workspace_root = root.and_then(|u| u.to_file_path().map(|p| p.into_owned()));
    }
    Ok(InitializeResult {
        capabilities: capabilities(encoding),
        server_info: Some(ServerInfo { name: "torchcts-lsp".into(), version: Some(env!("CARGO_PKG_VERSION").into()) }),
        offset_encoding: None,
    })
}

fn capabilities(encoding: torchcts_core::PositionEncoding) -> ServerCapabilities {
    ServerCapabilities {
        position_encoding: Some(convert::encoding_kind(encoding)),
        text_document_sync: Some(TextDocumentSyncCapability::Options(TextDocumentSyncOptions {
            open_close: Some(true),
            change: Some(TextDocumentSyncKind::INCREMENTAL),
            save: Some(TextDocumentSyncSaveOptions::Supported(true)),
            ..Default::default()
        })),
        hover_provider: Some(HoverProviderCapability::Simple(true)),
        completion_provider: Some(CompletionOptions {
            trigger_characters: Some(vec!["\"".into(), "'".into(), ".".into(), "|".into(), "(".into()]),
            ..Default::default()
        }),
        document_symbol_provider: Some(OneOf::Left(true)),
        execute_command_provider: Some(ExecuteCommandOptions {
            commands: COMMANDS.iter().map(|c| c.to_string()).collect(),
            ..Default::default()
        }),
        code_lens_provider: Some(CodeLensOptions { resolve_provider: Some(false) }),
        inlay_hint_provider: Some(OneOf::Left(true)),
        folding_range_provider: Some(FoldingRangeProviderCapability::Simple(true)),
        code_action_provider: Some(CodeActionProviderCapability::Options(CodeActionOptions {
            code_action_kinds: Some(vec![CodeActionKind::QUICKFIX]),
            ..Default::default()
        })),
        ..Default::default()
    }
}

pub async fn initialized(session: &Session, _: InitializedParams) {
    let s = torchcts_core::schema::schema();
    let ready = format!(
        "torchcts-lsp {} ready (schema of torchcts {} / torch {})",
        env!("CARGO_PKG_VERSION"),
        s.torchcts_version,
        s.torch_version
    );
    session.client.log_message(MessageType::INFO, ready).await;
    crate::server::inventory::load_and_refresh(session).await;
}
