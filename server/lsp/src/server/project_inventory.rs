//! The inventory a project configuration chooses for its manifests' counts (`inventory`,
//! `torch`, `torchcts`, or its `python`'s torch: `session::project::ProjectInventory`),
//! loaded once per choice on the pool, as the CLI takes it; `Session::inventory(uri)` then
//! counts the document with it. Apart from `server/inventory.rs` (the workspace's inventory),
//! which the analysis must not depend on.

use crate::host::Environment;
use crate::server::pool::OnPool;
use crate::server::session::project::ProjectInventory;
use crate::server::session::Session;
use torchcts_core::accounting_view::Inventory;
use tower_lsp_server::ls_types::Uri;

/// Loads the inventory the project configuration of `uri` chooses, once per choice (file
/// IO and decoding: on the pool); the session then counts `uri` with it. A choice that
/// cannot load is logged once and the workspace's inventory is used (`config` and the CLI
/// commands say why, naming the line).
pub fn load_for_project(session: &Session, uri: &Uri, environment: Option<&Environment>, _: &OnPool) {
    let Some(choice) = session.project_inventory_choice(uri) else { return };
    if session.lock().project_inventories.contains_key(&choice) {
        return;
    }
    let found = environment.map(|e| &e.found);
    let loaded = match &choice {
        ProjectInventory::File(path) => read_inventory(&path.to_string_lossy()).map(|inventory| {
            let inventory: &'static Inventory = Box::leak(Box::new(inventory));
            accounting::InventoryChoice { inventory, torch: inventory.meta.torch_version.clone(), note: None }
        }),
        ProjectInventory::Embedded { torch: Some(torch), torchcts } => {
            crate::host::torch_env::inventory_for_torch_option(torchcts.as_deref(), torch)
        }
        ProjectInventory::Embedded { torch: None, torchcts } => Ok(match found {
            Some(found) => {
                crate::host::torch_env::inventory_for_torchcts_option(torchcts.as_deref().unwrap_or_default(), found)
            }
            None => accounting::choose_for_environment(None, torchcts.as_deref()),
        }),
        ProjectInventory::Python(_) => Ok(match environment {
            Some(environment) => environment.inventory_choice(),
            None => accounting::choose_for_environment(None, None),
        }),
    };
    if let Err(e) = &loaded {
        crate::server::log::stderr(&format!(
            "torchcts-lsp: the project's inventory for {} cannot load: {e}; counting with the workspace's",
            uri.as_str()
        ));
    }
    session.lock().project_inventories.insert(choice, loaded);
}

/// An inventory file (the settings' or a project's), read here: the accounting crate does no IO.
pub fn read_inventory(path: &str) -> Result<Inventory, String> {
    let bytes = std::fs::read(path).map_err(|e| format!("{path}: {e}"))?;
    Inventory::from_bytes(&bytes)
}
