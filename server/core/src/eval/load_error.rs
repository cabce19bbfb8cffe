//! Exceptions the module certainly raises when executed (what `check-manifest` reports as
//! `Failed to parse manifest: ...`), and `sys.exit`, which ends it.

use super::builtins::CallArguments;
use super::Evaluator;
use crate::value::{Span, Value, ValueKind};

/// An exception the module raises when executed, as `str(exc)` prints it.
#[derive(Clone, Debug, PartialEq)]
pub struct LoadError {
    pub span: Span,
    /// `NameError`, `TypeError`, `KeyError`, ...
    pub exception: &'static str,
    /// `str(exc)`, the text after `Failed to parse manifest: `.
    pub message: String,
    /// `SystemExit`, which check-manifest does not catch: Python ends with its status.
    pub system_exit: Option<SystemExit>,
}

/// How `sys.exit(code)` ends the process: the exit status, and what Python prints to stderr
/// (`str(code)` where the code is no int and not None).
#[derive(Clone, Debug, PartialEq)]
pub struct SystemExit {
    pub status: i32,
    pub printed: Option<String>,
}
impl Evaluator<'_> {
    /// Records the first exception; later ones never happen because loading stops there.
    pub(super) fn fail(&mut self, span: Span, exception: &'static str, message: String) {
        if self.model.load_error.is_none() {
            self.model.load_error = Some(LoadError { span, exception, message, system_exit: None });
        }
    }

    /// `sys.exit(arguments)`: loading ends there, and check-manifest with it. A code not
    /// known statically is noted (the status is Python's to say).
    pub(super) fn system_exit(&mut self, arguments: &CallArguments, s: Span) -> Value {
        let unknown = |this: &mut Self, s: Span| {
            let message = "`sys.exit(...)` ends check-manifest here, with a status not known statically";
            this.note(s.clone(), message.into());
            Value::unknown("sys.exit", s)
        };
        if arguments.unpacked || !arguments.keywords.is_empty() {
            return unknown(self, s);
        }
        let exit = |status: i32, printed: Option<String>| SystemExit { status, printed };
        let code = match arguments.positional.as_slice() {
            [] => exit(0, None),
            [arg] => match &arg.kind {
                ValueKind::None => exit(0, None),
                ValueKind::Bool(b) => exit(i32::from(*b), None),
                // The process status keeps the low 8 bits (`sys.exit(-1)` is 255).
                ValueKind::Int(i) => match i64::try_from(*i) {
                    Ok(i) => exit(i.rem_euclid(256) as i32, None),
                    Err(_) => return unknown(self, s),
                },
                _ if arg.repr_is_exact() && !arg.exceeds_str_digits() => exit(1, Some(arg.py_str())),
                _ => return unknown(self, s),
            },
            more => {
                let message = format!("exit expected at most 1 argument, got {}", more.len());
                self.fail(s.clone(), "TypeError", message);
                return Value::unknown("raises", s);
            }
        };
        if self.model.load_error.is_none() {
            let message = code.printed.clone().unwrap_or_default();
            let error = LoadError { span: s.clone(), exception: "SystemExit", message, system_exit: Some(code) };
            self.model.load_error = Some(error);
        }
        Value::unknown("raises", s)
    }
}
