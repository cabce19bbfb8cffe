//! Differential test: `torchcts-lsp check` against the real `torchcts check-manifest` on
//! random edits of the parity corpus (`tests/parity/check/cases/*/manifest.py`).
//!
//! Each mutant is one to three random edits of a corpus manifest: characters deleted or
//! inserted, lines dropped or duplicated, typos in keys, capability and dtype names replaced,
//! values swapped or replaced, random regexes, added keys, and now and then a shape CPython
//! refuses to load (a NUL byte, deep brackets, a huge int, bad string escapes, CR line
//! endings). The real tool (`differential_oracle.py`, one Python process for all files) and
//! the core's `analyze` must print the same lines (banner excluded, as in `parity_check`)
//! with the same exit code.
//!
//! - `TORCHCTS_PYTHON`: a Python with torchcts 0.4.1 (torch 2.12.1). The test is `#[ignore]`d
//!   (run it with `-- --include-ignored`); run without it, it prints "SKIPPED: ..." and
//!   passes, unless `TORCHCTS_REQUIRE_REAL_RUNS=1` (CI).
//! - `CHECK_DIFF_SEED=<n>` or `random`: another sample (the default seed is fixed for CI).
//!   The mutants are spread evenly over the corpus cases, and each case draws its own from a
//!   stream of (seed, case name): a new corpus case leaves the others' mutants as they were.
//! - Our side knows which modules the oracle's Python can import (read from its folders, as
//!   the CLI reads them), so `import orch` is compared; a mutant where we leave a value we do
//!   not evaluate out (with a note) and every line we print is the real tool's is counted
//!   apart, not as a difference.
//! - `CHECK_DIFF_CASES=<n>`: how many mutants (default 1,200); `CHECK_DIFF_SHOW=<n>`: how
//!   many differing cases the report shows in full (default 12).
//! - `CHECK_DIFF_EMULATION_ONLY=1`: syntax errors judged by our emulation of CPython's parser
//!   only (as where no CPython 3.10+ is known), so the report shows its residue in full.
//! - `CHECK_DIFF_TOKENS=1`: token-level edits besides (a keyword, operator or name put
//!   between tokens, a token deleted or swapped with its neighbour, a value wrapped in an
//!   expression): harsher than a person's typing, to look for classes the default edits
//!   reach rarely. Off by default, and in CI.
//!
//! On failure the mutants stay on disk and the report names the folder, the seed, and the
//! first differing cases in full.

mod support;

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use torchcts_core::check::CheckOutcome;
use torchcts_core::cpython::CompileAnswer;
use torchcts_core::eval::modules::{ImportableModules, ModuleFiles};
use torchcts_core::{analyze, AnalysisInput};
use torchcts_lsp::host::cpython::Worker;

const DEFAULT_SEED: u64 = 20_261_201;
const DEFAULT_CASES: usize = 1_200;

/// Corpus cases whose real outcome depends on running Python (as in `parity_check`): their
/// mutants may be answered with "needs Python" instead of a claim.
const NEEDS_PYTHON: &[&str] = &["parse_import_error"];

/// splitmix64: small, fast, and the same sequence everywhere for a seed.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next() % n as u64) as usize
        }
    }
    fn chance(&mut self, percent: usize) -> bool {
        self.below(100) < percent
    }
    fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
}

const CAPABILITIES: &[&str] = &[
    "inference",
    "training",
    "serialization",
    "rng",
    "device_generator",
    "rng_distributions",
    "double_backward",
    "gradcheck",
    "gradient_checkpointing",
    "autocast",
    "fused_optimizer",
    "dataloader",
    "module_hooks",
    "channels_last",
    "sparse",
    "nested",
    "named_tensor",
    "foreach",
    "fp8",
    "quantized_container_plumbing",
    "native_quantization",
    "custom_quantized_decode",
    "compile",
    "pinned_memory",
    "streams",
    "events",
    "deterministic",
    "guard_alloc",
    "device_api",
    "multi_device",
    "ieee754",
    "generator",
    "quantized",
    "Inference",
    "trainng",
];
const TOP_LEVEL_KEYS: &[&str] = &[
    "manifest_version",
    "device_name",
    "backend_import",
    "supported_dtypes",
    "device_count",
    "ieee754_seed",
    "max_samples",
    "max_samples_ieee754",
    "semantic_level",
    "hardware",
    "resource_limits",
    "capabilities",
    "skip_ops",
    "tolerance_overrides",
    "supported_container_formats",
    "custom_container_decoders",
    "custom_test_dirs",
    "show_traceback",
    "manifest_versoin",
    "devices",
    "extra",
];
const NESTED_KEYS: &[&str] = &[
    "memory_model",
    "device_memory_gb",
    "system_memory_gb",
    "oom_recoverable",
    "max_device_memory_mb",
    "max_system_memory_mb",
    "max_tensor_size_mb",
    "cleanup_threshold_pct",
    "int2_ternary",
    "int4_symmetric",
    "int4_asymmetric",
    "uint4",
    "nf4",
    "fp4_e2m1",
    "fp4_bnb",
    "af4",
    "matmul:float32",
    "conv/float16",
    "default:float8_e4m3fn",
    "linalg:torch.float64",
    "bogus:float32",
];
const DTYPES: &[&str] = &[
    "float32",
    "float16",
    "bfloat16",
    "float64",
    "half",
    "float",
    "double",
    "int",
    "int8",
    "int16",
    "int32",
    "int64",
    "uint8",
    "bool",
    "complex64",
    "complex128",
    "float8_e4m3fn",
    "float8_e5m2",
    "qint8",
    "quint8",
    "float33",
    "notadtype",
    "Float32",
    "cfloat",
    "long",
    "short",
    "uint16",
];
/// Values put in place of others. Set literals are left out: they are not evaluated
/// statically (a note says so instead of a claim).
const VALUES: &[&str] = &[
    "True",
    "False",
    "None",
    "0",
    "1",
    "2",
    "-1",
    "8",
    "9",
    "1.5",
    "1e16",
    "float('nan')",
    "\"auto\"",
    "\"discrete\"",
    "\"unified\"",
    "\"\"",
    "\"x\"",
    "[]",
    "{}",
    "()",
    "[1, \"a\"]",
    "[\"aten::add\"]",
    "(1e-3, 1e-5)",
    "{\"rtol\": 1e-3, \"atol\": 1e-5}",
    "{\"rtol\": \"x\"}",
    "[16, 24]",
    "\"mod:func\"",
    "\"mod\"",
    "torch.float32",
    "torch.half",
    "\"float32\"",
    "50",
    "101",
    "100.0",
    "b\"x\"",
    "\"yes\"",
    "[\"extra_tests\", \"missing\"]",
    "\"4\"",
    "4.0",
    "1.0",
    "\"1\"",
    "-\"x\"",
    "+torch.float32",
    "~1.5",
    "~True",
];
/// Pieces of random regexes: valid ones, errors, and FutureWarning shapes.
const REGEX_PARTS: &[&str] = &[
    "a",
    "b",
    ".",
    "*",
    "+",
    "?",
    "|",
    "(",
    ")",
    "[",
    "]",
    "[a-z]",
    "[z-a]",
    "{2}",
    "{2,1}",
    "\\d",
    "\\\\",
    "\\",
    "^",
    "$",
    "(?i)",
    "(?P<n>",
    "(?P=n)",
    "(?<=a)",
    "(?#c)",
    "[[",
    "--",
    "&&",
    "~~",
    "||",
    "\\b",
    "float",
    "16",
    "32",
    "bfloat",
    "{99999999999}",
    "(?x)",
    "\\x4",
    "\\u00e9",
    "\\N{EM DASH}",
    "(?",
    "[^",
    "\\1",
    "a{,3}",
];
const INSERT_CHARS: &[char] = &[
    '{', '}', '[', ']', '(', ')', '\'', '"', ',', ':', '#', '\\', ' ', ' ', '\n', '\t', '.', '=', '*', '+', '-', '_',
    '0', '1', '9', 'a', 'x', 'T', 'N', 'é', ';', '@', '!', 'r', 'b', 'f', 'u',
];

