//! The server's state and the one handle every handler gets: open documents with all
//! their per-document state (`documents.rs`; "vs HEAD" in `review.rs`; a run's results in
//! `runs.rs`), settings, workspace folders, the negotiated position encoding, the inventory
//! and environment in use, the evidence indexes, the run registry, the publish lock and the
//! channel on which features say that something changed ([`Change`]). State only: the
//! session runs no analysis and reads no evidence; the work done with it (analysing and
//! publishing, loading the inventory, runs, requests) is functions of `&Session` outside
//! `session/`, and it depends on no module outside `session/` but the host's types.
//!
//! Locking: `state` is a std mutex held only for short synchronous sections, never across
//! an `.await`; a poisoned lock is taken over (a panic must not take the server down).

pub mod client;
pub mod documents;
pub mod ledgers;
pub mod project;
pub mod review;
pub mod runs;
pub mod settings;
pub mod workspace;

use crate::host::evidence::EvidenceIndexes;
use crate::host::Environment;
pub use client::ClientSupport;
use documents::DocumentStore;
pub use runs::RunResults;
pub use settings::{OnSave, Settings};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use tokio::sync::mpsc::{UnboundedReceiver, UnboundedSender};
use torchcts_core::accounting_view::Inventory;
use torchcts_core::PositionEncoding;
use tower_lsp_server::ls_types::Uri;
use tower_lsp_server::Client;

#[derive(Default)]
pub struct State {
    pub documents: DocumentStore,
    pub encoding: PositionEncoding,
    pub settings: Settings,
    /// Every workspace folder the client named (none: no folder open).
    pub folders: workspace::Folders,
    /// A user-chosen inventory (leaked: loaded once per setting change); the embedded one otherwise.
    pub inventory: Option<&'static Inventory>,
    /// The embedded inventory for the environment's torch, once detected and decoded.
    pub embedded: Option<accounting::InventoryChoice>,
    /// The last note said about the environment's versions (said once, not per reload).
    pub last_inventory_note: Option<String>,
    /// `[tool.torchcts-lsp]` per manifest folder, read once until a pyproject.toml changes.
    pub project_configs: project::ProjectConfigs,
    /// The Python environment found for the workspace (after the inventory loaded): its
    /// site-packages (where a real run's torchcts lives), the Python whose `re` answers, the
    /// modules it imports (listed once per environment).
    pub environment: Option<Arc<Environment>>,
    /// The environments of projects whose `[tool.torchcts-lsp]` names a `python`, per
    /// interpreter (forgotten when a pyproject.toml changes).
    pub project_environments: std::collections::HashMap<PathBuf, Arc<Environment>>,
    /// The inventories project configurations choose (`inventory`, `torch`, `torchcts`, or
    /// the torch of their `python`), loaded once per choice (`Err`: why it cannot load; the
    /// workspace's inventory is used).
    pub project_inventories:
        std::collections::HashMap<project::ProjectInventory, Result<accounting::InventoryChoice, String>>,
    /// The project known-segfault ledgers, read once until one changes.
    pub ledgers: ledgers::ProjectLedgers,
    /// What the client declared it understands (read once at `initialize`): every response
    /// and request is shaped from it.
    pub client_support: Arc<client::ClientSupport>,
}

/// Cheap to clone into tasks (a finished run republishes, the inventory loader refreshes).
#[derive(Clone)]
pub struct Session {
    pub client: Client,
    state: Arc<Mutex<State>>,
    /// Serialises publishing so that an older analysis never lands after a newer one.
    publish_lock: Arc<tokio::sync::Mutex<()>>,
    /// At most one test run per manifest.
    pub runs: Arc<runner::RunRegistry>,
    /// Set once the embedded inventory is decoded. Until then diagnostics are published
    /// without the inventory's hints, so the first diagnostics do not wait for it.
    inventory_ready: Arc<AtomicBool>,
    /// Evidence indexes of earlier runs, per manifest folder and device (outside `state`:
    /// reading them is file IO, never under the session's lock).
    pub evidence: Arc<EvidenceIndexes>,
    /// Where features say that something changed; the refresh loop (`server/refresh.rs`)
    /// analyses and publishes again.
    changes: UnboundedSender<Change>,
    /// The CPython workers that judge syntax errors (`server/cpython.rs`), one per
    /// interpreter, outside `state` (asking one blocks).
    pub cpython: Arc<crate::host::cpython::Workers>,
    /// Said once: syntax errors are the emulation's (no CPython may be asked), or a CPython
    /// worker failed.
    pub cpython_said: Arc<AtomicBool>,
}

