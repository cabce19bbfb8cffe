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
            pyregex::CompileError::Re { .. } => {
                RegexVerdict::Invalid { message: error.python_text(pattern), warnings: format_warnings(&warnings) }
            }
            pyregex::CompileError::Other { kind, msg } => {
                RegexVerdict::Crash { exception: kind.clone(), message: msg.clone() }
            }
        },
    }
}

/// A nearby pattern Python accepts, for the common ways a regex gets written wrong: a
/// glob-style `*` or `+` with nothing to repeat (`*add` -> `.*add`), a bad escape (`\p` ->
/// `\\p`), an unterminated `[` or unbalanced `(`/`)`. `None` when no such repair works.
pub fn repair_regex(pattern: &str) -> Option<String> {
    let mut chars: Vec<char> = pattern.chars().collect();
    for _ in 0..8 {
        let text: String = chars.iter().collect();
        let error = match pyregex::compile(&text) {
            Ok(_) => return (text != pattern).then_some(text),
            Err((e, _)) => e,
        };
        let pyregex::CompileError::Re { msg, pos } = error else { return None };
        let pos = pos.unwrap_or(chars.len()).min(chars.len());
        if msg == "nothing to repeat" {
            // A glob-style `*`: repeat any character.
            chars.insert(pos, '.');
        } else if msg == "multiple repeat"
            || msg.starts_with("bad escape")
            || msg == "unterminated character set"
            || msg == "unbalanced parenthesis"
        {
            // Escape the offending character so it is matched literally.
            chars.insert(pos, '\\');
        } else if msg.starts_with("missing ), unterminated subpattern") {
            chars.push(')');
        } else {
            return None;
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn repairs_common_mistakes() {
        assert_eq!(repair_regex("*add").as_deref(), Some(".*add"));
        assert_eq!(repair_regex("add|*mul*").as_deref(), Some("add|.*mul*"));
        assert_eq!(repair_regex(r"\p{L}").as_deref(), Some(r"\\p{L}"));
        assert_eq!(repair_regex("^(add|mul").as_deref(), Some("^(add|mul)"));
        assert_eq!(repair_regex("[abc").as_deref(), Some(r"\[abc"));
        assert_eq!(repair_regex("add"), None);
    }
}
