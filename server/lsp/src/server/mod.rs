//! The LSP glue: receives notifications and requests, calls the core, converts results.
//!
//! Ordering rules: every text edit is applied to the store synchronously, before the
//! handler's first `.await`, so edits apply in arrival order. Analysis runs on a snapshot
//! of the text outside any lock. Diagnostics are published with the document version
//! under a publish lock, and only if that version is still the current one, so a burst of
//! edits ends with diagnostics for the last version only.

mod convert;
mod documents;
mod runs;

use documents::DocumentStore;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::{Arc, Mutex};
use torchcts_core::accounting_view::{self as av, Inventory, Summary};
use torchcts_core::{analyze, Analysis, AnalysisInput, PositionEncoding};
use tower_lsp_server::jsonrpc::Result;
use tower_lsp_server::ls_types::*;
use tower_lsp_server::{Client, LanguageServer, LspService, Server};

pub fn serve_stdio() -> ExitCode {
    let runtime = match tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build() {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("torchcts-lsp: cannot start the async runtime: {e}");
            return ExitCode::from(1);
        }
    };
    runtime.block_on(async {
        let (service, socket) = LspService::new(Backend::new);
        Server::new(tokio::io::stdin(), tokio::io::stdout(), socket).serve(service).await;
    });
    ExitCode::SUCCESS
}

/// Set once the embedded inventory is decoded. Until then diagnostics are published without
/// the inventory's hints, so the first diagnostics do not wait for it.
static INVENTORY_READY: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// `torchcts/status`: the manifest's run/filtered counts at its level, for status bars.
enum StatusNotification {}

impl tower_lsp_server::ls_types::notification::Notification for StatusNotification {
    type Params = serde_json::Value;
    const METHOD: &'static str = "torchcts/status";
}

pub struct Backend {
    client: Client,
    state: Arc<Mutex<State>>,
    /// Serialises publishing so that an older analysis never lands after a newer one.
    publish_lock: Arc<tokio::sync::Mutex<()>>,
    /// At most one test run per manifest.
    runs: runner::RunRegistry,
}

#[derive(Default)]
struct State {
    documents: DocumentStore,
    encoding: PositionEncoding,
    settings: runs::Settings,
    workspace_root: Option<PathBuf>,
    /// A user-chosen inventory (leaked: loaded once per setting change); the embedded one otherwise.
    inventory: Option<&'static Inventory>,
}

/// What publishing diagnostics needs, clonable into tasks (a finished run republishes).
#[derive(Clone)]
struct Publisher {
    client: Client,
    state: Arc<Mutex<State>>,
    publish_lock: Arc<tokio::sync::Mutex<()>>,
}

impl Backend {
    fn new(client: Client) -> Backend {
        Backend {
            client,
            state: Arc::new(Mutex::new(State::default())),
            publish_lock: Arc::new(tokio::sync::Mutex::new(())),
            runs: runner::RunRegistry::new(),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        // A panic while holding the lock must not take the server down with it.
        self.state.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    fn settings(&self) -> runs::Settings {
        self.lock().settings.clone()
    }

    fn inventory(&self) -> &'static Inventory {
        self.lock().inventory.unwrap_or_else(Inventory::embedded)
    }

    /// Loads the inventory the settings name, and says which one is used and whether the
    /// user's environment has other torchcts/torch versions (read from its dist-info
    /// folders; no Python runs).
    async fn apply_inventory_setting(&self) {
        let settings = self.settings();
        let mut problem = None;
        let loaded: Option<&'static Inventory> = match &settings.inventory_path {
            Some(path) => match Inventory::from_path(path) {
                Ok(inv) => Some(Box::leak(Box::new(inv))),
                Err(e) => {
                    problem = Some(format!("torchcts: cannot load the inventory {path}: {e}; using the embedded one"));
                    None
                }
            },
            None => None,
        };
        self.lock().inventory = loaded;
        if let Some(p) = problem {
            self.client.show_message(MessageType::WARNING, p).await;
        }
        // The embedded inventory is reported by the task that decodes it (after initialize);
        // reporting it here would decode it on the request path.
        if loaded.is_some() || INVENTORY_READY.load(std::sync::atomic::Ordering::Acquire) {
            self.publisher().report_inventory(loaded.is_some()).await;
        }
    }

