//! The bridge from the evaluated manifest to the show-skips engine (`accounting` crate),
//! and the what-if questions features ask: what does this entry let in, gate or remove.
//!
//! Everything here is a pure function of (inventory, facts, device). The LSP keeps the
//! last [`Summary`] and recomputes only when the facts change, so an edit to a comment or
//! a tolerance does not cost an accounting.

use crate::findings::{Finding, Origin, Severity};
use crate::fix_data::FixData;
use crate::value::{Dict, Value, ValueKind};
pub use accounting::{Accounting, Inventory, LevelSelection, ManifestFacts, PyValue};

/// Converts a core value to the engine's Python value.
pub fn to_py(value: &Value) -> PyValue {
    match &value.kind {
        ValueKind::None => PyValue::None,
        ValueKind::Bool(b) => PyValue::Bool(*b),
        ValueKind::Int(i) => match i64::try_from(*i) {
            Ok(i) => PyValue::Int(i),
            Err(_) => PyValue::Other(i.to_string()),
        },
        ValueKind::Float(f) => PyValue::Float(*f),
        ValueKind::Str(s) => PyValue::Str(s.clone()),
        ValueKind::List(items) => PyValue::List(items.iter().map(to_py).collect()),
        ValueKind::Tuple(items) => PyValue::Tuple(items.iter().map(to_py).collect()),
        ValueKind::Dict(d) => PyValue::Dict(d.entries.iter().map(|e| (to_py(&e.key), to_py(&e.value))).collect()),
        ValueKind::Dtype { canonical, .. } => PyValue::Dtype(canonical.clone()),
        ValueKind::Bytes(_) | ValueKind::Module(_) => PyValue::Other(value.repr()),
        ValueKind::Unknown(why) => PyValue::Other(why.clone()),
    }
}

pub fn facts(manifest: &Dict) -> ManifestFacts {
    let root = PyValue::Dict(manifest.entries.iter().map(|e| (to_py(&e.key), to_py(&e.value))).collect());
    ManifestFacts::from_dict(&root)
}

/// Whether the accounting of this manifest is exact: values it depends on are all known.
pub fn unknown_inputs(manifest: &Dict) -> Vec<String> {
    let mut out = Vec::new();
    if manifest.open {
        out.push("the manifest has keys that are not known statically".to_string());
    }
    for key in [
        "supported_dtypes",
        "capabilities",
        "skip_ops",
        "device_count",
        "device_name",
        "hardware",
        "resource_limits",
        "supported_container_formats",
        "custom_container_decoders",
        "semantic_level",
    ] {
        if manifest.get(key).is_some_and(|e| e.value.contains_unknown()) {
            out.push(format!("`{key}` is not fully known statically"));
        }
    }
    out
}

/// Per-level run/filtered counts of a manifest on a device.
#[derive(Clone, Debug, PartialEq)]
pub struct Summary {
    pub device: String,
    /// The device name is not one the inventory has facts for; counted as a custom backend.
    pub device_assumed: bool,
    pub selection: LevelSelection,
    /// Per level 1..8: (collected items of that level, runnable, filtered).
    pub levels: [(usize, usize, usize); 8],
    /// For the selection: tests that run, and records not run (show-skips' numbers).
    pub included: usize,
    pub collected: usize,
    pub deselected: usize,
    pub records: usize,
    pub not_modelled: Vec<String>,
    pub live_device_dependent: usize,
    /// Tests torchcts' known-segfault ledger records as `known_backend_crash` (not run),
    /// as show-skips prints their ids.
    pub known_crashes: Vec<String>,
    /// The facts this summary was computed from (the cache key).
    pub facts: ManifestFacts,
    /// The accounting's counts kept per unit, for the what-if questions of the inlay
    /// hints and hovers ([`Questions`]).
    pub kept: std::sync::Arc<accounting::KeptCounts>,
}

pub fn summarize(inventory: &Inventory, facts: &ManifestFacts, device_override: Option<&str>) -> Summary {
    let device = facts.resolve_device(device_override);
    let selection = LevelSelection::from_manifest(facts).unwrap_or(LevelSelection::Cumulative(3));
    let (acc, kept) = accounting::account_keeping_units(inventory, facts, &device, selection);
    summary_of(&acc, facts.clone(), kept)
}

