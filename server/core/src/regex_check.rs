//! Python regex checks for manifest values, on top of the `pyregex` crate (a port of
//! CPython 3.11's `re` parser and a matcher with the same semantics).
//!
//! torchcts calls `re.compile(value)` and catches only `re.error`; Python may also emit
//! warnings (`FutureWarning: Possible nested set at position N`) or raise something other
//! than `re.error`, which would stop `check-manifest` with a traceback.

/// The outcome of `re.compile(pattern)` in CPython 3.11.
#[derive(Clone, Debug, PartialEq)]
pub enum RegexVerdict {
    /// Compiles; `warnings` are `"FutureWarning: ..."` texts Python would print.
    Valid { warnings: Vec<String> },
    /// Raises `re.error`; `message` is `str(exc)`.
    Invalid { message: String, warnings: Vec<String> },
    /// Raises another exception (e.g. `OverflowError`, `RecursionError`).
    Crash { exception: String, message: String },
}

pub fn check_regex(pattern: &str) -> RegexVerdict {
    let format_warnings = |ws: &[pyregex::PyWarning]| -> Vec<String> {
        ws.iter().map(|w| format!("{}: {}", w.category, w.message)).collect()
    };
    match pyregex::compile(pattern) {
        Ok((_, warnings)) => RegexVerdict::Valid { warnings: format_warnings(&warnings) },
        Err((error, warnings)) => match &error {
            pyregex::CompileError::Re { .. } => RegexVerdict::Invalid {
                message: error.python_text(pattern),
                warnings: format_warnings(&warnings),
            },
            pyregex::CompileError::Other { kind, msg } => {
                RegexVerdict::Crash { exception: kind.clone(), message: msg.clone() }
            }
        },
    }
}