    fn publisher(&self) -> Publisher {
        Publisher { client: self.client.clone(), state: self.state.clone(), publish_lock: self.publish_lock.clone() }
    }

    async fn refresh(&self, uri: Uri) {
        self.publisher().refresh(uri).await;
    }

    /// Applies the inventory setting, decodes the embedded inventory off the request path,
    /// then refreshes open documents with counts and inventory hints.
    async fn load_inventory_and_refresh(&self) {
        self.apply_inventory_setting().await;
        let publisher = self.publisher();
        tokio::spawn(async move {
            let _ = tokio::task::spawn_blocking(Inventory::embedded).await;
            INVENTORY_READY.store(true, std::sync::atomic::Ordering::Release);
            let custom = publisher.lock().inventory.is_some();
            if !custom {
                publisher.report_inventory(false).await;
            }
            let uris = publisher.lock().documents.uris();
            for uri in uris {
                publisher.refresh(uri).await;
            }
        });
    }

    /// "Run affected tests on DEVICE" for the entry at `offset`, and the whole level.
    fn run_actions(&self, uri: &Uri, analysis: &Analysis, offset: usize) -> Vec<CodeActionOrCommand> {
        let Some(manifest) = analysis.model.manifest.as_ref().and_then(|m| m.as_dict()) else { return Vec::new() };
        let device_setting = self.settings().device;
        let facts = av::facts(manifest);
        let device = facts.resolve_device(device_setting.as_deref());
        let level = av::LevelSelection::from_manifest(&facts).map(|s| s.max_level()).unwrap_or(3);
        let position = convert::position(&analysis.line_index, &analysis.text, offset, self.lock().encoding);
        let mut out = Vec::new();
        let located = torchcts_core::locate::locate(&analysis.tree, &analysis.text, offset);
        let entry = located.as_ref().filter(|t| {
            let p = t.path_strs();
            match p.as_slice() {
                ["supported_dtypes", _] => true,
                // Tests a capability gates only run while it is True in the manifest.
                ["capabilities", cap] => facts.capability(cap).is_some_and(|v| v.truthy()),
                // The tests a skip_ops entry removes run on a scratch copy without it.
                ["skip_ops"] => matches!(t.role, torchcts_core::locate::Role::ListItem(_)),
                _ => false,
            }
        });
        if let Some(t) = entry {
            let target = guarded("run target", || {
                av::run_target(self.inventory(), manifest, Some(t), device_setting.as_deref())
            });
            if let Some(target) = target {
                let n = target.node_ids.as_ref().map(Vec::len).unwrap_or(0);
                let title = if target.scratch_change.is_some() {
                    format!("Run affected tests on {device} ({n} tests of {}, on a scratch copy without the entry)", target.label)
                } else {
                    format!("Run affected tests on {device} ({n} tests of {})", target.label)
                };
                out.push(run_action(
                    title,
                    runs::RUN_AFFECTED,
                    serde_json::json!({"uri": uri.as_str(), "position": position}),
                ));
            }
        }
        out.push(run_action(
            format!("Run level {level} on {device}"),
            runs::RUN_LEVEL,
            serde_json::json!({"uri": uri.as_str(), "level": level}),
        ));
        out
    }

