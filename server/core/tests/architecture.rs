//! The architecture's hard limits, checked on the source (issue 23): the pure crates read no
//! clock and do no IO; no hand-written Rust file over 1,000 lines and no function over 150
//! lines outside `pyregex` (a port that keeps CPython's sre shape) and tests.

use std::path::{Path, PathBuf};

fn server() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        if path.is_dir() {
            if path.file_name().is_some_and(|n| n != "target") {
                rust_files(&path, out);
            }
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The source before its first `#[cfg(test)]` (test modules sit at the end of a file), or
/// nothing for a file of tests.
fn non_test_source(path: &Path) -> String {
    if path.file_name().is_some_and(|n| n == "tests.rs") || path.components().any(|c| c.as_os_str() == "tests") {
        return String::new();
    }
    let text = std::fs::read_to_string(path).unwrap();
    match text.find("#[cfg(test)]") {
        Some(at) => text[..at].to_string(),
        None => text,
    }
}

#[test]
fn the_pure_crates_read_no_clock_and_do_no_io() {
    let forbidden = ["Instant", "SystemTime", "std::fs", "std::env", "std::process", "std::net", "tokio"];
    let mut found = Vec::new();
    for krate in ["core/src", "accounting/src", "pyregex/src"] {
        let mut files = Vec::new();
        rust_files(&server().join(krate), &mut files);
        assert!(!files.is_empty(), "no sources under {krate}");
        for file in files {
            for (i, line) in non_test_source(&file).lines().enumerate() {
                let code = line.split("//").next().unwrap_or_default();
                for word in forbidden.iter().filter(|w| code.contains(*w)) {
                    found.push(format!("{}:{}: {word}", file.display(), i + 1));
                }
            }
        }
    }
    assert!(found.is_empty(), "clock or IO in a pure crate:\n{}", found.join("\n"));
}

/// Lines of each `fn` body, found by brace depth outside strings, chars and comments.
fn function_lengths(text: &str) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let lines: Vec<&str> = text.lines().collect();
    let mut i = 0;
    while i < lines.len() {
        let t = lines[i].trim_start();
        let is_fn = ["fn ", "pub fn ", "pub(crate) fn ", "pub(super) fn ", "async fn ", "pub async fn ", "const fn "]
            .iter()
            .any(|p| t.starts_with(p));
        if !is_fn {
            i += 1;
            continue;
        }
        let (start, mut depth, mut opened) = (i, 0i64, false);
        'body: while i < lines.len() {
            let mut chars = lines[i].chars().peekable();
            let mut in_str = false;
            while let Some(c) = chars.next() {
                match c {
                    '\\' if in_str => {
                        chars.next();
                    }
                    '"' => in_str = !in_str,
                    '/' if !in_str && chars.peek() == Some(&'/') => break,
                    '\'' if !in_str => {
                        // a char literal ('{', '\'') or a lifetime ('a)
                        let rest: String = chars.clone().take(3).collect();
                        if rest.starts_with('\\') {
                            chars.nth(2);
                        } else if rest.chars().nth(1) == Some('\'') {
                            chars.nth(1);
                        }
                    }
                    '{' if !in_str => {
                        depth += 1;
                        opened = true;
                    }
                    '}' if !in_str => depth -= 1,
                    ';' if !in_str && !opened && depth == 0 => break 'body,
                    _ => {}
                }
            }
            if opened && depth <= 0 {
                out.push((start + 1, i - start + 1));
                break;
            }
            i += 1;
        }
        i = start + 1;
    }
    out
}

#[test]
fn no_file_over_1000_lines_and_no_function_over_150_lines() {
    let mut files = Vec::new();
    rust_files(&server(), &mut files);
    let mut over = Vec::new();
    for file in files.iter().filter(|f| !f.starts_with(server().join("pyregex"))) {
        let source = non_test_source(file);
        if source.is_empty() {
            continue;
        }
        let lines = std::fs::read_to_string(file).unwrap().lines().count();
        if lines > 1000 {
            over.push(format!("{}: {lines} lines", file.display()));
        }
        for (line, length) in function_lengths(&source) {
            if length > 150 {
                over.push(format!("{}:{line}: a function of {length} lines", file.display()));
            }
        }
    }
    assert!(over.is_empty(), "over the architecture's limits:\n{}", over.join("\n"));
}

#[test]
fn the_function_measure_counts_what_it_should() {
    let text = "fn a() {\n    let s = \"}\";\n    let c = '{';\n}\nfn b<'x>(v: &'x str) -> &'x str {\n    v\n}\n";
    assert_eq!(function_lengths(text), vec![(1, 4), (5, 3)]);
    let long = format!("fn long() {{\n{}}}\n", "    x();\n".repeat(200));
    assert_eq!(function_lengths(&long), vec![(1, 202)]);
}

#[test]
fn the_server_does_not_use_the_cli_module() {
    let mut files = Vec::new();
    rust_files(&server().join("lsp/src/server"), &mut files);
    let users: Vec<String> = files
        .iter()
        .filter(|f| std::fs::read_to_string(f).unwrap().contains("crate::cli"))
        .map(|f| f.display().to_string())
        .collect();
    assert!(users.is_empty(), "the LSP glue calls into the CLI module: {users:?}");
}
