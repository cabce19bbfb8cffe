use super::context::new_context;
use super::preflight::generated_preflight;
use super::result::Record;
use super::*;
use crate::engine::dependents::PreflightMasks;
use crate::facts::PyValue;

/// The parity manifests and variations of them: every dtype flipped,
/// regex-valued, removed; every capability flipped; skip_ops added;
/// ieee754 as a pattern.
fn manifests() -> Vec<ManifestFacts> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/parity/skips/cases");
    let mut bases = Vec::new();
    let mut entries: Vec<_> = std::fs::read_dir(&dir).expect("parity cases").flatten().collect();
    entries.sort_by_key(|e| e.file_name());
    for e in entries {
        let Ok(text) = std::fs::read_to_string(e.path().join("manifest.json")) else { continue };
        let json = serde_json::from_str(&text).expect("manifest json");
        bases.push(ManifestFacts::from_tagged_json(&json).expect("facts"));
    }
    let mut out = Vec::new();
    for base in bases.iter().take(4) {
        for i in 0..base.supported_dtypes.len() {
            for v in [PyValue::Bool(false), PyValue::Str("^(add|mul|sum.*)$".into())] {
                let mut f = base.clone();
                f.supported_dtypes[i].1 = v;
                out.push(f);
            }
            let mut f = base.clone();
            f.supported_dtypes.remove(i);
            out.push(f);
        }
        for i in 0..base.capabilities.len() {
            let mut f = base.clone();
            let flipped = !f.capabilities[i].1.truthy();
            f.capabilities[i].1 = PyValue::Bool(flipped);
            out.push(f);
        }
        let mut f = base.clone();
        f.skip_ops.extend(["add", "aten.add.Tensor", "mul", "torch.nn.functional.conv2d", "sum"].map(String::from));
        out.push(f);
        let mut f = base.clone();
        f.capabilities.push(("ieee754".into(), PyValue::Str("^(add|div|exp)".into())));
        out.push(f);
        // Every dtype a regex: generated entries' preflight then hinges on their names.
        for pattern in ["backward", "^aten::_", "^(add|mul)"] {
            let mut f = base.clone();
            for (_, v) in f.supported_dtypes.iter_mut() {
                *v = PyValue::Str(pattern.into());
            }
            out.push(f);
        }
    }
    out.extend(bases);
    out
}

/// The preflight by facts and masks (what-if questions) against the preflight itself.
#[test]
fn generated_preflight_by_masks_equals_the_preflight() {
    let inv = Inventory::embedded();
    let (mut compared, mut filtered) = (0, 0);
    for facts in manifests() {
        for device in ["cpu", "cuda"] {
            let (mut ctx, _) = new_context(inv, &facts, device, LevelSelection::Cumulative(8), None);
            for (g, gen) in inv.generated.iter().enumerate() {
                let masks = PreflightMasks::of(inv, gen);
                assert!(masks.is_some(), "the inventory's dtypes fit a mask");
                let Some(by_masks) = ctx.generated_filters_by_facts(g as u32, masks.as_ref()) else { continue };
                let real = generated_preflight(&mut ctx, g as u32).is_some();
                assert_eq!(by_masks, real, "{}: {facts:?} on {device}", inv.string(gen.name));
                compared += 1;
                filtered += usize::from(real);
            }
            ctx.return_regex_entries();
        }
    }
    assert!(filtered > 1000 && compared - filtered > 1000, "{filtered} filtered of {compared}");
}

/// Known backend crashes come from device facts only, so the stored records hold them all.
#[test]
fn device_fact_records_are_all_the_crash_records() {
    let inv = Inventory::embedded();
    let mut crashes = 0;
    for facts in manifests().iter().take(12) {
        for device in ["cuda", "mps", "xpu", "cpu"] {
            let acc = account(inv, facts, device, LevelSelection::Cumulative(8));
            let all: Vec<Record> =
                acc.records().into_iter().filter(|r| acc.reason_name(r.reason) == "known_backend_crash").collect();
            assert_eq!(acc.device_fact_records("known_backend_crash"), all, "{device}");
            crashes += all.len();
        }
    }
    assert!(crashes > 0, "no known_backend_crash record in the corpus manifests");
}

#[test]
fn groups_decide_like_the_chain_item_by_item() {
    let inv = Inventory::embedded();
    let manifests = manifests();
    assert!(manifests.len() > 40, "only {} manifests", manifests.len());
    for (k, facts) in manifests.iter().enumerate() {
        for (device, selection) in [
            ("cpu", LevelSelection::Cumulative(8)),
            ("cuda", LevelSelection::Cumulative(2)),
            ("my_backend", LevelSelection::Range(3, 5)),
        ] {
            let fast = account_with(inv, facts, device, selection, Grouping::Groups, false).0;
            let slow = account_with(inv, facts, device, selection, Grouping::ItemByItem, false).0;
            let what = format!("manifest {k}, {device}, {selection:?}");
            assert_eq!(
                (fast.collected, fast.deselected, fast.executable),
                (slow.collected, slow.deselected, slow.executable),
                "{what}"
            );
            assert_eq!(fast.levels, slow.levels, "{what}");
            assert_eq!(fast.reason_counts, slow.reason_counts, "{what}");
            assert_eq!(fast.records(), slow.records(), "{what}");
            assert_eq!(fast.executable_nodes(), slow.executable_nodes(), "{what}");
        }
    }
}
