//! The architecture's hard limits, checked on the source (issues 23 and 30): the pure
//! crates read no clock and do no IO; the LSP glue does not call the CLI; no file and no
//! function over its limit; no import circle between modules.
//!
//! **Sizes** (outside `pyregex`, a port that keeps CPython's sre shape, and tests): a file's
//! code before `#[cfg(test)]` over [`MAX_FILE_LINES`] or a function over [`MAX_FN_LINES`]
//! fails, except those in the allowlists, each at most its size today: an exception may
//! shrink, never grow.
//!
//! **Circles** (in the core, accounting, runner and lsp crates). For every module with
//! submodules (the crate root, `actions`, `cli/report`, ...), its direct submodules are the
//! nodes (each stands for its whole subtree) and a `crate::`, `super::` or `self::` path
//! from a file in one to an item in another is an edge; a circle among them fails the test,
//! with each edge's files. A module and its own submodules may refer to each other (a
//! `mod.rs` re-exports its parts, the parts use its shared items), so edges to an ancestor
//! are not counted; an item re-exported by a `pub use` counts as the module that defines
//! it. Test code (`#[cfg(test)]` to the end of a file, `tests.rs`) is left out: tests may
//! use what they test from anywhere.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::{Path, PathBuf};

/// A file a reader can hold in mind: one concern, read in one sitting.
const MAX_FILE_LINES: usize = 600;
/// About two screens: a function longer than that does several things.
const MAX_FN_LINES: usize = 100;

/// Files over [`MAX_FILE_LINES`] today, with their size: each a split to make.
const FILE_ALLOWLIST: &[(&str, usize)] = &[
    // The run's process group, time-out, output and result parsing: to split by phase.
    ("server/runner/src/process.rs", 844),
];

/// Functions over [`MAX_FN_LINES`] today (file, name, lines): one `match` over a grammar's
/// cases (CPython's expressions and statements, `locate`'s node kinds, the ledger's entry
/// fields) or a command's one sequence of steps.
const FN_ALLOWLIST: &[(&str, &str, usize)] = &[
    ("server/runner/src/process.rs", "run", 117),
    ("server/runner/src/process.rs", "collect", 128),
    ("server/accounting/src/ledger/validate.rs", "validate_entry", 132),
    ("server/core/src/locate.rs", "locate", 109),
    // `analyze` on one input: its sections in print order.
    ("server/core/src/eval/expressions.rs", "expr_inner", 149),
];

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

/// The name of the function declared on `line`.
fn fn_name(line: &str) -> &str {
    let after = line.split("fn ").nth(1).unwrap_or_default();
    &after[..after.find(|c: char| !(c.is_alphanumeric() || c == '_')).unwrap_or(after.len())]
}