/// Something changed that the published diagnostics, lenses or evidence depend on: the
/// one way a feature asks for a refresh (features never publish).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Change {
    /// What these documents' findings come from changed (a run's results, the inventory):
    /// analyse and publish them again.
    Findings(Vec<Uri>),
    /// These documents were opened or saved: their evidence again (result folders, git
    /// blame: too much for every keystroke).
    Evidence(Vec<Uri>),
    /// Result files changed (a run landed): these documents' evidence again, and the
    /// client asked to fetch the code lenses again.
    Results(Vec<Uri>),
    /// What the counts of these documents come from changed (the inventory loaded, a
    /// project configuration or ledger, the settings): analyse and publish them again, then
    /// ask the client to fetch code lenses and inlay hints again.
    Counts(Vec<Uri>),
}

/// Set once the request that started some work is cancelled (`$/cancelRequest`, which
/// drops the request's future) or its document's text changed: parsing stops at once, the
/// core at its next checkpoint.
pub use torchcts_core::Cancel;

impl Session {
    /// A session, and the receiving end of its [`Change`]s for the refresh loop.
    pub fn new(client: Client) -> (Session, UnboundedReceiver<Change>) {
        let (changes, receiver) = tokio::sync::mpsc::unbounded_channel();
        let session = Session {
            client,
            state: Arc::new(Mutex::new(State::default())),
            publish_lock: Arc::new(tokio::sync::Mutex::new(())),
            runs: Arc::new(runner::RunRegistry::new()),
            inventory_ready: Arc::new(AtomicBool::new(false)),
            evidence: Arc::default(),
            changes,
            cpython: Arc::default(),
            cpython_said: Arc::default(),
        };
        (session, receiver)
    }

    /// Says that something changed; the refresh loop does the work (never the caller).
    pub fn changed(&self, change: Change) {
        // Err only once the loop is gone: the server is shutting down.
        let _ = self.changes.send(change);
    }

    pub fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// What the client declared it understands.
    pub fn client_support(&self) -> Arc<client::ClientSupport> {
        self.lock().client_support.clone()
    }

    pub fn settings(&self) -> Settings {
        self.lock().settings.clone()
    }

    /// Reads what `uri`'s project gives that is not kept yet (its `pyproject.toml`
    /// configuration, its known-segfault ledger) on the blocking pool and outside the
    /// session's lock, so that what asks for them next ([`Session::is_manifest`],
    /// [`Session::settings_for`], [`Session::facts_for`], [`Session::project_ledger`]) finds
    /// them kept: the async handlers call it first and read no file on the request loop
    /// (issue 35). Work already on the pool may ask without it (it reads there on a miss).
    pub async fn read_project_files(&self, uri: &Uri) {
        let Some(path) = uri.to_file_path().map(|p| p.to_path_buf()) else { return };
        let ledger = crate::host::project_ledger::file_for(&path);
        // The ledger is kept per torchcts release, which the project's configuration may pin:
        // the configuration first, then the release it gives.
        let kept = {
            let config_kept = self.lock().project_configs.is_kept(&path);
            config_kept && {
                let (torchcts, _) = self.counted_versions(uri);
                self.lock().ledgers.is_kept(&ledger, &torchcts)
            }
        };
        if kept {
            return;
        }
        let session = self.clone();
        let uri = uri.clone();
        crate::server::pool::run("project files", Cancel::default(), move |_| {
            if !session.lock().project_configs.is_kept(&path) {
                let read = crate::host::project_config::load_for(&path);
                session.lock().project_configs.keep(&path, read);
            }
            let (torchcts, _) = session.counted_versions(&uri);
            if !session.lock().ledgers.is_kept(&ledger, &torchcts) {
                let read = ledgers::ProjectLedgers::read(&ledger, &torchcts);
                session.lock().ledgers.keep(&ledger, &torchcts, read);
            }
            Some(())
        })
        .await;
    }

    /// Whether `uri` is a manifest (`manifest.py`, a `manifests` glob, or no file path):
    /// the server is silent on any other document an editor sends.
    pub fn is_manifest(&self, uri: &Uri) -> bool {
        let path = uri.to_file_path();
        let mut state = self.lock();
        if workspace::is_manifest(path.as_deref(), &state.settings.manifests, &state.folders) {
            return true;
        }
        // The project's own `manifests` globs (pyproject.toml), beside the editor's.
        let Some(path) = path else { return false };
        state.project_configs.for_path(&path).is_some_and(|c| c.matches_manifest_glob(&path))
    }