fn summary_of(acc: &Accounting, facts: ManifestFacts, kept: accounting::KeptCounts) -> Summary {
    let mut levels = [(0, 0, 0); 8];
    for (i, l) in acc.levels.iter().enumerate() {
        levels[i] = (l.collected, l.runnable, l.filtered);
    }
    Summary {
        device: acc.device.device.clone(),
        device_assumed: acc.device.assumed,
        selection: acc.selection,
        levels,
        included: acc.included,
        collected: acc.collected,
        deselected: acc.deselected,
        records: acc.record_count,
        not_modelled: acc.not_modelled.clone(),
        live_device_dependent: acc.live_device_dependent,
        known_crashes: known_crashes(acc),
        facts,
        kept: std::sync::Arc::new(kept),
    }
}

/// The `known_backend_crash` records (only mps with a torch the ledger covers has any; the
/// records are listed only then).
fn known_crashes(acc: &Accounting) -> Vec<String> {
    let any = acc.reason_counts.iter().any(|(r, n)| *n > 0 && acc.reason_name(*r) == "known_backend_crash");
    if !any {
        return Vec::new();
    }
    acc.device_fact_records("known_backend_crash").iter().map(|r| acc.printed_id(r).to_string()).collect()
}

/// Per level 1..8: (collected, runnable, filtered), as in [`Summary::levels`].
pub type Levels = [(usize, usize, usize); 8];

/// Runnable tests at levels `1..=level` (what `--level level` runs).
pub fn runnable_up_to(summary: &Summary, level: usize) -> usize {
    runnable_in(&summary.levels, level)
}

/// Filtered (not run for a reason other than the level) at levels `1..=level`.
pub fn filtered_up_to(summary: &Summary, level: usize) -> usize {
    filtered_in(&summary.levels, level)
}

fn runnable_in(levels: &Levels, level: usize) -> usize {
    levels.iter().take(level.min(8)).map(|l| l.1).sum()
}

fn filtered_in(levels: &Levels, level: usize) -> usize {
    levels.iter().take(level.min(8)).map(|l| l.2).sum()
}

/// The selection's level bound for cumulative counts.
pub fn selected_level(summary: &Summary) -> usize {
    summary.selection.max_level() as usize
}

/// Per-level counts with `changed` facts, what [`summarize`] would give for them: on the
/// base's device and selection only the item groups the change touches are decided again
/// (`accounting::what_if_levels`); elsewhere a whole accounting.
pub fn what_if(
    inventory: &Inventory,
    base: &Summary,
    changed: &ManifestFacts,
    device_override: Option<&str>,
) -> Levels {
    let device = changed.resolve_device(device_override);
    let selection = LevelSelection::from_manifest(changed).unwrap_or(LevelSelection::Cumulative(3));
    if device != base.device || selection != base.selection {
        return summarize(inventory, changed, device_override).levels;
    }
    let levels = std::array::from_fn(|i| {
        let (collected, runnable, filtered) = base.levels[i];
        accounting::LevelCounts { level: i as u8 + 1, collected, runnable, filtered }
    });
    let baseline = accounting::Baseline { facts: &base.facts, device: &base.device, selection, levels };
    let counts = accounting::what_if_levels(inventory, &baseline, changed);
    std::array::from_fn(|i| (counts[i].collected, counts[i].runnable, counts[i].filtered))
}

/// Many what-if questions on one summary's manifest (the inlay hints ask one per entry):
/// the base accounting is kept per unit (`accounting::WhatIfs`), so each question decides
/// only the units it touches.
pub struct Questions<'a> {
    inventory: &'a Inventory,
    summary: &'a Summary,
    base: accounting::WhatIfs<'a, 'a>,
}

impl<'a> Questions<'a> {
    pub fn new(inventory: &'a Inventory, summary: &'a Summary) -> Questions<'a> {
        let base = accounting::WhatIfs::from_kept(
            inventory,
            &summary.facts,
            &summary.device,
            summary.selection,
            &summary.kept,
        );
        Questions { inventory, summary, base }
    }

    /// [`what_if`] on the summary's device.
    pub fn what_if(&self, changed: &ManifestFacts) -> Levels {
        let selection = LevelSelection::from_manifest(changed).unwrap_or(LevelSelection::Cumulative(3));
        if selection != self.summary.selection {
            return what_if(self.inventory, self.summary, changed, Some(&self.summary.device));
        }
        let counts = self.base.what_if(changed);
        std::array::from_fn(|i| (counts[i].collected, counts[i].runnable, counts[i].filtered))
    }
}