    /// The opt-in on-save run: never on open, never when the file has errors.
    async fn run_on_save(&self, uri: Uri) {
        let settings = self.settings();
        if settings.on_save == "off" {
            return;
        }
        let Some((analysis, _)) = self.analysis_of(&uri) else { return };
        if analysis.findings.iter().any(|f| f.severity == torchcts_core::Severity::Error) {
            self.client.log_message(MessageType::INFO, "torchcts: on-save run skipped: the manifest has errors").await;
            return;
        }
        let Some(manifest) = analysis.model.manifest.as_ref().and_then(|m| m.as_dict()) else { return };
        let facts = av::facts(manifest);
        let previous = self.lock().documents.get(&uri).and_then(|d| d.last_run_facts.clone());
        if let Some(doc) = self.lock().documents.get_mut(&uri) {
            doc.last_run_facts = Some(facts.clone());
        }
        let target = if settings.on_save == "affected" {
            let Some(previous) = previous else {
                // First save: nothing to compare with yet; remember the facts only.
                return;
            };
            match av::changed_entries_target(self.inventory(), &previous, &facts, settings.device.as_deref()) {
                Some(t) => t,
                None => return,
            }
        } else {
            let level = av::LevelSelection::from_manifest(&facts).map(|s| s.max_level()).unwrap_or(3);
            av::RunTarget {
                label: format!("level {level}"),
                node_ids: None,
                level,
                device: facts.resolve_device(settings.device.as_deref()),
                anchor: vec!["semantic_level".into()],
                scratch_change: None,
            }
        };
        self.start_run(uri, target, runs::CommandArgs::default(), runs::WhenRunning::Replace).await;
    }

    /// The analysis of the current version of `uri`, for read-only requests.
    fn analysis_of(&self, uri: &Uri) -> Option<(Arc<Analysis>, PositionEncoding)> {
        let state = self.lock();
        let doc = state.documents.get(uri)?;
        if let Some(a) = &doc.analysis {
            if a.0 == doc.version {
                return Some((a.1.clone(), state.encoding));
            }
        }
        let (text, encoding) = (doc.text.clone(), state.encoding);
        drop(state);
        let analysis = Arc::new(run_analysis(uri, &text, None, Some(self.inventory()))?);
        Some((analysis, encoding))
    }
}

impl Publisher {
    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    fn inventory(&self) -> &'static Inventory {
        self.lock().inventory.unwrap_or_else(Inventory::embedded)
    }

    /// Says which inventory is used, and warns when the user's environment has other
    /// torchcts/torch versions (read from its dist-info folders; no Python runs).
    async fn report_inventory(&self, custom: bool) {
        let settings = self.lock().settings.clone();
        let inv = self.inventory();
        let origin = match (&settings.inventory_path, custom) {
            (Some(p), true) => p.clone(),
            _ => "embedded".to_string(),
        };
        self.client
            .log_message(
                MessageType::INFO,
                format!(
                    "torchcts-lsp inventory: torchcts {} + torch {} ({origin}, extracted {})",
                    inv.meta.torchcts_version, inv.meta.torch_version, inv.meta.extracted_at
                ),
            )
            .await;
        let workspace = self.lock().workspace_root.clone();
        let python = runner::find_python(settings.python.as_deref().map(std::path::Path::new), workspace.as_deref());
        if let Some((torchcts, torch)) = crate::cli::inventory::installed_versions(&python) {
            let inv_torch = inv.meta.torch_version.split('+').next().unwrap_or("");
            if torchcts != inv.meta.torchcts_version || torch != inv_torch {
                self.client
                    .show_message(
                        MessageType::WARNING,
                        format!(
                            "torchcts-lsp counts with an inventory of torchcts {} + torch {}, but {} has torchcts {torchcts} + torch {torch}. Run `torchcts-lsp inventory --python {}` and set torchcts.inventory.path to the file it prints.",
                            inv.meta.torchcts_version,
                            inv_torch,
                            python.display(),
                            python.display()
                        ),
                    )
                    .await;
            }
        }
    }

    /// The inventory if it is already loaded (never waits for the embedded one).
    fn inventory_if_ready(&self) -> Option<&'static Inventory> {
        let custom = self.lock().inventory;
        custom.or_else(|| INVENTORY_READY.load(std::sync::atomic::Ordering::Acquire).then(Inventory::embedded))
    }

    /// Publishes again after a run finished (same text, new run results).
    async fn republish(&self, uri: Uri) {
        self.refresh(uri).await;
    }

    /// Analyses the current text of `uri` and publishes diagnostics if still current.
    async fn refresh(&self, uri: Uri) {
        let snapshot = {
            let mut state = self.lock();
            let encoding = state.encoding;
            let Some(doc) = state.documents.get_mut(&uri) else { return };
            (doc.text.clone(), doc.version, doc.tree.take(), encoding)
        };
        let (text, version, old_tree, encoding) = snapshot;
        let inventory = self.inventory_if_ready();
        let Some(analysis) = run_analysis(&uri, &text, old_tree.as_ref(), inventory) else {
            self.client
                .log_message(MessageType::ERROR, format!("analysis of {} failed; see stderr", uri.as_str()))
                .await;
            return;
        };
        let mut diagnostics: Vec<Diagnostic> =
            analysis.findings.iter().map(|f| convert::diagnostic(&analysis, f, &uri, encoding)).collect();
        let run_results = self.lock().documents.get(&uri).and_then(|d| d.run_results.clone());
        if let Some(results) = &run_results {
            diagnostics.extend(
                runs::run_findings(&analysis, results)
                    .iter()
                    .map(|f| convert::diagnostic(&analysis, f, &uri, encoding)),
            );
        }
        // Accounting is recomputed only when the facts it depends on changed.
        let facts = analysis.model.manifest.as_ref().and_then(|m| m.as_dict()).map(av::facts);
        let previous = self.lock().documents.get(&uri).and_then(|d| d.summary.clone());
        let summary: Option<Arc<Summary>> = match (&facts, &previous, inventory) {
            (Some(f), Some(p), _) if p.facts == *f => Some(p.clone()),
            (Some(f), _, Some(inv)) => guarded("accounting", || av::summarize(inv, f, None)).map(Arc::new),
            _ => None,
        };
        let changed = match (&summary, &previous) {
            (Some(a), Some(b)) => !Arc::ptr_eq(a, b),
            (Some(_), None) => true,
            _ => false,
        };
        {
            let mut state = self.lock();
            if let Some(doc) = state.documents.get_mut(&uri) {
                if doc.version == version && doc.text == text {
                    doc.tree = Some(analysis.tree.clone());
                    doc.analysis = Some((version, Arc::new(analysis)));
                    doc.summary = summary.clone();
                }
            }
        }
        if changed {
            if let Some(s) = &summary {
                let level = av::selected_level(s);
                let params = serde_json::json!({
                    "uri": uri.as_str(),
                    "level": level,
                    "device": s.device,
                    "run": av::runnable_up_to(s, level),
                    "filtered": av::filtered_up_to(s, level),
                });
                self.client.send_notification::<StatusNotification>(params).await;
            }
        }
        let _guard = self.publish_lock.lock().await;
        let current = self.lock().documents.get(&uri).map(|d| d.version);
        if current == Some(version) {
            self.client.publish_diagnostics(uri, diagnostics, Some(version)).await;
        }
    }
}

