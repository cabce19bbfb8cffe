//! Which manifest entry a test run can be about: the decision behind "Run affected tests"
//! (the run itself is the runner crate's; the glue only offers the action).

use crate::accounting_view::ManifestFacts;
use crate::analysis::Analysis;
use crate::locate::{Role, Target};
use crate::value::ValueKind;

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

/// One step below a section in a key path: `.name`, `["name"]` or `[index]`.
enum Step {
    Name(String),
    Index(usize),
}

/// `section.name` (the name may hold dots: `supported_dtypes.torch.float32`),
/// `section["name"]`, `section['name']` or `section[index]`.
fn parse_key_path(path: &str) -> Result<(&str, Step), String> {
    let path = path.trim();
    let end = path.find(['.', '[']).ok_or_else(|| format!("`{path}`: expected SECTION.NAME or SECTION[INDEX]"))?;
    let (section, rest) = path.split_at(end);
    if section.is_empty() {
        return Err(format!("`{path}`: no section before `{rest}`"));
    }
    let step = if let Some(name) = rest.strip_prefix('.') {
        Step::Name(name.to_string())
    } else {
        let inner = rest
            .strip_prefix('[')
            .and_then(|r| r.strip_suffix(']'))
            .ok_or_else(|| format!("`{path}`: an unclosed `[`"))?;
        let quoted = ['"', '\''].iter().find_map(|q| inner.strip_prefix(*q).and_then(|i| i.strip_suffix(*q)));
        match (quoted, inner.parse::<usize>()) {
            (Some(name), _) => Step::Name(name.to_string()),
            (None, Ok(index)) => Step::Index(index),
            (None, Err(_)) => return Err(format!("`{path}`: `[{inner}]` is neither an index nor a quoted name")),
        }
    };
    Ok((section, step))
}

/// The entry a key path names (`capabilities.autograd`, `supported_dtypes.torch.float32`,
/// `skip_ops[2]`, `skip_ops.cos`), as the editor's run action finds the entry under the
/// cursor; an error says what the path does not find and what is there.
pub fn target_at_key_path(analysis: &Analysis, key_path: &str) -> Result<Target, String> {
    let (section, step) = parse_key_path(key_path)?;
    let manifest = analysis.model.manifest.as_ref().and_then(|m| m.as_dict()).ok_or("the manifest is no dict")?;
    let entry = manifest.get(section).ok_or_else(|| format!("the manifest has no `{section}`"))?;
    let span = match &entry.value.kind {
        ValueKind::List(items) | ValueKind::Tuple(items) => {
            let found = match &step {
                Step::Index(i) => items.get(*i),
                Step::Name(name) => items.iter().find(|item| item.as_str() == Some(name.as_str())),
            };
            let names: Vec<String> = items.iter().filter_map(|i| i.as_str().map(|s| format!("{s:?}"))).collect();
            found
                .ok_or_else(|| format!("`{key_path}`: `{section}` holds {} items: {}", items.len(), names.join(", ")))?
                .span
                .clone()
        }
        ValueKind::Dict(dict) => {
            let key = |e: &crate::value::Entry| crate::entry_notes::key_name(e, &analysis.text);
            let found = match &step {
                Step::Index(i) => dict.entries.get(*i),
                Step::Name(name) => dict.entries.iter().find(|e| key(e) == *name),
            };
            let names: Vec<String> = dict.entries.iter().map(key).collect();
            found
                .ok_or_else(|| format!("`{key_path}`: the keys of `{section}` are {}", names.join(", ")))?
                .key
                .span
                .clone()
        }
        _ => return Err(format!("`{key_path}`: `{section}` is no list or dict")),
    };
    // Inside the key or item (a string's quote is part of it), as a cursor would be.
    let at = if span.len() > 1 { span.start + 1 } else { span.start };
    crate::locate::locate(&analysis.tree, &analysis.text, at).ok_or_else(|| format!("`{key_path}`: no entry there"))
}

#[cfg(test)]
mod tests {
    use super::{is_runnable_entry, target_at_key_path};
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
    fn key_paths_find_the_entry_a_cursor_would() {
        let analysis = analyze(MANIFEST, &AnalysisInput::default());
        let at = |path: &str| target_at_key_path(&analysis, path).map(|t| t.path_strs().join("/"));
        let cursor = |needle: &str| {
            let offset = MANIFEST.find(needle).unwrap() + 1;
            crate::locate::locate(&analysis.tree, &analysis.text, offset).unwrap().path_strs().join("/")
        };
        assert_eq!(at("capabilities.autograd"), Ok(cursor("\"autograd\"")));
        assert_eq!(at("capabilities[\"sparse\"]"), Ok(cursor("\"sparse\"")));
        assert_eq!(at("capabilities[1]"), Ok(cursor("\"sparse\"")));
        assert_eq!(at("supported_dtypes.torch.float32"), Ok(cursor("\"torch.float32\"")));
        assert_eq!(at("skip_ops[0]"), Ok(cursor("\"add\"")));
        assert_eq!(at("skip_ops.add"), Ok("skip_ops".to_string()));
        let item = target_at_key_path(&analysis, "skip_ops[0]").unwrap();
        assert!(matches!(item.role, crate::locate::Role::ListItem(_)));
        assert_eq!(at("skip_ops[1]"), Err("`skip_ops[1]`: `skip_ops` holds 1 items: \"add\"".to_string()));
        assert_eq!(
            at("capabilities.autgrad"),
            Err("`capabilities.autgrad`: the keys of `capabilities` are autograd, sparse".to_string())
        );
        assert_eq!(at("hardware.x"), Err("the manifest has no `hardware`".to_string()));
        assert!(at("skip_ops").unwrap_err().contains("expected SECTION.NAME"));
        assert!(at("skip_ops[x]").unwrap_err().contains("neither an index"));
        assert!(at("semantic_level.x").unwrap_err().contains("no list or dict"));
    }

    #[test]
    fn false_capabilities_and_other_keys_cannot() {
        assert!(!runnable_at("\"sparse\""));
        assert!(!runnable_at("\"semantic_level\""));
    }
}
