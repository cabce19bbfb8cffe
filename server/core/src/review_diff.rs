//! Review of a manifest change: which tests start and stop running between an old and a new
//! version of a manifest, attributed to the manifest entries that cause them.
//!
//! Both versions are evaluated statically and accounted with the show-skips engine on the
//! same device; [`accounting::diff::diff`] compares the two accountings node by node. This
//! module names the changes the way a reviewer reads them ("float16 entry", "skip_ops +=
//! index_reduce"), finds the entry each change belongs to in the new text (for editor lenses
//! and diagnostics), and renders the result as text, JSON or a pull-request comment.

use crate::accounting_view::{self as av, Inventory, LevelSelection, ManifestFacts, PyValue};
use crate::findings::{Finding, Origin, Severity};
use crate::value::{Dict, Span, ValueKind};
use crate::{analyze, AnalysisInput};
pub use accounting::diff::{AccountingDiff, Cause, Group, LevelDiff, NOT_COLLECTED};
use serde_json::json;

/// One side of a review: a manifest evaluated statically.
#[derive(Debug, Clone)]
pub struct Side {
    pub facts: ManifestFacts,
    /// Inputs the accounting depends on that are not known statically.
    pub not_static: Vec<String>,
}

/// Evaluates a manifest's text; the error is what check-manifest prints when there is no
/// manifest dict to account.
pub fn side(text: &str) -> Result<Side, String> {
    let analysis = analyze(text, &AnalysisInput::default());
    match analysis.model.manifest.as_ref().and_then(|m| m.as_dict()) {
        Some(manifest) => Ok(Side { facts: av::facts(manifest), not_static: av::unknown_inputs(manifest) }),
        None => Err(analysis.check.lines().into_iter().map(|(_, line)| line).collect::<Vec<_>>().join("\n")),
    }
}

/// The device and levels a review counts on.
#[derive(Debug, Clone, Default)]
pub struct ReviewOptions {
    /// `--device`; else the new manifest's `device_name` (`auto`: cpu). Both sides use it.
    pub device: Option<String>,
    /// `--level ...`; else each side its own `semantic_level`.
    pub selection: Option<LevelSelection>,
}

/// The change attributed to one cause over all levels.
#[derive(Debug, Clone, PartialEq)]
pub struct CauseChange {
    pub cause: Cause,
    /// How a reviewer reads it: "float16 entry", "skip_ops += index_reduce".
    pub label: String,
    pub started: usize,
    pub stopped: usize,
}

/// The result of [`review`].
#[derive(Debug, Clone)]
pub struct Review {
    pub device: String,
    pub old_selection: LevelSelection,
    pub new_selection: LevelSelection,
    pub diff: AccountingDiff,
    /// Per cause, largest change first.
    pub changes: Vec<CauseChange>,
}

fn selection_of(facts: &ManifestFacts, chosen: Option<LevelSelection>) -> Result<LevelSelection, String> {
    match chosen {
        Some(s) => Ok(s),
        None => LevelSelection::from_manifest(facts),
    }
}

/// Accounts both sides and compares them.
pub fn review(
    inventory: &Inventory,
    old: &ManifestFacts,
    new: &ManifestFacts,
    options: &ReviewOptions,
) -> Result<Review, String> {
    let device = new.resolve_device(options.device.as_deref());
    let old_selection = selection_of(old, options.selection).map_err(|e| format!("old manifest: {e}"))?;
    let new_selection = selection_of(new, options.selection).map_err(|e| format!("new manifest: {e}"))?;
    let old_acc = accounting::account(inventory, old, &device, old_selection);
    let new_acc = accounting::account(inventory, new, &device, new_selection);
    Ok(review_of(&old_acc, old, &new_acc, new))
}

/// Compares two accountings already made (the editor keeps the committed one).
pub fn review_of(
    old_acc: &av::Accounting,
    old: &ManifestFacts,
    new_acc: &av::Accounting,
    new: &ManifestFacts,
) -> Review {
    review_prepared(old_acc, &accounting::diff::prepare(old_acc), old, new_acc, new)
}

