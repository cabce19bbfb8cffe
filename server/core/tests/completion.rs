//! Completion fixtures: `$0` marks the cursor; the snapshot lists each item's label and
//! what applying it gives on the cursor's line.

mod fixture;

use expect_test::{expect, Expect};
use fixture::parse_fixture;
use torchcts_core::completion::{complete, context, OperatorSource, Position};
use torchcts_core::{analyze, AnalysisInput};

struct Ops;
impl OperatorSource for Ops {
    fn operator_names(&self) -> Vec<String> {
        vec!["add".into(), "linalg.svd".into(), "matmul".into()]
    }
}

fn check_limit(fixture: &str, limit: usize, expected: Expect) {
    let f = parse_fixture(fixture);
    let analysis = analyze(&f.text, &AnalysisInput::default());
    let cursor = f.cursor.expect("fixture has a $0 cursor");
    let mut items = complete(&analysis, cursor, Some(&Ops));
    items.sort_by(|a, b| a.sort.cmp(&b.sort).then(a.label.cmp(&b.label)));
    let total = items.len();
    let mut out = String::new();
    for item in items.into_iter().take(limit) {
        let mut text = f.text.clone();
        text.replace_range(item.replace.clone(), &item.insert_text);
        let line_start = text[..item.replace.start].rfind('\n').map(|i| i + 1).unwrap_or(0);
        let line_end = text[line_start..].find('\n').map(|i| line_start + i).unwrap_or(text.len());
        out.push_str(&format!("{} -> {}\n", item.label, text[line_start..line_end].trim()));
    }
    out.push_str(&format!("({total} items)\n"));
    expected.assert_eq(&out);
}

fn check(fixture: &str, expected: Expect) {
    check_limit(fixture, 6, expected);
}

