//! The engine's cache of compiled manifest regexes, kept across accountings on one inventory,
//! and the matcher step budgets that bound a search (steps, never time).

use std::collections::HashMap;
use std::sync::Mutex;

pub(crate) struct RegexEntry {
    pub compiled: Result<pyregex::Pattern, String>,
    /// Per interned string: 0 unknown, 1 no match, 2 match.
    pub memo: Vec<u8>,
    /// Matcher steps left to this pattern; a pattern that backtracks catastrophically is
    /// given up (treated as matching nothing, with a problem reported) instead of stalling.
    pub steps_left: u64,
    pub gave_up: bool,
}

/// Per `re.search` call and per pattern in total: beyond these the pattern is given up.
pub(crate) const REGEX_STEPS_PER_NAME: u64 = 200_000;
/// Matcher steps one pattern may spend over all the operator names of an accounting (about
/// 250 ms on this machine; steps, not time, so that the answer never depends on the load).
pub const REGEX_STEPS_PER_PATTERN: u64 = 50_000_000;

/// Compiled patterns by their text; an accounting takes the entries it uses out and gives
/// them back when it ends, so accountings on one inventory run side by side.
pub(crate) type RegexCache = Mutex<HashMap<String, RegexEntry>>;
