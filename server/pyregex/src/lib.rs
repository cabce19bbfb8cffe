//! CPython `re` compatible pattern parsing and matching, as 3.10, 3.11, 3.12 or 3.13.
//!
//! This crate answers two questions about a Python regular expression given
//! as a `str` (no flags argument), exactly as CPython 3.11.7 would, or 3.10.13,
//! 3.12.1 or 3.13.0 with [`compile_as`] and a [`PythonVersion`]:
//!
//! * does `re.compile(pattern)` succeed, and if not, what does it raise
//!   (`re.error` with the same message and position, or another exception
//!   such as `OverflowError`), and which warnings does it emit on the way
//!   (`FutureWarning` for possible nested sets / set operations,
//!   `DeprecationWarning` for odd conditional group references);
//! * what is `bool(re.search(pattern, text))`.
//!
//! ```
//! let (pat, warnings) = pyregex::compile(r"^nn\.functional\.conv\dd$").unwrap();
//! assert!(warnings.is_empty());
//! assert!(pat.search("nn.functional.conv2d"));
//!
//! let (err, _) = pyregex::compile("a(?i)").unwrap_err();
//! assert_eq!(err.python_text("a(?i)"), "global flags not at the start of the expression at position 1");
//! ```
//!
//! # How
//!
//! * [`compile`] runs a close port of `Lib/re/_parser.py` (tokenizer,
//!   `_parse_sub`, `_parse`, escapes, flags, `getwidth`, group bookkeeping)
//!   followed by a port of `Lib/re/_compiler.py` that produces SRE-like code
//!   and raises the compile-time errors (look-behind width, template flag).
//! * [`Pattern::search`] runs a port of the semantics of `_sre`'s matcher
//!   (`Modules/_sre/sre_lib.h`) over that code, including its capture-group
//!   bookkeeping, zero-width repeat protection, possessive repeats, atomic
//!   groups and case-insensitive matching (simple case mapping plus
//!   `re._casefix` extra cases, i.e. exactly what CPython does).
//! * Unicode data (case mappings, `\d`/`\w`/`\s` classes, identifiers for
//!   group names, `repr()` printability, and the full `\N{...}` name table
//!   with aliases, Hangul syllables and CJK ideographs) is generated from
//!   CPython 3.11.7 (Unicode 14.0.0) by `tools/gen_tables.py`, with what 3.10.13
//!   (Unicode 13.0.0), 3.12.1 (15.0.0) and 3.13.0 (15.1.0) see differently.
//! * The other versions: 3.10 has no possessive repeats or atomic groups, allows
//!   global flags anywhere with a `DeprecationWarning` (parsing again in verbose
//!   mode when `(?x)` comes late) and computes widths with its own caps; 3.12
//!   refuses group references that are not ASCII digits or names (3.11 warns);
//!   3.13 has no `t` flag.
//!
//! # Errors that are not `re.error`
//!
//! [`CompileError::Other`] carries exceptions CPython raises from
//! `re.compile` that are *not* `re.error` (code that only catches `re.error`
//! would let them through):
//!
//! * `OverflowError: the repetition number is too large` (`{m,n}` bound
//!   `>= 4294967295`);
//! * `ValueError: ASCII and UNICODE flags are incompatible` (e.g.
//!   `(?a)(?u)`);
//! * `ValueError: Exceeds the limit (4300 digits) for integer string
//!   conversion: ...` (a `{m,n}` bound with more than 4300 digits);
//! * `RecursionError: maximum recursion depth exceeded[ while calling a
//!   Python object]` for very deeply nested groups. The threshold depends on
//!   the Python stack depth of the caller; this crate models a call of
//!   `re.compile(p)` from module level with the default recursion limit of
//!   1000 (e.g. 496 nested `(`, 992 nested `(?(1)`).
//!
//! # Known limits
//!
//! * `search` is exact but, like CPython, unbounded: catastrophic patterns
//!   can take exponential time. Use [`Pattern::search_bounded`] on untrusted
//!   input.
//! * Only what `re.compile(str_pattern)` / `re.search` do is modelled: no
//!   flags argument, no bytes patterns, no match objects/group values.
//! * The `RecursionError` threshold is exact only for the module-level call
//!   depth described above.
//! * `re.search` itself can raise `SystemError` ("The span of capturing group
//!   is wrong...", a CPython bug after some backtracking with possessive
//!   repeats); this is reproduced and reported by
//!   [`Pattern::search_outcome`], while `search`/`search_bounded` count it
//!   as a match.
//! * `\N{...}` is exact: the full Unicode 14 name table (plus aliases) is
//!   embedded (`src/unicode_names.txt`, front-coded, ~0.5 MB), loaded lazily
//!   on the first `\N` escape, with each other version's names added and removed.
//! * On 3.10, the `RecursionError` threshold and text of patterns nested a few
//!   hundred deep are 3.11's: 3.10 also counts C-level comparisons and calls.
//!
//! # Verification
//!
//! `tests/differential.rs` compares this crate with every real CPython 3.10-3.13
//! the machine has on ~24,000 generated and hand-written patterns (exception kind and text,
//! warnings, and `re.search` against ~40 operator-like names each);
//! `tests/errors.rs` pins every error message.