/// Run/filtered counts at the selected level after changing the facts: `(run, filtered)`
/// differences, new minus old.
pub fn delta(
    inventory: &Inventory,
    base: &Summary,
    changed: &ManifestFacts,
    device_override: Option<&str>,
) -> (i64, i64) {
    let other = what_if(inventory, base, changed, device_override);
    let level = selected_level(base);
    (
        runnable_in(&other, level) as i64 - runnable_up_to(base, level) as i64,
        filtered_in(&other, level) as i64 - filtered_up_to(base, level) as i64,
    )
}

/// Per level, how many tests run with `changed` facts minus with `base` facts.
pub fn per_level_delta(inventory: &Inventory, base: &Summary, changed: &ManifestFacts) -> [i64; 8] {
    let other = what_if(inventory, base, changed, Some(&base.device));
    std::array::from_fn(|i| other[i].1 as i64 - base.levels[i].1 as i64)
}

/// Operators of the suite that `re.search(pattern, name)` matches, and the others.
pub fn regex_split<'i>(inventory: &'i Inventory, pattern: &str) -> Option<(Vec<&'i str>, Vec<&'i str>)> {
    let (compiled, _) = pyregex::compile(pattern).ok()?;
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
pub fn matched_count(inventory: &Inventory, pattern: &str) -> Option<usize> {
    static CACHE: Memo<Option<usize>> = Memo::new();
    memo(&CACHE, inventory, pattern, || regex_split(inventory, pattern).map(|(matched, _)| matched.len()))
}

/// Operator names nearest to `name` (for unknown `skip_ops` entries), memoised.
fn nearest_operators(inventory: &Inventory, name: &str) -> Vec<String> {
    static CACHE: Memo<Vec<String>> = Memo::new();
    memo(&CACHE, inventory, name, || crate::actions::nearest(name, &inventory.operator_names(), 3))
}

/// Unmatched names closest to the matched ones (sharing a prefix), for "nearby" lists.
pub fn nearby_unmatched<'i>(matched: &[&str], unmatched: &[&'i str], limit: usize) -> Vec<&'i str> {
    let mut scored: Vec<(usize, &str)> = unmatched
        .iter()
        .map(|u| {
            let best = matched.iter().map(|m| crate::actions::levenshtein(m, u)).min().unwrap_or(usize::MAX);
            (best, *u)
        })
        .collect();
    scored.sort();
    scored.into_iter().take(limit).map(|(_, u)| u).collect()
}

/// Hints only the inventory can give: a regex that lets in every operator of the suite or
/// none, and a `skip_ops` name that is no operator of the suite.
pub fn inventory_hints(manifest: &Dict, inventory: &Inventory) -> Vec<Finding> {
    let mut out = Vec::new();
    let total = inventory.operator_count();
    let check_regex = |value: &Value, what: &str, out: &mut Vec<Finding>| {
        let Some(pattern) = value.as_str() else { return };
        let Some(matched) = matched_count(inventory, pattern) else { return };
        if matched == total {
            out.push(Finding::new(
                value.span.clone(),
                Severity::Warning,
                format!("{what} regex lets in every operator of the suite ({total}): it filters nothing"),
                "regex-matches-all",
                Origin::Lsp,
            ));
        } else if matched == 0 {
            out.push(Finding::new(
                value.span.clone(),
                Severity::Warning,
                format!("{what} regex matches no operator of the suite"),
                "regex-matches-none",
                Origin::Lsp,
            ));
        }
    };
    if let Some(dtypes) = manifest.get("supported_dtypes").and_then(|e| e.value.as_dict()) {
        for entry in &dtypes.entries {
            check_regex(&entry.value, &format!("This {}", entry.key.py_str()), &mut out);
        }
    }
    if let Some(ieee) = manifest.get("capabilities").and_then(|e| e.value.as_dict()).and_then(|c| c.get("ieee754")) {
        match &ieee.value.kind {
            ValueKind::Str(_) => check_regex(&ieee.value, "The ieee754", &mut out),
            ValueKind::List(items) | ValueKind::Tuple(items) => {
                for item in items {
                    check_regex(item, "This ieee754", &mut out);
                }
            }
            _ => {}
        }
    }
    if let Some(ValueKind::List(items)) = manifest.get("skip_ops").map(|e| &e.value.kind) {
        // Nearest names cost a pass over every operator: only for the first few unknown
        // entries, so that a huge skip_ops list cannot stall the server.
        let mut suggestions_left = 20;
        for item in items {
            let Some(name) = item.as_str() else { continue };
            if inventory.is_operator(name) {
                continue;
            }
            let nearest = if suggestions_left > 0 {
                suggestions_left -= 1;
                nearest_operators(inventory, name)
            } else {
                Vec::new()
            };
            let hint = if nearest.is_empty() { String::new() } else { format!("; nearest: {}", nearest.join(", ")) };
            out.push(
                Finding::new(
                    item.span.clone(),
                    Severity::Warning,
                    format!("'{name}' is not an operator of the TorchCTS suite, so skipping it changes nothing{hint}"),
                    "unknown-operator",
                    Origin::Lsp,
                )
                .with_data(FixData::Replacements { name: name.to_string(), replacements: nearest }),
            );
        }
    }
    out
}

