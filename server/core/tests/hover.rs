//! Hover fixtures: `$0` marks the cursor; the Markdown is snapshotted with expect-test
//! (refresh with `UPDATE_EXPECT=1 cargo test`).

mod fixture;

use expect_test::{expect, Expect};
use fixture::parse_fixture;
use torchcts_core::accounting_view::{facts, summarize, Inventory};
use torchcts_core::hover::{hover, Counts};
use torchcts_core::{analyze, AnalysisInput};

/// Hover with counts from the embedded inventory (torchcts 0.4.1 + torch 2.12.1).
fn check_counts(fixture: &str, expected: Expect) {
    let f = parse_fixture(fixture);
    let analysis = analyze(&f.text, &AnalysisInput::default());
    let inventory = Inventory::embedded();
    let manifest = analysis.model.manifest.as_ref().and_then(|m| m.as_dict()).expect("manifest dict");
    let summary = summarize(inventory, &facts(manifest), None);
    let counts = Counts { inventory, summary: &summary };
    let result = hover(&analysis, f.cursor.expect("fixture has a $0 cursor"), Some(&counts));
    expected.assert_eq(&result.map(|h| h.markdown).unwrap_or_else(|| "no hover".into()));
}

fn check(fixture: &str, expected: Expect) {
    let f = parse_fixture(fixture);
    let analysis = analyze(&f.text, &AnalysisInput::default());
    let result = hover(&analysis, f.cursor.expect("fixture has a $0 cursor"), None);
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
    check(
        &with_cursor("\"float32\""),
        expect![[r#"
        [160] "float32"
        **torch.float32** in `supported_dtypes`

        ⚠ check-manifest accepts this key, but test selection only matches the dtype object or its exact canonical string, so this entry has no effect on what runs.

        `True`: every operator · `False`: declared unsupported · regex string: operators whose name `re.search` matches."#]],
    );
}

#[test]
fn tolerance_override_shows_defaults_beside_the_override() {
    check(
        &with_cursor("\"matmul:torch.float16\""),
        expect![[r#"
        [310] "matmul:torch.float16"
        **matmul:torch.float16** tolerance override

        | | rtol | atol |
        |---|---|---|
        | default golden | 0.01 | 0.01 |
        | default usable | 0.05 | 0.05 |
        | **override** | 0.01 | 0.01 |
    "#]],
    );
}

#[test]
fn hardware_key_and_the_manifest_name() {
    check(
        &with_cursor("\"memory_model\""),
        expect![[r#"
        [254] "memory_model"
        **hardware.memory_model**

        `"discrete"` or `"unified"` (device memory shared with the host, as on MPS)."#]],
    );
    check(
        &with_cursor("manifest ="),
        expect![[r#"
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
    "#]],
    );
}

#[test]
fn no_hover_outside_the_manifest() {
    check("import torch$0\nmanifest = {}\n", expect![[r#"no hover"#]]);
}

const COUNTED: &str = r#"import torch
manifest = {
    "manifest_version": 1,
    "device_name": "cpu",
    "semantic_level": 2,
    "supported_dtypes": {torch.float32: True, torch.float16: r"^(add|mul|matmul)$"},
    "capabilities": {"inference": True, "training": False},
    "skip_ops": ["add", "not_an_op"],
}
"#;

fn counted(needle: &str) -> String {
    let at = COUNTED.find(needle).unwrap_or_else(|| panic!("{needle} not in COUNTED")) + 1;
    format!("{}$0{}", &COUNTED[..at], &COUNTED[at..])
}

#[test]
fn semantic_level_table_with_run_and_filtered_counts() {
    check_counts(
        &counted("\"semantic_level\""),
        expect![[r#"
        **semantic_level**: `int 1..8`

        Default test depth: tests up to this semantic level run (`--level` overrides it; default 3 when absent). It does not declare a backend feature.

        | level | meaning |
        |---|---|
        | **1** | Core primitive behavior that every backend should run continuously. |
        | **2** ◀ | Normal correctness coverage for common tensor-producing and tensor-consuming surfaces. |
        | **3** | Mainstream framework semantics such as mutation, aliasing, RNG, metadata, and generated variants. |
        | **4** | Broad production behavior including training/autograd-adjacent and family-specialized cases. |
        | **5** | Advanced numeric, layout, storage, sparse, nested, and stride-sensitive behavior. |
        | **6** | Specialized backend integration such as compiler, device API, allocator, quantization-adjacent, and low-level implementation surfaces. |
        | **7** | Heavy integration and workload coverage that validates realistic model or multi-device behavior. |
        | **8** | Release-depth stress and adversarial coverage intended for exhaustive validation passes. |

        **On `cpu`** (requested <= 2):

        | level | run | filtered | run up to here |
        |---|---|---|---|
        | 1 | 372 | 50 | 372 |
        | 2 ◀ | 2087 | 2428 | 2459 |
        | 3 | 636 | 449 | 3095 |
        | 4 | 260 | 395 | 3355 |
        | 5 | 1170 | 78 | 4525 |
        | 6 | 19 | 180 | 4544 |
        | 7 | 152 | 40 | 4696 |
        | 8 | 19 | 11 | 4715 |

        show-skips: 2461/6739 tests collected (4278 deselected), 5887 not-run records.
    "#]],
    );
}

#[test]
fn dtype_regex_entry_shows_matched_operators_and_what_it_changes() {
    check_counts(
        &counted("torch.float16"),
        expect![[r#"
        **torch.float16** in `supported_dtypes`

        `True`: every operator · `False`: declared unsupported · regex string: operators whose name `re.search` matches.

        The regex lets in **3 of 3020** operators of the suite.

        Matched: `add`, `mul`, `matmul`

        Nearby, not matched: `add_`, `addr`, `mul_`, `abs`, `addmm`, `addmv`

        At level 2 on `cpu`, this entry accounts for **4 run** and **1607 filtered** tests (the difference with the entry removed).
    "#]],
    );
}

#[test]
fn capability_shows_what_flipping_it_changes_per_level() {
    check_counts(
        &counted("\"training\""),
        expect![[r#"
        **capabilities.training**

        Training workflows: backward passes and optimizer steps.

        Setting it to `True` changes the tests that run on `cpu`:

        | level | change |
        |---|---|
        | 2 | +431 |
        | 3 | +37 |
        | 4 | +9 |

        At level 2: +431 tests.
    "#]],
    );
}

#[test]
fn skip_ops_entry_shows_the_tests_it_removes() {
    check_counts(
        &counted("\"add\", "),
        expect![[r#"
        **skip_ops**: `list[str]`

        Operator names the backend explicitly does not claim. Matching is exact: OpInfo tests of these operators are not generated, other tests of them are deselected (`op_excluded`).

        Skipping `add` removes **8** tests at level 2 on `cpu`.
    "#]],
    );
    check_counts(
        &counted("\"not_an_op\""),
        expect![[r#"
        **skip_ops**: `list[str]`

        Operator names the backend explicitly does not claim. Matching is exact: OpInfo tests of these operators are not generated, other tests of them are deselected (`op_excluded`).

        `not_an_op` is not an operator of the suite: this entry removes nothing.
    "#]],
    );
}

/// The MPS excerpt of configure-backend.txt: on torch 2.12.x torchcts' known-segfault ledger
/// records 6 tests at level 4 as `known_backend_crash` (the real show-skips lists these 6).
#[test]
fn device_name_lists_the_known_backend_crashes_of_the_ledger() {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../tests/parity/skips/cases/mps_excerpt_l2/manifest.py"
    ))
    .expect("the MPS excerpt is in the corpus");
    let at = text.find("\"device_name\"").unwrap() + 1;
    let f = parse_fixture(&format!("{}$0{}", &text[..at], &text[at..]));
    let analysis = analyze(&f.text, &AnalysisInput::default());
    let inventory = Inventory::for_torch("2.12.1").expect("2.12.1 is embedded");
    let manifest = analysis.model.manifest.as_ref().and_then(|m| m.as_dict()).expect("manifest dict");
    let summary = summarize(inventory, &facts(manifest), None);
    let markdown =
        hover(&analysis, f.cursor.unwrap(), Some(&Counts { inventory, summary: &summary })).unwrap().markdown;
    assert!(markdown.contains("**6 known backend crashes** on `mps`"), "{markdown}");
    for id in [
        "test_backward.py::test_internal_dispatcher_surface[grid2_cpu_fallback_default]",
        "test_backward.py::test_internal_dispatcher_surface[grid2_cpu_fallback_out]",
        "test_backward.py::test_internal_dispatcher_surface[grid2_cpu_fallback_backward]",
        "test_functional_variants.py::test_generated_functional_variant[_grid_sampler_2d_cpu_fallback[L3]]",
        "test_out_variants.py::test_generated_out_variant[_grid_sampler_2d_cpu_fallback.out[L3]]",
        "test_out_variants.py::test_generated_out_variant[range.out_[L2]]",
    ] {
        assert!(markdown.contains(&format!("- `{id}`")), "{id} missing:\n{markdown}");
    }
    // Rooted at the package (venv and manifest share only `/`), the ledger cannot match.
    let mut rooted = facts(manifest);
    rooted.layout.rooted_at_package = true;
    assert!(summarize(inventory, &rooted, None).known_crashes.is_empty());
}
