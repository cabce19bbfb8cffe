//! `re.search` of manifest patterns on operator names, memoised in the engine's regex cache
//! and bounded by matcher steps (never by time).

use super::context::Ctx;
use super::result::AccountingProblem;
use crate::engine::regex_cache::RegexEntry;
use crate::inventory::StrId;

impl Ctx<'_, '_> {
    pub(super) fn pattern_id(&mut self, p: &str) -> u32 {
        if let Some(&i) = self.pattern_index.get(p) {
            return i;
        }
        let i = self.patterns.len() as u32;
        self.patterns.push(p.to_string());
        self.pattern_index.insert(p.to_string(), i);
        i
    }

    /// `re.search(pattern, text)`, memoised per (pattern, interned string)
    /// across calls in the inventory's cache.
    #[inline]
    pub(super) fn search(&mut self, pattern: u32, text: StrId) -> bool {
        if let Some(Some((_, entry))) = self.entries.get(pattern as usize) {
            if !entry.gave_up && entry.compiled.is_ok() {
                match entry.memo[text as usize] {
                    0 => {}
                    slot => return slot == 2,
                }
            }
        }
        self.search_uncached(pattern, text)
    }

    pub(super) fn search_uncached(&mut self, pattern: u32, text: StrId) -> bool {
        let pi = pattern as usize;
        if self.entries.len() <= pi {
            self.entries.resize_with(pi + 1, || None);
        }
        if self.entries[pi].is_none() {
            let pattern = self.patterns[pi].clone();
            // compiled per Python: its `re` decides what compiles and what matches
            let key = format!("{}\0{pattern}", self.facts.python);
            let cached = self.inv.engine.regex_cache.lock().unwrap_or_else(|e| e.into_inner()).remove(&key);
            let entry = match cached {
                Some(e) => e,
                None => {
                    let compiled = pyregex::compile_as(&pattern, self.facts.python)
                        .map(|(p, _)| p)
                        .map_err(|(e, _)| e.python_text(&pattern));
                    RegexEntry {
                        compiled,
                        memo: vec![0; self.inv.strings.len()],
                        steps_left: crate::engine::regex_cache::REGEX_STEPS_PER_PATTERN,
                        gave_up: false,
                    }
                }
            };
            if let Err(msg) = &entry.compiled {
                self.problems.push(AccountingProblem {
                    message: format!("re.error for {pattern:?}: {msg} (the real collection stops with this error)"),
                });
            }
            self.entries[pi] = Some((key, entry));
        }
        let (_, entry) = self.entries[pi].as_mut().expect("filled above");
        let key = &self.patterns[pi];
        if entry.gave_up {
            return false;
        }
        match &entry.compiled {
            Err(_) => false,
            Ok(p) => {
                let slot = &mut entry.memo[text as usize];
                if *slot == 0 {
                    let mut steps = entry.steps_left.min(crate::engine::regex_cache::REGEX_STEPS_PER_NAME);
                    let before = steps;
                    let outcome = p.search_within(&self.inv.strings[text as usize], &mut steps);
                    entry.steps_left -= before - steps;
                    if outcome.is_none() {
                        entry.gave_up = true;
                        let message = format!(
                            "the regex {key:?} backtracks too much to evaluate on operator names (Python's re.search would take very long too); counted as matching nothing"
                        );
                        self.problems.push(AccountingProblem { message });
                        return false;
                    }
                    *slot = if outcome == Some(true) { 2 } else { 1 };
                }
                *slot == 2
            }
        }
    }

    /// Give the regex entries used by this call back to the inventory cache.
    pub(super) fn return_regex_entries(&mut self) {
        let mut cache = self.inv.engine.regex_cache.lock().unwrap_or_else(|e| e.into_inner());
        for (key, entry) in self.entries.drain(..).flatten() {
            cache.insert(key, entry);
        }
    }
}