#[test]
fn top_level_keys_in_an_empty_dict_required_first() {
    check(
        "manifest = {\n    $0\n}\n",
        expect![[r#"
        manifest_version -> "manifest_version":
        device_name -> "device_name":
        capabilities -> "capabilities":
        backend_import -> "backend_import":
        supported_dtypes -> "supported_dtypes":
        device_count -> "device_count":
        (18 items)
    "#]],
    );
}

#[test]
fn keys_already_present_are_not_offered() {
    check(
        "manifest = {\n    \"manifest_version\": 1,\n    \"device_name\": \"cpu\",\n    \"$0\n",
        expect![[r#"
            capabilities -> "capabilities
            backend_import -> "backend_import
            supported_dtypes -> "supported_dtypes
            device_count -> "device_count
            ieee754_seed -> "ieee754_seed
            max_samples -> "max_samples
            (16 items)
        "#]],
    );
}

#[test]
fn capability_keys_inside_a_half_typed_string() {
    check(
        "manifest = {\"capabilities\": {\"inference\": True, \"tra$0",
        expect![[r#"
        training -> manifest = {"capabilities": {"inference": True, "training
        serialization -> manifest = {"capabilities": {"inference": True, "serialization
        rng -> manifest = {"capabilities": {"inference": True, "rng
        device_generator -> manifest = {"capabilities": {"inference": True, "device_generator
        rng_distributions -> manifest = {"capabilities": {"inference": True, "rng_distributions
        double_backward -> manifest = {"capabilities": {"inference": True, "double_backward
        (30 items)
    "#]],
    );
}

#[test]
fn dtype_keys_as_torch_attributes_or_canonical_strings() {
    check(
        "import torch\nmanifest = {\"supported_dtypes\": {torch.float32: True, $0}}\n",
        expect![[r#"
        torch.float16 -> manifest = {"supported_dtypes": {torch.float32: True, torch.float16: }}
        torch.bfloat16 -> manifest = {"supported_dtypes": {torch.float32: True, torch.bfloat16: }}
        torch.float64 -> manifest = {"supported_dtypes": {torch.float32: True, torch.float64: }}
        torch.int64 -> manifest = {"supported_dtypes": {torch.float32: True, torch.int64: }}
        torch.int32 -> manifest = {"supported_dtypes": {torch.float32: True, torch.int32: }}
        torch.bool -> manifest = {"supported_dtypes": {torch.float32: True, torch.bool: }}
        (45 items)
    "#]],
    );
    check(
        "manifest = {\"supported_dtypes\": {\"$0\"}}\n",
        expect![[r#"
        torch.float32 -> manifest = {"supported_dtypes": {"torch.float32"}}
        torch.float16 -> manifest = {"supported_dtypes": {"torch.float16"}}
        torch.bfloat16 -> manifest = {"supported_dtypes": {"torch.bfloat16"}}
        torch.float64 -> manifest = {"supported_dtypes": {"torch.float64"}}
        torch.int64 -> manifest = {"supported_dtypes": {"torch.int64"}}
        torch.int32 -> manifest = {"supported_dtypes": {"torch.int32"}}
        (46 items)
    "#]],
    );
}

#[test]
fn closed_value_sets() {
    check(
        "manifest = {\"hardware\": {\"memory_model\": $0}}\n",
        expect![[r#"
        "discrete" -> manifest = {"hardware": {"memory_model": "discrete"}}
        "unified" -> manifest = {"hardware": {"memory_model": "unified"}}
        (2 items)
    "#]],
    );
    check(
        "manifest = {\"semantic_level\": $0}\n",
        expect![[r#"
        1 -> manifest = {"semantic_level": 1}
        2 -> manifest = {"semantic_level": 2}
        3 -> manifest = {"semantic_level": 3}
        4 -> manifest = {"semantic_level": 4}
        5 -> manifest = {"semantic_level": 5}
        6 -> manifest = {"semantic_level": 6}
        (8 items)
    "#]],
    );
    check(
        "manifest = {\"capabilities\": {\"rng\": $0}}\n",
        expect![[r#"
        True -> manifest = {"capabilities": {"rng": True}}
        False -> manifest = {"capabilities": {"rng": False}}
        (2 items)
    "#]],
    );
}

#[test]
fn tolerance_categories_with_dtypes() {
    check(
        "manifest = {\"tolerance_overrides\": {\"matmul:$0\"}}\n",
        expect![[r#"
        exact:torch.float64 -> manifest = {"tolerance_overrides": {"exact:torch.float64"}}
        exact:torch.float32 -> manifest = {"tolerance_overrides": {"exact:torch.float32"}}
        exact:torch.float16 -> manifest = {"tolerance_overrides": {"exact:torch.float16"}}
        exact:torch.bfloat16 -> manifest = {"tolerance_overrides": {"exact:torch.bfloat16"}}
        elementwise:torch.float64 -> manifest = {"tolerance_overrides": {"elementwise:torch.float64"}}
        elementwise:torch.float32 -> manifest = {"tolerance_overrides": {"elementwise:torch.float32"}}
        (104 items)
    "#]],
    );
}

#[test]
fn operator_names_in_skip_ops_and_regexes() {
    check(
        "manifest = {\"skip_ops\": [\"ad$0\"]}\n",
        expect![[r#"
        add -> manifest = {"skip_ops": ["add"]}
        linalg.svd -> manifest = {"skip_ops": ["linalg.svd"]}
        matmul -> manifest = {"skip_ops": ["matmul"]}
        (3 items)
    "#]],
    );
    check(
        "import torch\nmanifest = {\"supported_dtypes\": {torch.float16: r\"^(add|lin$0\"}}\n",
        expect![[r#"
        add -> manifest = {"supported_dtypes": {torch.float16: r"^(add|add"}}
        linalg.svd -> manifest = {"supported_dtypes": {torch.float16: r"^(add|linalg\.svd"}}
        matmul -> manifest = {"supported_dtypes": {torch.float16: r"^(add|matmul"}}
        (3 items)
    "#]],
    );
}

#[test]
fn later_subscript_assignment_and_nothing_outside_the_manifest() {
    check(
        "manifest = {}\nmanifest[\"hardware\"] = {\"$0\"}\n",
        expect![[r#"
        memory_model -> manifest["hardware"] = {"memory_model"}
        device_memory_gb -> manifest["hardware"] = {"device_memory_gb"}
        system_memory_gb -> manifest["hardware"] = {"system_memory_gb"}
        oom_recoverable -> manifest["hardware"] = {"oom_recoverable"}
        (4 items)
    "#]],
    );
    check(
        "import $0\n",
        expect![[r#"
        (0 items)
    "#]],
    );
}

// Python's tokens decide where the cursor is, as CPython reads the file.
#[test]
fn a_lone_cr_ends_a_comment_as_python_reads_it() {
    // The old scanner ran the comment on to the cursor and offered `"device_name": ` there.
    let text = "manifest = {  # the keys\r    \"device_n";
    let ctx = context(text, text.len()).expect("in the manifest");
    assert_eq!((ctx.position, ctx.in_string), (Position::Key, Some(('"', text.len() - "device_n".len()))));
}

#[test]
fn a_string_left_open_ends_at_its_line() {
    check(
        "manifest = {\n    \"device_name\": \"cpu,\n    \"$0\n",
        expect![[r#"
        "cpu" -> "cpu
        "cuda" -> "cuda
        "mps" -> "mps
        "xpu" -> "xpu
        "auto" -> "auto
        (5 items)
    "#]],
    );
}

#[test]
fn nothing_inside_a_docstring() {
    check(
        "manifest = {\"capabilities\": {}}\n\"\"\"\nmanifest = {\"hardware\": {\"$0\n\"\"\"\n",
        expect![[r#"
        (0 items)
    "#]],
    );
}

/// Found by the fuzzer: the cursor between the opening quotes of a triple-quoted regex
/// (its content starts after them) made an inverted range and a panic.
#[test]
fn nothing_between_the_opening_quotes_of_a_triple_quoted_string() {
    check(
        "import torch\nmanifest = {\"supported_dtypes\": {torch.float16: \"$0\"\"^(add|\n  mul\"\"\"}}\n",
        expect![[r#"
        (0 items)
    "#]],
    );
    check(
        "manifest = {\"capabilities\": {\"\"$0\"inf\"\"\": True}}\n",
        expect![[r#"
        (0 items)
    "#]],
    );
}