mod compiler;
mod engine;
mod names;
mod parser;
#[rustfmt::skip]
mod tables;
mod unicode;
mod version;
#[rustfmt::skip]
mod version_tables;

pub use version::PythonVersion;

use std::fmt;

/// An exception raised by `re.compile(pattern)`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CompileError {
    /// `re.error` (`re.error.msg` and `re.error.pos`, in code points).
    Re { msg: String, pos: Option<usize> },
    /// Any other exception, e.g. `OverflowError`, `ValueError`,
    /// `RecursionError`; `kind` is the exception class name and `msg` is
    /// `str(exc)`.
    Other { kind: String, msg: String },
}

impl CompileError {
    /// Exactly `str(exc)` for the exception raised by `re.compile(pattern)`
    /// (`pattern` must be the compiled pattern; it is needed for the
    /// `(line L, column C)` suffix of multi-line patterns).
    pub fn python_text(&self, pattern: &str) -> String {
        match self {
            CompileError::Other { msg, .. } => msg.clone(),
            CompileError::Re { msg, pos: None } => msg.clone(),
            CompileError::Re { msg, pos: Some(pos) } => {
                let mut text = format!("{} at position {}", msg, pos);
                if pattern.contains('\n') {
                    let before: Vec<char> = pattern.chars().take(*pos).collect();
                    let lineno = before.iter().filter(|&&c| c == '\n').count() + 1;
                    let colno = match before.iter().rposition(|&c| c == '\n') {
                        Some(i) => pos - i,
                        None => pos + 1,
                    };
                    text.push_str(&format!(" (line {}, column {})", lineno, colno));
                }
                text
            }
        }
    }

    /// The Python exception class name (`"error"` for `re.error`).
    pub fn kind(&self) -> &str {
        match self {
            CompileError::Re { .. } => "error",
            CompileError::Other { kind, .. } => kind,
        }
    }

    /// Whether this is a `re.error` (what `except re.error` catches).
    pub fn is_re_error(&self) -> bool {
        matches!(self, CompileError::Re { .. })
    }

    /// The message without position (`re.error.msg`, or `str(exc)`).
    pub fn msg(&self) -> &str {
        match self {
            CompileError::Re { msg, .. } | CompileError::Other { msg, .. } => msg,
        }
    }

    /// The position in code points (`re.error.pos`), if any.
    pub fn pos(&self) -> Option<usize> {
        match self {
            CompileError::Re { pos, .. } => *pos,
            CompileError::Other { .. } => None,
        }
    }
}

impl fmt::Display for CompileError {
    /// `msg at position N` (without the line/column suffix, which needs the
    /// pattern; see [`CompileError::python_text`]).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CompileError::Re { msg, pos: Some(pos) } => write!(f, "{} at position {}", msg, pos),
            CompileError::Re { msg, pos: None } => write!(f, "{}", msg),
            CompileError::Other { kind, msg } => write!(f, "{}: {}", kind, msg),
        }
    }
}

impl std::error::Error for CompileError {}

/// A warning emitted while compiling.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PyWarning {
    /// `"FutureWarning"` or `"DeprecationWarning"`.
    pub category: &'static str,
    /// Exactly `str(warning.message)`, e.g.
    /// `"Possible nested set at position 1"`.
    pub message: String,
    /// The position (code points) mentioned in the message.
    pub pos: usize,
}

/// A successfully compiled pattern.
#[derive(Debug, Clone)]
pub struct Pattern {
    prog: compiler::Program,
    source: String,
}

/// The detailed outcome of `re.search(pattern, text)`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SearchOutcome {
    /// `re.search` returns `None`.
    NoMatch,
    /// `re.search` returns a match object.
    Match,
    /// The matcher found a match, but CPython then raises `SystemError: The
    /// span of capturing group is wrong, please report a bug for the re
    /// module.` (a CPython bug: a capturing group whose recorded end precedes
    /// its start after backtracking, e.g. `(?>.(n.??)|)*+` on `"xnd"`). `search`/`search_bounded` count it as a match.
    SystemError,
    /// The step budget ran out before an answer was found.
    GaveUp,
}

impl Pattern {
    /// `bool(re.search(pattern, text))`. Exact and, like CPython, without a
    /// time bound; see [`Pattern::search_bounded`]. (In the rare cases where
    /// CPython raises `SystemError` instead, this returns `true`; see
    /// [`Pattern::search_outcome`].)
    pub fn search(&self, text: &str) -> bool {
        matches!(self.search_outcome(text, u64::MAX), SearchOutcome::Match | SearchOutcome::SystemError)
    }