fn run_action(title: String, command: &str, argument: serde_json::Value) -> CodeActionOrCommand {
    CodeActionOrCommand::CodeAction(CodeAction {
        title: title.clone(),
        kind: Some(CodeActionKind::new("source.torchcts.run")),
        command: Some(Command { title, command: command.into(), arguments: Some(vec![argument]) }),
        ..Default::default()
    })
}

/// Operator names for completion, from the inventory.
struct InventoryOperators(&'static Inventory);

impl torchcts_core::completion::OperatorSource for InventoryOperators {
    fn operator_names(&self) -> Vec<String> {
        self.0.operator_names().into_iter().map(str::to_string).collect()
    }
}

/// Runs a read-only feature; a panic becomes `None` and a log line, never a dead server.
fn guarded<T>(what: &str, f: impl FnOnce() -> T) -> Option<T> {
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)) {
        Ok(v) => Some(v),
        Err(_) => {
            eprintln!("torchcts-lsp: {what} panicked");
            None
        }
    }
}

/// Runs the core on a snapshot; a panic becomes `None` and a log line, never a dead server.
fn run_analysis(
    uri: &Uri,
    text: &str,
    old_tree: Option<&tree_sitter::Tree>,
    inventory: Option<&Inventory>,
) -> Option<Analysis> {
    let base_dir: Option<PathBuf> = uri.to_file_path().and_then(|p| p.parent().map(|d| d.to_path_buf()));
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        let dir_exists = base_dir.as_deref().map(crate::cli::dir_exists_relative_to);
        let dir_exists_ref: Option<&dyn Fn(&str) -> bool> = dir_exists.as_ref().map(|f| f as &dyn Fn(&str) -> bool);
        // As Python's SyntaxError shows it; untitled buffers read as manifest.py.
        let file_name = uri.to_file_path().and_then(|p| p.file_name().and_then(|n| n.to_str()).map(str::to_string));
        analyze(text, &AnalysisInput { old_tree, dir_exists: dir_exists_ref, inventory, file_name: file_name.as_deref() })
    }));
    match result {
        Ok(a) => Some(a),
        Err(_) => {
            eprintln!("torchcts-lsp: analysis panicked for {}", uri.as_str());
            None
        }
    }
}

