//! The LSP glue: routes each request and notification to its handler, which converts the
//! parameters in, calls the core and converts the result out.
//!
//! Layout: [`session`] holds the state (documents and all their caches, settings,
//! inventory, runs); `handlers/<method>.rs` one file per LSP method, each running its work
//! through [`dispatch`] (off the event loop, cancellable, panics caught); [`protocol`] the
//! server's extensions to LSP (command ids, `torchcts/status`); [`to_proto`] every
//! conversion between the core's byte offsets and LSP positions and types; [`diagnostics`]
//! the analyse-and-publish pipeline, [`inventory`] the inventory loading, [`listing`] the environment's listing of modules
//! kept current, `runs.rs` the
//! test runs started from the editor (the process itself is the `runner` crate's),
//! [`review_lens`] "vs HEAD".
//!
//! Ordering rules: every text edit is applied to the store synchronously, before the
//! handler's first `.await`, so edits apply in arrival order. Analysis runs on a snapshot
//! of the text outside any lock. Diagnostics are published with the document version
//! under a publish lock, and only if that version is still the current one, so a burst of
//! edits ends with diagnostics for the last version only.

mod analysis;
mod cpython;
mod diagnostics;
mod dispatch;
mod evidence;
mod fix_all;
mod handlers;
mod inventory;
mod listing;
mod log;
mod plaintext;
mod pool;
mod positions;
mod project_inventory;
mod protocol;
mod refresh;
mod review_lens;
mod runs;
mod session;

/// The server's settings schema (`torchcts.*`): what the editors' settings are checked against.
pub use session::settings::{Kind as SettingKind, SettingSchema, DEFAULT_LEVEL, SCHEMA as SETTINGS};
mod stdio;
mod to_proto;
mod transport;

use handlers::*;
use session::Session;
use std::process::ExitCode;
use tower_lsp_server::jsonrpc::Result;
use tower_lsp_server::ls_types::*;
use tower_lsp_server::{LanguageServer, LspService, Server};

/// Requests served at once; a slow one (a large document) must not hold up the others.
const CONCURRENT_REQUESTS: usize = 64;
/// Bytes buffered in each in-memory pipe between the stdio guard and the server.
const PIPE_BYTES: usize = 1 << 16;

/// Serves LSP on stdin/stdout until the input ends, `exit`, or the client process dies.
pub fn serve_stdio() -> ExitCode {
    log::init_from_env();
    let built = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        // The evaluator recurses up to 256 levels of nesting; a debug build needs ~6 KB of
        // stack per level, more than the 2 MiB default of tokio's threads.
        .thread_stack_size(16 * 1024 * 1024)
        .enable_all()
        .build();
    let runtime = match built {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("torchcts-lsp: cannot start the async runtime: {e}");
            return ExitCode::from(1);
        }
    };
    let code = runtime.block_on(async {
        let (service, socket) = LspService::new(Backend::new);
        let (to_server, server_input) = tokio::io::duplex(PIPE_BYTES);
        let (server_output, from_server) = tokio::io::duplex(PIPE_BYTES);
        let server =
            Server::new(server_input, server_output, socket).concurrency_level(CONCURRENT_REQUESTS).serve(service);
        transport::guard(stdio::input(), stdio::output(), to_server, from_server, server).await
    });
    // Neither a blocked read of stdin nor an analysis still running may delay the exit.
    runtime.shutdown_background();
    code
}

/// The router: one line per LSP method.
pub struct Backend {
    session: Session,
}

impl Backend {
    /// The session, and its refresh loop started (features say what changed; the loop
    /// publishes again).
    fn new(client: tower_lsp_server::Client) -> Backend {
        let (session, changes) = Session::new(client);
        tokio::spawn(refresh::run(session.clone(), changes));
        Backend { session }
    }
}

impl LanguageServer for Backend {
    async fn initialize(&self, params: InitializeParams) -> Result<InitializeResult> {
        initialize::initialize(&self.session, params).await
    }

    async fn initialized(&self, params: InitializedParams) {
        initialize::initialized(&self.session, params).await
    }

    async fn shutdown(&self) -> Result<()> {
        Ok(())
    }

    async fn did_open(&self, params: DidOpenTextDocumentParams) {
        did_open::did_open(&self.session, params).await
    }

    async fn did_change(&self, params: DidChangeTextDocumentParams) {
        did_change::did_change(&self.session, params).await
    }

    async fn did_save(&self, params: DidSaveTextDocumentParams) {
        did_save::did_save(&self.session, params).await
    }

    async fn did_close(&self, params: DidCloseTextDocumentParams) {
        did_close::did_close(&self.session, params).await
    }

    async fn did_change_configuration(&self, params: DidChangeConfigurationParams) {
        did_change_configuration::did_change_configuration(&self.session, params).await
    }

    async fn did_change_watched_files(&self, params: DidChangeWatchedFilesParams) {
        did_change_watched_files::did_change_watched_files(&self.session, params).await
    }

    async fn did_change_workspace_folders(&self, params: DidChangeWorkspaceFoldersParams) {
        did_change_workspace_folders::did_change_workspace_folders(&self.session, params).await
    }

    async fn execute_command(&self, params: ExecuteCommandParams) -> Result<Option<serde_json::Value>> {
        execute_command::execute_command(&self.session, params).await
    }

    async fn code_lens(&self, params: CodeLensParams) -> Result<Option<Vec<CodeLens>>> {
        code_lens::code_lens(&self.session, params).await
    }

    async fn inlay_hint(&self, params: InlayHintParams) -> Result<Option<Vec<InlayHint>>> {
        inlay_hint::inlay_hint(&self.session, params).await
    }

    async fn hover(&self, params: HoverParams) -> Result<Option<Hover>> {
        hover::hover(&self.session, params).await
    }

    async fn code_action(&self, params: CodeActionParams) -> Result<Option<CodeActionResponse>> {
        code_action::code_action(&self.session, params).await
    }

    async fn completion(&self, params: CompletionParams) -> Result<Option<CompletionResponse>> {
        completion::completion(&self.session, params).await
    }

    async fn document_symbol(&self, params: DocumentSymbolParams) -> Result<Option<DocumentSymbolResponse>> {
        document_symbol::document_symbol(&self.session, params).await
    }

    async fn folding_range(&self, params: FoldingRangeParams) -> Result<Option<Vec<FoldingRange>>> {
        folding_range::folding_range(&self.session, params).await
    }

    async fn goto_definition(&self, params: GotoDefinitionParams) -> Result<Option<GotoDefinitionResponse>> {
        definition::definition(&self.session, params).await
    }

    async fn references(&self, params: ReferenceParams) -> Result<Option<Vec<Location>>> {
        references::references(&self.session, params).await
    }

    async fn document_highlight(&self, params: DocumentHighlightParams) -> Result<Option<Vec<DocumentHighlight>>> {
        document_highlight::document_highlight(&self.session, params).await
    }

    async fn prepare_rename(&self, params: TextDocumentPositionParams) -> Result<Option<PrepareRenameResponse>> {
        prepare_rename::prepare_rename(&self.session, params).await
    }

    async fn rename(&self, params: RenameParams) -> Result<Option<WorkspaceEdit>> {
        rename::rename(&self.session, params).await
    }

    async fn selection_range(&self, params: SelectionRangeParams) -> Result<Option<Vec<SelectionRange>>> {
        handlers::selection_range::selection_range(&self.session, params).await
    }
}
