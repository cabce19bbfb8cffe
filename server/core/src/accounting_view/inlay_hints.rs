//! Inlay hints: after each capability and dtype entry, how many tests it includes at the
//! manifest's level; after `semantic_level`, the run/filtered totals.

use super::bridge::{filtered_up_to, runnable_in, runnable_up_to, selected_level, Questions, Summary};
use crate::cancel::{uncancelled, Cancel, Cancellable};
use crate::value::Dict;
use accounting::{Inventory, ManifestFacts, PyValue};

/// Inlay hints: after each capability and dtype entry, how many tests it includes at the
/// manifest's level; after `semantic_level`, the run/filtered totals. `(offset, label)`.
/// One what-if per entry, each deciding only the groups the entry touches.
pub fn entry_counts(inventory: &Inventory, manifest: &Dict, summary: &Summary) -> Vec<(usize, String)> {
    uncancelled(|cancel| entry_counts_until(inventory, manifest, summary, cancel))
}

/// [`entry_counts`], given up once `cancel` is set (checked before each what-if).
pub fn entry_counts_until(
    inventory: &Inventory,
    manifest: &Dict,
    summary: &Summary,
    cancel: &Cancel,
) -> Cancellable<Vec<(usize, String)>> {
    let base = &summary.facts;
    let level = selected_level(summary);
    let mut out = Vec::new();
    let questions = Questions::new(inventory, summary);
    let run = |facts: &ManifestFacts| runnable_in(&questions.what_if(facts), level) as i64;
    let mut changed = base.clone();
    let base_run = runnable_up_to(summary, level) as i64;
    if let Some(e) = manifest.get("semantic_level") {
        out.push((e.value.span.end, format!("{} run · {} filtered", base_run, filtered_up_to(summary, level))));
    }
    if let Some(caps) = manifest.get("capabilities").and_then(|e| e.value.as_dict()) {
        for entry in &caps.entries {
            let Some(name) = entry.key.as_str() else { continue };
            if !entry.value.truthy().unwrap_or(false) || name == "ieee754" {
                continue;
            }
            cancel.check()?;
            // One copy of the facts, changed in place and restored: set False where the
            // capability is (a dict keeps its place), appended where it is not.
            let at: Vec<usize> =
                (0..changed.capabilities.len()).filter(|&k| changed.capabilities[k].0 == name).collect();
            let saved: Vec<PyValue> = at.iter().map(|&k| changed.capabilities[k].1.clone()).collect();
            for &k in &at {
                changed.capabilities[k].1 = PyValue::Bool(false);
            }
            if at.is_empty() {
                changed.capabilities.push((name.to_string(), PyValue::Bool(false)));
            }
            let gated = base_run - run(&changed);
            if at.is_empty() {
                changed.capabilities.pop();
            }
            for (&k, value) in at.iter().zip(saved) {
                changed.capabilities[k].1 = value;
            }
            out.push((entry.value.span.end, format!("{gated} tests")));
        }
    }
    if let Some(dtypes) = manifest.get("supported_dtypes").and_then(|e| e.value.as_dict()) {
        for (i, entry) in dtypes.entries.iter().enumerate() {
            if i >= base.supported_dtypes.len() {
                break;
            }
            cancel.check()?;
            let removed = changed.supported_dtypes.remove(i);
            let included = base_run - run(&changed);
            changed.supported_dtypes.insert(i, removed);
            out.push((entry.value.span.end, format!("{included} tests")));
        }
    }
    Ok(out)
}
