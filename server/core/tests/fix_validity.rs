//! Every quick fix leaves a better file (modelled on ruff's `fuzz_targets/ruff_fix_validity.rs`).
//!
//! The check corpus manifests (`tests/parity/check/cases/*/manifest.py`) are mutated with a
//! fixed seed (typos in keys, a dropped `,` or `:`, duplicated or deleted lines, entries that
//! trigger each kind of fix). For every finding of every mutated manifest, every quick fix the
//! core offers for it is applied and the result analysed again. A fix is valid when its edits
//! apply (in bounds, on character boundaries, not overlapping), its target finding is gone
//! (one fewer finding with that code and message) and no error was added.

use std::collections::HashMap;
use std::path::PathBuf;
use torchcts_core::accounting_view::Inventory;
use torchcts_core::actions::{apply_edits, quick_fixes, QuickFix};
use torchcts_core::findings::Severity;
use torchcts_core::{analyze, AnalysisInput};

/// How many mutated manifests the test checks.
const MUTANTS: usize = 600;

/// A small deterministic PRNG (xorshift64): the same mutants on every run, no dependency.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % n.max(1) as u64) as usize
    }
}

/// Entries that provoke each kind of finding with a fix, inserted after a line ending in `{`
/// or `,` (so inside some dict).
const SNIPPETS: &[&str] = &[
    "\"custom_quantized_decode\": True,",
    "\"float32\": True,",
    "\"float32\": True, \"float32\": False,",
    "\"half\": True,",
    "torch.flaot16: True,",
    "\"quantization\": 1,",
    "\"quantization\": True,",
    "\"device\": \"x\",",
    "\"devices\": 2,",
    "\"int3\": \"m:f\",",
    "\"nf3\": True,",
    "\"custom_container_decoders\": {},",
    "\"supported_container_formats\": {\"nf4\": True},",
    "\"matmul:torch.flaot16\": {\"rtol\": 1e-2},",
    "\"matmull:torch.float16\": {\"rtol\": 1e-2},",
    "torch.float16: r\"(add\\n\",",
    "torch.float16: \"(add\\n\",",
    "torch.float16: \"\"\"(add\n|mul\"\"\",",
    "torch.float16: '(add|mul',",
    "torch.float16: r'^(add',",
    "\"memory_model\": \"shared\",",
    "\"generator\": True,",
    "\"quantized\": True,",
    "\"skip_ops\": [\"addd\", \"matmull\"],",
    "\"semantic_level\": 4,",
    "\"capabilities\": {\"inference\": True},",
    "\"ieee754\": \"(add\",",
    "\"max_tensor_size_mb\": 256,",
];

/// One mutation of `text`, chosen by `rng`.
fn mutate(text: &str, rng: &mut Rng) -> String {
    let mut t = text.to_string();
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    match rng.below(7) {
        // A typo inside a string literal.
        0 | 1 => {
            let quotes: Vec<usize> = t.match_indices('"').map(|(i, _)| i).collect();
            if quotes.len() >= 2 {
                let q = quotes[rng.below(quotes.len() - 1)];
                let at = q + 1 + rng.below(6);
                if at < t.len() && t.is_char_boundary(at) && t.as_bytes()[at].is_ascii_alphanumeric() {
                    match rng.below(3) {
                        0 => {
                            t.remove(at);
                        }
                        1 => t.insert(at, (b'a' + rng.below(26) as u8) as char),
                        _ => t.replace_range(at..at + 1, &((b'a' + rng.below(26) as u8) as char).to_string()),
                    }
                }
            }
        }
        // A dropped ',' or ':'.
        2 => {
            let marks: Vec<usize> = t.match_indices([',', ':']).map(|(i, _)| i).collect();
            if !marks.is_empty() {
                t.remove(marks[rng.below(marks.len())]);
            }
        }
        // A duplicated or deleted line (an earlier mutation may have left none).
        3 if !lines.is_empty() => {
            let i = rng.below(lines.len());
            let mut out: Vec<&str> = lines.clone();
            if rng.below(2) == 0 {
                out.insert(i, lines[i]);
            } else {
                out.remove(i);
            }
            t = out.concat();
        }
        // An entry that provokes a finding with a fix.
        _ => {
            let anchors: Vec<usize> = lines
                .iter()
                .enumerate()
                .filter(|(_, l)| {
                    let l = l.trim_end();
                    l.ends_with('{') || l.ends_with(',')
                })
                .map(|(i, _)| i)
                .collect();
            if !anchors.is_empty() {
                let i = anchors[rng.below(anchors.len())];
                let indent: String =
                    lines.get(i + 1).map(|l| l.chars().take_while(|c| *c == ' ').collect()).unwrap_or_default();
                let snippet = SNIPPETS[rng.below(SNIPPETS.len())];
                let mut out: Vec<String> = lines.iter().map(|l| l.to_string()).collect();
                out.insert(i + 1, format!("{indent}{snippet}\n"));
                t = out.concat();
            }
        }
    }
    t
}

