//! Run targets: the tests a run from the cursor covers (as node ids an entry decides),
//! the tests of entries changed since the last run, and the scratch manifest a run of
//! tests the manifest itself excludes uses.

use super::bridge::facts;
use crate::locate::{Role, Target};
use crate::value::{Dict, Value, ValueKind};
use accounting::{Inventory, LevelSelection, ManifestFacts, NodeRef, PyValue};

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

/// Node ids of the tests that execute for `with` and not for `without`. Compared as the
/// accounting's node references (an item's index), so only the difference is written out as
/// ids: an entry's question costs two accountings, not two sets of ~20,000 strings.
pub fn executable_difference(
    inventory: &Inventory,
    with: &ManifestFacts,
    without: &ManifestFacts,
    device: &str,
    selection: LevelSelection,
) -> Vec<String> {
    let gone_acc = accounting::account(inventory, without, device, selection);
    let mut gone_items: Vec<bool> = Vec::new();
    let mut gone_other = Vec::new();
    for node in gone_acc.executable_nodes() {
        match node {
            NodeRef::Item(i) => {
                let i = i as usize;
                if gone_items.len() <= i {
                    gone_items.resize(i + 1, false);
                }
                gone_items[i] = true;
            }
            // Placeholders and pending records: few, and named by id to compare across accountings.
            other => gone_other.push(gone_acc.node_ref_id(other)),
        }
    }
    let acc = accounting::account(inventory, with, device, selection);
    acc.executable_nodes()
        .into_iter()
        .filter(|node| match node {
            NodeRef::Item(i) => !gone_items.get(*i as usize).copied().unwrap_or(false),
            other => !gone_other.contains(&acc.node_ref_id(*other)),
        })
        .map(|node| acc.node_ref_id(node))
        .collect()
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
    target: Option<&Target>,
    device_override: Option<&str>,
) -> RunTarget {
    run_target_as(inventory, manifest, target, &CountedAs { device: device_override, ..CountedAs::default() })
}

/// How a view counts besides the manifest: the command line's device, levels and run layout
/// (`--device`, `--level`, `--rooted-at-package`); `None` keeps the manifest's (and the
/// common layout). An entry's tests are counted as the view counts everything else, so its
/// number and the view's totals answer at the same levels.
#[derive(Debug, Clone, Copy, Default)]
pub struct CountedAs<'a> {
    pub device: Option<&'a str>,
    pub selection: Option<LevelSelection>,
    pub layout: Option<&'a accounting::RunLayout>,
    /// The project's known-segfault ledger (`None`: none), as the view's accounting has it.
    pub project_ledger: Option<&'a accounting::ledger::ProjectLedger>,
}

impl CountedAs<'_> {
    /// The manifest's facts with the view's layout, and the levels counted.
    pub fn facts_and_selection(&self, manifest: &Dict) -> (ManifestFacts, LevelSelection) {
        let mut base = facts(manifest);
        if let Some(layout) = self.layout {
            base.layout = layout.clone();
        }
        if let Some(ledger) = self.project_ledger {
            base.project_ledger = ledger.clone();
        }
        let selection = self
            .selection
            .unwrap_or_else(|| LevelSelection::from_manifest(&base).unwrap_or(LevelSelection::Cumulative(3)));
        (base, selection)
    }
}

/// [`run_target`] counted as a view counts ([`CountedAs`]).
pub fn run_target_as(inventory: &Inventory, manifest: &Dict, target: Option<&Target>, at: &CountedAs) -> RunTarget {
    let (base, selection) = at.facts_and_selection(manifest);
    let device = base.resolve_device(at.device);
    let level = selection.max_level();
    let Some(question) = target.and_then(|target| entry_question(manifest, target, &base)) else {
        return RunTarget {
            label: format!("level {level}"),
            node_ids: None,
            level,
            device,
            anchor: vec!["semantic_level".into()],
            scratch_change: None,
        };
    };
    let node_ids = executable_difference(inventory, &question.with, &question.without, &device, selection);
    RunTarget {
        label: question.label,
        node_ids: Some(node_ids),
        level,
        device,
        anchor: question.anchor,
        scratch_change: question.scratch_change,
    }
}

/// What a run about one entry compares: the tests that run with `with` and not `without`.
struct EntryQuestion {
    label: String,
    with: ManifestFacts,
    without: ManifestFacts,
    anchor: Vec<String>,
    scratch_change: Option<String>,
}

/// The question [`run_target`] asks for the entry at `target`; `None`: the whole level.
fn entry_question(manifest: &Dict, target: &Target, base: &ManifestFacts) -> Option<EntryQuestion> {
    let path = target.path_strs();
    let anchor = path.iter().map(|s| s.to_string()).collect();
    match path.as_slice() {
        ["supported_dtypes", key] => {
            let dict = manifest.get("supported_dtypes").and_then(|e| e.value.as_dict())?;
            let index = dict.entries.iter().position(|e| Some(&e.key.span) == target.key_span.as_ref())?;
            let mut without = base.clone();
            if index >= without.supported_dtypes.len() {
                return None;
            }
            without.supported_dtypes.remove(index);
            let label = format!("the {key} entry");
            Some(EntryQuestion { label, with: base.clone(), without, anchor, scratch_change: None })
        }
        ["capabilities", cap] => {
            let mut on = base.clone();
            on.capabilities.retain(|(k, _)| k != cap);
            let mut off = on.clone();
            on.capabilities.push((cap.to_string(), PyValue::Bool(true)));
            off.capabilities.push((cap.to_string(), PyValue::Bool(false)));
            let label = format!("capability {cap}");
            Some(EntryQuestion { label, with: on, without: off, anchor, scratch_change: None })
        }
        ["skip_ops"] => {
            let name = match (&target.role, manifest.get("skip_ops").map(|e| &e.value.kind)) {
                (Role::ListItem(_), Some(ValueKind::List(items))) => {
                    items.iter().find(|i| i.span == target.span).and_then(Value::as_str).map(str::to_string)
                }
                _ => None,
            }?;
            let mut without = base.clone();
            without.skip_ops.retain(|s| *s != name);
            let literal = serde_json::Value::String(name.clone()).to_string();
            Some(EntryQuestion {
                label: format!("skipped operator {name}"),
                with: without,
                without: base.clone(),
                anchor: vec!["skip_ops".into()],
                scratch_change: Some(format!(
                    "manifest[\"skip_ops\"] = [op for op in manifest.get(\"skip_ops\", []) if op != {literal}]"
                )),
            })
        }
        _ => None,
    }
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
    // What runs now and did not before: the tests the changes let in.
    let ids = executable_difference(inventory, current, previous, &device, selection);
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
