//! Behaviour of the engine on small manifests, beyond the parity corpus.

use accounting::{account, render_show_skips, Inventory, LevelSelection, ManifestFacts, PyValue};

fn facts(dtypes: &[(&str, PyValue)], caps: &[(&str, PyValue)]) -> ManifestFacts {
    let mut f = ManifestFacts::default();
    for (k, v) in dtypes {
        f.supported_dtypes.push((PyValue::Dtype(k.to_string()), v.clone()));
    }
    for (k, v) in caps {
        f.capabilities.push((k.to_string(), v.clone()));
    }
    f
}

#[test]
fn counts_are_consistent_at_every_level() {
    let inv = Inventory::embedded();
    let f = facts(&[("torch.float32", PyValue::Bool(true))], &[("inference", PyValue::Bool(true))]);
    for level in 1..=8 {
        let acc = account(inv, &f, "cpu", LevelSelection::Cumulative(level));
        assert_eq!(acc.included + acc.deselected, acc.collected);
        assert_eq!(acc.levels.iter().map(|l| l.collected).sum::<usize>(), acc.collected);
        let counted: usize = acc.reason_counts.iter().map(|(_, n)| n).sum();
        assert_eq!(counted, acc.record_count);
        assert!(acc.executable <= acc.included);
    }
}

#[test]
fn empty_dtypes_collect_placeholders() {
    let inv = Inventory::embedded();
    let acc = account(inv, &ManifestFacts::default(), "cpu", LevelSelection::Cumulative(8));
    let ids: Vec<String> = acc.records().iter().map(|r| acc.printed_id(r)).collect();
    assert!(ids.iter().any(|i| i == "test_opinfo_forward.py::test_op_forward[clean-dummy-dummy]"));
    assert!(ids.iter().any(|i| i == "test_opinfo_backward.py::test_op_backward[dummy-dummy]"));
    assert!(ids.iter().any(|i| i == "test_foreach_fused.py::test_generated_foreach_or_fused[no-audit]"));
    let text = render_show_skips(&acc);
    assert!(text.contains("dummy not in supported_dtypes"));
}

#[test]
fn skip_ops_remove_opinfo_nodes_silently() {
    let inv = Inventory::embedded();
    let base = facts(&[("torch.float32", PyValue::Bool(true))], &[("inference", PyValue::Bool(true))]);
    let mut skipped = base.clone();
    skipped.skip_ops.push("add".into());
    let a = account(inv, &base, "cpu", LevelSelection::Cumulative(8));
    let b = account(inv, &skipped, "cpu", LevelSelection::Cumulative(8));
    assert!(b.collected < a.collected);
    assert!(!b.records().iter().any(|r| b.printed_id(r).contains("test_op_forward[clean-add-")));
}

#[test]
fn lookahead_regex_lets_every_operator_in() {
    let inv = Inventory::embedded();
    let all = inv.operator_names().len();
    let hits = inv.regex_matches(r"^(?!aten\.linalg_|aten\.fft_)").unwrap();
    assert_eq!(hits.len(), all);
    assert!(inv.regex_matches("(").is_err());
}

#[test]
fn invalid_regex_is_reported_not_guessed() {
    let inv = Inventory::embedded();
    let f = facts(&[("torch.float32", PyValue::Str("(".into()))], &[]);
    let acc = account(inv, &f, "cpu", LevelSelection::Cumulative(3));
    assert!(acc.problems.iter().any(|p| p.message.contains("re.error")));
}

#[test]
fn unknown_device_names_are_flagged() {
    let inv = Inventory::embedded();
    let f = facts(&[("torch.float32", PyValue::Bool(true))], &[]);
    let acc = account(inv, &f, "npu_custom", LevelSelection::Cumulative(3));
    assert!(acc.device.assumed);
    assert!(!acc.not_modelled.is_empty());
}
