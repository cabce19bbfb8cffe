//! Strings and reasons interned by text across the releases of one archive.

use std::collections::HashMap;

/// Strings and reasons of an archive, interned by text.
#[derive(Default)]
pub struct Names {
    pub(super) strings: Vec<String>,
    string_index: HashMap<String, u32>,
    pub(super) reasons: Vec<String>,
    reason_index: HashMap<String, u16>,
}

/// The id of `s` in `strings`, appended where absent (`index`: text -> first id).
pub fn intern<S: std::hash::BuildHasher>(
    strings: &mut Vec<String>,
    index: &mut HashMap<String, u32, S>,
    s: &str,
) -> u32 {
    if let Some(&i) = index.get(s) {
        return i;
    }
    let i = strings.len() as u32;
    strings.push(s.to_string());
    index.insert(s.to_string(), i);
    i
}

impl Names {
    pub(super) fn intern(&mut self, s: &str) -> u32 {
        intern(&mut self.strings, &mut self.string_index, s)
    }

    pub(super) fn reason(&mut self, r: &str) -> u16 {
        if let Some(&i) = self.reason_index.get(r) {
            return i;
        }
        let i = self.reasons.len() as u16;
        self.reasons.push(r.to_string());
        self.reason_index.insert(r.to_string(), i);
        i
    }
}