/// Findings by (code, message with line numbers removed), counted.
fn tally(findings: &[torchcts_core::findings::Finding], errors_only: bool) -> HashMap<(String, String), usize> {
    let mut out = HashMap::new();
    for f in findings {
        if errors_only && f.severity != Severity::Error {
            continue;
        }
        *out.entry((f.code.to_string(), without_line_numbers(&f.message))).or_insert(0) += 1;
    }
    out
}

/// A fix that inserts or removes lines moves the line numbers in syntax error messages.
fn without_line_numbers(message: &str) -> String {
    let mut out = String::new();
    let mut rest = message;
    while let Some(i) = rest.find("line ") {
        out.push_str(&rest[..i + 5]);
        rest = rest[i + 5..].trim_start_matches(|c: char| c.is_ascii_digit());
        out.push('N');
    }
    out.push_str(rest);
    out
}

fn corpus() -> Vec<(String, String)> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/parity/check/cases");
    let mut cases: Vec<(String, String)> = std::fs::read_dir(&dir)
        .expect("the check corpus")
        .flatten()
        .filter_map(|e| {
            let text = std::fs::read_to_string(e.path().join("manifest.py")).ok()?;
            Some((e.file_name().to_string_lossy().into_owned(), text))
        })
        .collect();
    cases.sort();
    assert!(cases.len() > 50, "the check corpus has {} manifests", cases.len());
    cases
}

/// Why `fix` is not valid for finding `target` of `text`, if it is not.
fn invalid_because(text: &str, fix: &QuickFix, inventory: &Inventory) -> Option<String> {
    for e in &fix.edits {
        if e.span.start > e.span.end
            || e.span.end > text.len()
            || !text.is_char_boundary(e.span.start)
            || !text.is_char_boundary(e.span.end)
        {
            return Some(format!("edit {:?} does not apply", e.span));
        }
    }
    let mut spans: Vec<_> = fix.edits.iter().map(|e| e.span.clone()).collect();
    spans.sort_by_key(|s| s.start);
    if spans.windows(2).any(|w| w[0].end > w[1].start) {
        return Some("edits overlap".into());
    }
    let input = AnalysisInput { inventory: Some(inventory), ..AnalysisInput::default() };
    let before = analyze(text, &input);
    let target = &before.findings[fix.finding];
    let fixed_text = apply_edits(text, &fix.edits);
    let after = analyze(&fixed_text, &input);
    let key = (target.code.to_string(), without_line_numbers(&target.message));
    let (was, now) = (tally(&before.findings, false), tally(&after.findings, false));
    if now.get(&key).copied().unwrap_or(0) >= was.get(&key).copied().unwrap_or(0) {
        return Some(format!("its target stays: {} {}", target.code, target.message));
    }
    // Where the target entry's value is after the edit: errors nested inside it are ones a
    // fixed key reveals (a misspelt section is now validated), not ones the fix adds.
    let value_after = value_of_pair_at(&before, &target.span).map(|v| {
        let moved: isize = fix
            .edits
            .iter()
            .filter(|e| e.span.end <= v.start)
            .map(|e| e.new_text.len() as isize - (e.span.end - e.span.start) as isize)
            .sum();
        let grown: isize = fix
            .edits
            .iter()
            .filter(|e| e.span.start >= v.start && e.span.end <= v.end)
            .map(|e| e.new_text.len() as isize - (e.span.end - e.span.start) as isize)
            .sum();
        let start = (v.start as isize + moved) as usize;
        start..(v.end as isize + moved + grown) as usize
    });
    let edit_end = fix.edits.iter().map(|e| e.span.start + e.new_text.len()).max().unwrap_or(0);
    let (errors_before, errors_after) = (tally(&before.findings, true), tally(&after.findings, true));
    for (error, n) in &errors_after {
        if *n <= errors_before.get(error).copied().unwrap_or(0) {
            continue;
        }
        let findings =
            after.findings.iter().filter(|f| f.code == error.0 && without_line_numbers(&f.message) == error.1);
        let revealed = findings.clone().all(|f| {
            if target.code == "syntax-error" {
                // A repaired file is evaluated; only a syntax error at or before the repair
                // means CPython still rejects what the fix wrote.
                return f.code != "syntax-error" || f.span.start > edit_end;
            }
            value_after.as_ref().is_some_and(|v| {
                v.start <= f.span.start && f.span.end <= v.end && (f.span != *v || target.code == "dtype-key-ignored")
            })
        });
        if !revealed {
            return Some(format!("it adds an error: {} {}", error.0, error.1));
        }
    }
    None
}