fn char_starts(text: &str) -> Vec<usize> {
    text.char_indices().map(|(i, _)| i).collect()
}

/// The spans of `"..."` and `'...'` literal contents on one line (a rough scan: good enough
/// to aim edits at keys and values).
fn string_contents(text: &str) -> Vec<std::ops::Range<usize>> {
    let mut out = Vec::new();
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        let q = bytes[i];
        if q == b'"' || q == b'\'' {
            let start = i + 1;
            let mut j = start;
            while j < bytes.len() && bytes[j] != q && bytes[j] != b'\n' {
                if bytes[j] == b'\\' {
                    j += 1;
                }
                j += 1;
            }
            if j < bytes.len() && bytes[j] == q {
                out.push(start..j);
                i = j + 1;
                continue;
            }
        } else if q == b'#' {
            while i < bytes.len() && bytes[i] != b'\n' {
                i += 1;
            }
        }
        i += 1;
    }
    out
}

/// The value after `key: ` up to the line's last `,` (one-line values only).
fn value_spans(text: &str) -> Vec<std::ops::Range<usize>> {
    let mut out = Vec::new();
    let mut offset = 0;
    for line in text.split_inclusive('\n') {
        if let Some(colon) = line.find(": ") {
            let body = line.trim_end_matches(['\n', '\r']);
            if let Some(comma) = body.rfind(',') {
                let start = colon + 2;
                if comma > start && !line[..colon].contains('#') {
                    out.push(offset + start..offset + comma);
                }
            }
        }
        offset += line.len();
    }
    out
}

fn word_spans(text: &str, words: &[&str]) -> Vec<std::ops::Range<usize>> {
    let mut out = Vec::new();
    for w in words {
        for (i, _) in text.match_indices(w) {
            let before = text[..i].chars().next_back();
            let after = text[i + w.len()..].chars().next();
            let is_word = |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric() || c == '_');
            if !is_word(before) && !is_word(after) {
                out.push(i..i + w.len());
            }
        }
    }
    out.sort_by_key(|r| r.start);
    out
}

fn line_spans(text: &str) -> Vec<std::ops::Range<usize>> {
    let mut out = Vec::new();
    let mut offset = 0;
    for line in text.split_inclusive('\n') {
        out.push(offset..offset + line.len());
        offset += line.len();
    }
    out
}

fn random_regex(rng: &mut Rng) -> String {
    let n = 1 + rng.below(5);
    (0..n).map(|_| *rng.pick(REGEX_PARTS)).collect::<Vec<_>>().join("")
}

fn splice(text: &mut String, range: std::ops::Range<usize>, with: &str) {
    text.replace_range(range, with);
}