/// [`review_of`] with the old side prepared once ([`accounting::diff::prepare`] of `old_acc`).
pub fn review_prepared(
    old_acc: &av::Accounting,
    old_prepared: &accounting::diff::Prepared,
    old: &ManifestFacts,
    new_acc: &av::Accounting,
    new: &ManifestFacts,
) -> Review {
    let new_prepared = accounting::diff::prepare(new_acc);
    let diff = accounting::diff::diff_prepared(old_acc, old_prepared, old, new_acc, &new_prepared, new);
    let mut changes: Vec<CauseChange> = diff
        .by_cause()
        .into_iter()
        .map(|(cause, started, stopped)| CauseChange { label: label(&cause, old, new), cause, started, stopped })
        .collect();
    changes.sort_by_key(|c| std::cmp::Reverse(c.started + c.stopped));
    Review {
        device: new_acc.device.device.clone(),
        old_selection: old_acc.selection,
        new_selection: new_acc.selection,
        diff,
        changes,
    }
}

/// The value of a `supported_dtypes` entry for a canonical dtype (last key wins).
fn dtype_value<'f>(facts: &'f ManifestFacts, dt: &str) -> Option<&'f PyValue> {
    facts
        .supported_dtypes
        .iter()
        .rev()
        .find(|(k, _)| matches!(k, PyValue::Dtype(d) | PyValue::Str(d) if d == dt))
        .map(|(_, v)| v)
}

/// How a reviewer reads a cause, knowing both versions.
pub fn label(cause: &Cause, old: &ManifestFacts, new: &ManifestFacts) -> String {
    match cause {
        Cause::SkipOp(op) => match (old.skip_ops.contains(op), new.skip_ops.contains(op)) {
            (false, true) => format!("skip_ops += {op}"),
            (true, false) => format!("skip_ops -= {op}"),
            _ => cause.label(),
        },
        Cause::Dtype(dt) => match (dtype_value(old, dt).is_some(), dtype_value(new, dt).is_some()) {
            (true, false) => format!("{} (removed)", cause.label()),
            (false, true) => format!("{} (added)", cause.label()),
            _ => cause.label(),
        },
        Cause::SemanticLevel => match (&old.semantic_level, &new.semantic_level) {
            (Some(a), Some(b)) if a != b => format!("semantic_level {} -> {}", a.repr(), b.repr()),
            _ => "level selection".to_string(),
        },
        _ => cause.label(),
    }
}

/// "+3 -412 tests", "-412 tests", "+36 tests".
pub fn signed_counts(started: usize, stopped: usize) -> String {
    match (started, stopped) {
        (0, 0) => "±0 tests".to_string(),
        (s, 0) => format!("+{s} tests"),
        (0, t) => format!("-{t} tests"),
        (s, t) => format!("+{s} -{t} tests"),
    }
}

/// " up to level 4" when both sides count the same cumulative levels.
fn at_level(review: &Review) -> String {
    match (review.old_selection, review.new_selection) {
        (LevelSelection::Cumulative(a), LevelSelection::Cumulative(b)) if a == b => format!(" up to level {a}"),
        _ => String::new(),
    }
}

/// The one-line summary ("float16 entry: -412 tests up to level 4; skip_ops += index_reduce: -36").
pub fn summary_line(review: &Review) -> String {
    if review.changes.is_empty() {
        return "no test starts or stops running".to_string();
    }
    let at = at_level(review);
    review
        .changes
        .iter()
        .enumerate()
        .map(|(i, c)| {
            let counts = signed_counts(c.started, c.stopped);
            // The first names the unit and the levels; the rest are read the same way.
            if i == 0 {
                format!("{}: {counts}{at}", c.label)
            } else {
                format!("{}: {}", c.label, counts.trim_end_matches(" tests"))
            }
        })
        .collect::<Vec<_>>()
        .join("; ")
}

fn printed(id: &str) -> &str {
    id.rsplit('/').next().unwrap_or(id)
}

fn selection_text(review: &Review) -> String {
    if review.old_selection == review.new_selection {
        review.old_selection.label()
    } else {
        format!("{} -> {}", review.old_selection.label(), review.new_selection.label())
    }
}

fn change_label(review: &Review, cause: &Cause) -> String {
    review.changes.iter().find(|c| &c.cause == cause).map(|c| c.label.clone()).unwrap_or_else(|| cause.label())
}