/// Node ids of the tests that execute for `facts` on `device` with `selection`.
pub fn executable_ids(
    inventory: &Inventory,
    facts: &ManifestFacts,
    device: &str,
    selection: LevelSelection,
) -> Vec<String> {
    let acc = accounting::account(inventory, facts, device, selection);
    acc.executable_nodes().into_iter().map(|n| acc.node_ref_id(n)).collect()
}

/// What a run from the cursor covers.
#[derive(Clone, Debug, PartialEq)]
pub struct RunTarget {
    /// For the code action title: "the torch.float16 entry", "capability `training`", ...
    pub label: String,
    /// Explicit node ids; `None` means "the whole level" (run with `--level`).
    pub node_ids: Option<Vec<String>>,
    pub level: u8,
    pub device: String,
    /// Key path of the entry results are reported on (empty: `semantic_level` / manifest).
    pub anchor: Vec<String>,
    /// The tests only run with the manifest changed (a `skip_ops` entry taken out): Python
    /// appended to a scratch copy of the manifest that the run uses (see [`scratch_manifest`]).
    /// `None`: the run uses the manifest as saved.
    pub scratch_change: Option<String>,
}

/// The text of a scratch copy of a manifest for a run of tests the manifest itself
/// excludes: the saved text with `change` (Python statements on `manifest`) appended.
/// The copy lives in another folder, so `original_dir` goes first on `sys.path` (the
/// manifest may import its neighbours) and relative `custom_test_dirs` are made absolute.
pub fn scratch_manifest(original_text: &str, original_dir: &str, change: &str) -> String {
    let dir = serde_json::Value::String(original_dir.to_string()).to_string();
    // `from __future__` must stay the first statement; such a file gets no path prefix.
    let prefix = if original_text.contains("from __future__") {
        String::new()
    } else {
        format!("import sys as _torchcts_lsp_sys\n_torchcts_lsp_sys.path.insert(0, {dir})\n")
    };
    format!(
        "{prefix}{original_text}\n\n# torchcts-lsp: scratch copy for a focused run; the manifest itself is unchanged.\n{change}\n\
         if isinstance(manifest.get(\"custom_test_dirs\"), (list, tuple)):\n    \
         import os as _torchcts_lsp_os\n    \
         manifest[\"custom_test_dirs\"] = [_torchcts_lsp_os.path.join({dir}, d) if isinstance(d, str) else d for d in manifest[\"custom_test_dirs\"]]\n"
    )
}