/// Applies one random edit; returns what it did, for the report.
fn mutate(text: &mut String, rng: &mut Rng) -> String {
    let kind = rng.below(100);
    match kind {
        0..=11 => {
            let starts = char_starts(text);
            if starts.is_empty() {
                return "nothing to delete".into();
            }
            let i = rng.below(starts.len());
            let n = 1 + rng.below(3);
            let end = starts.get(i + n).copied().unwrap_or(text.len());
            let gone = text[starts[i]..end].to_string();
            splice(text, starts[i]..end, "");
            format!("deleted {gone:?} at byte {}", starts[i])
        }
        12..=23 => {
            let mut starts = char_starts(text);
            starts.push(text.len());
            let at = *rng.pick(&starts);
            let c = *rng.pick(INSERT_CHARS);
            text.insert(at, c);
            format!("inserted {c:?} at byte {at}")
        }
        24..=31 => {
            let lines = line_spans(text);
            if lines.is_empty() {
                return "no line to drop".into();
            }
            let l = rng.below(lines.len());
            splice(text, lines[l].clone(), "");
            format!("dropped line {}", l + 1)
        }
        32..=38 => {
            let lines = line_spans(text);
            if lines.is_empty() {
                return "no line to duplicate".into();
            }
            let l = rng.below(lines.len());
            let mut copy = text[lines[l].clone()].to_string();
            if !copy.ends_with('\n') {
                copy.insert(0, '\n');
            }
            text.insert_str(lines[l].end, &copy);
            format!("duplicated line {}", l + 1)
        }
        39..=50 => {
            // A typo inside a string literal (mostly keys).
            let spans: Vec<_> = string_contents(text).into_iter().filter(|r| !r.is_empty()).collect();
            if spans.is_empty() {
                return "no string for a typo".into();
            }
            let span = rng.pick(&spans).clone();
            let inner = text[span.clone()].to_string();
            let chars: Vec<char> = inner.chars().collect();
            let i = rng.below(chars.len());
            let mut new: Vec<char> = chars.clone();
            match rng.below(4) {
                0 => {
                    new.remove(i);
                }
                1 => new.insert(i, *rng.pick(&['a', 'e', '_', 's', 'x', ' ', '.', '1'])),
                2 => new[i] = *rng.pick(&['a', 'o', 'i', '_', 'Z', '-', '2']),
                _ => {
                    if i + 1 < new.len() {
                        new.swap(i, i + 1);
                    }
                }
            }
            let new: String = new.into_iter().collect();
            splice(text, span, &new);
            format!("typo {inner:?} -> {new:?}")
        }
        51..=61 => {
            // A capability, dtype or key name replaced by another (or a near miss).
            let pools: [&[&str]; 4] = [CAPABILITIES, DTYPES, TOP_LEVEL_KEYS, NESTED_KEYS];
            let pool = *rng.pick(&pools);
            let spans = word_spans(text, pool);
            if spans.is_empty() {
                return "no name to replace".into();
            }
            let span = rng.pick(&spans).clone();
            let old = text[span.clone()].to_string();
            let new = *rng.pick(pool);
            splice(text, span, new);
            format!("renamed {old} -> {new}")
        }
        62..=69 => {
            let spans = value_spans(text);
            if spans.len() < 2 {
                return "fewer than two values to swap".into();
            }
            let a = rng.below(spans.len());
            let b = rng.below(spans.len());
            let (a, b) = (spans[a.min(b)].clone(), spans[a.max(b)].clone());
            if a == b {
                return "swapped a value with itself".into();
            }
            let (va, vb) = (text[a.clone()].to_string(), text[b.clone()].to_string());
            splice(text, b, &va);
            splice(text, a, &vb);
            format!("swapped values {va:?} and {vb:?}")
        }
        70..=77 => {
            let spans = value_spans(text);
            if spans.is_empty() {
                return "no value to replace".into();
            }
            let span = rng.pick(&spans).clone();
            let old = text[span.clone()].to_string();
            let new = *rng.pick(VALUES);
            splice(text, span, new);
            format!("value {old:?} -> {new}")
        }
        78..=85 => {
            // A random regex in place of a string's contents (regex values, dtype keys, ieee754).
            let spans = string_contents(text);
            if spans.is_empty() {
                return "no string for a regex".into();
            }
            let span = rng.pick(&spans).clone();
            let regex = random_regex(rng);
            // Mostly raw strings, as users write regexes; sometimes not, for escape errors.
            let raw = rng.chance(70) && span.start > 0 && !text[..span.start - 1].ends_with(['r', 'b', 'f', 'u']);
            let old = text[span.clone()].to_string();
            let quote = &text[span.start - 1..span.start];
            let escaped = regex.replace(quote, &format!("\\{quote}"));
            if raw {
                // `r"...\"` would swallow the quote: keep a trailing backslash even.
                let body = if escaped.ends_with('\\') && !escaped.ends_with("\\\\") {
                    format!("{escaped}\\")
                } else {
                    escaped
                };
                splice(text, span.start - 1..span.start - 1, "r");
                splice(text, span.start + 1..span.end + 1, &body);
            } else {
                splice(text, span, &escaped);
            }
            format!("regex {old:?} -> {}{regex:?}", if raw { "r" } else { "" })
        }
        86..=93 => {
            // A key added at the start of a dict that opens at a line end.
            let opens: Vec<usize> = text.match_indices("{\n").map(|(i, _)| i + 2).collect();
            if opens.is_empty() {
                return "no dict to add a key to".into();
            }
            let at = *rng.pick(&opens);
            let pools: [&[&str]; 3] = [TOP_LEVEL_KEYS, CAPABILITIES, NESTED_KEYS];
            let pool = *rng.pick(&pools);
            let key = *rng.pick(pool);
            let value = *rng.pick(VALUES);
            let line = format!("    \"{key}\": {value},\n");
            text.insert_str(at, &line);
            format!("added {:?}", line.trim())
        }
        _ => special(text, rng),
    }
}

/// Python tokens put between others by `mutate_tokens`: keywords, operators, names.
const TOKENS: &[&str] = &[
    "not", "and", "or", "if", "else", "for", "in", "is", "lambda", "None", "await", "yield", "del", "pass", "return",
    "global", "async", "with", "as", "from", "import", "class", "def", "try", "except", "while", "break", "assert",
    "raise", "elif", "match", "case", "type", ":=", "**", "//", "->", "==", "!=", "<=", ">>", "...", "+=", "|", "&",
    "^", "%", "@", "=", ":", ",", ";", "*", "-", "~", "(", ")", "[", "]", "{", "}", "manifest", "torch", "x", "print",
    "dict", "list", "len", "sorted", "range", "str", "int", "sys", "os", "0", "1", "''", "b''", "f''",
];

/// Wrappers put around a value by `mutate_tokens` (`{}` is the value), `|` between them.
const WRAPPERS: &str = "({})|[{}]|{{{}}}|*{}|**{}|-{}|not {}|{}.x|{}()|{}[0]|{}[:]|({},)|{} if x else 1|lambda: {}|\
    [{} for x in y]|{}, 1|str({})|list({})|dict({})|len({})|{} + {}|{} * 2|{}.items()|{}.keys()|{}.get(1)|\
    {}.copy()|f'{{{}}}'|({} := 1)|sorted({})|{} or None";

