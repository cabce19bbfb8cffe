//! Which inventory the counts come from: the embedded one (loaded off the request path
//! after `initialized`) or the file the settings name; and a warning when the user's
//! environment has other torchcts/torch versions (read from its dist-info folders; no
//! Python runs).

use crate::host::Environment;
use crate::server::session::{Change, Session};
use std::path::Path;
use std::time::Duration;
use torchcts_core::accounting_view::Inventory;
use tower_lsp_server::ls_types::MessageType;

/// Applies the inventory setting, then off the request path finds the environment's
/// torch (dist-info, no Python) and loads its embedded inventory, then refreshes open
/// documents with counts and inventory hints.
pub async fn load_and_refresh(session: &Session) {
    apply_inventory_setting(session).await;
    let session = session.clone();
    tokio::spawn(async move {
        let settings = session.settings();
        // One inventory per session: the environment of the first workspace folder.
        let workspace = session.folder_for(None);
        let chosen = crate::server::dispatch::background(&session, "loading the inventory", move |_, _| {
            let environment = Environment::detect(settings.python.as_deref().map(Path::new), workspace.as_deref());
            let choice = environment.inventory_choice();
            release_freed_memory();
            Some((choice, environment))
        })
        .await;
        let Some((choice, environment)) = chosen else { return };
        let line = environment.regex_python().1;
        session.log(crate::server::log::Level::Info, format!("torchcts-lsp: {line}")).await;
        let uris = {
            let mut state = session.lock();
            state.embedded = Some(choice);
            state.environment = Some(std::sync::Arc::new(environment));
            // What CPython found importable was found in the previous one's folders.
            session.cpython.forget_found_modules();
            // Counts cached per document were made from the previous inventory.
            state.documents.forget_summaries();
            state.documents.uris()
        };
        session.set_inventory_ready();
        let custom = session.lock().inventory.is_some();
        if !custom {
            report_inventory(&session, false).await;
        }
        // The counts, hints and lenses change with the inventory.
        session.changed(Change::Counts(uris));
    });
}

/// Lenses and inlay hints asked for while the inventory loads (right after `didOpen`) wait
/// up to this long for the counts, rather than answer nothing.
const COUNTS_WAIT: Duration = Duration::from_secs(3);

