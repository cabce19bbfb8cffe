//! The emulation against CPython's own `compile()` on hand-picked constructs
//! (`tests/parity/syntax_probes/constructs.txt`: walrus places, parameters, `with`/`assert`/
//! `raise` shapes, f-strings, numbers, imports, `global`/`try`/`match`, async), with the
//! verdicts CPython 3.10-3.13 gave (`verdicts.json`, written by
//! `tools/cpython/syntax_probe_verdicts.py`). Each is compiled as `<construct>\nmanifest = {}\n`.
//!
//! What is held, without a CPython: a construct CPython 3.11 (the version the emulation
//! models) refuses is never one we accept without asking CPython: the emulation names an error,
//! or the analysis says CPython should judge it (`Analysis::syntax_in_doubt`), so that with a
//! CPython present no text CPython refuses is called valid. A construct every version accepts
//! is never called an error. Messages are the emulation's residue: counted, not held.

use std::path::Path;
use torchcts_core::{analyze, AnalysisInput};

/// A construct of `constructs.txt`: `\n` a line break, `\\` a backslash.
fn decode(line: &str) -> String {
    let mut out = String::with_capacity(line.len());
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match (c, chars.peek()) {
            ('\\', Some('n')) => {
                chars.next();
                out.push('\n');
            }
            ('\\', Some('\\')) => {
                chars.next();
                out.push('\\');
            }
            _ => out.push(c),
        }
    }
    out
}

#[test]
fn no_construct_cpython_refuses_is_accepted_without_asking_it() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/parity/syntax_probes/verdicts.json");
    let recorded: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&path).expect("read verdicts.json")).expect("verdicts.json");
    let cases = recorded["cases"].as_array().expect("cases");
    assert!(cases.len() > 700, "{} constructs", cases.len());
    let (mut accepted, mut false_errors, mut same_message) = (Vec::new(), Vec::new(), 0);
    for case in cases {
        let construct = case["construct"].as_str().expect("construct");
        let verdicts = case["verdicts"].as_object().expect("verdicts");
        let text = format!("{}\nmanifest = {{}}\n", decode(construct));
        let analysis = analyze(&text, &AnalysisInput::default());
        let ours = analysis.syntax_error.as_ref().map(|e| format!("{} (line {})", e.message, e.line));
        let cpython_311 = verdicts["3.11"].as_str().expect("3.11's verdict");
        if cpython_311 != "ok" && ours.is_none() && !analysis.syntax_in_doubt() {
            accepted.push(format!("{construct:?}: CPython 3.11 says {cpython_311}"));
        }
        if verdicts.values().all(|v| v == "ok") {
            if let Some(ours) = &ours {
                false_errors.push(format!("{construct:?}: every CPython compiles it, we say {ours}"));
            }
        }
        same_message += usize::from(ours.as_deref().unwrap_or("ok") == cpython_311);
    }
    println!(
        "syntax probes: {} constructs, the emulation's verdict equal to CPython 3.11's on {same_message}",
        cases.len()
    );
    assert!(accepted.is_empty(), "accepted without asking CPython:\n{}", accepted.join("\n"));
    assert!(false_errors.is_empty(), "errors CPython does not raise:\n{}", false_errors.join("\n"));
}
