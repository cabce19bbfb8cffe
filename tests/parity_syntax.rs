//! Syntax-error parity: for broken manifests (tests/parity/syntax, made by regenerate.py from
//! the check corpus with CPython 3.11, the Python torchcts 0.4.1 runs on), the message and
//! line `torchcts-lsp check` reports equal CPython's SyntaxError msg and lineno.

use serde_json::Value;
use std::collections::BTreeMap;
use std::io::Read;
use std::path::Path;
use torchcts_core::{cpython::python_syntax_error, syntax::parse};

#[test]
fn syntax_errors_match_cpython() {
    // SYNTAX_CORPUS: another sample from regenerate.py --seed N --out FILE.
    let path = std::env::var("SYNTAX_CORPUS")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|_| Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/parity/syntax/cases.json.gz"));
    let mut text = String::new();
    flate2::read::GzDecoder::new(std::fs::File::open(&path).expect("cases.json.gz")).read_to_string(&mut text).unwrap();
    let corpus: Value = serde_json::from_str(&text).unwrap();
    let cases = corpus["cases"].as_array().unwrap();
    assert!(cases.len() > 1000, "corpus too small: {}", cases.len());
    let mut wrong: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for (i, case) in cases.iter().enumerate() {
        let source = case["source"].as_str().unwrap();
        let expected = (case["message"].as_str().unwrap().to_string(), case["line"].as_u64().unwrap() as usize);
        let got = python_syntax_error(&parse(source, None), source).map(|e| (e.message, e.line));
        if got.as_ref() != Some(&expected) {
            wrong.entry(expected.0.clone()).or_default().push(format!(
                "case {i} ({} {}): expected {:?}, got {:?}",
                case["from"], case["mutation"], expected, got
            ));
        }
    }
    let total: usize = wrong.values().map(Vec::len).sum();
    let mut report = String::new();
    for (message, cases) in &wrong {
        report.push_str(&format!("{} x {message:?}\n", cases.len()));
        for c in cases.iter().take(3) {
            report.push_str(&format!("    {c}\n"));
        }
    }
    assert_eq!(total, 0, "{total} of {} differ from CPython:\n{report}", cases.len());
}
