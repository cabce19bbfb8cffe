//! One Python environment as the host reads it, never running it: the interpreter found
//! (`runner::find_python`: an explicit `python`, `$VIRTUAL_ENV`, a `.venv` in the folder,
//! `python3`), its torch and torchcts versions (dist-info), the Python whose `re` answers for
//! regexes, the inventory its versions choose, and the modules its own folders hold (listed
//! on first use and kept; the server lists them again when a folder's modification time
//! changes, `server/listing.rs`; the manifest's folder is listed per question, see
//! [`importable`](super::importable)).

use super::importable::{self, Listing};
use super::torch_env;
use runner::environment::PythonEnvironment;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use torchcts_core::eval::modules::ImportableModules;
use torchcts_core::regex_check::PythonVersion;

#[derive(Debug)]
pub struct Environment {
    pub found: PythonEnvironment,
    /// The modules of the environment's own `sys.path` folders, listed on first use (under
    /// the lock: one listing however many ask at once), replaced by [`Environment::list_again`].
    listing: Mutex<Option<Arc<Listing>>>,
    /// A new listing is being made ([`Environment::claim_lapsed_listing`]).
    relisting: AtomicBool,
}

/// The same environment, with the listing kept so far (the CLI's options are cloned).
impl Clone for Environment {
    fn clone(&self) -> Environment {
        let listing = self.listing.lock().unwrap_or_else(|p| p.into_inner()).clone();
        Environment { found: self.found.clone(), listing: Mutex::new(listing), relisting: AtomicBool::new(false) }
    }
}

impl Environment {
    /// The environment of `python` (an explicit interpreter: the `python` setting or project
    /// key), else the one found for `folder`.
    pub fn detect(python: Option<&Path>, folder: Option<&Path>) -> Environment {
        Environment::of(torch_env::detect(python, folder))
    }

    pub fn of(found: PythonEnvironment) -> Environment {
        Environment { found, listing: Mutex::default(), relisting: AtomicBool::new(false) }
    }

    /// The Python whose `re` answers for regexes, and the line outputs give about it.
    pub fn regex_python(&self) -> (PythonVersion, String) {
        torch_env::regex_python(&self.found)
    }

    /// The modules this environment's Python imports for a manifest in `manifest_folder`;
    /// `None` where that list cannot be complete.
    pub fn importable(&self, manifest_folder: &Path) -> Option<ImportableModules> {
        let listing = {
            let mut kept = self.listing.lock().unwrap_or_else(|p| p.into_inner());
            kept.get_or_insert_with(|| Arc::new(Listing::of(&self.found))).clone()
        };
        importable::with_manifest_folder(listing.modules.as_ref()?, manifest_folder)
    }

    /// Whether the kept listing lapsed (a folder of it changed: one `stat` each) and no new
    /// one is being made; `true` claims the new one for the caller, who makes it with
    /// [`Environment::list_again`] (off the request loop: a `read_dir` per folder). Before
    /// the first listing, `false`: the first use lists.
    pub fn claim_lapsed_listing(&self) -> bool {
        let kept = self.listing.lock().unwrap_or_else(|p| p.into_inner()).clone();
        let lapsed = kept.is_some_and(|listing| !listing.is_current());
        lapsed && !self.relisting.swap(true, Ordering::AcqRel)
    }

    /// Lists the environment's folders again and keeps the new listing; `true` when its
    /// modules differ from the previous one's.
    pub fn list_again(&self) -> bool {
        /// Ends the claim however the listing ends (a panic included).
        struct Claim<'a>(&'a AtomicBool);
        impl Drop for Claim<'_> {
            fn drop(&mut self) {
                self.0.store(false, Ordering::Release);
            }
        }
        let _claim = Claim(&self.relisting);
        let fresh = Arc::new(Listing::of(&self.found));
        let mut kept = self.listing.lock().unwrap_or_else(|p| p.into_inner());
        let changed = kept.as_ref().is_none_or(|old| old.modules != fresh.modules);
        *kept = Some(fresh);
        changed
    }

    /// The embedded inventory for the environment's torch and torchcts, with its note.
    pub fn inventory_choice(&self) -> accounting::InventoryChoice {
        torch_env::inventory_choice(&self.found)
    }

    /// The site-packages whose torchcts decides where a run roots node ids.
    pub fn layout_site_packages(&self) -> Option<PathBuf> {
        torch_env::layout_site_packages(&self.found)
    }

    /// The environment's torch release, as its dist-info says.
    pub fn torch(&self) -> Option<&str> {
        self.found.torch.as_deref()
    }
}