fn negotiate_encoding(params: &InitializeParams) -> PositionEncoding {
    let offered = params.capabilities.general.as_ref().and_then(|g| g.position_encodings.as_ref());
    match offered {
        Some(list) if list.contains(&PositionEncodingKind::UTF8) => PositionEncoding::Utf8,
        _ => PositionEncoding::Utf16,
    }
}

impl LanguageServer for Backend {
    async fn initialize(&self, params: InitializeParams) -> Result<InitializeResult> {
        let encoding = negotiate_encoding(&params);
        {
            let mut state = self.lock();
            state.encoding = encoding;
            if let Some(options) = &params.initialization_options {
                state.settings = runs::Settings::from_json(options);
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
            capabilities: ServerCapabilities {
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
                    commands: runs::COMMANDS.iter().map(|c| c.to_string()).collect(),
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
            },
            server_info: Some(ServerInfo {
                name: "torchcts-lsp".into(),
                version: Some(env!("CARGO_PKG_VERSION").into()),
            }),
            offset_encoding: None,
        })
    }

    async fn initialized(&self, _: InitializedParams) {
        let s = torchcts_core::schema::schema();
        self.client
            .log_message(
                MessageType::INFO,
                format!(
                    "torchcts-lsp {} ready (schema of torchcts {} / torch {})",
                    env!("CARGO_PKG_VERSION"),
                    s.torchcts_version,
                    s.torch_version
                ),
            )
            .await;
        self.load_inventory_and_refresh().await;
    }

    async fn shutdown(&self) -> Result<()> {
        Ok(())
    }

    async fn did_open(&self, params: DidOpenTextDocumentParams) {
        let doc = params.text_document;
        self.lock().documents.open(doc.uri.clone(), doc.text, doc.version);
        self.refresh(doc.uri).await;
    }

    async fn did_change(&self, params: DidChangeTextDocumentParams) {
        let uri = params.text_document.uri;
        let applied = {
            let mut state = self.lock();
            let encoding = state.encoding;
            state.documents.change(&uri, params.text_document.version, params.content_changes, encoding)
        };
        if applied {
            self.refresh(uri).await;
        }
    }

    async fn did_save(&self, params: DidSaveTextDocumentParams) {
        // custom_test_dirs existence can change on disk; re-check on save.
        let uri = params.text_document.uri;
        self.refresh(uri.clone()).await;
        self.run_on_save(uri).await;
    }

    async fn did_change_configuration(&self, params: DidChangeConfigurationParams) {
        let old = self.settings();
        let new = runs::Settings::from_json(&params.settings);
        let reload = old.inventory_path != new.inventory_path;
        self.lock().settings = new;
        if reload {
            self.load_inventory_and_refresh().await;
        }
    }

    async fn execute_command(&self, params: ExecuteCommandParams) -> Result<Option<serde_json::Value>> {
        let args: runs::CommandArgs =
            params.arguments.first().and_then(|a| serde_json::from_value(a.clone()).ok()).unwrap_or_default();
        Ok(self.execute(&params.command, args).await)
    }

