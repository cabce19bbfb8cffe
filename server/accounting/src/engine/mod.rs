//! The show-skips engine's own tables and caches, built from an inventory's plain tables
//! (`inventory::Tables`): the compact per-item table and item groups the rule chain
//! walks (`hot.rs`), the reason ids it records (`reasons.rs`), the regex cache
//! (`regex_cache.rs`), and, on first use, the operator names (`operators.rs`) and what the
//! what-if questions need (`dependents.rs`). The algorithms that read them are
//! in `account/` and `what_if.rs`.

pub(crate) mod dependents;
pub(crate) mod hot;
pub(crate) mod operators;
pub(crate) mod reasons;
pub(crate) mod regex_cache;

use std::sync::OnceLock;

use crate::inventory::Tables;
use dependents::Dependents;
use hot::HotTable;
use operators::Operators;
use reasons::ChainReasons;
use regex_cache::RegexCache;

/// The engine's tables and caches for one inventory.
pub(crate) struct Engine {
    /// What the rule chain reads for every item, compact, and the item groups.
    pub(crate) hot: HotTable,
    /// The reason ids the rule chain records.
    pub(crate) reasons: ChainReasons,
    /// Compiled manifest regexes and their per-string results, kept across accountings.
    pub(crate) regex_cache: RegexCache,
    /// The suite's operator names, found on first use.
    operators: OnceLock<Operators>,
    /// Which groups and items read which manifest facts; built on the first what-if
    /// question, so that loading does not pay for it.
    dependents: OnceLock<Dependents>,
}

impl Engine {
    /// Fails only on tables that break the invariants the extraction guarantees (see
    /// [`hot::build`]).
    pub(crate) fn build(tables: &Tables) -> Result<Engine, String> {
        let canonical = |id| tables.canonical_str.get(id as usize).copied().unwrap_or(id);
        let hot = hot::build(hot::BuildInput {
            items: &tables.items,
            ids: &tables.ids,
            placeholders: &tables.placeholders,
            device_classes: tables.devices.len(),
            clean: tables.well_known.clean,
            forward: &tables.forward,
            backward: &tables.backward,
            generated: &tables.generated,
            float_or_complex_by_str: &tables.float_or_complex_by_str,
            canonical: &canonical,
        })?;
        Ok(Engine {
            hot,
            reasons: ChainReasons::of(tables),
            regex_cache: Default::default(),
            operators: OnceLock::new(),
            dependents: OnceLock::new(),
        })
    }

    /// The operator names of `tables` (the tables this engine was built from).
    pub(crate) fn operators(&self, tables: &Tables) -> &Operators {
        self.operators.get_or_init(|| Operators::of(tables))
    }

    /// What the what-if questions read, for `tables` (the tables this engine was built from).
    pub(crate) fn dependents(&self, tables: &Tables) -> &Dependents {
        self.dependents.get_or_init(|| Dependents::of(tables, &self.hot))
    }
}