/// Token-level edits (opt-in with `CHECK_DIFF_TOKENS=1`, to look for new classes): a token
/// inserted between others, a word or bracket deleted, two neighbouring tokens swapped, or
/// a value wrapped in an expression.
fn mutate_tokens(text: &mut String, rng: &mut Rng) -> String {
    let words: Vec<std::ops::Range<usize>> = token_spans(text);
    match rng.below(4) {
        0 => {
            let mut starts = char_starts(text);
            starts.push(text.len());
            let at = *rng.pick(&starts);
            let token = *rng.pick(TOKENS);
            let with = match rng.below(3) {
                0 => token.to_string(),
                1 => format!(" {token}"),
                _ => format!(" {token} "),
            };
            text.insert_str(at, &with);
            format!("inserted token {with:?} at byte {at}")
        }
        1 if !words.is_empty() => {
            let span = rng.pick(&words).clone();
            let gone = text[span.clone()].to_string();
            splice(text, span.clone(), "");
            format!("deleted token {gone:?} at byte {}", span.start)
        }
        2 if words.len() > 1 => {
            let i = rng.below(words.len() - 1);
            let (a, b) = (words[i].clone(), words[i + 1].clone());
            let (va, vb) = (text[a.clone()].to_string(), text[b.clone()].to_string());
            splice(text, b, &va);
            splice(text, a, &vb);
            format!("swapped tokens {va:?} and {vb:?}")
        }
        _ => {
            let spans = value_spans(text);
            if spans.is_empty() {
                return "no value to wrap".into();
            }
            let span = rng.pick(&spans).clone();
            let old = text[span.clone()].to_string();
            let wrappers: Vec<&str> = WRAPPERS.split('|').map(str::trim).collect();
            let new = rng.pick(&wrappers).replace("{}", &old).replace("{{", "{").replace("}}", "}");
            splice(text, span, &new);
            format!("wrapped {old:?} -> {new:?}")
        }
    }
}

/// Rough tokens: runs of word characters, and single punctuation characters.
fn token_spans(text: &str) -> Vec<std::ops::Range<usize>> {
    let mut spans = Vec::new();
    let mut start = None;
    for (i, c) in text.char_indices() {
        let word = c.is_alphanumeric() || c == '_';
        match (word, start) {
            (true, None) => start = Some(i),
            (false, Some(s)) => {
                spans.push(s..i);
                start = None;
            }
            _ => {}
        }
        if !word && !c.is_whitespace() {
            spans.push(i..i + c.len_utf8());
        }
    }
    if let Some(s) = start {
        spans.push(s..text.len());
    }
    spans
}

/// Rare shapes that CPython refuses (or reads differently) before any validation.
fn special(text: &mut String, rng: &mut Rng) -> String {
    let values = value_spans(text);
    match rng.below(8) {
        0 => {
            let mut starts = char_starts(text);
            starts.push(text.len());
            let at = *rng.pick(&starts);
            text.insert(at, '\0');
            format!("NUL byte at byte {at}")
        }
        1 if !values.is_empty() => {
            let depth = 190 + rng.below(30);
            let span = rng.pick(&values).clone();
            let nested = format!("{}1{}", "[".repeat(depth), "]".repeat(depth));
            splice(text, span, &nested);
            format!("value nested {depth} brackets deep")
        }
        2 if !values.is_empty() => {
            // Over CPython's limit: ints beyond i128 but within it are not evaluated statically
            // (a note says so), so they are not part of the sample.
            let digits = 4301 + rng.below(20);
            let span = rng.pick(&values).clone();
            let number: String = std::iter::once('7').chain(std::iter::repeat_n('3', digits - 1)).collect();
            splice(text, span, &number);
            format!("value an int of {digits} digits")
        }
        3 => {
            *text = text.replace("\r\n", "\n").replace('\n', "\r");
            "CR line endings".into()
        }
        4 => {
            let spans = string_contents(text);
            if spans.is_empty() {
                return "no string for an escape".into();
            }
            let span = rng.pick(&spans).clone();
            let escape = *rng.pick(&[
                "\\u12",
                "\\x4",
                "\\N{NOT A NAME}",
                "\\N{EM DASH}",
                "\\U0011ffff",
                "\\U00000041",
                "\\x41",
                "\\u00e9",
                "\\N",
                "\\N{",
                "\\q",
                "\\777",
                "\\0",
            ]);
            let at = span.start + rng.below(span.len() + 1);
            let at = (at..=span.end).find(|&i| text.is_char_boundary(i)).unwrap_or(span.end);
            text.insert_str(at, escape);
            format!("escape {escape:?} in a string at byte {at}")
        }
        5 => {
            let lines = line_spans(text);
            if lines.is_empty() {
                return "no line to indent".into();
            }
            let l = rng.below(lines.len());
            let indent = *rng.pick(&["  ", "\t", " ", "        "]);
            text.insert_str(lines[l].start, indent);
            format!("indented line {} by {indent:?}", l + 1)
        }
        6 => {
            let lines = line_spans(text);
            if lines.is_empty() {
                return "no line to dedent".into();
            }
            let l = rng.below(lines.len());
            let line = &text[lines[l].clone()];
            let trimmed = line.len() - line.trim_start_matches([' ', '\t']).len();
            splice(text, lines[l].start..lines[l].start + trimmed, "");
            format!("dedented line {}", l + 1)
        }
        _ => {
            let cut = rng.below(text.len() + 1);
            let cut = (cut..=text.len()).find(|&i| text.is_char_boundary(i)).unwrap_or(text.len());
            text.truncate(cut);
            format!("truncated at byte {cut}")
        }
    }
}

struct Mutant {
    from: String,
    edits: Vec<String>,
    path: PathBuf,
    text: String,
}

