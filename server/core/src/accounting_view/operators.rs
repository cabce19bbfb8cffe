//! Questions about the suite's operator names: which a regex lets in, the nearest names
//! to one that is none, memoised per (inventory, text) in bounded process-wide caches
//! because diagnostics ask them on every keystroke.

use crate::edit_distance::{levenshtein, nearest};
use accounting::Inventory;

/// Operators of the suite that `re.search(pattern, name)` matches, and the others.
pub fn regex_split<'i>(
    inventory: &'i Inventory,
    pattern: &str,
    python: pyregex::PythonVersion,
) -> Option<(Vec<&'i str>, Vec<&'i str>)> {
    let (compiled, _) = pyregex::compile_as(pattern, python).ok()?;
    let mut matched = Vec::new();
    let mut unmatched = Vec::new();
    // A catastrophically backtracking pattern gives no answer rather than a stall; the bound
    // is in matcher steps, so the answer does not depend on how busy the machine is.
    let mut budget = accounting::REGEX_STEPS_PER_PATTERN;
    for name in inventory.operator_names() {
        let mut steps = budget.min(200_000);
        let before = steps;
        let outcome = compiled.search_within(name, &mut steps);
        budget -= before - steps;
        match outcome {
            Some(true) => matched.push(name),
            Some(false) => unmatched.push(name),
            None => return None,
        }
    }
    Some((matched, unmatched))
}

/// A bounded memo per (inventory, text) for questions diagnostics ask on every keystroke
/// whose answer needs a pass over the ~3,000 operator names.
fn memo<T: Clone + Send + 'static>(
    cache: &'static Memo<T>,
    inventory: &Inventory,
    text: &str,
    compute: impl FnOnce() -> T,
) -> T {
    let key = (inventory as *const Inventory as usize, text.to_string());
    let cache = cache.get_or_init(Default::default);
    if let Some(hit) = cache.lock().unwrap_or_else(|p| p.into_inner()).get(&key) {
        return hit.clone();
    }
    let value = compute();
    let mut guard = cache.lock().unwrap_or_else(|p| p.into_inner());
    if guard.len() > 1024 {
        guard.clear(); // bounded: text typed character by character piles up
    }
    guard.insert(key, value.clone());
    value
}

type Memo<T> = std::sync::OnceLock<std::sync::Mutex<std::collections::HashMap<(usize, String), T>>>;

/// How many operators `pattern` lets in (`None`: invalid or too expensive), memoised.
pub fn matched_count(inventory: &Inventory, pattern: &str, python: pyregex::PythonVersion) -> Option<usize> {
    static CACHE: Memo<Option<usize>> = Memo::new();
    let key = format!("{python}\0{pattern}");
    memo(&CACHE, inventory, &key, || regex_split(inventory, pattern, python).map(|(matched, _)| matched.len()))
}

/// Operator names nearest to `name` (for unknown `skip_ops` entries), memoised.
pub(super) fn nearest_operators(inventory: &Inventory, name: &str) -> Vec<String> {
    static CACHE: Memo<Vec<String>> = Memo::new();
    memo(&CACHE, inventory, name, || nearest(name, &inventory.operator_names(), 3))
}

/// Unmatched names closest to the matched ones (sharing a prefix), for "nearby" lists.
pub fn nearby_unmatched<'i>(matched: &[&str], unmatched: &[&'i str], limit: usize) -> Vec<&'i str> {
    let mut scored: Vec<(usize, &str)> = unmatched
        .iter()
        .map(|u| {
            let best = matched.iter().map(|m| levenshtein(m, u)).min().unwrap_or(usize::MAX);
            (best, *u)
        })
        .collect();
    scored.sort();
    scored.into_iter().take(limit).map(|(_, u)| u).collect()
}