/// Waits (at most [`COUNTS_WAIT`]) until the manifest `uri` has its counts, or has been
/// analysed with the inventory loaded and has none (not a manifest dict): what the lenses
/// and inlay hints of a document opened while the inventory loads need.
pub async fn wait_for_counts(session: &Session, uri: &tower_lsp_server::ls_types::Uri) {
    session.read_project_files(uri).await;
    if !session.is_manifest(uri) {
        return;
    }
    let deadline = tokio::time::Instant::now() + COUNTS_WAIT;
    loop {
        let (counted, settled) = {
            let state = session.lock();
            let Some(doc) = state.documents.get(uri) else { return };
            let current = doc.analysis.as_ref().is_some_and(|(version, _)| *version == doc.version);
            (doc.summary.is_some(), current && doc.analysing.is_none())
        };
        if counted || (settled && session.inventory_is_ready()) || tokio::time::Instant::now() >= deadline {
            return;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// Waits (at most [`COUNTS_WAIT`]) for the inventory to load: the first diagnostics of a
/// document opened meanwhile then hold the inventory's findings too.
pub async fn wait_until_loaded(session: &Session) {
    let deadline = tokio::time::Instant::now() + COUNTS_WAIT;
    while !session.inventory_is_ready() && tokio::time::Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// Loads the inventory the settings name (the embedded one on failure, with a warning).
async fn apply_inventory_setting(session: &Session) {
    let settings = session.settings();
    let mut problem = None;
    let loaded: Option<&'static Inventory> = match &settings.inventory_path {
        Some(path) => match crate::server::project_inventory::read_inventory(path) {
            Ok(inv) => Some(Box::leak(Box::new(inv))),
            Err(e) => {
                problem = Some(format!("torchcts: cannot load the inventory {path}: {e}; using the embedded one"));
                None
            }
        },
        None => None,
    };
    session.lock().inventory = loaded;
    if let Some(p) = problem {
        session.client.show_message(MessageType::WARNING, p).await;
    }
    // The embedded inventory is reported by the task that loads it (after initialize);
    // reporting it here would load it on the request path.
    if loaded.is_some() || session.inventory_is_ready() {
        report_inventory(session, loaded.is_some()).await;
    }
}

/// Says which inventory is used, and (once) when it is not for the environment's versions.
async fn report_inventory(session: &Session, custom: bool) {
    let settings = session.settings();
    let inv = session.workspace_inventory();
    let origin = match (&settings.inventory_path, custom) {
        (Some(p), true) => p.clone(),
        _ => "embedded".to_string(),
    };
    let counts = format!(
        "torchcts-lsp counts for {} ({origin}, extracted {})",
        session.workspace_counts_for(),
        inv.meta.extracted_at
    );
    session.log(crate::server::log::Level::Info, counts).await;
    if custom {
        return;
    }
    let note = session.lock().embedded.as_ref().and_then(|c| c.note.clone());
    let repeated = {
        let mut state = session.lock();
        let repeated = state.last_inventory_note == note;
        state.last_inventory_note = note.clone();
        repeated
    };
    if let Some(note) = note.filter(|_| !repeated) {
        let found = session.lock().environment.as_ref().and_then(|e| e.found.torch.clone());
        let versions = session.lock().embedded.as_ref().map(|c| (c.torch.clone(), c.torchcts().to_string()));
        let (torch, torchcts) = versions.unwrap_or_default();
        session.log(crate::server::log::Level::Warn, format!("torchcts-lsp: {note}. {INVENTORY_FIX}")).await;
        session.client.show_message(MessageType::WARNING, inventory_warning(found.as_deref(), &torch, &torchcts)).await;
    }
}

/// What to do when the counts are not for the environment's versions: in the log, beside
/// the note that says why.
const INVENTORY_FIX: &str = "Set torchcts.python.interpreter to the interpreter of your torch environment, or run `torchcts-lsp inventory --python PY` and set torchcts.inventory.path to the file it prints.";

/// The warning shown when the counts (for `torch` and `torchcts`) are not for the
/// environment's versions (its torch: `found`): at most 68 characters, one line of an
/// 80-column Neovim (see the test); why and what to do are in the log.
fn inventory_warning(found: Option<&str>, torch: &str, torchcts: &str) -> String {
    let Some(found) = found.map(accounting::versions::release) else {
        return "torchcts: no torch found; set python.interpreter (see the log)".to_string();
    };
    if found == torch {
        return format!("torchcts: counts for torchcts {torchcts} with torch {torch} (see the log)");
    }
    let mismatch = format!("torchcts: counts for torch {torch}, not your {found} (see the log)");
    if mismatch.chars().count() <= 68 {
        mismatch
    } else {
        format!("torchcts: counts for torch {torch}, not yours (see the log)")
    }
}

/// After loading, the server lives for hours on what it keeps: glibc holds the pages of the
/// temporary indexes freed in this blocking thread's arena, and the embedded archive's pages
/// (1.5 MB, read once per release) stay resident unless handed back.
fn release_freed_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: malloc_trim only returns free heap pages to the OS; it has no preconditions.
    unsafe {
        libc::malloc_trim(0);
    }
    #[cfg(unix)]
    drop_resident_pages(accounting::versions::embedded_archive());
}

/// Drops the resident pages wholly inside `bytes`, a read-only part of the executable: a
/// later read faults them in again from the file, with the same contents.
#[cfg(unix)]
fn drop_resident_pages(bytes: &'static [u8]) {
    // SAFETY: sysconf has no preconditions.
    let page = usize::try_from(unsafe { libc::sysconf(libc::_SC_PAGESIZE) }).unwrap_or(4096).max(1);
    let start = (bytes.as_ptr() as usize).div_ceil(page) * page;
    let end = (bytes.as_ptr() as usize + bytes.len()) / page * page;
    if end > start {
        // SAFETY: [start, end) is page-aligned and inside a read-only, file-backed mapping
        // of the executable; MADV_DONTNEED on such pages only drops them from memory.
        unsafe {
            libc::madvise(start as *mut libc::c_void, end - start, libc::MADV_DONTNEED);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What Neovim can echo on one line of an 80-column screen (`v:echospace`: the columns
    /// less 12 for 'showcmd'); a longer message stops it at a "Press ENTER" prompt.
    const MESSAGE_WIDTH: usize = 68;

    #[test]
    fn the_inventory_warnings_fit_one_line_of_an_80_column_screen() {
        for cts in accounting::versions::embedded_torchcts_releases() {
            for torch in accounting::versions::embedded_torch_releases_of(cts) {
                for found in [None, Some(torch), Some("2.6.0"), Some("2.11.0.dev20250101+cu128")] {
                    let warning = inventory_warning(found, torch, cts);
                    assert!(warning.chars().count() <= MESSAGE_WIDTH, "{} chars: {warning}", warning.chars().count());
                }
            }
        }
    }
}
