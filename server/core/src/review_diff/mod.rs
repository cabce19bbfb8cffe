//! Review of a manifest change: which tests start and stop running between an old and a new
//! version of a manifest, attributed to the manifest entries that cause them.
//!
//! Both versions are evaluated statically and accounted with the show-skips engine on the
//! same device; [`accounting::diff::diff`] compares the two accountings node by node. This
//! module names the changes the way a reviewer reads them ("float16 entry", "skip_ops +=
//! index_reduce"), finds the entry each change belongs to in the new text (for editor lenses
//! and diagnostics), and renders the result as text, JSON or a pull-request comment.
//!
//! [`compute`]: the two sides and their comparison; [`render`]: labels and the three
//! formats; [`place`]: where each change sits in the new text.

mod compute;
mod place;
mod render;

pub use accounting::diff::{AccountingDiff, Cause, Group, LevelDiff, NOT_COLLECTED};
pub use compute::{label, review, review_of, review_prepared, side, CauseChange, Review, ReviewOptions, Side};
pub use place::{entry_effects, switched_off_findings, EntryEffect};
pub use render::{groups_markdown, render_markdown, render_text, signed_counts, summary_line, to_json};

#[cfg(test)]
mod tests {
    use super::*;
    use crate::accounting_view::Inventory;
    use crate::findings::Severity;
    use crate::value::Dict;
    use crate::{analyze, AnalysisInput};

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
        let change = review.changes.iter().find(|c| c.cause == Cause::Capability(vec!["training".into()])).unwrap();
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
