//! The incremental what-if (`accounting_view::what_if`: only the item groups an entry
//! touches are decided again; `accounting_view::Questions`: the same with the base
//! accounting kept per unit) against a whole accounting of the changed facts, for every
//! entry of every manifest of the skips parity corpus and the example, on several devices.
//! The whole accounting is the oracle; any group the incremental path misses shows here.

use std::path::{Path, PathBuf};
use torchcts_core::accounting_view::{self as av, Inventory, ManifestFacts, PyValue};
use torchcts_core::{analyze, AnalysisInput};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Every manifest of the skips corpus, then the example.
fn corpus_paths() -> Vec<PathBuf> {
    let mut paths: Vec<PathBuf> = std::fs::read_dir(root().join("tests/parity/skips/cases"))
        .expect("skips corpus")
        .flatten()
        .map(|e| e.path().join("manifest.py"))
        .filter(|p| p.is_file())
        .collect();
    paths.sort();
    paths.push(root().join("examples/manifest.py"));
    paths
}

/// (name, facts) of every corpus manifest and the example.
fn corpus() -> Vec<(String, ManifestFacts)> {
    corpus_paths()
        .into_iter()
        .map(|path| {
            let text = std::fs::read_to_string(&path).expect("manifest text");
            let analysis = analyze(&text, &AnalysisInput::default());
            let manifest = analysis.model.manifest.as_ref().and_then(|m| m.as_dict()).expect("a manifest dict");
            (path.display().to_string(), av::facts(manifest))
        })
        .collect()
}

/// Every entry changed the ways the editor asks about it: each capability flipped and set
/// to False (hover, inlay hints), each dtype entry removed (inlay hints, hover) or its value
/// changed, each `skip_ops` entry removed, and capabilities the manifest lacks added.
fn variations(base: &ManifestFacts) -> Vec<(String, ManifestFacts)> {
    let mut out = Vec::new();
    let set_capability = |name: &str, value: PyValue| {
        let mut f = base.clone();
        f.capabilities.retain(|(k, _)| k != name);
        f.capabilities.push((name.to_string(), value));
        f
    };
    let mut names: Vec<&str> = base.capabilities.iter().map(|(k, _)| k.as_str()).collect();
    names.extend(["training", "autograd", "rng", "device_generator", "sparse", "multi_device", "quantization"]);
    for name in names {
        let current = base.capability(name).map(PyValue::truthy).unwrap_or(false);
        out.push((format!("capability {name} flipped"), set_capability(name, PyValue::Bool(!current))));
        out.push((format!("capability {name} False"), set_capability(name, PyValue::Bool(false))));
    }
    for i in 0..base.supported_dtypes.len() {
        let key = base.supported_dtypes[i].0.repr();
        let mut without = base.clone();
        without.supported_dtypes.remove(i);
        out.push((format!("dtype {key} removed"), without));
        for value in [PyValue::Bool(false), PyValue::Bool(true), PyValue::Str("^(add|mul|sum.*)$".into())] {
            let mut f = base.clone();
            f.supported_dtypes[i].1 = value.clone();
            out.push((format!("dtype {key} = {}", value.repr()), f));
        }
    }
    for (i, op) in base.skip_ops.iter().enumerate() {
        let mut without = base.clone();
        without.skip_ops.remove(i);
        out.push((format!("skip_ops {op} removed"), without));
    }
    out
}

#[test]
fn incremental_what_if_equals_a_whole_accounting() {
    let inventory = Inventory::embedded();
    let corpus = corpus();
    assert!(corpus.len() >= 10, "only {} manifests", corpus.len());
    let (mut compared, mut differing) = (0, 0);
    for (name, facts) in &corpus {
        for device in [None, Some("cuda"), Some("mps"), Some("my_backend")] {
            let summary = av::summarize(inventory, facts, device);
            let questions = av::Questions::new(inventory, &summary);
            for (what, changed) in variations(facts) {
                let incremental = av::what_if(inventory, &summary, &changed, Some(&summary.device));
                let whole = av::summarize(inventory, &changed, Some(&summary.device)).levels;
                assert_eq!(incremental, whole, "{name}, device {}: {what}", summary.device);
                let kept_per_unit = questions.what_if(&changed);
                assert_eq!(kept_per_unit, whole, "{name}, device {}, base kept per unit: {what}", summary.device);
                compared += 1;
                differing += usize::from(whole != summary.levels);
            }
        }
    }
    // The comparison means something only if most changes change the counts.
    assert!(differing * 2 > compared, "{differing} of {compared} changes changed the counts");
}

/// The inlay hints (`entry_counts`, incremental what-ifs) against whole accountings of the
/// manifest without each entry's effect: each dtype entry removed, each declared capability
/// set to False, in the order of the entries.
#[test]
fn inlay_hints_equal_whole_accountings_of_each_entry_removed() {
    let inventory = Inventory::embedded();
    let mut compared = 0;
    for path in corpus_paths() {
        let text = std::fs::read_to_string(&path).expect("manifest text");
        let analysis = analyze(&text, &AnalysisInput::default());
        let manifest = analysis.model.manifest.as_ref().and_then(|m| m.as_dict()).expect("a manifest dict");
        let facts = av::facts(manifest);
        let summary = av::summarize(inventory, &facts, None);
        let level = av::selected_level(&summary);
        let base_run = av::runnable_up_to(&summary, level) as i64;
        let tests = |changed: &ManifestFacts| {
            let whole = av::summarize(inventory, changed, Some(&summary.device));
            format!("{} tests", base_run - av::runnable_up_to(&whole, level) as i64)
        };
        let mut expected = Vec::new();
        if let Some(e) = manifest.get("semantic_level") {
            expected
                .push((e.value.span.end, format!("{base_run} run · {} filtered", av::filtered_up_to(&summary, level))));
        }
        if let Some(caps) = manifest.get("capabilities").and_then(|e| e.value.as_dict()) {
            for entry in &caps.entries {
                let Some(name) = entry.key.as_str() else { continue };
                if entry.value.truthy() == Some(true) && name != "ieee754" {
                    let mut off = facts.clone();
                    off.capabilities.retain(|(k, _)| k != name);
                    off.capabilities.push((name.to_string(), PyValue::Bool(false)));
                    expected.push((entry.value.span.end, tests(&off)));
                }
            }
        }
        if let Some(dtypes) = manifest.get("supported_dtypes").and_then(|e| e.value.as_dict()) {
            for (i, entry) in dtypes.entries.iter().enumerate().take(facts.supported_dtypes.len()) {
                let mut without = facts.clone();
                without.supported_dtypes.remove(i);
                expected.push((entry.value.span.end, tests(&without)));
            }
        }
        assert_eq!(av::entry_counts(inventory, manifest, &summary), expected, "{}", path.display());
        compared += expected.len();
    }
    assert!(compared > 100, "only {compared} hints compared");
}