#[test]
fn files_and_functions_within_their_limits() {
    let mut files = Vec::new();
    rust_files(&server(), &mut files);
    let mut over = Vec::new();
    let (mut seen_files, mut seen_fns) = (Vec::new(), Vec::new());
    for file in files.iter().filter(|f| !f.starts_with(server().join("pyregex"))) {
        let source = non_test_source(file);
        let shown = format!("server/{}", file.strip_prefix(server()).unwrap().display());
        let lines = source.lines().count();
        if lines > MAX_FILE_LINES {
            seen_files.push(shown.clone());
        }
        let limit = FILE_ALLOWLIST.iter().find(|(f, _)| *f == shown).map_or(MAX_FILE_LINES, |(_, n)| *n);
        if lines > limit {
            over.push(format!("{shown}: {lines} lines of code before its tests (limit {limit})"));
        }
        for (line, length) in function_lengths(&source) {
            let name = fn_name(source.lines().nth(line - 1).unwrap_or_default());
            if length > MAX_FN_LINES {
                seen_fns.push((shown.clone(), name.to_string()));
            }
            let allowed = FN_ALLOWLIST.iter().find(|(f, n, _)| *f == shown && *n == name);
            let limit = allowed.map_or(MAX_FN_LINES, |(_, _, n)| *n);
            if length > limit {
                over.push(format!("{shown}:{line}: a function of {length} lines (limit {limit})"));
            }
        }
    }
    // An exception that is back within the limit leaves the list.
    for (file, _) in FILE_ALLOWLIST {
        if !seen_files.iter().any(|f| f == file) {
            over.push(format!("{file}: in FILE_ALLOWLIST but not over {MAX_FILE_LINES} lines (or gone)"));
        }
    }
    for (file, name, _) in FN_ALLOWLIST {
        if !seen_fns.iter().any(|(f, n)| f == file && n == name) {
            over.push(format!("{file}: fn {name} in FN_ALLOWLIST but not over {MAX_FN_LINES} lines (or gone)"));
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

/// Circles known today, by crate and the module they are in: each a debt to pay, listed so
/// that no new one joins them unseen (a new circle elsewhere, or a new member of these,
/// fails).
const KNOWN_CIRCLES: &[(&str, &str, &[&str])] = &[
    // `ManifestFacts` carries the project ledger, whose matching reads the facts: the ledger
    // types belong in a leaf both read.
    ("server/accounting/src", "crate", &["facts", "ledger"]),
    // The accounting's phases share one context and record into one result.
    ("server/accounting/src", "account", &["chain", "context", "phases", "preflight", "result", "tally"]),
];

const CRATES: &[&str] = &["server/core/src", "server/accounting/src", "server/runner/src", "server/lsp/src"];

fn repo() -> PathBuf {
    server().join("..")
}

/// A source file: its module path (`["actions", "fix_all"]`) and its code before tests,
/// comments and literals blanked out (so braces and `crate::` in them do not count).
struct Source {
    file: String,
    module: Vec<String>,
    code: String,
}

fn sources(crate_src: &str) -> Vec<Source> {
    let root = repo().join(crate_src);
    let mut files = Vec::new();
    let mut stack = vec![root.clone()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                files.push(path);
            }
        }
    }
    files.sort();
    let mut out = Vec::new();
    for path in files {
        let relative = path.strip_prefix(&root).unwrap();
        let mut module: Vec<String> =
            relative.with_extension("").iter().map(|p| p.to_string_lossy().into_owned()).collect();
        match module.last().map(String::as_str) {
            // The binary is another crate; test files are test code.
            Some("main" | "tests") if module.len() == 1 || module.last().unwrap() == "tests" => continue,
            Some("lib" | "mod") => {
                module.pop();
            }
            _ => {}
        }
        if module.first().is_some_and(|m| m == "bin") {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        let before_tests = text.find("\n#[cfg(test)]").map_or(text.as_str(), |i| &text[..i + 1]);
        let file = format!("{crate_src}/{}", relative.to_string_lossy());
        out.push(Source { file, module, code: blank_comments_and_literals(before_tests) });
    }
    out
}

/// `text` with comments, string and char literals replaced by spaces (newlines kept).
fn blank_comments_and_literals(text: &str) -> String {
    let b = text.as_bytes();
    let mut out = b.to_vec();
    let blank = |out: &mut Vec<u8>, from: usize, to: usize| {
        for c in &mut out[from..to.min(b.len())] {
            if *c != b'\n' {
                *c = b' ';
            }
        }
    };
    let mut i = 0;
    while i < b.len() {
        let rest = &b[i..];
        if rest.starts_with(b"//") {
            let end = text[i..].find('\n').map_or(b.len(), |n| i + n);
            blank(&mut out, i, end);
            i = end;
        } else if rest.starts_with(b"/*") {
            let end = text[i + 2..].find("*/").map_or(b.len(), |n| i + 2 + n + 2);
            blank(&mut out, i, end);
            i = end;
        } else if let Some(hashes) = raw_string_start(rest) {
            let close: String = std::iter::once('"').chain(std::iter::repeat_n('#', hashes)).collect();
            let body = i + 2 + hashes + usize::from(rest[0] == b'b');
            let end = text[body..].find(&close).map_or(b.len(), |n| body + n + close.len());
            blank(&mut out, i, end);
            i = end;
        } else if rest[0] == b'"' {
            let mut j = i + 1;
            while j < b.len() && b[j] != b'"' {
                j += if b[j] == b'\\' { 2 } else { 1 };
            }
            blank(&mut out, i, j + 1);
            i = j + 1;
        } else if rest[0] == b'\'' {
            // A char literal ('x', '\n', '{'), not a lifetime ('a).
            let end = if rest.get(1) == Some(&b'\\') {
                text[i + 2..].find('\'').map(|n| i + 2 + n + 1)
            } else {
                let c = text[i + 1..].chars().next().map_or(1, char::len_utf8);
                (b.get(i + 1 + c) == Some(&b'\'')).then_some(i + 1 + c + 1)
            };
            match end {
                Some(end) => {
                    blank(&mut out, i, end);
                    i = end;
                }
                None => i += 1,
            }
        } else {
            i += 1;
        }
    }
    String::from_utf8(out).unwrap()
}

/// The number of `#`s of a raw string starting here (`r"`, `r#"`, `br"`).
fn raw_string_start(rest: &[u8]) -> Option<usize> {
    let rest = rest.strip_prefix(b"b").unwrap_or(rest);
    let rest = rest.strip_prefix(b"r")?;
    let hashes = rest.iter().take_while(|c| **c == b'#').count();
    (rest.get(hashes) == Some(&b'"')).then_some(hashes)
}

/// Every path a file names from `crate::`, `super::` or `self::`, resolved to absolute
/// segments (`use super::{a::b, c}` gives `[.., a, b]` and `[.., c]`).
fn paths(source: &Source) -> Vec<Vec<String>> {
    let code = source.code.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < code.len() {
        let word_start = i == 0 || !(code[i - 1].is_ascii_alphanumeric() || code[i - 1] == b'_' || code[i - 1] == b':');
        let prefix = ["crate::", "super::", "self::"].into_iter().find(|p| code[i..].starts_with(p.as_bytes()));
        match prefix {
            Some(_) if word_start => {
                let end = use_tree(&source.code, i, None, &mut out, &source.module);
                i = end.max(i + 1);
            }
            _ => i += 1,
        }
    }
    out
}

/// Reads one use tree at `at` (`a::b`, `a::{b, c::d}`, `a::*`), pushing each full path;
/// `base`: the path before it, `None` at the start (`crate`, `self` or `super` comes first).
fn use_tree(
    code: &str,
    mut at: usize,
    base: Option<&[String]>,
    out: &mut Vec<Vec<String>>,
    module: &[String],
) -> usize {
    let b = code.as_bytes();
    let mut first = base.is_none();
    let mut path = base.map(<[String]>::to_vec).unwrap_or_default();
    loop {
        while at < b.len() && b[at].is_ascii_whitespace() {
            at += 1;
        }
        if at < b.len() && b[at] == b'{' {
            at += 1;
            loop {
                while at < b.len() && (b[at].is_ascii_whitespace() || b[at] == b',') {
                    at += 1;
                }
                if at >= b.len() || b[at] == b'}' {
                    return at + 1;
                }
                let before = at;
                at = use_tree(code, at, Some(&path), out, module).max(before + 1);
            }
        }
        let start = at;
        while at < b.len() && (b[at].is_ascii_alphanumeric() || b[at] == b'_') {
            at += 1;
        }
        if start == at {
            break;
        }
        let word = &code[start..at];
        if first {
            first = false;
            // The first segment: where the path starts.
            path = match word {
                "crate" => Vec::new(),
                // In `a/mod.rs`, `self` is `a` and `super` its parent; in `a/b.rs`, `super` is `a`.
                "self" => module.to_vec(),
                "super" => module[..module.len().saturating_sub(1)].to_vec(),
                _ => break,
            };
        } else if word == "super" {
            path.pop();
        } else if word != "self" {
            path.push(word.to_string());
        }
        if code[at..].starts_with("::") {
            at += 2;
        } else {
            break;
        }
    }
    out.push(path);
    at
}

/// The crate's modules (by path) and, per module, the items it re-exports (`pub use
/// x::Item` -> `[.., x, Item]`).
struct Crate {
    modules: BTreeSet<Vec<String>>,
    reexports: HashMap<Vec<String>, HashMap<String, Vec<String>>>,
}

impl Crate {
    fn new(sources: &[Source]) -> Crate {
        let modules = sources.iter().map(|s| s.module.clone()).collect();
        let mut reexports: HashMap<Vec<String>, HashMap<String, Vec<String>>> = HashMap::new();
        for s in sources {
            for line in s.code.split(';') {
                let line = line.trim();
                let Some(rest) = line.strip_prefix("pub use ").or_else(|| line.strip_prefix("pub(crate) use ")) else {
                    continue;
                };
                let relative =
                    if rest.starts_with("crate::") || rest.starts_with("super::") || rest.starts_with("self::") {
                        rest.to_string()
                    } else {
                        format!("self::{rest}")
                    };
                let mut found = Vec::new();
                use_tree(&relative, 0, None, &mut found, &s.module);
                for path in found {
                    if let Some(name) = path.last() {
                        reexports.entry(s.module.clone()).or_default().insert(name.clone(), path);
                    }
                }
            }
        }
        Crate { modules, reexports }
    }

    /// The module a path names: its longest module prefix, following a re-exported item
    /// to where it comes from (a few hops at most).
    fn module_of(&self, path: &[String]) -> Vec<String> {
        let mut path = path.to_vec();
        for _ in 0..4 {
            let depth = (0..=path.len()).rev().find(|n| self.modules.contains(&path[..*n])).unwrap_or(0);
            let module = path[..depth].to_vec();
            let next = path.get(depth).and_then(|item| self.reexports.get(&module)?.get(item));
            match next {
                Some(source) if source.as_slice() != &path[..depth + 1] => {
                    let mut redirected = source.clone();
                    redirected.extend(path[depth + 1..].iter().cloned());
                    path = redirected;
                }
                _ => return module,
            }
        }
        path
    }
}

/// The circles among the submodules of each module of `crate_src`, as lines.
fn circles(crate_src: &str) -> Vec<String> {
    let sources = sources(crate_src);
    let krate = Crate::new(&sources);
    // (parent, from child, to child) -> files that make the edge.
    let mut edges: BTreeMap<(Vec<String>, String, String), BTreeSet<String>> = BTreeMap::new();
    for s in &sources {
        for path in paths(s) {
            let target = krate.module_of(&path);
            let common = s.module.iter().zip(&target).take_while(|(a, b)| a == b).count();
            // An edge to an ancestor (or to itself) is the module's own structure.
            let (Some(from), Some(to)) = (s.module.get(common), target.get(common)) else { continue };
            edges.entry((s.module[..common].to_vec(), from.clone(), to.clone())).or_default().insert(s.file.clone());
        }
    }
    let mut by_parent: BTreeMap<Vec<String>, Vec<(String, String)>> = BTreeMap::new();
    for (parent, from, to) in edges.keys() {
        by_parent.entry(parent.clone()).or_default().push((from.clone(), to.clone()));
    }
    let mut out = Vec::new();
    for (parent, list) in by_parent {
        for component in strongly_connected(&list) {
            let inside = |(a, b): &&(String, String)| component.contains(a) && component.contains(b);
            let detail: Vec<String> = list
                .iter()
                .filter(inside)
                .map(|(a, b)| {
                    let files = &edges[&(parent.clone(), a.clone(), b.clone())];
                    format!("{a} -> {b} ({})", files.iter().cloned().collect::<Vec<_>>().join(", "))
                })
                .collect();
            let at = if parent.is_empty() { "crate".to_string() } else { parent.join("::") };
            let known =
                KNOWN_CIRCLES.iter().any(|(c, p, members)| *c == crate_src && *p == at && *members == component);
            if known {
                continue;
            }
            out.push(format!(
                "{crate_src}: circle in {at}: {}\n    {}",
                component.join(" <-> "),
                detail.join("\n    ")
            ));
        }
    }
    out
}

/// The strongly connected components of more than one node (Tarjan's algorithm).
fn strongly_connected(edges: &[(String, String)]) -> Vec<Vec<String>> {
    let mut nodes: Vec<&String> = edges.iter().flat_map(|(a, b)| [a, b]).collect();
    nodes.sort();
    nodes.dedup();
    let index_of = |n: &String| nodes.binary_search(&n).unwrap();
    let mut next: Vec<Vec<usize>> = vec![Vec::new(); nodes.len()];
    for (a, b) in edges {
        next[index_of(a)].push(index_of(b));
    }
    struct State {
        index: Vec<Option<usize>>,
        low: Vec<usize>,
        on_stack: Vec<bool>,
        stack: Vec<usize>,
        counter: usize,
        out: Vec<Vec<usize>>,
    }
    fn visit(v: usize, next: &[Vec<usize>], s: &mut State) {
        s.index[v] = Some(s.counter);
        s.low[v] = s.counter;
        s.counter += 1;
        s.stack.push(v);
        s.on_stack[v] = true;
        for &w in &next[v] {
            match s.index[w] {
                None => {
                    visit(w, next, s);
                    s.low[v] = s.low[v].min(s.low[w]);
                }
                Some(i) if s.on_stack[w] => s.low[v] = s.low[v].min(i),
                _ => {}
            }
        }
        if Some(s.low[v]) == s.index[v] {
            let mut component = Vec::new();
            while let Some(w) = s.stack.pop() {
                s.on_stack[w] = false;
                component.push(w);
                if w == v {
                    break;
                }
            }
            if component.len() > 1 {
                s.out.push(component);
            }
        }
    }
    let n = nodes.len();
    let mut state = State {
        index: vec![None; n],
        low: vec![0; n],
        on_stack: vec![false; n],
        stack: Vec::new(),
        counter: 0,
        out: Vec::new(),
    };
    for v in 0..n {
        if state.index[v].is_none() {
            visit(v, &next, &mut state);
        }
    }
    state
        .out
        .into_iter()
        .map(|c| {
            let mut names: Vec<String> = c.into_iter().map(|i| nodes[i].clone()).collect();
            names.sort();
            names
        })
        .collect()
}

#[test]
fn no_import_circles() {
    let found: Vec<String> = CRATES.iter().flat_map(|c| circles(c)).collect();
    assert!(found.is_empty(), "{} import circles:\n{}", found.len(), found.join("\n"));
}

#[test]
fn the_checks_see_what_they_check() {
    // A circle between two files is found, and one through a re-export.
    let source = |file: &str, module: &[&str], code: &str| Source {
        file: file.into(),
        module: module.iter().map(|s| s.to_string()).collect(),
        code: blank_comments_and_literals(code),
    };
    let a = source("a.rs", &["a"], "use crate::b::x; // crate::c::y\nfn f() { \"crate::c\"; }");
    let b = source("b.rs", &["b"], "use super::{a::{self, z}, Thing};");
    let lib = source("lib.rs", &[], "pub use a::Thing;");
    let found: Vec<Vec<String>> = paths(&a).into_iter().chain(paths(&b)).collect();
    let s = |v: &[&str]| v.iter().map(|x| x.to_string()).collect::<Vec<_>>();
    assert_eq!(found, [s(&["b", "x"]), s(&["a"]), s(&["a", "z"]), s(&["Thing"])]);
    let krate = Crate::new(&[a, b, lib]);
    assert_eq!(krate.module_of(&s(&["Thing"])), s(&["a"]));
    let circle = strongly_connected(&[("a".into(), "b".into()), ("b".into(), "a".into()), ("b".into(), "c".into())]);
    assert_eq!(circle, [s(&["a", "b"])]);
}