/// Plain text: per level, the groups with their first `shown` node ids.
pub fn render_text(review: &Review, old_name: &str, new_name: &str, shown: usize) -> String {
    let d = &review.diff;
    let mut out = format!(
        "{old_name} -> {new_name} on {} ({})\n{}\ntests that run: {} -> {} ({:+})\n",
        review.device,
        selection_text(review),
        summary_line(review),
        d.old_running,
        d.new_running,
        d.new_running as i64 - d.old_running as i64
    );
    for level in d.levels.iter().filter(|l| !l.is_empty()).rev() {
        out.push_str(&format!(
            "\nlevel {}: {}\n",
            level.level,
            signed_counts(level.started_count(), level.stopped_count())
        ));
        for (what, groups) in [("stop running", &level.stopped), ("start running", &level.started)] {
            for g in groups {
                out.push_str(&format!(
                    "  {what}: {} [{}]: {}\n",
                    change_label(review, &g.cause),
                    g.reason,
                    g.nodes.len()
                ));
                for id in g.nodes.iter().take(shown) {
                    out.push_str(&format!("      {}\n", printed(id)));
                }
                if g.nodes.len() > shown {
                    out.push_str(&format!("      ... {} more (--format json lists all)\n", g.nodes.len() - shown));
                }
            }
        }
        if !level.reason_deltas.is_empty() {
            out.push_str(&format!("  not-run records: {}\n", deltas_text(&level.reason_deltas)));
        }
    }
    if !d.reason_deltas.is_empty() {
        out.push_str(&format!("\nnot-run records per reason (new - old): {}\n", deltas_text(&d.reason_deltas)));
    }
    out
}

fn deltas_text(deltas: &[(String, i64)]) -> String {
    deltas.iter().map(|(r, n)| format!("{r} {n:+}")).collect::<Vec<_>>().join(", ")
}

/// A pull-request comment: summary line, a table per level, collapsed node-id lists.
pub fn render_markdown(review: &Review, old_name: &str, new_name: &str, shown: usize) -> String {
    use crate::markdown::{code_span, escape_text};
    let d = &review.diff;
    let mut out = format!(
        "### torchcts manifest review: {} vs {}\n\n**{}**\n\nTests that run on {} ({}): {} → {} (**{:+}**)\n",
        code_span(new_name),
        code_span(old_name),
        escape_text(&summary_line(review)),
        code_span(&review.device),
        selection_text(review),
        d.old_running,
        d.new_running,
        d.new_running as i64 - d.old_running as i64
    );
    for level in d.levels.iter().filter(|l| !l.started.is_empty() || !l.stopped.is_empty()).rev() {
        out.push_str(&format!(
            "\n#### Level {}: {}\n\n| | manifest entry | reason | tests |\n|---|---|---|---:|\n",
            level.level,
            signed_counts(level.started_count(), level.stopped_count())
        ));
        let rows =
            level.stopped.iter().map(|g| ("stop", "−", g)).chain(level.started.iter().map(|g| ("start", "+", g)));
        for (what, sign, g) in rows.clone() {
            out.push_str(&format!(
                "| {what} | {} | {} | {sign}{} |\n",
                escape_text(&change_label(review, &g.cause)),
                code_span(&g.reason),
                g.nodes.len()
            ));
        }
        for (what, _, g) in rows {
            out.push_str(&format!(
                "\n<details><summary>level {}, {} {}: {} tests {what} running</summary>\n\n",
                level.level,
                escape_text(&change_label(review, &g.cause)),
                code_span(&g.reason),
                g.nodes.len()
            ));
            for id in g.nodes.iter().take(shown) {
                out.push_str(&format!("- {}\n", code_span(printed(id))));
            }
            if g.nodes.len() > shown {
                out.push_str(&format!(
                    "- … {} more (`torchcts-lsp diff --format json` lists all)\n",
                    g.nodes.len() - shown
                ));
            }
            out.push_str("\n</details>\n");
        }
    }
    if !d.reason_deltas.is_empty() {
        out.push_str(
            "\n<details><summary>Not-run records per reason (new − old)</summary>\n\n| reason | change |\n|---|---:|\n",
        );
        for (r, n) in &d.reason_deltas {
            out.push_str(&format!("| {} | {n:+} |\n", code_span(r)));
        }
        out.push_str("\n</details>\n");
    }
    out
}

