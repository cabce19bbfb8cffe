//! [`Inventory`], what callers hold: one release's plain tables (`crate::inventory`) and the
//! engine's tables and caches built on them (`crate::engine`). It reads as its tables
//! (`Deref`), so `inventory.meta`, `inventory.item_count()` and the engine's `inv.items` read
//! the tables, and `inv.engine` names what the engine derived.

use std::collections::HashMap;
use std::ops::Deref;
use std::sync::{Mutex, OnceLock};

use crate::engine::dependents::Dependents;
use crate::engine::operators::Operators;
use crate::engine::regex_cache::REGEX_STEPS_PER_NAME;
use crate::engine::Engine;
use crate::inventory::{catalogue, load, Tables};

/// A loaded, indexed inventory with the engine built on it.
pub struct Inventory {
    tables: Tables,
    pub(crate) engine: Engine,
}

impl Deref for Inventory {
    type Target = Tables;

    fn deref(&self) -> &Tables {
        &self.tables
    }
}

impl Inventory {
    fn new(tables: Tables) -> Result<Inventory, String> {
        let engine = Engine::build(&tables)?;
        Ok(Inventory { tables, engine })
    }

    /// The embedded inventory of the newest torch release of the default torchcts,
    /// decompressed and indexed on first use (other releases: [`Inventory::for_torch`]).
    pub fn embedded() -> &'static Inventory {
        Inventory::for_torch(catalogue::newest_torch_release()).expect("the base release is embedded")
    }

    /// The embedded inventory of the default torchcts (`versions::EMBEDDED_TORCHCTS`) for a
    /// torch release (`2.9.1`, local suffixes like `+cu128` ignored), decoded on first use;
    /// `None` for a release without one.
    pub fn for_torch(version: &str) -> Option<&'static Inventory> {
        Inventory::for_release(catalogue::EMBEDDED_TORCHCTS, version)
    }

    /// The embedded inventory of torchcts `torchcts` (`0.4.0`) with torch `version`, decoded
    /// on first use; `None` when that pair has none.
    pub fn for_release(torchcts: &str, version: &str) -> Option<&'static Inventory> {
        let wanted = catalogue::embedded_release(torchcts, version)?;
        static LOADED: OnceLock<Mutex<HashMap<&'static str, &'static Inventory>>> = OnceLock::new();
        let loaded = LOADED.get_or_init(Default::default);
        if let Some(inv) = loaded.lock().unwrap_or_else(|e| e.into_inner()).get(wanted.name) {
            return Some(inv);
        }
        // Loaded outside the lock: two first uses may both load, one result is kept.
        let inventory = load::load(wanted).and_then(Inventory::new).expect("the build writes loadable releases");
        let leaked: &'static Inventory = Box::leak(Box::new(inventory));
        let mut map = loaded.lock().unwrap_or_else(|e| e.into_inner());
        Some(*map.entry(wanted.name).or_insert(leaked))
    }

    /// Load an inventory file's bytes as the extraction writes it (`.json`, or gzip-compressed
    /// `.json.gz`): packed as the build packs the embedded releases, then loaded like them.
    /// The caller reads the file: the crate does no IO.
    pub fn from_bytes(bytes: &[u8]) -> Result<Inventory, String> {
        Inventory::new(load::from_extraction(bytes)?)
    }

    /// Distinct operator names the suite uses (OpInfo ops, dispatcher surfaces,
    /// generated entries), for completion and regex hints.
    pub fn operator_names(&self) -> Vec<&str> {
        self.operators().ids.iter().map(|&op| self.string(op)).collect()
    }

    /// How many names [`Inventory::operator_names`] gives.
    pub fn operator_count(&self) -> usize {
        self.operators().ids.len()
    }

    /// Whether `name` is one of [`Inventory::operator_names`].
    pub fn is_operator(&self, name: &str) -> bool {
        // `lookup` gives the canonical id of a text.
        self.lookup(name).is_some_and(|s| self.operators().by_text.get(s as usize) == Some(&true))
    }

    fn operators(&self) -> &Operators {
        self.engine.operators(&self.tables)
    }

    /// What the what-if questions read (built on the first one).
    pub(crate) fn dependents(&self) -> &Dependents {
        self.engine.dependents(&self.tables)
    }

    /// Operator names of the suite that `re.search(pattern, name)` matches
    /// (for hovers and "regex matches no operator" hints). `Err` carries
    /// Python's `re.error` text.
    pub fn regex_matches(&self, pattern: &str) -> Result<Vec<&str>, String> {
        let (compiled, _) = pyregex::compile(pattern).map_err(|(e, _)| e.python_text(pattern))?;
        Ok(self
            .operator_names()
            .into_iter()
            .filter(|name| compiled.search_bounded(name, REGEX_STEPS_PER_NAME).unwrap_or(false))
            .collect())
    }
}