    /// The settings for the document `uri`: the editor's, with the project configuration
    /// (`[tool.torchcts-lsp]` `device`, `python`, `on-save`) filling what the editor leaves unset.
    pub fn settings_for(&self, uri: &Uri) -> Settings {
        let mut state = self.lock();
        let mut settings = state.settings.clone();
        let Some(path) = uri.to_file_path() else { return settings };
        if let Some(config) = state.project_configs.for_path(&path) {
            if settings.device.is_none() {
                settings.device = config.device.as_ref().map(|d| d.value.clone());
            }
            if settings.python.is_none() {
                settings.python = config.python.as_ref().map(|p| p.value.to_string_lossy().into_owned());
            }
            // The editor's `onSave`, when it says one, wins (an untrusted VS Code workspace
            // sends `off`, so a repository cannot turn runs on by itself there).
            if let (false, Some(on_save)) = (settings.on_save_set, &config.on_save) {
                settings.on_save = settings::OnSave::parse(&on_save.value);
            }
        }
        settings
    }

    /// The manifest facts of `uri` as the server counts and runs them: a manifest without
    /// `semantic_level` takes the project's `level` (`[tool.torchcts-lsp]`), as the CLI does,
    /// else the editor's `defaultLevel` (3 unless set). The project's wins over the
    /// editor's: both are the level for a manifest that names none, and the project's is
    /// what the team's CLI and CI count. Lenses, the status, on-save and run actions all
    /// take their level from these facts.
    pub fn facts_for(&self, uri: &Uri, manifest: &torchcts_core::value::Dict) -> accounting::ManifestFacts {
        let mut facts = torchcts_core::accounting_view::facts(manifest);
        if facts.semantic_level.is_none() {
            let mut state = self.lock();
            let project = uri
                .to_file_path()
                .and_then(|path| state.project_configs.for_path(&path).and_then(|c| c.level.as_ref()).map(|l| l.value));
            let level = project.unwrap_or(state.settings.default_level);
            facts.semantic_level = Some(accounting::PyValue::Int(i64::from(level)));
        }
        facts
    }

    /// The project's known-segfault ledger beside the manifest `uri`, for the counted
    /// torchcts and torch: `Err` when torchcts would refuse it.
    pub fn project_ledger(&self, uri: &Uri) -> ledgers::LedgerRead {
        let Some(path) = uri.to_file_path() else { return Ok(Vec::new()) };
        let (torchcts, _) = self.counted_versions(uri);
        let file = crate::host::project_ledger::file_for(&path);
        self.lock().ledgers.get(&file, &torchcts)
    }

    /// What an accounting of `uri` counts with of its project ledger (none when refused:
    /// the run stops before counting).
    pub fn project_ledger_facts(&self, uri: &Uri) -> accounting::ledger::ProjectLedger {
        let (_, torch) = self.counted_versions(uri);
        accounting::ledger::ProjectLedger {
            entries: self.project_ledger(uri).unwrap_or_default(),
            torch,
            host: crate::host::project_ledger::host_facts(),
        }
    }

    /// The workspace folder holding `path`, else the first one.
    pub fn folder_for(&self, path: Option<&std::path::Path>) -> Option<PathBuf> {
        self.lock().folders.folder_for(path)
    }

    /// A line in the server's log (the client's and the log file), if `level` is enabled.
    pub async fn log(&self, level: crate::server::log::Level, message: impl Into<String>) {
        if !crate::server::log::enabled(level) {
            return;
        }
        let message = message.into();
        crate::server::log::to_file(level, &message);
        self.client.log_message(level.message_type(), message).await;
    }