/// The tests the entry under the cursor decides, as a set difference of two accountings:
/// a dtype entry (runs with it, not without it), a capability (runs when `True`, not when
/// `False`), a `skip_ops` entry (the tests of that operator, if it came off the list),
/// `semantic_level` or anything else (the whole level).
pub fn run_target(
    inventory: &Inventory,
    manifest: &Dict,
    target: Option<&crate::locate::Target>,
    device_override: Option<&str>,
) -> RunTarget {
    let base = facts(manifest);
    let device = base.resolve_device(device_override);
    let selection = LevelSelection::from_manifest(&base).unwrap_or(LevelSelection::Cumulative(3));
    let level = selection.max_level();
    let difference = |with: &ManifestFacts, without: &ManifestFacts| -> Vec<String> {
        let gone: std::collections::HashSet<String> =
            executable_ids(inventory, without, &device, selection).into_iter().collect();
        executable_ids(inventory, with, &device, selection).into_iter().filter(|id| !gone.contains(id)).collect()
    };
    let whole = RunTarget {
        label: format!("level {level}"),
        node_ids: None,
        level,
        device: device.clone(),
        anchor: vec!["semantic_level".into()],
        scratch_change: None,
    };
    let Some(target) = target else { return whole };
    let path = target.path_strs();
    match path.as_slice() {
        ["supported_dtypes", key] => {
            let Some(dict) = manifest.get("supported_dtypes").and_then(|e| e.value.as_dict()) else { return whole };
            let Some(index) = dict.entries.iter().position(|e| Some(&e.key.span) == target.key_span.as_ref()) else {
                return whole;
            };
            let mut without = base.clone();
            if index >= without.supported_dtypes.len() {
                return whole;
            }
            without.supported_dtypes.remove(index);
            RunTarget {
                label: format!("the {key} entry"),
                node_ids: Some(difference(&base, &without)),
                level,
                device,
                anchor: path.iter().map(|s| s.to_string()).collect(),
                scratch_change: None,
            }
        }
        ["capabilities", cap] => {
            let mut on = base.clone();
            on.capabilities.retain(|(k, _)| k != cap);
            let mut off = on.clone();
            on.capabilities.push((cap.to_string(), PyValue::Bool(true)));
            off.capabilities.push((cap.to_string(), PyValue::Bool(false)));
            RunTarget {
                label: format!("capability {cap}"),
                node_ids: Some(difference(&on, &off)),
                level,
                device,
                anchor: path.iter().map(|s| s.to_string()).collect(),
                scratch_change: None,
            }
        }
        ["skip_ops"] => {
            let name = match (&target.role, manifest.get("skip_ops").map(|e| &e.value.kind)) {
                (crate::locate::Role::ListItem(_), Some(ValueKind::List(items))) => {
                    items.iter().find(|i| i.span == target.span).and_then(Value::as_str).map(str::to_string)
                }
                _ => None,
            };
            let Some(name) = name else { return whole };
            let mut without = base.clone();
            without.skip_ops.retain(|s| *s != name);
            let literal = serde_json::Value::String(name.clone()).to_string();
            RunTarget {
                label: format!("skipped operator {name}"),
                node_ids: Some(difference(&without, &base)),
                level,
                device,
                anchor: vec!["skip_ops".into()],
                scratch_change: Some(format!(
                    "manifest[\"skip_ops\"] = [op for op in manifest.get(\"skip_ops\", []) if op != {literal}]"
                )),
            }
        }
        _ => whole,
    }
}

/// Inlay hints: after each capability and dtype entry, how many tests it includes at the
/// manifest's level; after `semantic_level`, the run/filtered totals. `(offset, label)`.
/// One what-if per entry, each deciding only the groups the entry touches.
pub fn entry_counts(inventory: &Inventory, manifest: &Dict, summary: &Summary) -> Vec<(usize, String)> {
    crate::cancel::uncancelled(|cancel| entry_counts_until(inventory, manifest, summary, cancel))
}

/// [`entry_counts`], given up once `cancel` is set (checked before each what-if).
pub fn entry_counts_until(
    inventory: &Inventory,
    manifest: &Dict,
    summary: &Summary,
    cancel: &crate::cancel::Cancel,
) -> crate::cancel::Cancellable<Vec<(usize, String)>> {
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

/// For on-save runs in `affected` mode: the tests of the dtype entries and capabilities whose
/// value changed since the last run (union of their affected tests), or `None`.
pub fn changed_entries_target(
    inventory: &Inventory,
    previous: &ManifestFacts,
    current: &ManifestFacts,
    device_override: Option<&str>,
) -> Option<RunTarget> {
    if previous == current {
        return None;
    }
    let device = current.resolve_device(device_override);
    let selection = LevelSelection::from_manifest(current).unwrap_or(LevelSelection::Cumulative(3));
    let before: std::collections::HashSet<String> =
        executable_ids(inventory, previous, &device, selection).into_iter().collect();
    // What runs now and did not before: the tests the changes let in.
    let ids: Vec<String> =
        executable_ids(inventory, current, &device, selection).into_iter().filter(|id| !before.contains(id)).collect();
    if ids.is_empty() {
        return None;
    }
    Some(RunTarget {
        label: "entries changed since the last run".into(),
        node_ids: Some(ids),
        level: selection.max_level(),
        device,
        anchor: vec!["semantic_level".into()],
        scratch_change: None,
    })
}