fn cause_json(cause: &Cause) -> serde_json::Value {
    let (kind, name) = match cause {
        Cause::Dtype(n) => ("dtype", Some(n.as_str())),
        Cause::Capability(n) => ("capability", Some(n.as_str())),
        Cause::SkipOp(n) => ("skip_op", Some(n.as_str())),
        Cause::SemanticLevel => ("semantic_level", None),
        Cause::DeviceCount => ("device_count", None),
        Cause::Hardware(n) => ("hardware", Some(n.as_str())),
        Cause::ResourceLimit(n) => ("resource_limit", Some(n.as_str())),
        Cause::ContainerFormat(n) => ("container_format", Some(n.as_str())),
        Cause::ContainerDecoder(n) => ("container_decoder", Some(n.as_str())),
        Cause::GeneratedSet => ("generated_set", None),
        Cause::Suite(n) => ("suite", Some(n.as_str())),
    };
    json!({"kind": kind, "name": name})
}

/// Everything, every node id included.
pub fn to_json(review: &Review) -> serde_json::Value {
    let d = &review.diff;
    let group = |what: &str, g: &Group| {
        json!({
            "change": what,
            "cause": cause_json(&g.cause),
            "label": change_label(review, &g.cause),
            "reason": g.reason,
            "count": g.nodes.len(),
            "nodes": g.nodes,
        })
    };
    let deltas = |v: &[(String, i64)]| -> Vec<serde_json::Value> {
        v.iter().map(|(r, n)| json!({"reason": r, "delta": n})).collect()
    };
    json!({
        "device": review.device,
        "old_selection": review.old_selection.label(),
        "new_selection": review.new_selection.label(),
        "summary": summary_line(review),
        "old_running": d.old_running,
        "new_running": d.new_running,
        "started": d.started_count(),
        "stopped": d.stopped_count(),
        "changes": review.changes.iter().map(|c| json!({
            "cause": cause_json(&c.cause), "label": c.label, "started": c.started, "stopped": c.stopped,
        })).collect::<Vec<_>>(),
        "levels": d.levels.iter().map(|l| json!({
            "level": l.level,
            "started": l.started_count(),
            "stopped": l.stopped_count(),
            "groups": l.stopped.iter().map(|g| group("stopped", g)).chain(l.started.iter().map(|g| group("started", g))).collect::<Vec<_>>(),
            "reason_deltas": deltas(&l.reason_deltas),
        })).collect::<Vec<_>>(),
        "reason_deltas": deltas(&d.reason_deltas),
    })
}

/// The effect of a review on one entry of the new manifest (for a lens or a diagnostic).
#[derive(Debug, Clone, PartialEq)]
pub struct EntryEffect {
    /// The entry's key..value in the new text, or the enclosing key when the entry was removed.
    pub span: Span,
    /// The entry's own span was found (false: removed, shown on the enclosing key).
    pub exact: bool,
    pub causes: Vec<CauseChange>,
    pub started: usize,
    pub stopped: usize,
}

/// Where a cause is written in the new manifest: (span, found the entry itself).
fn locate(manifest: &Dict, cause: &Cause) -> Option<(Span, bool)> {
    let top = manifest.get(cause.manifest_key()?)?;
    let whole = |e: &crate::value::Entry| e.key.span.start..e.value.span.end;
    let keyed = |name: &str| -> Option<Span> {
        let dict = top.value.as_dict()?;
        dict.entries.iter().rev().find(|e| e.key.as_str() == Some(name)).map(whole)
    };
    let found = match cause {
        Cause::Dtype(dt) => top.value.as_dict().and_then(|d| {
            d.entries
                .iter()
                .rev()
                .find(|e| match &e.key.kind {
                    ValueKind::Dtype { canonical, .. } => canonical == dt,
                    ValueKind::Str(s) => s == dt,
                    _ => false,
                })
                .map(whole)
        }),
        // Several missing capabilities: the first one written.
        Cause::Capability(names) => names.split(", ").find_map(keyed),
        Cause::SkipOp(op) => match &top.value.kind {
            ValueKind::List(items) | ValueKind::Tuple(items) => {
                items.iter().find(|v| v.as_str() == Some(op.as_str())).map(|v| v.span.clone())
            }
            _ => None,
        },
        Cause::Hardware(k) | Cause::ResourceLimit(k) | Cause::ContainerFormat(k) | Cause::ContainerDecoder(k) => {
            keyed(k)
        }
        Cause::SemanticLevel | Cause::DeviceCount => Some(whole(top)),
        Cause::GeneratedSet | Cause::Suite(_) => None,
    };
    Some(match found {
        Some(span) => (span, true),
        None => (top.key.span.clone(), false),
    })
}

