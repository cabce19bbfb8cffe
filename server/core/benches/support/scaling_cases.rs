// The pathological constructs of the scaling benchmark (`scaling.rs`) and of the bounds test
// (`tests/scaling_bounds.rs`), shared through `include!`.

const BASE: &str = include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/manifest.py"));

/// One pathological construct: the text at size `n` and where the cursor goes.
struct Case {
    name: &'static str,
    #[allow(dead_code)] // printed by the benchmark only
    what: &'static str,
    n: usize,
    text: fn(usize) -> String,
}

fn with_tail(tail: String) -> String {
    format!("{BASE}\n{tail}\n")
}

fn cases() -> Vec<Case> {
    vec![
        Case {
            name: "dict_int",
            what: "`X = {0: 0, 1: 1, ...}` beside the manifest",
            n: 6_250,
            text: |n| with_tail(format!("X = {{{}}}", (0..n).map(|i| format!("{i}: {i}")).collect::<Vec<_>>().join(", "))),
        },
        Case {
            name: "dict_unevaluated",
            what: "`X = {0: open, 1: open, ...}`: N values not evaluated, one note each",
            n: 12_500,
            text: |n| {
                with_tail(format!("X = {{{}}}", (0..n).map(|i| format!("{i}: open")).collect::<Vec<_>>().join(", ")))
            },
        },
        Case {
            name: "dict_manifest_keys",
            what: "N unknown top-level keys in the manifest",
            n: 2_500,
            text: |n| {
                let keys: String = (0..n).map(|i| format!("    \"key_{i}\": {i},\n")).collect();
                BASE.replace("    \"manifest_version\": 1,\n", &format!("    \"manifest_version\": 1,\n{keys}"))
            },
        },
        Case {
            name: "tolerance_overrides",
            what: "N `tolerance_overrides` entries",
            n: 6_250,
            text: |n| {
                let entries: String =
                    (0..n).map(|i| format!("        \"op{i}:torch.float16\": {{\"rtol\": 1e-2, \"atol\": 1e-2}},\n")).collect();
                BASE.replace("    \"tolerance_overrides\": {\n", &format!("    \"tolerance_overrides\": {{\n{entries}"))
            },
        },
        Case {
            name: "skip_ops",
            what: "N unknown operator names in `skip_ops`",
            n: 2_500,
            text: |n| {
                let ops = (0..n).map(|i| format!("\"op{i}\"")).collect::<Vec<_>>().join(", ");
                BASE.replace("[\"_nested_tensor_from_mask\"]", &format!("[{ops}]"))
            },
        },
        Case {
            name: "regex_alternatives",
            what: "a dtype regex `^(op0|op1|...)$` with N alternatives",
            n: 5_000,
            text: |n| {
                let alts = (0..n).map(|i| format!("op{i}")).collect::<Vec<_>>().join("|");
                BASE.replace("r\"^(add|mul|matmul|mm|bmm)$\"", &format!("r\"^({alts})$\""))
            },
        },
        Case { name: "chain_attr", what: "`x = a.b.b...` (N links)", n: 2_500, text: |n| with_tail(format!("x = a{}", ".b".repeat(n))) },
        Case {
            name: "chain_plus",
            what: "`x = 1+1+...` (N links)",
            n: 2_500,
            text: |n| with_tail(format!("x = {}", vec!["1"; n].join("+"))),
        },
        Case { name: "chain_subscript", what: "`x = a[0][0]...` (N links)", n: 2_500, text: |n| with_tail(format!("x = a{}", "[0]".repeat(n))) },
        Case {
            name: "bracketed_continuations",
            what: "`X = [0,\\ 1,\\ ...]`: N backslash continuations inside brackets",
            n: 6_250,
            text: |n| with_tail(format!("X = [{}]", (0..n).map(|i| format!("{i},\\\n")).collect::<String>())),
        },
        Case {
            name: "joined_statements",
            what: "N statements `a,` that tree-sitter joins to the next line's assignment",
            n: 2_500,
            text: |n| with_tail((0..n).map(|i| format!("a{i},\nb{i} = 1, 2\n")).collect()),
        },
        Case {
            name: "named_escapes",
            what: "`X = [\"a\\N{b\", ...]`: N open `\\N{` escapes tree-sitter would run past their quotes",
            n: 6_250,
            text: |n| with_tail(format!("X = [{}]", (0..n).map(|_| "\"a\\N{b\",\n").collect::<String>())),
        },
        Case { name: "chain_call", what: "`x = f()()...` (N links)", n: 2_500, text: |n| with_tail(format!("x = f{}", "()".repeat(n))) },
    ]
    .into_iter()
    .chain(loop_cases())
    .collect()
}

/// Loops and comprehensions, which run their blocks item by item within the file's budget.
fn loop_cases() -> Vec<Case> {
    vec![
        Case {
            name: "loop_long_list",
            what: "`for i in [0, 1, ...]:` (N items) binding and adding in its block",
            n: 2_500,
            text: |n| {
                let items = (0..n).map(|i| i.to_string()).collect::<Vec<_>>().join(", ");
                with_tail(format!("total = 0\nfor i in [{items}]:\n    total += i\n"))
            },
        },
        Case {
            name: "loop_nested",
            what: "two nested `for` over the same N-item list (N² iterations, bounded by the loop budget)",
            n: 2_500,
            text: |n| {
                let items = (0..n).map(|i| i.to_string()).collect::<Vec<_>>().join(", ");
                with_tail(format!("X = [{items}]\nY = list(X)\nfor a in X:\n    for b in Y:\n        c = a + b\n"))
            },
        },
        Case {
            name: "comprehension_nested",
            what: "a comprehension over the same N-item list twice (N² elements, bounded by the loop budget)",
            n: 2_500,
            text: |n| {
                let items = (0..n).map(|i| i.to_string()).collect::<Vec<_>>().join(", ");
                with_tail(format!("X = [{items}]\nZ = [a + b for a in X for b in X]\nD = {{a: [b for b in range(a)] for a in X}}\n"))
            },
        },
    ]
}

/// Everything a keystroke and the cursor features do with one text.
fn whole_path(text: &str, inventory: &torchcts_core::accounting_view::Inventory) -> usize {
    use torchcts_core::accounting_view as av;
    use torchcts_core::{analyze, AnalysisInput};
    let analysis = analyze(text, &AnalysisInput { inventory: Some(inventory), ..AnalysisInput::default() });
    let mut work = analysis.findings.len();
    if let Some(manifest) = analysis.model.manifest.as_ref().and_then(|m| m.as_dict()) {
        let facts = av::facts(manifest);
        let summary = av::summarize(inventory, &facts, None);
        work += summary.records;
        let counts = torchcts_core::hover::Counts { inventory, summary: &summary };
        // The construct's far end (the last byte before the trailing newline) and its middle.
        for at in [text.trim_end().len().saturating_sub(1), text.len() / 2] {
            work += torchcts_core::hover::hover(&analysis, at, Some(&counts)).map_or(0, |h| h.markdown.len());
            work += torchcts_core::actions::quick_fixes(&analysis, at..at).len();
            work += torchcts_core::completion::complete(&analysis, at, None).len();
        }
    }
    work
}