fn copy_subdirs(from: &Path, to: &Path) {
    for entry in std::fs::read_dir(from).expect("read case dir").flatten() {
        let path = entry.path();
        if path.is_dir() {
            let target = to.join(entry.file_name());
            std::fs::create_dir_all(&target).expect("create case subdir");
            copy_subdirs(&path, &target);
        }
    }
}

/// Corpus cases one link from CPython's compile nesting limit. That limit counts the Python
/// frames the loader is already in, which differ between `torchcts check-manifest` (what
/// `parity_check` holds them to) and the oracle's in-process call, so their mutants would
/// compare two different limits. They are not mutated.
fn at_the_compile_nesting_limit(case: &str) -> bool {
    case.starts_with("parse_compile_depth_")
        || case == "parse_deep_chain_name_error"
        || case == "compile_depth_unary_not_compiles"
}

fn corpus() -> Vec<(String, PathBuf, String)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/parity/check/cases");
    let mut out: Vec<(String, PathBuf, String)> = std::fs::read_dir(&root)
        .expect("the parity corpus is committed")
        .flatten()
        .filter(|e| e.path().join("manifest.py").is_file())
        .filter(|e| !at_the_compile_nesting_limit(&e.file_name().to_string_lossy()))
        .map(|e| {
            let dir = e.path();
            let text = std::fs::read_to_string(dir.join("manifest.py")).expect("read manifest");
            (e.file_name().to_string_lossy().into_owned(), dir, text)
        })
        .collect();
    out.sort_by(|a, b| a.0.cmp(&b.0));
    assert!(out.len() >= 100, "the corpus has only {} cases", out.len());
    out
}

/// The random stream of one corpus case: derived from the run's seed and the case's name
/// only, so adding or removing a case leaves every other case's mutants as they were.
fn case_rng(seed: u64, case: &str) -> Rng {
    // FNV-1a of the name, mixed into the seed by one splitmix64 step.
    let name = case.bytes().fold(0xCBF2_9CE4_8422_2325u64, |h, b| (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01B3));
    let mut mixer = Rng(seed ^ name);
    Rng(mixer.next())
}

/// The first `share` mutants of one case (text, edits), from its own stream.
fn draw_case(seed: u64, name: &str, original: &str, share: usize) -> Vec<(String, Vec<String>)> {
    let mut rng = case_rng(seed, name);
    (0..share)
        .map(|_| {
            let mut text = original.to_string();
            let n = match rng.below(10) {
                0..=5 => 1,
                6..=8 => 2,
                _ => 3,
            };
            let tokens = std::env::var("CHECK_DIFF_TOKENS").as_deref() == Ok("1");
            let edits: Vec<String> = (0..n)
                .map(|_| match tokens && rng.chance(60) {
                    true => mutate_tokens(&mut text, &mut rng),
                    false => mutate(&mut text, &mut rng),
                })
                .collect();
            (text, edits)
        })
        .collect()
}

/// `count` mutants spread evenly over the corpus cases (the first `count % cases` cases get
/// one more); each case draws its mutants from its own stream (`case_rng`), so a case's
/// first `k` mutants are the same whatever the count and the other cases.
fn make_mutants(seed: u64, count: usize, dir: &Path) -> Vec<Mutant> {
    let cases = corpus();
    let mut mutants = Vec::with_capacity(count);
    for (index, (name, case_dir, original)) in cases.iter().enumerate() {
        let share = count / cases.len() + usize::from(index < count % cases.len());
        for (j, (text, edits)) in draw_case(seed, name, original, share).into_iter().enumerate() {
            let folder = dir.join(format!("{name}-{j:03}"));
            std::fs::create_dir_all(&folder).expect("create mutant folder");
            copy_subdirs(case_dir, &folder);
            let path = folder.join("manifest.py");
            std::fs::write(&path, &text).expect("write mutant");
            mutants.push(Mutant { from: name.clone(), edits, path, text });
        }
    }
    mutants
}

/// A case's draw depends on the run's seed and its own name only: a longer draw extends a
/// shorter one, and another seed or name draws differently (so a new corpus case, or a
/// larger count, leaves the mutants of the others as they were).
#[test]
fn each_case_draws_from_its_own_stream() {
    let text = "manifest = {\n    'manifest_version': 1,\n    'device_name': 'cpu',\n}\n";
    let short = draw_case(7, "alpha", text, 3);
    let long = draw_case(7, "alpha", text, 6);
    assert_eq!(short[..], long[..3]);
    assert_ne!(draw_case(7, "beta", text, 6), long);
    assert_ne!(draw_case(8, "alpha", text, 6), long);
}

/// Two runs of the real tool differ only in what the comparison sets aside: an object's
/// address (also upper-cased by `.upper()`), the order of a sort's two unordered types.
#[test]
fn lines_compare_without_addresses_and_sort_orders() {
    let real = "Failed to parse manifest: BACKEND <FUNCTION <LAMBDA> AT 0X7FC26524CA40>";
    assert_eq!(comparable(real), comparable("Failed to parse manifest: BACKEND <FUNCTION <LAMBDA> AT 0X\u{2026}>"));
    assert_eq!(comparable("x <function f at 0x7f3a>"), "x <function f at 0x\u{2026}>");
    assert_ne!(comparable("x <function f at 0x7f3a>"), comparable("x <function g at 0x7f3a>"));
    let sort = "Failed to parse manifest: '<' not supported between instances of 'str' and 'bytes'";
    assert_eq!(comparable(sort), comparable(&sort.replace("'str' and 'bytes'", "'bytes' and 'str'")));
}

/// What the real tool said about one file.
struct Real {
    exit_code: i64,
    lines: Vec<String>,
    timeout: bool,
}

