//! Exceptions the module certainly raises when executed (what `check-manifest` reports as
//! `Failed to parse manifest: ...`), and `sys.exit`, which ends it.

use super::builtins::CallArguments;
use super::{span, Evaluator};
use crate::fields::{Field, FieldChild};
use crate::regex_check::PythonVersion;
use crate::value::{Span, Value, ValueKind};
use tree_sitter::Node;

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
        // CPython 3.10 does not name the key's type here (`"a"["b"]`; 3.11-3.13 do).
        const STR_INDEX: &str = "string indices must be integers";
        let message = match message.starts_with(STR_INDEX) && self.loading.version < PythonVersion::V3_11 {
            true => STR_INDEX.to_string(),
            false => message,
        };
        // Past a place where loading may have ended, no exception is certain.
        if self.model.load_error.is_none() && self.stopped.is_none() {
            self.model.load_error = Some(LoadError { span, exception, message, system_exit: None });
        }
    }

    /// `sys.exit(arguments)`: loading ends there, and check-manifest with it. A code not
    /// known statically is noted, and loading stops there without a claim (the status and
    /// what is printed are Python's to say; nothing after it runs).
    pub(super) fn system_exit(&mut self, arguments: &CallArguments, s: Span) -> Value {
        let unknown = |this: &mut Self, s: Span| {
            let message = "`sys.exit(...)` ends check-manifest here, with a status not known statically";
            this.note(s.clone(), message.into());
            this.stop(message);
            Value::unknown("sys.exit", s)
        };
        if arguments.unpacked || !arguments.keywords.is_empty() {
            return unknown(self, s);
        }
        let exit = |status: i32, printed: Option<String>| SystemExit { status, printed };
        if let [arg] = arguments.positional.as_slice() {
            self.want_module_reprs(arg);
        }
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
                // Printed as it is but for an object's address, which the run decides.
                _ if arg.shown().is_some() => exit(1, arg.shown().map(str::to_string)),
                _ if arg.repr_is_exact_but_addresses() => exit(1, Some(arg.py_str())),
                _ => return unknown(self, s),
            },
            more => {
                let message = format!("exit expected at most 1 argument, got {}", more.len());
                self.fail(s.clone(), "TypeError", message);
                return Value::unknown("raises", s);
            }
        };
        if self.model.load_error.is_none() && self.stopped.is_none() {
            let message = code.printed.clone().unwrap_or_default();
            let error = LoadError { span: s.clone(), exception: "SystemExit", message, system_exit: Some(code) };
            self.model.load_error = Some(error);
        }
        Value::unknown("raises", s)
    }
}

