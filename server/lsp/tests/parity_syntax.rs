//! Syntax-error parity: for broken manifests (tests/parity/syntax, made by regenerate.py from
//! the check corpus with CPython 3.11), the message and line `torchcts-lsp check` reports
//! equal CPython's SyntaxError msg and lineno; CPython 3.10, 3.12 and 3.13 say the same of
//! every case (checked against each one found).

use serde_json::Value;
use std::collections::BTreeMap;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use torchcts_core::{cpython::python_syntax_error, syntax::parse};

/// The corpus: `SYNTAX_CORPUS`, another sample from regenerate.py --seed N --out FILE, else
/// the committed one.
fn corpus_path() -> PathBuf {
    std::env::var("SYNTAX_CORPUS")
        .map(PathBuf::from)
        .unwrap_or_else(|_| Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/parity/syntax/cases.json.gz"))
}

fn corpus() -> Value {
    let mut text = String::new();
    let file = std::fs::File::open(corpus_path()).expect("cases.json.gz");
    flate2::read::GzDecoder::new(file).read_to_string(&mut text).unwrap();
    serde_json::from_str(&text).unwrap()
}

#[test]
fn syntax_errors_match_cpython() {
    let corpus = corpus();
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

/// What each CPython says of the corpus, as `[msg, lineno]` lines (`null` if it compiles).
const COMPILE_EACH: &str = r#"
import gzip, json, sys
for case in json.load(gzip.open(sys.argv[1]))["cases"]:
    try:
        compile(case["source"], "manifest.py", "exec")
        print("null")
    except SyntaxError as e:
        print(json.dumps([e.msg, e.lineno]))
"#;

/// The corpus holds CPython 3.11's messages, which the product gives whatever Python the
/// user has: every CPython 3.10-3.13 found (python3.1X on PATH, pyenv's) must say the same.
/// Versions not found are skipped with a note.
#[test]
fn every_cpython_says_what_the_corpus_holds() {
    let corpus = corpus();
    let cases = corpus["cases"].as_array().unwrap();
    let pyenv = std::env::var_os("HOME").map(|h| Path::new(&h).join(".pyenv/versions"));
    let mut checked = Vec::new();
    for minor in 10..=13 {
        let mut candidates = vec![PathBuf::from(format!("python3.{minor}"))];
        if let Some(Ok(entries)) = pyenv.as_ref().map(std::fs::read_dir) {
            let prefix = format!("3.{minor}.");
            candidates.extend(
                entries
                    .flatten()
                    .filter(|e| e.file_name().to_string_lossy().starts_with(&prefix))
                    .map(|e| e.path().join("bin/python")),
            );
        }
        let answers = candidates.iter().find_map(|python| {
            let out =
                Command::new(python).arg("-c").arg(COMPILE_EACH).arg(corpus_path()).stderr(Stdio::null()).output();
            out.ok().filter(|o| o.status.success()).map(|o| String::from_utf8_lossy(&o.stdout).into_owned())
        });
        let Some(answers) = answers else {
            println!("SKIPPED: no CPython 3.{minor} found (python3.{minor} on PATH or pyenv)");
            continue;
        };
        let differ: Vec<String> = cases
            .iter()
            .zip(answers.lines())
            .enumerate()
            .filter(|(_, (case, answer))| {
                serde_json::from_str::<Value>(answer).ok() != Some(serde_json::json!([case["message"], case["line"]]))
            })
            .map(|(i, (case, answer))| format!("case {i}: 3.11 {:?}, 3.{minor} {answer}", case["message"]))
            .collect();
        assert_eq!(answers.lines().count(), cases.len(), "CPython 3.{minor} answered another number of cases");
        assert!(differ.is_empty(), "CPython 3.{minor} differs from the corpus:\n{}", differ.join("\n"));
        checked.push(format!("3.{minor}"));
    }
    println!("syntax corpus: {} cases, the same on CPython {}", cases.len(), checked.join(", "));
}