    async fn code_lens(&self, params: CodeLensParams) -> Result<Option<Vec<CodeLens>>> {
        let uri = params.text_document.uri;
        let Some((analysis, encoding)) = self.analysis_of(&uri) else { return Ok(None) };
        let summary = self.lock().documents.get(&uri).and_then(|d| d.summary.clone());
        let (Some(manifest), Some(summary)) = (analysis.model.manifest.as_ref().and_then(|m| m.as_dict()), summary)
        else {
            return Ok(None);
        };
        let level = av::selected_level(&summary);
        let span = manifest
            .get("semantic_level")
            .map(|e| e.key.span.clone())
            .or(analysis.model.name_span.clone())
            .unwrap_or(0..0);
        let run = av::runnable_up_to(&summary, level);
        Ok(Some(vec![CodeLens {
            range: convert::range(&analysis.line_index, &analysis.text, &span, encoding),
            command: Some(Command {
                title: format!("▶ Run level {level} on {} ({run} tests)", summary.device),
                command: runs::RUN_LEVEL.into(),
                arguments: Some(vec![serde_json::json!({"uri": uri.as_str(), "level": level})]),
            }),
            data: None,
        }]))
    }

    async fn inlay_hint(&self, params: InlayHintParams) -> Result<Option<Vec<InlayHint>>> {
        if !self.settings().inlay_hints {
            return Ok(None);
        }
        let uri = params.text_document.uri;
        let Some((analysis, encoding)) = self.analysis_of(&uri) else { return Ok(None) };
        let summary = self.lock().documents.get(&uri).and_then(|d| d.summary.clone());
        let (Some(manifest), Some(summary)) = (analysis.model.manifest.as_ref().and_then(|m| m.as_dict()), summary)
        else {
            return Ok(None);
        };
        let cached =
            self.lock().documents.get(&uri).and_then(|d| d.inlay_cache.clone()).filter(|c| c.0 == summary.facts);
        let hints = match cached {
            Some(c) => c.1,
            None => {
                let computed = guarded("inlayHint", || av::entry_counts(self.inventory(), manifest, &summary))
                    .unwrap_or_default();
                if let Some(doc) = self.lock().documents.get_mut(&uri) {
                    doc.inlay_cache = Some((summary.facts.clone(), computed.clone()));
                }
                computed
            }
        };
        let out = hints
            .into_iter()
            .map(|(offset, label)| InlayHint {
                position: convert::position(&analysis.line_index, &analysis.text, offset, encoding),
                label: InlayHintLabel::String(label),
                kind: None,
                text_edits: None,
                tooltip: None,
                padding_left: Some(true),
                padding_right: None,
                data: None,
            })
            .collect();
        Ok(Some(out))
    }

    async fn hover(&self, params: HoverParams) -> Result<Option<Hover>> {
        let uri = params.text_document_position_params.text_document.uri;
        let position = params.text_document_position_params.position;
        let Some((analysis, encoding)) = self.analysis_of(&uri) else { return Ok(None) };
        let summary = self.lock().documents.get(&uri).and_then(|d| d.summary.clone());
        let offset = convert::offset(&analysis.line_index, &analysis.text, position, encoding);
        let result = guarded("hover", || {
            let counts = summary
                .as_deref()
                .map(|summary| torchcts_core::hover::Counts { inventory: self.inventory(), summary });
            torchcts_core::hover::hover(&analysis, offset, counts.as_ref())
        })
        .flatten();
        Ok(result.map(|h| Hover {
            contents: HoverContents::Markup(MarkupContent { kind: MarkupKind::Markdown, value: h.markdown }),
            range: Some(convert::range(&analysis.line_index, &analysis.text, &h.span, encoding)),
        }))
    }