    /// The inventory the workspace counts with (the editor's `inventoryPath`, else the
    /// embedded one for the environment's torch), decoding the embedded one if needed.
    pub fn workspace_inventory(&self) -> &'static Inventory {
        let state = self.lock();
        state.inventory.or(state.embedded.as_ref().map(|c| c.inventory)).unwrap_or_else(Inventory::embedded)
    }

    /// What the project configuration of `uri` chooses for its counts, where the editor
    /// does not (`inventoryPath`, and `python` for the project's `python`).
    pub fn project_inventory_choice(&self, uri: &Uri) -> Option<project::ProjectInventory> {
        let path = uri.to_file_path()?;
        let mut state = self.lock();
        if state.settings.inventory_path.is_some() {
            return None;
        }
        let editor_python = state.settings.python.is_some();
        project::ProjectInventory::of(state.project_configs.for_path(&path)?, editor_python)
    }

    /// The project's inventory for `uri`, once loaded (`crate::server::inventory::load_for_project`).
    fn project_choice(&self, uri: &Uri) -> Option<accounting::InventoryChoice> {
        let choice = self.project_inventory_choice(uri)?;
        self.lock().project_inventories.get(&choice)?.as_ref().ok().cloned()
    }

    /// The inventory `uri` is counted with: its project's choice, else the workspace's.
    pub fn inventory(&self, uri: &Uri) -> &'static Inventory {
        match self.project_choice(uri) {
            Some(choice) => choice.inventory,
            None => self.workspace_inventory(),
        }
    }

    /// How a real run of this manifest (in its folder, with the environment's torchcts)
    /// names tests: decides the known-segfault ledger and node ids quoted in details. With
    /// no torchcts environment, the common layout (`RunLayout::default`: the ledger applies).
    pub fn run_layout(&self, uri: &Uri) -> accounting::RunLayout {
        let site = self.lock().environment.as_ref().and_then(|e| e.layout_site_packages());
        let folder = uri.to_file_path().and_then(|p| p.parent().map(|f| f.to_path_buf()));
        match (site, folder) {
            (Some(site), Some(folder)) => accounting::RunLayout::for_paths(&folder, &site.join("torchcts")),
            _ => accounting::RunLayout::default(),
        }
    }

    /// (torchcts, torch) the counts of `uri` are for, as [`Self::counts_for`] names them.
    pub fn counted_versions(&self, uri: &Uri) -> (String, String) {
        if let Some(choice) = self.project_choice(uri) {
            return (choice.inventory.meta.torchcts_version.clone(), choice.torch);
        }
        self.workspace_counted_versions()
    }

    /// (torchcts, torch) the workspace's inventory is for.
    pub fn workspace_counted_versions(&self) -> (String, String) {
        let state = self.lock();
        match (state.inventory, &state.embedded) {
            (Some(custom), _) => (custom.meta.torchcts_version.clone(), custom.meta.torch_version.clone()),
            (None, Some(choice)) => (choice.inventory.meta.torchcts_version.clone(), choice.torch.clone()),
            (None, None) => {
                (accounting::versions::EMBEDDED_TORCHCTS.to_string(), accounting::newest_torch_release().to_string())
            }
        }
    }

    /// "torchcts 0.4.1 with torch 2.9.1": what the counts of `uri` are for.
    pub fn counts_for(&self, uri: &Uri) -> String {
        let (torchcts, torch) = self.counted_versions(uri);
        format!("torchcts {torchcts} with torch {torch}")
    }

    /// What the workspace's inventory is for ("torchcts 0.4.1 with torch 2.9.1").
    pub fn workspace_counts_for(&self) -> String {
        let (torchcts, torch) = self.workspace_counted_versions();
        format!("torchcts {torchcts} with torch {torch}")
    }

    /// The inventory of `uri` if it is already loaded (never waits for the embedded one).
    pub fn inventory_if_ready(&self, uri: &Uri) -> Option<&'static Inventory> {
        if let Some(choice) = self.project_choice(uri) {
            return Some(choice.inventory);
        }
        let state = self.lock();
        let embedded = state.embedded.as_ref().map(|c| c.inventory);
        state.inventory.or_else(|| self.inventory_ready.load(Ordering::Acquire).then_some(embedded).flatten())
    }

    /// The "vs HEAD" state of `uri` (`None` when it is not open).
    pub fn committed(&self, uri: &Uri) -> Option<review::CommittedSlot> {
        self.lock().documents.get(uri).map(|d| d.committed.clone())
    }

    /// Whether the embedded inventory is decoded (diagnostics wait for nothing before).
    pub fn inventory_is_ready(&self) -> bool {
        self.inventory_ready.load(Ordering::Acquire)
    }

    /// The embedded inventory is decoded and in `State::embedded`.
    pub fn set_inventory_ready(&self) {
        self.inventory_ready.store(true, Ordering::Release);
    }

    /// Held while publishing, so that an older analysis never lands after a newer one.
    pub async fn publish_lock(&self) -> tokio::sync::MutexGuard<'_, ()> {
        self.publish_lock.lock().await
    }

    /// Clears the diagnostics of a closed document (under the publish lock, so an analysis
    /// finishing late cannot publish after it).
    pub async fn clear_diagnostics(&self, uri: Uri) {
        let _guard = self.publish_lock.lock().await;
        self.client.publish_diagnostics(uri, Vec::new(), None).await;
    }
}
