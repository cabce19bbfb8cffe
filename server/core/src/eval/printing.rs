//! `print(...)` while the manifest loads: it writes to check-manifest's stdout (before
//! `Manifest is valid!`), and gives None. What it writes is kept where every argument's
//! `str()` is known ([`super::ManifestModel::printed`]); otherwise a note says so.

use super::builtin_arguments::CallArguments;
use super::Evaluator;
use crate::value::{Span, Value, ValueKind};

impl Evaluator<'_> {
    /// `print(*objects, sep=' ', end='\n', file=None, flush=False)`: None where it
    /// returns, or raising as CPython 3.10-3.13 do for a `sep` or `end` that is no str.
    /// (Keywords it lacks are refused before, `builtin_arguments`.) None where whether it
    /// raises is not known (`*args`, a `sep` of a type not known).
    pub(super) fn print_call(&mut self, args: &CallArguments, s: Span) -> Option<Value> {
        if args.unpacked {
            return None;
        }
        let keyword = |name: &str| args.keywords.iter().find(|(k, _)| k.py_str() == name).map(|(_, v)| v);
        // Ok(None): a str not known.
        let text_of = |name: &str, default: &str| -> Option<Result<Option<String>, &'static str>> {
            let Some(value) = keyword(name) else { return Some(Ok(Some(default.to_string()))) };
            match &value.kind {
                ValueKind::None => Some(Ok(Some(default.to_string()))),
                ValueKind::Str(text) => Some(Ok(Some(text.clone()))),
                ValueKind::Unknown(_) => match value.known_type()? {
                    "str" => Some(Ok(None)),
                    other => Some(Err(other)),
                },
                _ => Some(Err(value.exception_type_name())),
            }
        };
        // CPython checks `sep` before `end`: a wrong `sep` raises whatever `end` is.
        let sep = match text_of("sep", " ")? {
            Ok(sep) => sep,
            Err(type_name) => return Some(self.print_raises("sep", type_name, s)),
        };
        let end = match text_of("end", "\n")? {
            Ok(end) => end,
            Err(type_name) => return Some(self.print_raises("end", type_name, s)),
        };
        let to_stdout = keyword("file").is_none_or(|f| matches!(f.kind, ValueKind::None));
        // Each object's `str()` is written in turn, after `sep` and `end` are checked: an int
        // over 4,300 digits raises there (whatever the file), after the objects before it
        // and their separators were written.
        if let Some(at) = args.positional.iter().position(Value::exceeds_str_digits) {
            let before: Option<Vec<String>> = args.positional[..at].iter().map(Value::str_known).collect();
            match (before, sep) {
                (Some(before), Some(sep)) if to_stdout => {
                    for shown in before {
                        self.model.printed.push_str(&shown);
                        self.model.printed.push_str(&sep);
                    }
                }
                _ if to_stdout && at > 0 => {
                    self.note(s.clone(), "what `print()` writes is not known statically".into())
                }
                _ => {}
            }
            self.fail(s.clone(), "ValueError", crate::value::STR_DIGITS_EXCEEDED.into());
            return Some(Value::unknown("raises", s));
        }
        if !to_stdout {
            self.note(s.clone(), "what `print(file=...)` writes is not followed statically".to_string());
            return Some(Value::new(ValueKind::None, s));
        }
        let shown: Option<Vec<String>> = args.positional.iter().map(Value::str_known).collect();
        match (shown, sep, end) {
            (Some(shown), Some(sep), Some(end)) => {
                self.model.printed.push_str(&shown.join(&sep));
                self.model.printed.push_str(&end);
            }
            _ => self.note(s.clone(), "what `print()` writes is not known statically".to_string()),
        }
        Some(Value::new(ValueKind::None, s))
    }

    fn print_raises(&mut self, keyword: &str, type_name: &str, s: Span) -> Value {
        self.fail(s.clone(), "TypeError", format!("{keyword} must be None or a string, not {type_name}"));
        Value::unknown("raises", s)
    }
}
