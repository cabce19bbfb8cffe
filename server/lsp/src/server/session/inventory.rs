//! Which inventory the counts come from: the embedded one (decoded off the request path
//! after `initialized`) or the file the settings name; and a warning when the user's
//! environment has other torchcts/torch versions (read from its dist-info folders; no
//! Python runs).

use super::Session;
use std::sync::atomic::Ordering;
use torchcts_core::accounting_view::Inventory;
use tower_lsp_server::ls_types::MessageType;

impl Session {
    /// Applies the inventory setting, decodes the embedded inventory off the request path,
    /// then refreshes open documents with counts and inventory hints.
    pub async fn load_inventory_and_refresh(&self) {
        self.apply_inventory_setting().await;
        let session = self.clone();
        tokio::spawn(async move {
            let _ = tokio::task::spawn_blocking(Inventory::embedded).await;
            session.inventory_ready.store(true, Ordering::Release);
            let custom = session.lock().inventory.is_some();
            if !custom {
                session.report_inventory(false).await;
            }
            let uris = session.lock().documents.uris();
            for uri in uris {
                session.refresh(uri).await;
            }
        });
    }

    /// Loads the inventory the settings name (the embedded one on failure, with a warning).
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
        if loaded.is_some() || self.inventory_ready.load(Ordering::Acquire) {
            self.report_inventory(loaded.is_some()).await;
        }
    }

    /// Says which inventory is used, and warns when the user's environment has other
    /// torchcts/torch versions.
    async fn report_inventory(&self, custom: bool) {
        let settings = self.settings();
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
        if let Some((torchcts, torch)) = runner::environment::installed_versions(&python) {
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
}