    async fn code_action(&self, params: CodeActionParams) -> Result<Option<CodeActionResponse>> {
        let uri = params.text_document.uri;
        let Some((analysis, encoding)) = self.analysis_of(&uri) else { return Ok(None) };
        let (index, text) = (&analysis.line_index, analysis.text.as_str());
        let start = convert::offset(index, text, params.range.start, encoding);
        let end = convert::offset(index, text, params.range.end, encoding);
        let fixes =
            guarded("codeAction", || torchcts_core::actions::quick_fixes(&analysis, start..end)).unwrap_or_default();
        let actions: Vec<CodeActionOrCommand> = fixes
            .into_iter()
            .map(|fix| {
                let edits: Vec<TextEdit> = fix
                    .edits
                    .iter()
                    .map(|e| TextEdit {
                        range: convert::range(index, text, &e.span, encoding),
                        new_text: e.new_text.clone(),
                    })
                    .collect();
                let diagnostic = convert::diagnostic(&analysis, &analysis.findings[fix.finding], &uri, encoding);
                CodeActionOrCommand::CodeAction(CodeAction {
                    title: fix.title,
                    kind: Some(CodeActionKind::QUICKFIX),
                    diagnostics: Some(vec![diagnostic]),
                    edit: Some(WorkspaceEdit {
                        changes: Some(std::iter::once((uri.clone(), edits)).collect()),
                        ..Default::default()
                    }),
                    is_preferred: Some(fix.preferred),
                    ..Default::default()
                })
            })
            .collect();
        let mut actions = actions;
        actions.extend(self.run_actions(&uri, &analysis, start));
        Ok(Some(actions))
    }

    async fn completion(&self, params: CompletionParams) -> Result<Option<CompletionResponse>> {
        let uri = params.text_document_position.text_document.uri;
        let Some((analysis, encoding)) = self.analysis_of(&uri) else { return Ok(None) };
        let (index, text) = (&analysis.line_index, analysis.text.as_str());
        let offset = convert::offset(index, text, params.text_document_position.position, encoding);
        let items = guarded("completion", || {
            torchcts_core::completion::complete(&analysis, offset, Some(&InventoryOperators(self.inventory())))
        })
        .unwrap_or_default();
        let items: Vec<CompletionItem> = items
            .into_iter()
            .map(|item| CompletionItem {
                label: item.label,
                kind: Some(match item.kind {
                    torchcts_core::completion::ItemKind::Key => CompletionItemKind::PROPERTY,
                    torchcts_core::completion::ItemKind::Value => CompletionItemKind::VALUE,
                    torchcts_core::completion::ItemKind::Dtype => CompletionItemKind::ENUM_MEMBER,
                    torchcts_core::completion::ItemKind::Operator => CompletionItemKind::FUNCTION,
                }),
                detail: item.detail,
                documentation: item
                    .documentation
                    .map(|d| Documentation::MarkupContent(MarkupContent { kind: MarkupKind::Markdown, value: d })),
                sort_text: Some(item.sort),
                filter_text: None,
                text_edit: Some(CompletionTextEdit::Edit(TextEdit {
                    range: convert::range(index, text, &item.replace, encoding),
                    new_text: item.insert_text,
                })),
                ..Default::default()
            })
            .collect();
        Ok(Some(CompletionResponse::Array(items)))
    }

    async fn document_symbol(&self, params: DocumentSymbolParams) -> Result<Option<DocumentSymbolResponse>> {
        let uri = params.text_document.uri;
        let Some((analysis, encoding)) = self.analysis_of(&uri) else { return Ok(None) };
        let symbols = torchcts_core::symbols::document_symbols(&analysis.tree, &analysis.text);
        Ok(Some(DocumentSymbolResponse::Nested(
            symbols.iter().map(|s| convert::symbol(&analysis, s, encoding)).collect(),
        )))
    }

    async fn folding_range(&self, params: FoldingRangeParams) -> Result<Option<Vec<FoldingRange>>> {
        let uri = params.text_document.uri;
        let Some((analysis, _)) = self.analysis_of(&uri) else { return Ok(None) };
        let ranges = torchcts_core::symbols::folding_ranges(&analysis.tree, &analysis.text);
        Ok(Some(
            ranges
                .iter()
                .map(|span| FoldingRange {
                    start_line: analysis.line_index.line_of(span.start) as u32,
                    end_line: analysis.line_index.line_of(span.end.saturating_sub(1)) as u32,
                    kind: Some(FoldingRangeKind::Region),
                    ..Default::default()
                })
                .filter(|r| r.end_line > r.start_line)
                .collect(),
        ))
    }

    async fn did_close(&self, params: DidCloseTextDocumentParams) {
        let uri = params.text_document.uri;
        self.lock().documents.close(&uri);
        let _guard = self.publish_lock.lock().await;
        self.client.publish_diagnostics(uri, Vec::new(), None).await;
    }
}
