//! Hints only the inventory can give, on the embedded inventory (torchcts 0.4.1 + torch 2.12.1).

use torchcts_core::accounting_view::Inventory;
use torchcts_core::{analyze, AnalysisInput};

fn hints(text: &str) -> Vec<String> {
    let analysis = analyze(text, &AnalysisInput { inventory: Some(Inventory::embedded()), ..AnalysisInput::default() });
    analysis
        .findings
        .iter()
        .filter(|f| matches!(f.code, "regex-matches-all" | "regex-matches-none" | "unknown-operator"))
        .map(|f| format!("{}: {}", f.code, f.message))
        .collect()
}

#[test]
fn the_templates_bfloat16_lookahead_filters_nothing() {
    // The regex TorchCTS's own inference and training templates use for bfloat16.
    let text = r#"import torch
manifest = {"manifest_version": 1, "device_name": "cpu", "capabilities": {},
    "supported_dtypes": {torch.bfloat16: r"^(?!aten\.linalg_|aten\.fft_)", torch.float16: r"^zzz_no_such_op$"}}
"#;
    let found = hints(text);
    assert_eq!(found.len(), 2, "{found:#?}");
    assert!(
        found[0].starts_with("regex-matches-all: This torch.bfloat16 regex lets in every operator of the suite"),
        "{found:#?}"
    );
    assert_eq!(found[1], "regex-matches-none: This torch.float16 regex matches no operator of the suite");
}

#[test]
fn skip_ops_names_that_are_no_operator_get_the_nearest_names() {
    let text = r#"manifest = {"manifest_version": 1, "device_name": "cpu", "capabilities": {}, "skip_ops": ["add", "matmull"]}
"#;
    let found = hints(text);
    assert_eq!(found.len(), 1, "{found:#?}");
    assert!(found[0].starts_with("unknown-operator: 'matmull' is not an operator of the TorchCTS suite"), "{found:#?}");
    assert!(found[0].contains("nearest operator names skip_ops accepts: matmul"), "{found:#?}");
}

#[test]
fn nearest_names_skip_only_candidates_too_far_by_length() {
    // `nearest` rules out a candidate by its length before computing the distance: the
    // answer must be the one scoring every candidate gives.
    use torchcts_core::edit_distance::{levenshtein, nearest};
    let names = Inventory::embedded().operator_names();
    let scored_in_full = |name: &str| {
        let max = (name.chars().count() / 3).max(2);
        let mut scored: Vec<(usize, &str)> = names
            .iter()
            .map(|c| (levenshtein(&name.to_lowercase(), &c.to_lowercase()), *c))
            .filter(|(d, c)| *d <= max || (name.len() >= 4 && c.contains(name)))
            .collect();
        scored.sort();
        scored.into_iter().take(3).map(|(_, c)| c.to_string()).collect::<Vec<_>>()
    };
    for name in ["matmull", "MatMul", "_nested_tensor_from_mask", "nested", "softmax", "ad", "lin", "İstanbul_add", "x"]
    {
        let near = nearest(name, &names, 3);
        assert_eq!(near, scored_in_full(name), "{name}");
    }
    assert_eq!(nearest("matmull", &names, 3)[0], "matmul");
}
