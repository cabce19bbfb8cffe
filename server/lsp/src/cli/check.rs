//! `torchcts-lsp check FILE [--format text|json]`.
//!
//! Text output is exactly `torchcts check-manifest --manifest FILE` without its banner
//! (same lines, streams and exit code). JSON adds every finding, ours included, with
//! 1-based line and column ranges (columns in Unicode code points) for CI annotations.

use super::{dir_exists_relative_to, read_manifest};
use serde_json::json;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use torchcts_core::check::Stream;
use torchcts_core::{analyze, AnalysisInput, PositionEncoding};

pub fn run(args: &[String]) -> ExitCode {
    let mut file: Option<PathBuf> = None;
    let mut json_format = false;
    let mut i = 0;
    while i < args.len() {
        match args[i].as_str() {
            "--format" => {
                match args.get(i + 1).map(String::as_str) {
                    Some("json") => json_format = true,
                    Some("text") => json_format = false,
                    other => {
                        eprintln!("torchcts-lsp check: --format takes `text` or `json`, got {:?}", other.unwrap_or(""));
                        return ExitCode::from(2);
                    }
                }
                i += 1;
            }
            "--format=json" => json_format = true,
            "--format=text" => json_format = false,
            "--manifest" => {
                file = args.get(i + 1).map(PathBuf::from);
                i += 1;
            }
            other if other.starts_with('-') => {
                eprintln!("torchcts-lsp check: unknown option `{other}`");
                return ExitCode::from(2);
            }
            other => file = Some(PathBuf::from(other)),
        }
        i += 1;
    }
    // Like the real command, default to ./manifest.py.
    let path = file.unwrap_or_else(|| PathBuf::from("manifest.py"));
    let text = match read_manifest(&path) {
        Ok(t) => t,
        Err(message) => {
            eprintln!("{message}");
            return ExitCode::from(1);
        }
    };
    let base = absolute_parent(&path);
    let dir_exists = dir_exists_relative_to(&base);
    let analysis = analyze(&text, &AnalysisInput {
            old_tree: None,
            dir_exists: Some(&dir_exists),
            // The text output is the real tool's; only JSON carries our inventory hints.
            inventory: json_format.then(torchcts_core::accounting_view::Inventory::embedded),
            file_name: path.file_name().and_then(|n| n.to_str()),
        });
    let code = analysis.check.exit_code();

    if json_format {
        let findings: Vec<serde_json::Value> = analysis
            .findings
            .iter()
            .map(|f| {
                let start = analysis.line_index.position(&text, f.span.start, PositionEncoding::Utf32);
                let end = analysis.line_index.position(&text, f.span.end, PositionEncoding::Utf32);
                let mut v = serde_json::to_value(f).unwrap_or_default();
                v["range"] = json!({
                    "start": {"line": start.line + 1, "column": start.col + 1},
                    "end": {"line": end.line + 1, "column": end.col + 1},
                });
                v
            })
            .collect();
        let lines: Vec<serde_json::Value> =
            analysis.check.lines().into_iter().map(|(stream, line)| json!({"stream": stream, "text": line})).collect();
        let report = json!({
            "file": path.display().to_string(),
            "exit_code": code,
            "check_manifest_output": lines,
            "findings": findings,
        });
        println!("{}", serde_json::to_string_pretty(&report).unwrap_or_default());
    } else {
        let stdout = std::io::stdout();
        let stderr = std::io::stderr();
        for (stream, line) in analysis.check.lines() {
            let _ = match stream {
                Stream::Stdout => writeln!(stdout.lock(), "{line}"),
                Stream::Stderr => writeln!(stderr.lock(), "{line}"),
            };
        }
        if matches!(analysis.check, torchcts_core::check::CheckOutcome::Validated { .. }) {
            for note in analysis.findings.iter().filter(|f| f.code == "not-evaluated") {
                let pos = analysis.line_index.position(&text, note.span.start, PositionEncoding::Utf32);
                let _ = writeln!(stderr.lock(), "Note: line {}: {}", pos.line + 1, note.message);
            }
        }
    }
    ExitCode::from(code as u8)
}

fn absolute_parent(path: &Path) -> PathBuf {
    let absolute = if path.is_absolute() {
        path.to_path_buf()
    } else {
        std::env::current_dir().map(|d| d.join(path)).unwrap_or_else(|_| path.to_path_buf())
    };
    absolute.parent().map(Path::to_path_buf).unwrap_or_default()
}