fn run_oracle(python: &Path, mutants: &[Mutant], dir: &Path) -> Vec<Real> {
    let list = dir.join("paths.txt");
    let mut paths = String::new();
    for m in mutants {
        paths.push_str(&m.path.to_string_lossy());
        paths.push('\n');
    }
    std::fs::write(&list, paths).expect("write path list");
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/parity/check/differential_oracle.py");
    let output = Command::new(python)
        .arg(script)
        .stdin(std::fs::File::open(&list).expect("open path list"))
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .env_remove("PYTHONWARNINGS")
        .env_remove("PYTHONPATH")
        .env_remove("PYTHONSTARTUP")
        .env("PYTHONDONTWRITEBYTECODE", "1")
        // Reproducible set order in the oracle (see `comparable`).
        .env("PYTHONHASHSEED", "0")
        .env("PYTHONIOENCODING", "utf-8")
        .current_dir(dir)
        .output()
        .expect("run the oracle");
    assert!(
        output.status.success(),
        "the oracle failed: {}\n{}",
        output.status,
        String::from_utf8_lossy(&output.stderr)
    );
    let results: Vec<Real> = String::from_utf8_lossy(&output.stdout)
        .lines()
        .map(|line| {
            let v: serde_json::Value = serde_json::from_str(line).expect("oracle line is JSON");
            Real {
                exit_code: v["exit_code"].as_i64().unwrap_or(-1),
                lines: v["lines"].as_array().unwrap().iter().map(|l| l.as_str().unwrap().to_string()).collect(),
                timeout: v["timeout"].as_bool().unwrap_or(false),
            }
        })
        .collect();
    assert_eq!(results.len(), mutants.len(), "the oracle answered {} of {} files", results.len(), mutants.len());
    results
}

/// What we say, and what we could not evaluate (the reasons of our information notes).
struct Ours {
    exit_code: i64,
    lines: Vec<String>,
    /// `manifest` itself is not known statically: we print a note instead of a claim.
    not_static: bool,
    unevaluated: Vec<String>,
    /// Our parsers found a syntax error (CPython's `compile()` is asked then).
    syntax_error: bool,
    /// The module whose file the analysis wants (`from M import X` where M lacks X).
    module_file_wanted: Option<String>,
}

impl Ours {
    fn same_as(&self, real: &Real) -> bool {
        let ours: Vec<String> = self.lines.iter().map(|l| comparable(l)).collect();
        let theirs: Vec<String> = real.lines.iter().map(|l| comparable(l)).collect();
        !self.not_static && self.exit_code == real.exit_code && ours == theirs
    }

    /// A value we do not evaluate (a literal beyond 128 bits, an f-string with fields) left
    /// out with a note, and every line we do print is the real tool's, with its exit code:
    /// nothing we claim is wrong.
    fn holds_where_evaluated(&self, real: &Real) -> bool {
        let theirs: Vec<String> = real.lines.iter().map(|l| comparable(l)).collect();
        !self.unevaluated.is_empty()
            && !self.not_static
            && self.exit_code == real.exit_code
            && self.lines.iter().all(|l| theirs.contains(&comparable(l)))
    }

    /// Differences that only running Python can settle: whether a module we do not know
    /// can be imported (the answer depends on the user's environment, not on torchcts), what
    /// depends on the command line (`a, b = sys.argv`), on the installed torch's version
    /// string (`a, b = torch.__version__`: `2.12.1+cpu` in CI, `2.12.1+cu130` elsewhere), or
    /// on the machine (`if torch.cuda.is_available():`).
    fn only_python_knows(&self) -> bool {
        let environment = |why: &String| {
            why.contains("can be imported is only known") || torchcts_core::eval::modules::environment_decides(why)
        };
        self.unevaluated.iter().any(environment)
    }
}

/// `sorted(set(...))` of str and int keys fails on whichever pair the set yields first, and
/// a set's order of str keys changes with Python's hash seed, from run to run of the real
/// tool: `'<' not supported between instances of 'int' and 'str'` or `'str' and 'int'`.
/// Both are the real answer, so the two type names are compared in a fixed order; and
/// object addresses are the run's (see `without_addresses`).
fn comparable(line: &str) -> String {
    const HEAD: &str = "'<' not supported between instances of '";
    let line = without_addresses(line);
    // The check's crash (`TypeError: ...`) or the manifest's load (`Failed to parse manifest: ...`).
    let Some(at) = ["TypeError: ", "Failed to parse manifest: "]
        .iter()
        .find_map(|p| line.strip_prefix(p).filter(|rest| rest.starts_with(HEAD)).map(|_| p.len()))
    else {
        return line;
    };
    let (prefix, rest) = (&line[..at], &line[at + HEAD.len()..]);
    match rest.strip_suffix('\'').and_then(|r| r.split_once("' and '")) {
        Some((a, b)) => format!("{prefix}{HEAD}{}' and '{}'", a.min(b), a.max(b)),
        None => line.to_string(),
    }
}

/// A line with each object address of a repr (`<function f at 0x7f3a...>`) as the core
/// prints an address it cannot know (`at 0x…>`): the run decides it, two runs of the real
/// tool print two.
fn without_addresses(line: &str) -> String {
    let mut out = String::with_capacity(line.len());
    let mut rest = line;
    // `.upper()` of a str showing one: ` AT 0X7F…>`.
    let next = |rest: &str| [" at 0x", " AT 0X"].iter().filter_map(|p| rest.find(p).map(|at| (at, *p))).min();
    while let Some((at, marker)) = next(rest) {
        let digits = rest[at + 6..].bytes().take_while(u8::is_ascii_hexdigit).count();
        let end = at + 6 + digits;
        out.push_str(&rest[..at]);
        match (digits > 0, rest[end..].starts_with('>')) {
            (true, true) => out.push_str(&format!("{marker}\u{2026}")),
            _ => out.push_str(&rest[at..end]),
        }
        rest = &rest[end..];
    }
    out.push_str(rest);
    out
}

/// The modules the oracle's Python can import: its environment's folders and the oracle's
/// own folder (its `sys.path[0]`; the manifests' folders are not on its path).
fn oracle_importable(python: &Path) -> Option<ImportableModules> {
    let env = runner::environment::PythonEnvironment::of_python(python);
    let oracle_dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/parity/check");
    torchcts_lsp::host::importable::importable_modules(&env, &oracle_dir)
}

