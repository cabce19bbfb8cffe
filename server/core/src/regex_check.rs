//! Python regex checks for manifest values, on top of the `pyregex` crate (a port of
//! CPython's `re` parser and a matcher with the same semantics, as 3.10 to 3.13 answer),
//! for the Python the caller says torchcts runs on.
//!
//! torchcts calls `re.compile(value)` and catches only `re.error`; Python may also emit
//! warnings (`FutureWarning: Possible nested set at position N`) or raise something other
//! than `re.error`, which would stop `check-manifest` with a traceback.

pub use pyregex::PythonVersion;

/// The outcome of `re.compile(pattern)` in the given CPython.
#[derive(Clone, Debug, PartialEq)]
pub enum RegexVerdict {
    /// Compiles; `warnings` are `"FutureWarning: ..."` texts Python would print.
    Valid { warnings: Vec<String> },
    /// Raises `re.error`; `message` is `str(exc)`.
    Invalid { message: String, warnings: Vec<String> },
    /// Raises another exception (e.g. `OverflowError`, `RecursionError`).
    Crash { exception: String, message: String },
}

pub fn check_regex(pattern: &str, python: PythonVersion) -> RegexVerdict {
    let format_warnings = |ws: &[pyregex::PyWarning]| -> Vec<String> {
        ws.iter().map(|w| format!("{}: {}", w.category, w.message)).collect()
    };
    match pyregex::compile_as(pattern, python) {
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
pub fn repair_regex(pattern: &str, python: PythonVersion) -> Option<String> {
    let mut chars: Vec<char> = pattern.chars().collect();
    for _ in 0..8 {
        let text: String = chars.iter().collect();
        let error = match pyregex::compile_as(&text, python) {
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

/// The Python whose `re` answers, from the version found in the user's environment
/// (`(major, minor)`, read without running it), and the note owed when that is not the
/// found version's own answer: newer than the newest tested answers as the newest, older
/// than torchcts supports as the oldest, unknown as 3.11.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RegexPython {
    pub version: PythonVersion,
    pub note: Option<String>,
}

impl RegexPython {
    pub fn for_found(found: Option<(u32, u32)>) -> RegexPython {
        let (newest, oldest) = (PythonVersion::NEWEST, PythonVersion::OLDEST);
        let (version, note) = match found {
            None => (PythonVersion::default(), Some("its Python version was not found".to_string())),
            Some((3, minor)) => match PythonVersion::from_minor(minor) {
                Some(v) => (v, None),
                None if minor > newest.minor() => {
                    (newest, Some(format!("Python 3.{minor} is newer than the newest tested ({newest})")))
                }
                None => (oldest, Some(format!("Python 3.{minor} is older than torchcts supports ({oldest})"))),
            },
            Some((major, minor)) => {
                (PythonVersion::default(), Some(format!("Python {major}.{minor} is not a Python 3")))
            }
        };
        RegexPython { version, note }
    }

    /// What an output says about it: `regexes checked as CPython 3.12's re (the Python of
    /// .venv/bin/python)`, with the note where there is one.
    pub fn describe(&self, python: &str) -> String {
        match &self.note {
            None => format!("regexes checked as CPython {}'s re (the Python of {python})", self.version),
            Some(note) => format!("regexes checked as CPython {}'s re ({python}: {note})", self.version),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn repairs_common_mistakes() {
        let repair_regex = |p: &str| repair_regex(p, PythonVersion::default());
        assert_eq!(repair_regex("*add").as_deref(), Some(".*add"));
        assert_eq!(repair_regex("add|*mul*").as_deref(), Some("add|.*mul*"));
        assert_eq!(repair_regex(r"\p{L}").as_deref(), Some(r"\\p{L}"));
        assert_eq!(repair_regex("^(add|mul").as_deref(), Some("^(add|mul)"));
        assert_eq!(repair_regex("[abc").as_deref(), Some(r"\[abc"));
        assert_eq!(repair_regex("add"), None);
    }

    #[test]
    fn the_found_python_decides_and_a_note_says_when_it_is_not_its_own() {
        assert_eq!(RegexPython::for_found(Some((3, 12))), RegexPython { version: PythonVersion::V3_12, note: None });
        let newer = RegexPython::for_found(Some((3, 14)));
        assert_eq!(newer.version, PythonVersion::V3_13);
        assert_eq!(
            newer.describe("/v/bin/python"),
            "regexes checked as CPython 3.13's re (/v/bin/python: Python 3.14 is newer than the newest tested (3.13))"
        );
        let unknown = RegexPython::for_found(None);
        assert_eq!(unknown.version, PythonVersion::V3_11);
        assert!(unknown.note.unwrap().contains("not found"));
        assert_eq!(
            RegexPython::for_found(Some((3, 12))).describe("/v/bin/python"),
            "regexes checked as CPython 3.12's re (the Python of /v/bin/python)"
        );
        assert_eq!(RegexPython::for_found(Some((3, 9))).version, PythonVersion::V3_10);
    }

    #[test]
    fn verdicts_follow_the_python() {
        assert_eq!(check_regex("^(?>add|mul)$", PythonVersion::V3_11), RegexVerdict::Valid { warnings: vec![] });
        assert_eq!(
            check_regex("^(?>add|mul)$", PythonVersion::V3_10),
            RegexVerdict::Invalid { message: "unknown extension ?> at position 2".into(), warnings: vec![] }
        );
    }
}