/// The review's changes placed on the entries of the new manifest, in text order.
pub fn entry_effects(review: &Review, manifest: &Dict) -> Vec<EntryEffect> {
    let mut out: Vec<EntryEffect> = Vec::new();
    for change in &review.changes {
        let Some((span, exact)) = locate(manifest, &change.cause) else { continue };
        match out.iter_mut().find(|e| e.span == span) {
            Some(e) => {
                e.started += change.started;
                e.stopped += change.stopped;
                e.causes.push(change.clone());
            }
            None => out.push(EntryEffect {
                span,
                exact,
                causes: vec![change.clone()],
                started: change.started,
                stopped: change.stopped,
            }),
        }
    }
    out.sort_by_key(|e| e.span.start);
    out
}

/// Markdown listing the groups of the given causes (a lens tooltip, a hover).
pub fn groups_markdown(review: &Review, causes: &[Cause], against: &str, shown: usize) -> String {
    let mut out = format!("**vs {against}** ({} on `{}`)\n\n", selection_text(review), review.device);
    for level in review.diff.levels.iter().rev() {
        let rows = level.stopped.iter().map(|g| ("stop", g)).chain(level.started.iter().map(|g| ("start", g)));
        for (what, g) in rows.filter(|(_, g)| causes.contains(&g.cause)) {
            out.push_str(&format!(
                "- level {}: {} tests {what} running, {} `{}`",
                level.level,
                g.nodes.len(),
                change_label(review, &g.cause),
                g.reason
            ));
            let ids: Vec<String> = g.nodes.iter().take(shown).map(|id| format!("`{}`", printed(id))).collect();
            if !ids.is_empty() {
                let more = if g.nodes.len() > shown { ", …" } else { "" };
                out.push_str(&format!(": {}{more}", ids.join(", ")));
            }
            out.push('\n');
        }
    }
    out
}