fn ours(
    mutant: &Mutant,
    importable: Option<&ImportableModules>,
    compiled: Option<&CompileAnswer>,
    module_files: Option<&ModuleFiles>,
) -> Ours {
    // The file's bytes read as the CLI reads them (a coding cookie naming no codec, say, is
    // check-manifest's line before any analysis).
    let text = match torchcts_lsp::cli::decode_manifest(mutant.text.clone().into_bytes(), &mutant.path) {
        Ok(text) => text,
        Err(line) => {
            let unevaluated = if line.starts_with("Failed to parse manifest: ") { vec![] } else { vec![line.clone()] };
            return Ours {
                exit_code: 1,
                lines: vec![line],
                not_static: false,
                unevaluated,
                syntax_error: false,
                module_file_wanted: None,
            };
        }
    };
    let base = mutant.path.parent().unwrap().to_path_buf();
    let dir_exists = move |entry: &str| {
        let p = Path::new(entry);
        if p.is_absolute() {
            p.is_dir()
        } else {
            base.join(p).is_dir()
        }
    };
    let analysis = analyze(
        &text,
        &AnalysisInput {
            old_tree: None,
            dir_exists: Some(&dir_exists),
            inventory: None,
            file_name: Some("manifest.py"),
            importable,
            evidence: None,
            compiled,
            module_files,
            ..AnalysisInput::default()
        },
    );
    let mut unevaluated: Vec<String> =
        analysis.findings.iter().filter(|f| f.code == "not-evaluated").map(|f| f.message.clone()).collect();
    if let CheckOutcome::NotStatic { reason } = &analysis.check {
        unevaluated.push(reason.clone());
    }
    // A crash prints a traceback; the real tool's last line is what the oracle keeps. A
    // message with a line break in it (a key holding `\n`) prints as two lines, as the
    // real tool's does.
    // Only a crash's traceback is left out: `sys.exit(" msg")` prints its leading space.
    let crashed = matches!(analysis.check, CheckOutcome::Crashed { .. });
    let lines = analysis
        .check_lines()
        .into_iter()
        .flat_map(|(_, line)| line.split('\n').map(str::to_string).collect::<Vec<_>>())
        .filter(|l| !(crashed && (l.starts_with("Traceback") || l.starts_with(' '))))
        .collect();
    Ours {
        exit_code: analysis.check.exit_code() as i64,
        lines,
        not_static: matches!(analysis.check, CheckOutcome::NotStatic { .. }),
        unevaluated,
        syntax_error: analysis.syntax_in_doubt(),
        module_file_wanted: analysis.model.module_file_wanted.clone(),
    }
}

/// What `check` says where a CPython is known (as the CLI does it, `host::Surroundings::
/// analyze_whole`): where the emulation finds a syntax error, CPython's `compile()` of the
/// text (a long-lived worker here, one process per file in the CLI) judges it; where the
/// analysis wants a module's file (`from typing import X`), the worker gives it (kept in
/// `files` for every later mutant: the oracle's Python does not change).
fn ours_with_cpython(
    mutant: &Mutant,
    importable: Option<&ImportableModules>,
    emulated: Ours,
    worker: &mut Option<Worker>,
    files: &mut ModuleFiles,
) -> Ours {
    let Some(w) = worker.as_mut() else { return emulated };
    let (mut judged, mut compiled) = (emulated, None);
    if judged.syntax_error {
        match w.compile(mutant.text.as_bytes(), "manifest.py", &mutant.text) {
            Ok(answer) => compiled = Some(answer),
            Err(e) => panic!("the CPython worker gave no answer for {}: {e}", mutant.path.display()),
        }
        judged = ours(mutant, importable, compiled.as_ref(), Some(files));
    }
    while let Some(module) = judged.module_file_wanted.clone() {
        if files.files.contains_key(&module) {
            // Known from an earlier mutant, and still wanted: the answer applies already.
            let again = ours(mutant, importable, compiled.as_ref(), Some(files));
            let settled = again.module_file_wanted.as_ref() != Some(&module);
            judged = again;
            if settled {
                continue;
            }
            break;
        }
        let folders = oracle_folders(&mutant.path);
        match w.module_files(std::slice::from_ref(&module), &folders) {
            Ok(found) if !found.files.is_empty() => files.extend(found),
            _ => break,
        }
    }
    judged
}

/// Where the oracle's Python finds modules outside its standard library (torch).
fn oracle_folders(mutant: &Path) -> Vec<PathBuf> {
    let python = std::env::var_os("TORCHCTS_PYTHON").map(PathBuf::from).unwrap_or_default();
    let env = runner::environment::PythonEnvironment::of_python(&python);
    torchcts_lsp::host::importable::search_folders(&env, mutant.parent().unwrap_or(mutant))
}

/// How the mutants compare with the real tool, for one way of judging syntax errors.
#[derive(Default)]
struct Tally {
    compared: usize,
    unclaimed: usize,
    /// Why each unclaimed mutant was left to Python: our first reason, and the real tool's
    /// first line (what answering it would take).
    unclaimed_reasons: BTreeMap<String, usize>,
    partial: usize,
    /// What we left out where what we print holds (the first reason of each such mutant).
    partial_reasons: BTreeMap<String, usize>,
    classes: BTreeMap<String, Vec<usize>>,
}

impl Tally {
    fn add(&mut self, i: usize, m: &Mutant, r: &Real, o: &Ours) {
        if o.same_as(r) {
            self.compared += 1;
        } else if !o.unevaluated.is_empty() && (NEEDS_PYTHON.contains(&m.from.as_str()) || o.only_python_knows()) {
            self.unclaimed += 1;
            let real_line = r.lines.first().map_or("", String::as_str);
            let why = format!(
                "{} -> {}",
                o.unevaluated[0].chars().take(70).collect::<String>(),
                real_line.chars().take(90).collect::<String>()
            );
            *self.unclaimed_reasons.entry(why).or_default() += 1;
        } else if o.holds_where_evaluated(r) {
            self.partial += 1;
            let why: String = o.unevaluated[0].chars().take(90).collect();
            *self.partial_reasons.entry(why).or_default() += 1;
        } else {
            self.compared += 1;
            self.classes.entry(class_of(r, o)).or_default().push(i);
        }
    }

