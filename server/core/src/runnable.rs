//! Which manifest entry a test run can be about: the decision behind "Run affected tests"
//! (the run itself is the runner crate's; the glue only offers the action).

use crate::accounting_view::ManifestFacts;
use crate::locate::{Role, Target};

/// Whether "run the tests this entry affects" means something for the entry at `target`:
/// a `supported_dtypes` entry; a capability, while it is True in the manifest (tests it
/// gates only run then); an item of `skip_ops` (its tests run on a scratch copy without it).
pub fn is_runnable_entry(target: &Target, facts: &ManifestFacts) -> bool {
    match target.path_strs().as_slice() {
        ["supported_dtypes", _] => true,
        ["capabilities", capability] => facts.capability(capability).is_some_and(|v| v.truthy()),
        ["skip_ops"] => matches!(target.role, Role::ListItem(_)),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::is_runnable_entry;
    use crate::accounting_view::facts;
    use crate::{analyze, AnalysisInput};

    const MANIFEST: &str = "manifest = {\n    \"supported_dtypes\": {\"torch.float32\": {}},\n    \"capabilities\": {\"autograd\": True, \"sparse\": False},\n    \"skip_ops\": [\"add\"],\n    \"semantic_level\": 2,\n}\n";

    fn runnable_at(needle: &str) -> bool {
        let analysis = analyze(MANIFEST, &AnalysisInput::default());
        let manifest = analysis.model.manifest.as_ref().and_then(|m| m.as_dict()).expect("a dict manifest");
        let offset = MANIFEST.find(needle).expect("needle in the manifest") + 1;
        let target = crate::locate::locate(&analysis.tree, &analysis.text, offset).expect("an entry under the cursor");
        is_runnable_entry(&target, &facts(manifest))
    }

    #[test]
    fn dtype_entries_true_capabilities_and_skip_items_can_run() {
        assert!(runnable_at("\"torch.float32\""));
        assert!(runnable_at("\"autograd\""));
        assert!(runnable_at("\"add\""));
    }

    #[test]
    fn false_capabilities_and_other_keys_cannot() {
        assert!(!runnable_at("\"sparse\""));
        assert!(!runnable_at("\"semantic_level\""));
    }
}