/// An information note on each dtype or capability switched off since the old version (on
/// there, off or gone now) that stops tests running, naming what it removes.
pub fn switched_off_findings(review: &Review, old: &ManifestFacts, manifest: &Dict, against: &str) -> Vec<Finding> {
    let new = av::facts(manifest);
    let mut out = Vec::new();
    for change in review.changes.iter().filter(|c| c.stopped > 0) {
        let (was_on, is_off, what) = match &change.cause {
            Cause::Dtype(dt) => (
                dtype_value(old, dt).is_some_and(PyValue::truthy),
                dtype_value(&new, dt).is_none_or(|v| !v.truthy()),
                format!("`{dt}`"),
            ),
            Cause::Capability(c) if !c.contains(", ") => (
                old.capability(c).is_some_and(PyValue::truthy),
                new.capability(c).is_none_or(|v| !v.truthy()),
                format!("capability `{c}`"),
            ),
            _ => continue,
        };
        if !(was_on && is_off) {
            continue;
        }
        let Some((span, _)) = locate(manifest, &change.cause) else { continue };
        let mut per_level: Vec<String> = Vec::new();
        let mut examples: Vec<&str> = Vec::new();
        for level in &review.diff.levels {
            let n: usize = level.stopped.iter().filter(|g| g.cause == change.cause).map(|g| g.nodes.len()).sum();
            if n > 0 {
                per_level.push(format!("{n} at level {}", level.level));
            }
            for g in level.stopped.iter().filter(|g| g.cause == change.cause) {
                examples.extend(g.nodes.iter().take(3usize.saturating_sub(examples.len())).map(|id| printed(id)));
            }
        }
        out.push(Finding::new(
            span,
            Severity::Information,
            format!(
                "{what} is switched off since {against}: {} tests stop running ({}), e.g. {}",
                change.stopped,
                per_level.join(", "),
                examples.join(", ")
            ),
            "review-removes-tests",
            Origin::Lsp,
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const BASE: &str = r#"import torch
manifest = {
    "manifest_version": 1,
    "device_name": "cpu",
    "supported_dtypes": {torch.float32: True, torch.float16: True},
    "semantic_level": 3,
    "capabilities": {"inference": True, "training": True},
    "skip_ops": [],
}
"#;

    fn run(old: &str, new: &str) -> (Review, Dict) {
        let (o, n) = (side(old).unwrap(), side(new).unwrap());
        let review = review(Inventory::embedded(), &o.facts, &n.facts, &ReviewOptions::default()).unwrap();
        let analysis = analyze(new, &AnalysisInput::default());
        let manifest = analysis.model.manifest.as_ref().and_then(|m| m.as_dict()).unwrap().clone();
        (review, manifest)
    }

    #[test]
    fn a_dtype_switched_off_stops_tests_attributed_to_its_entry() {
        let new = BASE.replace("torch.float16: True", "torch.float16: False");
        let (review, manifest) = run(BASE, &new);
        assert!(review.diff.stopped_count() > 0);
        assert_eq!(review.diff.started_count(), 0);
        assert_eq!(review.changes[0].cause, Cause::Dtype("torch.float16".into()));
        assert!(summary_line(&review).starts_with("float16 entry: -"), "{}", summary_line(&review));
        assert!(summary_line(&review).contains(" up to level 3"), "{}", summary_line(&review));
        assert_eq!(
            review.diff.new_running as i64 - review.diff.old_running as i64,
            review.diff.started_count() as i64 - review.diff.stopped_count() as i64
        );
        let effects = entry_effects(&review, &manifest);
        let at = new.find("torch.float16: False").unwrap();
        assert!(effects.iter().any(|e| e.exact && e.span.start == at), "{effects:?}");
        let findings = switched_off_findings(&review, &side(BASE).unwrap().facts, &manifest, "HEAD");
        assert_eq!(findings.len(), 1, "{findings:?}");
        assert_eq!(findings[0].severity, Severity::Information);
        assert!(
            findings[0].message.starts_with("`torch.float16` is switched off since HEAD: "),
            "{}",
            findings[0].message
        );
    }

    #[test]
    fn the_reverse_change_starts_the_same_tests() {
        let new = BASE.replace("torch.float16: True", "torch.float16: False");
        let (forward, _) = run(BASE, &new);
        let (back, manifest) = run(&new, BASE);
        assert_eq!(forward.diff.stopped_count(), back.diff.started_count());
        assert_eq!(forward.diff.started_count(), back.diff.stopped_count());
        // Switched on: no "switched off" note.
        assert!(switched_off_findings(&back, &side(&new).unwrap().facts, &manifest, "HEAD").is_empty());
    }

    #[test]
    fn a_skip_ops_entry_added_is_read_as_added() {
        let new = BASE.replace(r#""skip_ops": []"#, r#""skip_ops": ["add"]"#);
        let (review, manifest) = run(BASE, &new);
        assert!(review.changes.iter().any(|c| c.label == "skip_ops += add" && c.stopped > 0), "{:?}", review.changes);
        let effects = entry_effects(&review, &manifest);
        let at = new.find(r#""add""#).unwrap();
        assert!(effects.iter().any(|e| e.exact && e.span.start == at), "{effects:?}");
        let markdown = render_markdown(&review, "HEAD:manifest.py", "manifest.py", 3);
        assert!(markdown.contains("<details>") && markdown.contains("| stop | skip\\_ops += add |"), "{markdown}");
    }

    #[test]
    fn a_removed_capability_is_placed_on_its_dict_and_noted() {
        let new = BASE.replace(r#", "training": True"#, "");
        let (review, manifest) = run(BASE, &new);
        let change = review.changes.iter().find(|c| c.cause == Cause::Capability("training".into())).unwrap();
        assert!(change.stopped > 0);
        let effects = entry_effects(&review, &manifest);
        let at = new.find(r#""capabilities""#).unwrap();
        assert!(effects.iter().any(|e| !e.exact && e.span.start == at), "{effects:?}");
        let findings = switched_off_findings(&review, &side(BASE).unwrap().facts, &manifest, "HEAD");
        assert!(
            findings.iter().any(|f| f.message.starts_with("capability `training` is switched off")),
            "{findings:?}"
        );
    }

    #[test]
    fn no_change_no_groups() {
        let (review, manifest) = run(BASE, BASE);
        assert_eq!(summary_line(&review), "no test starts or stops running");
        assert!(entry_effects(&review, &manifest).is_empty());
        assert!(review.diff.reason_deltas.is_empty());
    }
}