/// The value span of the dict entry whose key is at `key_span`.
fn value_of_pair_at(
    analysis: &torchcts_core::Analysis,
    key_span: &std::ops::Range<usize>,
) -> Option<std::ops::Range<usize>> {
    let mut node = analysis.tree.root_node().named_descendant_for_byte_range(key_span.start, key_span.end)?;
    for _ in 0..4 {
        if node.kind() == "pair" {
            let value = node.child_by_field_name("value")?;
            return Some(value.start_byte()..value.end_byte());
        }
        node = node.parent()?;
    }
    None
}

#[test]
fn every_offered_fix_applies_removes_its_target_and_adds_no_error() {
    let inventory = Inventory::embedded();
    let cases = corpus();
    let mut rng = Rng(0x5eed_f1c5_u64);
    let mut applied = 0;
    let mut failures: Vec<String> = Vec::new();
    let mut fixed_codes: HashMap<&'static str, usize> = HashMap::new();
    for m in 0..MUTANTS {
        let (name, original) = &cases[rng.below(cases.len())];
        let mut text = mutate(original, &mut rng);
        if rng.below(3) == 0 {
            text = mutate(&text, &mut rng);
        }
        let analysis = analyze(&text, &AnalysisInput { inventory: Some(inventory), ..AnalysisInput::default() });
        for (index, finding) in analysis.findings.iter().enumerate() {
            for fix in quick_fixes(&analysis, finding.span.clone()).into_iter().filter(|f| f.finding == index) {
                applied += 1;
                *fixed_codes.entry(finding.code).or_insert(0) += 1;
                if let Some(why) = invalid_because(&text, &fix, inventory) {
                    failures
                        .push(format!("mutant {m} of {name}: \"{}\" for \"{}\": {why}", fix.title, finding.message));
                    if failures.len() <= 3 {
                        eprintln!("--- mutant {m} of {name}:\n{text}\n---");
                    }
                }
            }
        }
    }
    let mut codes: Vec<_> = fixed_codes.into_iter().collect();
    codes.sort();
    eprintln!(
        "{MUTANTS} mutated manifests, {applied} fixes applied, {} invalid; by finding code: {codes:?}",
        failures.len()
    );
    assert!(applied >= 500, "only {applied} fixes were offered: the mutations no longer exercise the fixes");
    assert!(failures.is_empty(), "{} invalid fixes:\n{}", failures.len(), failures.join("\n"));
}

/// The fixes the core offers for the first finding with `code`, applied one by one.
fn fixed_texts(text: &str, code: &str) -> Vec<(String, String)> {
    let analysis = analyze(text, &AnalysisInput::default());
    let Some(index) = analysis.findings.iter().position(|f| f.code == code) else {
        panic!("no {code} finding in:\n{text}\n{:#?}", analysis.findings)
    };
    let span = analysis.findings[index].span.clone();
    quick_fixes(&analysis, span)
        .into_iter()
        .filter(|f| f.finding == index)
        .map(|f| (f.title.clone(), apply_edits(text, &f.edits)))
        .collect()
}

fn codes(text: &str) -> Vec<&'static str> {
    analyze(text, &AnalysisInput::default()).findings.iter().map(|f| f.code).collect()
}

const HEAD: &str = "import torch\nmanifest = {\n    \"manifest_version\": 1,\n    \"device_name\": \"cpu\",\n";