    fn differing(&self) -> usize {
        self.classes.values().map(Vec::len).sum()
    }
}

fn seed() -> u64 {
    match std::env::var("CHECK_DIFF_SEED").as_deref() {
        Ok("random") => std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos() as u64)
            .unwrap_or(DEFAULT_SEED),
        Ok(n) => n.parse().expect("CHECK_DIFF_SEED is a number or `random`"),
        Err(_) => DEFAULT_SEED,
    }
}

/// A short name for a difference, to group the report: the first differing line's shape,
/// or what we could not evaluate.
fn class_of(real: &Real, ours: &Ours) -> String {
    if let Some(why) = ours.unevaluated.first() {
        return format!("not evaluated by us: {}", why.chars().take(70).collect::<String>());
    }
    let first_real = real.lines.iter().find(|l| !ours.lines.contains(l));
    let first_ours = ours.lines.iter().find(|l| !real.lines.contains(l));
    let shape = |l: Option<&String>| -> String {
        l.map(|l| l.split(['\'', '(', '[', '"']).next().unwrap_or("").chars().take(60).collect())
            .unwrap_or_else(|| "-".into())
    };
    format!("real {:?} / ours {:?}", shape(first_real), shape(first_ours))
}

#[test]
#[ignore = "needs TORCHCTS_PYTHON: real torchcts"]
fn check_matches_real_check_manifest_under_random_edits() {
    let Some(python) = support::real_python("check-manifest differential test not run") else { return };
    let seed = seed();
    let count = std::env::var("CHECK_DIFF_CASES").ok().and_then(|n| n.parse().ok()).unwrap_or(DEFAULT_CASES);
    let dir = std::env::temp_dir().join(format!("torchcts-check-diff-{}-{seed}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("create the mutants folder");
    let mutants = make_mutants(seed, count, &dir);
    let real = run_oracle(&python, &mutants, &dir);
    let importable = oracle_importable(&python);
    println!(
        "modules the oracle's Python can import: {}",
        importable.as_ref().map_or("not known".to_string(), |m| m.names.len().to_string())
    );

    // CPython's `compile()` for the syntax errors: the oracle's own interpreter (not with
    // CHECK_DIFF_EMULATION_ONLY=1, which reports the emulation's differences in full).
    let emulation_only = std::env::var("CHECK_DIFF_EMULATION_ONLY").as_deref() == Ok("1");
    let mut worker = if emulation_only { None } else { Worker::start(&python).ok() };
    let (mut exact, mut emulation, mut timeouts) = (Tally::default(), Tally::default(), 0);
    let mut files = ModuleFiles::default();
    for (i, (m, r)) in mutants.iter().zip(&real).enumerate() {
        if r.timeout {
            timeouts += 1;
            continue;
        }
        let emulated = ours(m, importable.as_ref(), None, None);
        emulation.add(i, m, r, &emulated);
        let judged = ours_with_cpython(m, importable.as_ref(), emulated, &mut worker, &mut files);
        exact.add(i, m, r, &judged);
    }
    let (compared, unclaimed, partial) = (exact.compared, exact.unclaimed, exact.partial);
    let differing = exact.differing();
    println!(
        "check differential (seed {seed}): {} mutants, {compared} compared, {unclaimed} need Python \
         (an unknown import, or mutants of {NEEDS_PYTHON:?}), {partial} partly not evaluated by us (what we \
         print holds), {timeouts} timed out in Python, {differing} differ with CPython's compile() for syntax \
         errors ({}); the emulation alone: {} differ",
        mutants.len(),
        if worker.is_some() { python.display().to_string() } else { "no CPython 3.10+: the emulation".into() },
        emulation.differing(),
    );
    for (class, cases) in &emulation.classes {
        println!("  emulation residue: {:4} x {class}", cases.len());
    }
    for (why, n) in &exact.unclaimed_reasons {
        println!("  needs Python: {n:4} x {why}");
    }
    for (why, n) in &exact.partial_reasons {
        println!("  partly not evaluated: {n:4} x {why}");
    }
    let classes = exact.classes;
    if differing == 0 {
        let _ = std::fs::remove_dir_all(&dir);
        assert!(compared >= 1000 || count < 1000, "only {compared} mutants compared");
        return;
    }
    let mut report = String::new();
    for (class, cases) in &classes {
        report.push_str(&format!("{:4} x {class}\n", cases.len()));
    }
    // CHECK_DIFF_SHOW=<n>: how many cases in full (default 12, at most 2 per class).
    let show: usize = std::env::var("CHECK_DIFF_SHOW").ok().and_then(|n| n.parse().ok()).unwrap_or(12);
    let per_class = if show > 12 { usize::MAX } else { 2 };
    let mut shown = 0;
    'outer: for cases in classes.values() {
        for &i in cases.iter().take(per_class) {
            let (m, r) = (&mutants[i], &real[i]);
            let emulated = ours(m, importable.as_ref(), None, None);
            let o = ours_with_cpython(m, importable.as_ref(), emulated, &mut worker, &mut files);
            report.push_str(&format!(
                "\n--- {} (from {}; {})\n  real: exit {} {:?}\n  ours: {}\n",
                m.path.display(),
                m.from,
                m.edits.join("; "),
                r.exit_code,
                r.lines,
                if o.unevaluated.is_empty() {
                    format!("exit {} {:?}", o.exit_code, o.lines)
                } else {
                    format!("exit {} {:?}, not evaluated: {:?}", o.exit_code, o.lines, o.unevaluated)
                }
            ));
            shown += 1;
            if shown >= show {
                break 'outer;
            }
        }
    }
    let _ = std::io::stdout().flush();
    panic!(
        "{differing} of {compared} mutants differ from the real check-manifest (seed {seed}; rerun with \
         CHECK_DIFF_SEED={seed}; mutants kept in {}):\n{report}",
        dir.display()
    );
}