impl Evaluator<'_> {
    /// `raise X [from Y]`: loading ends here. A builtin exception that derives from
    /// `Exception`, raised as its class or made by a call of known arguments, is the load
    /// error `str()` shows; a value of a builtin type is no exception (TypeError); anything
    /// else stops loading without a claim ([`Evaluator::stopped`]).
    pub(super) fn raise_statement(&mut self, node: Node) {
        let s = span(node);
        let mut cursor = node.walk();
        let raised = node.named_children(&mut cursor).find(|c| c.kind() != "comment");
        let cause = node.child_by_field_name("cause");
        let Some(raised) = raised.filter(|r| Some(*r) != cause) else {
            // A bare `raise` re-raises the exception an `except` block handles.
            match node.parent().is_some_and(|p| inside_except(p)) {
                true => self.stop("a bare `raise` in an `except` block re-raises what it handles"),
                false => self.fail(s, "RuntimeError", "No active exception to reraise".into()),
            }
            return;
        };
        let outcome = self.exception_raised(raised);
        if self.model.load_error.is_some() {
            return;
        }
        let cause = cause.map(|c| self.expr(c));
        if self.model.load_error.is_some() {
            return;
        }
        match outcome {
            Some(Ok((exception, message))) => {
                let cause_is_no_exception =
                    cause.is_some_and(|c| is_no_exception(&c) && !matches!(c.kind, ValueKind::None));
                match cause_is_no_exception {
                    true => self.fail(s, "TypeError", "exception causes must derive from BaseException".into()),
                    false => self.fail(s, exception, message),
                }
            }
            Some(Err(())) => self.fail(s, "TypeError", "exceptions must derive from BaseException".into()),
            None => self.stop("`raise` ends loading here, with an exception not known statically"),
        }
    }

    /// What `raise X` raises: the exception's type and `str()`, `Err` where X is no
    /// exception, None where not known. A call of a builtin exception class has its
    /// arguments evaluated here, once.
    fn exception_raised(&mut self, raised: Node) -> Option<Result<(&'static str, String), ()>> {
        let class_of = |this: &Self, v: &Value| match v.kind {
            ValueKind::Builtin(name) if crate::value::raisable(name) && !this.env.contains_key(name) => Some(name),
            _ => None,
        };
        if raised.kind() == "call" {
            let callee = raised.field(Field::Function).filter(|f| f.kind() == "identifier");
            let class = callee.and_then(|f| {
                let value = self.env.get(self.t(f)).cloned().unwrap_or_else(|| self.expr(f));
                class_of(self, &value)
            });
            let Some(class) = class else {
                let _ = self.expr(raised);
                return None;
            };
            let arguments = self.call_arguments(raised, None);
            if let Some(message) = super::builtin_arguments::arguments_refused(class, &arguments, self.loading.version)
            {
                self.fail(span(raised), "TypeError", message);
                return None;
            }
            if arguments.unpacked || !arguments.keywords.is_empty() {
                return None;
            }
            return exception_message(class, &arguments.positional).map(|m| Ok((class, m)));
        }
        let value = self.expr(raised);
        if let Some(class) = class_of(self, &value) {
            return Some(Ok((class, String::new())));
        }
        // An exception made earlier (`e = KeyError("k")`), unless code may have set its `args`.
        if let Some((class, message)) =
            value.made_exception().filter(|_| !self.attributes_set_on_unknown.contains("args"))
        {
            return Some(Ok((class, message.to_string())));
        }
        is_no_exception(&value).then_some(Err(()))
    }

    /// Loading stops here for a reason not known statically (see [`Evaluator::stopped`]).
    fn stop(&mut self, why: &str) {
        self.stopped.get_or_insert_with(|| why.to_string());
    }
}

/// `str(Class(*args))` for a [`raisable`](crate::value::raisable) class (CPython 3.10-3.13): no argument an empty
/// message, one its str (a `KeyError`'s repr), more the tuple's repr. None where a
/// value's str is not known.
pub(super) fn exception_message(class: &str, args: &[Value]) -> Option<String> {
    if !args.iter().all(Value::repr_is_exact) {
        return None;
    }
    Some(match args {
        [] => String::new(),
        [one] if class == "KeyError" => one.repr(),
        [one] => one.py_str(),
        more => Value::new(ValueKind::Tuple(more.to_vec()), 0..0).repr(),
    })
}

/// A value of a builtin type that is no exception (`raise 1`, `raise "x"`).
fn is_no_exception(value: &Value) -> bool {
    use ValueKind::*;
    // Known by its type only: a builtin type that is no exception (`raise f"{f}"`).
    const NO_EXCEPTIONS: [&str; 15] = [
        "str",
        "list",
        "tuple",
        "set",
        "dict",
        "range",
        "zip",
        "enumerate",
        "map",
        "filter",
        "dict_keys",
        "dict_values",
        "dict_items",
        "ellipsis",
        "function",
    ];
    matches!(
        value.kind,
        None | Bool(_) | Int(_) | BigInt(_) | Float(_) | Str(_) | Bytes(_) | List(_) | Tuple(_) | Dict(_) | Set(_)
    ) || value.known_type().is_some_and(|t| NO_EXCEPTIONS.contains(&t))
}

/// Whether `node` is inside an `except` block.
fn inside_except(node: Node) -> bool {
    let mut at = Some(node);
    while let Some(n) = at {
        if matches!(n.kind(), "except_clause" | "except_group_clause") {
            return true;
        }
        at = n.parent();
    }
    false
}