#[test]
fn regex_fix_of_a_string_with_line_breaks_stays_one_valid_literal() {
    let text = std::fs::read_to_string(
        PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("../../tests/parity/check/cases/dtypes_regex_multiline/manifest.py"),
    )
    .unwrap();
    let analysis = analyze(&text, &AnalysisInput::default());
    let mut offered = 0;
    for (index, finding) in analysis.findings.iter().enumerate().filter(|(_, f)| f.code == "invalid-regex") {
        for fix in quick_fixes(&analysis, finding.span.clone()).into_iter().filter(|f| f.finding == index) {
            offered += 1;
            let fixed = apply_edits(&text, &fix.edits);
            let after = codes(&fixed);
            assert!(!after.contains(&"syntax-error"), "{} broke the file:\n{fixed}", fix.title);
            assert!(
                after.iter().filter(|c| **c == "invalid-regex").count()
                    < analysis.findings.iter().filter(|f| f.code == "invalid-regex").count(),
                "{} left its regex invalid:\n{fixed}",
                fix.title
            );
        }
    }
    assert!(offered >= 2, "the line-break regexes get a fix ({offered})");
}

#[test]
fn decoder_stub_edits_an_existing_empty_decoders_entry() {
    let text = format!(
        "{HEAD}    \"capabilities\": {{\"inference\": True, \"custom_quantized_decode\": True}},\n    \"custom_container_decoders\": {{}},\n}}\n"
    );
    let fixes = fixed_texts(&text, "decoder-required");
    let (_, stubbed) = fixes.iter().find(|(title, _)| title.contains("stub")).expect("a stub fix");
    assert!(
        stubbed.contains("\"custom_container_decoders\": {\"nf4\": \"my_backend.decoders:decode_nf4\"}"),
        "{stubbed}"
    );
    assert_eq!(stubbed.matches("custom_container_decoders").count(), 1, "{stubbed}");
    assert!(!codes(stubbed).contains(&"decoder-required"), "{stubbed}");
}

#[test]
fn renames_onto_a_key_whose_requirement_the_value_fails_are_not_offered() {
    let text = format!("{HEAD}    \"capabilities\": {{\"inference\": True, \"quantization\": 1}},\n}}\n");
    let titles: Vec<String> = fixed_texts(&text, "unknown-key").into_iter().map(|(t, _)| t).collect();
    assert!(!titles.iter().any(|t| t.contains("native_quantization")), "{titles:?}");
    let text = format!("{HEAD}    \"capabilities\": {{\"inference\": True}},\n    \"device\": \"x\",\n}}\n");
    let titles: Vec<String> = fixed_texts(&text, "unknown-key").into_iter().map(|(t, _)| t).collect();
    assert!(!titles.iter().any(|t| t.contains("device_count")), "{titles:?}");
    // The same rename with a value that meets the requirement is offered.
    let text = format!("{HEAD}    \"capabilities\": {{\"inference\": True}},\n    \"device\": 2,\n}}\n");
    let titles: Vec<String> = fixed_texts(&text, "unknown-key").into_iter().map(|(t, _)| t).collect();
    assert!(titles.iter().any(|t| t.contains("device_count")), "{titles:?}");
}

#[test]
fn a_string_dtype_key_written_twice_is_rewritten_everywhere() {
    let text = format!(
        "{HEAD}    \"capabilities\": {{\"inference\": True}},\n    \"supported_dtypes\": {{\"float32\": True, \"float32\": False}},\n}}\n"
    );
    let fixes = fixed_texts(&text, "dtype-key-ignored");
    let (_, fixed) = fixes.first().expect("a fix");
    assert!(!codes(fixed).contains(&"dtype-key-ignored"), "{fixed}");
}

#[test]
fn no_comma_is_offered_where_cpython_would_still_reject_it() {
    let text = format!("{HEAD}    \"capabilities\": {{\"inference\": True, \"training\" False}},\n}}\n");
    let fixes = fixed_texts(&text, "syntax-error");
    assert!(fixes.iter().any(|(title, _)| title.contains("':'")), "the ':' is offered: {fixes:?}");
    for (title, fixed) in fixes {
        let analysis = analyze(&fixed, &AnalysisInput::default());
        let at = text.find("\"training\"").unwrap();
        let still = analysis.findings.iter().any(|f| f.code == "syntax-error" && f.span.start <= at + 20);
        assert!(!still, "\"{title}\" leaves a syntax error:\n{fixed}");
    }
}
