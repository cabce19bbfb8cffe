//! The suite's operator names (for completion, hovers and regex hints), found once per
//! inventory on first use: the diagnostics ask on every keystroke.

use crate::inventory::{StrId, Tables};

/// The operator names of the suite, in first-use order, and per canonical string id whether
/// it names one.
pub(crate) struct Operators {
    pub(crate) ids: Box<[StrId]>,
    pub(crate) by_text: Box<[bool]>,
}

impl Operators {
    pub(crate) fn of(tables: &Tables) -> Operators {
        let mut seen = std::collections::HashSet::new();
        let ops = tables.items.iter().filter_map(|it| it.op).chain(tables.forward.iter().map(|f| f.op));
        let ids: Box<[StrId]> = ops.filter(|&op| seen.insert(op)).collect();
        let mut by_text = vec![false; tables.strings.len()].into_boxed_slice();
        for &op in &ids {
            let canonical = tables.canonical_str.get(op as usize).copied().unwrap_or(op);
            if let Some(slot) = by_text.get_mut(canonical as usize) {
                *slot = true;
            }
        }
        Operators { ids, by_text }
    }
}