    /// Like [`Pattern::search`] but gives up after `step_limit` matcher steps
    /// (roughly: opcodes executed plus characters scanned), returning `None`.
    pub fn search_bounded(&self, text: &str, step_limit: u64) -> Option<bool> {
        match self.search_outcome(text, step_limit) {
            SearchOutcome::NoMatch => Some(false),
            SearchOutcome::Match | SearchOutcome::SystemError => Some(true),
            SearchOutcome::GaveUp => None,
        }
    }

    /// What `re.search(pattern, text)` does, including CPython's
    /// `SystemError` corner case, within `step_limit` matcher steps.
    pub fn search_outcome(&self, text: &str, step_limit: u64) -> SearchOutcome {
        let t: Vec<u32> = text.chars().map(|c| c as u32).collect();
        match engine::search(&self.prog, &t, step_limit) {
            Ok(engine::Found::No) => SearchOutcome::NoMatch,
            Ok(engine::Found::Yes) => SearchOutcome::Match,
            Ok(engine::Found::WrongSpan) => SearchOutcome::SystemError,
            Err(engine::Exhausted) => SearchOutcome::GaveUp,
        }
    }

    /// `search_bounded` with the steps drawn from `budget` (what is left stays in it), so
    /// that many searches share one bound; `None` once it runs out.
    pub fn search_within(&self, text: &str, budget: &mut u64) -> Option<bool> {
        let t: Vec<u32> = text.chars().map(|c| c as u32).collect();
        match engine::search_within(&self.prog, &t, budget) {
            Ok(engine::Found::No) => Some(false),
            Ok(engine::Found::Yes | engine::Found::WrongSpan) => Some(true),
            Err(engine::Exhausted) => None,
        }
    }

    /// The pattern source.
    pub fn as_str(&self) -> &str {
        &self.source
    }

    /// Number of capturing groups (`re.compile(p).groups`).
    pub fn groups(&self) -> usize {
        self.prog.groups
    }
}

/// What [`compile`] returns.
pub type CompileResult = Result<(Pattern, Vec<PyWarning>), (CompileError, Vec<PyWarning>)>;

fn compile_inner(pattern: &str, py: PythonVersion) -> CompileResult {
    let chars: Vec<char> = pattern.chars().collect();
    let mut warnings = Vec::new();
    let parsed = match parser::parse(&chars, py, &mut warnings) {
        Ok(p) => p,
        Err(e) => return Err((e, warnings)),
    };
    match compiler::compile(&parsed, py) {
        Ok(prog) => Ok((Pattern { prog, source: pattern.to_string() }, warnings)),
        Err(e) => Err((e, warnings)),
    }
}

/// Patterns with more `(` than this are compiled on a helper thread with a
/// large stack (parsing and compiling recurse once or twice per nesting
/// level, up to CPython's recursion limit).
const DEEP_NESTING: usize = 48;
const DEEP_STACK_SIZE: usize = 256 << 20;

/// Python's `repr()` of a `str` on the given CPython minor version: which characters it
/// escapes follows that version's Unicode data (`str.isprintable`).
pub fn str_repr(s: &str, py: PythonVersion) -> String {
    unicode::py_repr(py.unicode(), &s.chars().collect::<Vec<char>>())
}

/// `re.compile(pattern)` on CPython 3.11: the compiled pattern and the warnings emitted,
/// or the exception raised (with the warnings emitted before it).
pub fn compile(pattern: &str) -> CompileResult {
    compile_as(pattern, PythonVersion::V3_11)
}

/// `re.compile(pattern)` on the given CPython minor version.
pub fn compile_as(pattern: &str, py: PythonVersion) -> CompileResult {
    let opens = pattern.bytes().filter(|&b| b == b'(').count();
    if opens <= DEEP_NESTING {
        return compile_inner(pattern, py);
    }
    let owned = pattern.to_string();
    let handle = std::thread::Builder::new()
        .name("pyregex-compile".to_string())
        .stack_size(DEEP_STACK_SIZE)
        .spawn(move || compile_inner(&owned, py));
    match handle {
        Ok(h) => match h.join() {
            Ok(r) => r,
            Err(_) => Err((
                CompileError::Other {
                    kind: "RecursionError".to_string(),
                    msg: "maximum recursion depth exceeded".to_string(),
                },
                Vec::new(),
            )),
        },
        Err(_) => compile_inner(pattern, py),
    }
}

/// Convenience: `Ok(())` when `re.compile(pattern)` succeeds on CPython 3.11, otherwise
/// `str(exc)` of what it raises.
pub fn check(pattern: &str) -> Result<(), String> {
    check_as(pattern, PythonVersion::V3_11)
}

/// [`check`] on the given CPython minor version.
pub fn check_as(pattern: &str, py: PythonVersion) -> Result<(), String> {
    match compile_as(pattern, py) {
        Ok(_) => Ok(()),
        Err((e, _)) => Err(e.python_text(pattern)),
    }
}
