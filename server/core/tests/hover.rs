//! Hover fixtures: `$0` marks the cursor; the Markdown is snapshotted with expect-test
//! (refresh with `UPDATE_EXPECT=1 cargo test`).

mod fixture;

use expect_test::{expect, Expect};
use fixture::parse_fixture;
use torchcts_core::{analyze, hover::hover, AnalysisInput};

fn check(fixture: &str, expected: Expect) {
    let f = parse_fixture(fixture);
    let analysis = analyze(&f.text, &AnalysisInput::default());
    let result = hover(&analysis, f.cursor.expect("fixture has a $0 cursor"));
    let actual = match result {
        Some(h) => format!("[{}] {}\n{}", h.span.start, &f.text[h.span.clone()], h.markdown),
        None => "no hover".to_string(),
    };
    expected.assert_eq(&actual);
}

const BASE: &str = r#"import torch
manifest = {
    "manifest_version": 1,
    "device_name": "cpu",
    "semantic_level": 4,
    "supported_dtypes": {torch.float16: r"^(add|mul)$", "float32": True},
    "capabilities": {"inference": True, "ieee754": False},
    "hardware": {"memory_model": "unified"},
    "tolerance_overrides": {"matmul:torch.float16": {"rtol": 1e-2, "atol": 1e-2}},
}
"#;

fn with_cursor(needle: &str) -> String {
    let at = BASE.find(needle).unwrap_or_else(|| panic!("{needle} not in BASE")) + 1;
    format!("{}$0{}", &BASE[..at], &BASE[at..])
}

#[test]
fn semantic_level_shows_the_levels_with_the_current_one_marked() {
    check(
        &with_cursor("\"semantic_level\""),
        expect![[r#"
            [83] "semantic_level"
            **semantic_level**: `int 1..8`

            Default test depth: tests up to this semantic level run (`--level` overrides it; default 3 when absent). It does not declare a backend feature.

            | level | meaning |
            |---|---|
            | **1** | Core primitive behavior that every backend should run continuously. |
            | **2** | Normal correctness coverage for common tensor-producing and tensor-consuming surfaces. |
            | **3** | Mainstream framework semantics such as mutation, aliasing, RNG, metadata, and generated variants. |
            | **4** ◀ | Broad production behavior including training/autograd-adjacent and family-specialized cases. |
            | **5** | Advanced numeric, layout, storage, sparse, nested, and stride-sensitive behavior. |
            | **6** | Specialized backend integration such as compiler, device API, allocator, quantization-adjacent, and low-level implementation surfaces. |
            | **7** | Heavy integration and workload coverage that validates realistic model or multi-device behavior. |
            | **8** | Release-depth stress and adversarial coverage intended for exhaustive validation passes. |
        "#]],
    );
}

#[test]
fn capability_key_shows_its_documentation() {
    check(
        &with_cursor("\"ieee754\""),
        expect![[r#"
            [218] "ieee754"
            **capabilities.ieee754**

            NaN/Inf (IEEE-754) test conditions for OpInfo operators: `True` (default), `False`, a regex matched with `re.search` against operator names, or a list of such regexes."#]],
    );
}

#[test]
fn string_dtype_key_warns_that_selection_ignores_it() {
    check(&with_cursor("\"float32\""), expect![[r#"
        [160] "float32"
        **torch.float32** in `supported_dtypes`

        ⚠ check-manifest accepts this key, but test selection only matches the dtype object or its exact canonical string, so this entry has no effect on what runs.

        `True`: every operator · `False`: declared unsupported · regex string: operators whose name `re.search` matches."#]]);
}

#[test]
fn tolerance_override_shows_defaults_beside_the_override() {
    check(&with_cursor("\"matmul:torch.float16\""), expect![[r#"
        [310] "matmul:torch.float16"
        **matmul:torch.float16** tolerance override

        | | rtol | atol |
        |---|---|---|
        | default golden | 0.01 | 0.01 |
        | default usable | 0.05 | 0.05 |
        | **override** | 0.01 | 0.01 |
    "#]]);
}

#[test]
fn hardware_key_and_the_manifest_name() {
    check(&with_cursor("\"memory_model\""), expect![[r#"
        [254] "memory_model"
        **hardware.memory_model**

        `"discrete"` or `"unified"` (device memory shared with the host, as on MPS)."#]]);
    check(&with_cursor("manifest ="), expect![[r#"
        [13] manifest
        **TorchCTS manifest** (torchcts 0.4.1, torch 2.12.1)

        Declares what this backend supports; `torchcts run` selects tests from it.

        | level | meaning |
        |---|---|
        | **1** | Core primitive behavior that every backend should run continuously. |
        | **2** | Normal correctness coverage for common tensor-producing and tensor-consuming surfaces. |
        | **3** | Mainstream framework semantics such as mutation, aliasing, RNG, metadata, and generated variants. |
        | **4** ◀ | Broad production behavior including training/autograd-adjacent and family-specialized cases. |
        | **5** | Advanced numeric, layout, storage, sparse, nested, and stride-sensitive behavior. |
        | **6** | Specialized backend integration such as compiler, device API, allocator, quantization-adjacent, and low-level implementation surfaces. |
        | **7** | Heavy integration and workload coverage that validates realistic model or multi-device behavior. |
        | **8** | Release-depth stress and adversarial coverage intended for exhaustive validation passes. |
    "#]]);
}

#[test]
fn no_hover_outside_the_manifest() {
    check("import torch$0\nmanifest = {}\n", expect![[r#"no hover"#]]);
}
