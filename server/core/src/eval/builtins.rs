//! Python builtins: the calls evaluated on known arguments, and the names that exist
//! without being defined (builtins and the standard-library modules safe to import).

use super::number_strings::number_of;
use super::sorting::{set_sort_raises, sort, Sorted};
use super::Evaluator;
use crate::value::{Callable, Operators, Span, Value, ValueKind};

pub(super) use super::builtin_arguments::CallArguments;

impl Evaluator<'_> {
    /// `sorted(x)` of the items x gives: the list, or what a comparison raises (for the
    /// types alone too: `sorted([1, f"{f}"])`), as CPython sorts (`sorting.rs`); None where
    /// not known.
    fn sorted_now(&mut self, arg: &Value, s: &Span) -> Option<Value> {
        let set_raises = match &arg.kind {
            ValueKind::Set(items) if !arg.contains_unknown() => set_sort_raises(items),
            _ => None,
        };
        let sorted = match set_raises {
            Some(raise) => Sorted::Raises(raise),
            None => sort(&arg.iterated()?, self.loading.version),
        };
        match sorted {
            Sorted::Raises((exception, message)) => {
                self.fail(s.clone(), exception, message);
                Some(Value::unknown("raises", s.clone()))
            }
            Sorted::Done(sorted) => Some(Value::new(ValueKind::List(sorted), s.clone())),
            Sorted::NotKnown => None,
        }
    }

    /// `float("nan")`, `int("4")`, `str(x)`, `len(x)`, `list(x)`, `tuple(x)`, `sorted(x)`
    /// and `bool(x)` on known arguments (unless the name was rebound).
    pub(super) fn builtin_call(&mut self, fname: &str, args: &CallArguments, s: Span) -> Option<Value> {
        let one_argument = args.positional.len() == 1 && args.keywords.is_empty() && !args.unpacked;
        let shadowed = self.env.contains_key(fname) || self.bound_before.contains(fname);
        let refused = refusal(fname, args, self.loading.version);
        if let (false, Some((exception, message))) = (shadowed, refused) {
            self.fail(s.clone(), exception, message);
            return Some(Value::unknown("raises", s));
        }
        match (shadowed, fname, args.positional.as_slice()) {
            (false, "print", _) => return self.print_call(args, s),
            (false, "type", [arg]) if one_argument => {
                return class_of(arg).map(|c| Value::new(ValueKind::Builtin(c), s))
            }
            (false, "type", [_, _, _]) if !args.unpacked => return self.type_with_three_arguments(args, s),
            (false, "min" | "max", _) => return self.extreme_call(fname, args, s),
            _ => {}
        }
        let known = !args.positional.iter().any(Value::contains_unknown);
        if let (false, false, true, true, "range") = (shadowed, args.unpacked, args.keywords.is_empty(), known, fname) {
            if let Some((exception, message)) = range_error(&args.positional) {
                self.fail(s.clone(), exception, message);
                return Some(Value::unknown("raises", s));
            }
        }
        if let (true, false, Some(arg)) = (one_argument, shadowed, args.positional.first()) {
            if let Some(message) = argument_type_error(fname, arg, self.loading.version) {
                self.fail(s.clone(), "TypeError", message);
                return Some(Value::unknown("raises", s));
            }
        }
        if !matches!(fname, "float" | "int" | "str" | "repr" | "bool" | "len" | "list" | "tuple" | "sorted" | "set")
            || self.env.contains_key(fname)
            || self.bound_before.contains(fname)
            || args.unpacked
            || !args.keywords.is_empty()
            || args.positional.len() > 1
        {
            return None;
        }
        let Some(arg) = args.positional.first() else {
            return Some(Value::new(
                match fname {
                    "float" => ValueKind::Float(0.0),
                    "int" => ValueKind::Int(0),
                    "str" => ValueKind::Str(String::new()),
                    "bool" => ValueKind::Bool(false),
                    "list" => ValueKind::List(vec![]),
                    "tuple" => ValueKind::Tuple(vec![]),
                    "set" => ValueKind::Set(vec![]),
                    _ => return None,
                },
                s,
            ));
        };
        if let Some(sorted) = (fname == "sorted").then(|| self.sorted_now(arg, &s)).flatten() {
            return Some(sorted);
        }
        if let Some(value) = of_value_not_known(fname, arg, &s) {
            return Some(value);
        }
        // A dict view's items are known where it is made (`sorted(d.keys())`).
        if arg.contains_unknown_but_items() {
            return None;
        }
        // What iterating the argument gives (a set in CPython's order, where known).
        let items = |v: &Value| v.iterated();
        let kind = match fname {
            "float" | "int" => match number_of(fname, arg)? {
                Ok(kind) => kind,
                Err((exception, message)) => {
                    self.fail(s.clone(), exception, message);
                    return Some(Value::unknown("raises", s));
                }
            },
            // A value known whole whose repr is not (a function's address): still a str.
            "str" | "repr" if !arg.repr_is_exact() && !arg.contains_unknown() => {
                self.want_module_reprs(arg);
                let why = format!("`{fname}()` of a value whose repr is not known statically");
                return Some(match arg.repr_is_exact_but_addresses() {
                    true => Value::str_shown(arg.repr(), why, s),
                    false => Value::unknown_of_type("str", Operators::NotModelled, Callable::No, why, s),
                });
            }
            "str" | "repr" if !arg.repr_is_exact() => return None,
            "str" => ValueKind::Str(arg.py_str()),
            "repr" => ValueKind::Str(arg.repr()),
            "bool" => ValueKind::Bool(arg.truthy()?),
            "len" => ValueKind::Int(items(arg)?.len() as i128),
            "list" => ValueKind::List(items(arg)?),
            "tuple" => ValueKind::Tuple(items(arg)?),
            "sorted" => ValueKind::List(sorted_items(arg)?),
            _ => return None,
        };
        Some(Value::new(kind, s))
    }
}

/// `sorted(arg)` where its items are known and of one order every Python agrees on (strs
/// only, or numbers only); a set's order does not matter to its sorted list.
fn sorted_items(arg: &Value) -> Option<Vec<Value>> {
    // A set whose iteration order is not known: only an order every input order gives.
    let ValueKind::Set(elements) = &arg.kind else { return None };
    match sort(elements, crate::regex_check::PythonVersion::V3_13) {
        Sorted::Done(sorted) => Some(sorted),
        _ => None,
    }
}

/// `int(x, base)` of known values: the base must be an int from 2 to 36 (or 0), then x a
/// str or bytes (CPython 3.10-3.13 alike). None where it parses x, or a value is not known.
fn int_base_error(fname: &str, args: &CallArguments) -> Option<(&'static str, String)> {
    let [x, base] = args.positional.as_slice() else { return None };
    if fname != "int" || args.unpacked || !args.keywords.is_empty() {
        return None;
    }
    let base = match base.kind {
        ValueKind::Int(b) => b,
        ValueKind::Bool(b) => b as i128,
        ValueKind::BigInt(_) | ValueKind::Unknown(_) => return None,
        _ => {
            return Some((
                "TypeError",
                format!("'{}' object cannot be interpreted as an integer", base.exception_type_name()),
            ))
        }
    };
    if base != 0 && !(2..=36).contains(&base) {
        return Some(("ValueError", "int() base must be >= 2 and <= 36, or 0".into()));
    }
    let string = matches!(x.kind, ValueKind::Str(_) | ValueKind::Bytes(_));
    (!string && !x.contains_unknown())
        .then(|| ("TypeError", "int() can't convert non-string with explicit base".into()))
}

/// What `range(*values)` raises, the values known; None where it makes a range.
pub(super) fn range_error(values: &[Value]) -> Option<(&'static str, String)> {
    match values.len() {
        0 => return Some(("TypeError", "range expected at least 1 argument, got 0".into())),
        n if n > 3 => return Some(("TypeError", format!("range expected at most 3 arguments, got {n}"))),
        _ => {}
    }
    // `range(.3)`: each argument must be an int (bools are).
    let not_int =
        values.iter().find(|v| !matches!(v.kind, ValueKind::Int(_) | ValueKind::Bool(_) | ValueKind::BigInt(_)));
    if let Some(v) = not_int {
        return Some((
            "TypeError",
            format!("'{}' object cannot be interpreted as an integer", v.exception_type_name()),
        ));
    }
    if values.len() == 3 && matches!(values[2].kind, ValueKind::Int(0) | ValueKind::Bool(false)) {
        return Some(("ValueError", "range() arg 3 must not be zero".into()));
    }
    None
}

/// The type of what calling the builtin `fname` returns, where its arguments make that
/// certain and the call cannot raise: `range(3)` is a 'range', `zip([1], "ab")` a 'zip'
/// (such an object is not modelled, only its type: `-range(3)` raises as any 'range' does).
pub(super) fn result_type(fname: &str, args: &CallArguments) -> Option<&'static str> {
    if args.unpacked || !args.keywords.is_empty() {
        return Option::None;
    }
    let p = args.positional.as_slice();
    let int = |v: &Value| matches!(v.kind, ValueKind::Int(_) | ValueKind::Bool(_) | ValueKind::BigInt(_));
    let iterables = |vs: &[Value]| vs.iter().all(Value::certainly_iterable);
    match fname {
        "range" if (1..=3).contains(&p.len()) && p.iter().all(int) => {
            let zero_step = p.len() == 3 && matches!(p[2].kind, ValueKind::Int(0) | ValueKind::Bool(false));
            (!zero_step).then_some("range")
        }
        "zip" if iterables(p) => Some("zip"),
        "enumerate" if p.len() == 1 && iterables(p) => Some("enumerate"),
        // The function is only called as the result is iterated.
        "map" if p.len() >= 2 && iterables(&p[1..]) => Some("map"),
        "filter" if p.len() == 2 && iterables(&p[1..]) => Some("filter"),
        // An exception made, not raised (`-ValueError("x")` raises for its type).
        _ if crate::value::raisable(fname) => builtin_object(fname),
        _ => Option::None,
    }
}

/// The `TypeError` a builtin raises for its one argument's type, the same in CPython
/// 3.10-3.13 (`len(print)`, `list(1)`, `abs("a")`, `hash([])`); None where it takes it, or
/// where that is not known.
fn argument_type_error(fname: &str, arg: &Value, python: crate::regex_check::PythonVersion) -> Option<String> {
    use ValueKind::*;
    const ITERATING: [&str; 14] = [
        "list",
        "tuple",
        "sorted",
        "set",
        "frozenset",
        "dict",
        "any",
        "all",
        "sum",
        "min",
        "max",
        "enumerate",
        "iter",
        "zip",
    ];
    // Iterators have no length (`len(zip(a))`), whatever their items.
    if let (Some(iterator @ ("zip" | "enumerate" | "map" | "filter")), "len") = (arg.known_type(), fname) {
        return Some(format!("object of type '{iterator}' has no len()"));
    }
    // A number known by its type: its type answers (`len(len(x))`).
    let stand_in = arg.typed_number_stand_in();
    let arg = stand_in.as_ref().unwrap_or(arg);
    if arg.is_unknown() {
        return Option::None;
    }
    let type_name = arg.exception_type_name();
    // A generic alias iterates from 3.11 on.
    let alias = matches!(&arg.kind, TypeForm(form) if matches!(**form, crate::value::TypeForm::Alias { .. }));
    let not_iterable = arg.not_iterable() || (alias && python < crate::regex_check::PythonVersion::V3_11);
    let number = matches!(arg.kind, Bool(_) | Int(_) | BigInt(_) | Float(_));
    match fname {
        _ if ITERATING.contains(&fname) && not_iterable => Some(format!("'{type_name}' object is not iterable")),
        "len" if !matches!(arg.kind, Str(_) | Bytes(_) | List(_) | Tuple(_) | Dict(_) | Set(_)) => {
            Some(format!("object of type '{type_name}' has no len()"))
        }
        "abs" if !number => Some(format!("bad operand type for abs(): '{type_name}'")),
        "ord" => match &arg.kind {
            Str(text) if text.chars().count() != 1 => {
                Some(format!("ord() expected a character, but string of length {} found", text.chars().count()))
            }
            Bytes(bytes) if bytes.len() != 1 => {
                Some(format!("ord() expected a character, but string of length {} found", bytes.len()))
            }
            Str(_) | Bytes(_) => Option::None,
            _ => Some(format!("ord() expected string of length 1, but {type_name} found")),
        },
        // A slice is hashable from 3.12 on; `Value::hashable` answers for 3.11.
        "hash" => match arg.hashable() {
            Err(t) if t != "slice" || python < crate::regex_check::PythonVersion::V3_12 => {
                Some(format!("unhashable type: '{t}'"))
            }
            _ => Option::None,
        },
        "int" | "float" if !number && !matches!(arg.kind, Str(_) | Bytes(_)) => Some(match fname {
            "int" => {
                format!("int() argument must be a string, a bytes-like object or a real number, not '{type_name}'")
            }
            _ => format!("float() argument must be a string or a real number, not '{type_name}'"),
        }),
        _ => Option::None,
    }
}

/// Standard-library modules a manifest may import without risk of ImportError.
pub(super) const STDLIB_MODULES: &[&str] = &[
    "os",
    "sys",
    "re",
    "math",
    "pathlib",
    "platform",
    "json",
    "typing",
    "warnings",
    "functools",
    "itertools",
    "collections",
    "copy",
    "enum",
    "dataclasses",
    "__future__",
    "shutil",
    "subprocess",
];

/// The builtin function or class `name` stands for, as [`ValueKind::Builtin`] holds it
/// (`IOError` is `OSError`); None for a constant (`Ellipsis`), a module dunder, or what
/// `site` adds (`exit`, `help`): those stay values not known statically.
pub(super) fn builtin_object(name: &str) -> Option<&'static str> {
    const FUNCTIONS: [&str; 45] = [
        "abs",
        "aiter",
        "all",
        "anext",
        "any",
        "ascii",
        "bin",
        "breakpoint",
        "callable",
        "chr",
        "compile",
        "delattr",
        "dir",
        "divmod",
        "eval",
        "exec",
        "format",
        "getattr",
        "globals",
        "hasattr",
        "hash",
        "hex",
        "id",
        "input",
        "isinstance",
        "issubclass",
        "iter",
        "len",
        "locals",
        "max",
        "min",
        "next",
        "oct",
        "open",
        "ord",
        "pow",
        "print",
        "repr",
        "round",
        "setattr",
        "sorted",
        "sum",
        "vars",
        "__import__",
        "__build_class__",
    ];
    let name = match name {
        "IOError" | "EnvironmentError" => "OSError",
        "Ellipsis" | "NotImplemented" => return None,
        _ => name,
    };
    let known = FUNCTIONS.contains(&name) || crate::value::is_builtin_class(name);
    PYTHON_BUILTINS.iter().find(|b| **b == name).copied().filter(|_| known)
}

/// `dir(builtins)` of CPython 3.11, plus module dunders.
pub(crate) const PYTHON_BUILTINS: &[&str] = &[
    "ArithmeticError",
    "AssertionError",
    "AttributeError",
    "BaseException",
    "BaseExceptionGroup",
    "BlockingIOError",
    "BrokenPipeError",
    "BufferError",
    "BytesWarning",
    "ChildProcessError",
    "ConnectionAbortedError",
    "ConnectionError",
    "ConnectionRefusedError",
    "ConnectionResetError",
    "DeprecationWarning",
    "EOFError",
    "Ellipsis",
    "EncodingWarning",
    "EnvironmentError",
    "Exception",
    "ExceptionGroup",
    "False",
    "FileExistsError",
    "FileNotFoundError",
    "FloatingPointError",
    "FutureWarning",
    "GeneratorExit",
    "IOError",
    "ImportError",
    "ImportWarning",
    "IndentationError",
    "IndexError",
    "InterruptedError",
    "IsADirectoryError",
    "KeyError",
    "KeyboardInterrupt",
    "LookupError",
    "MemoryError",
    "ModuleNotFoundError",
    "NameError",
    "None",
    "NotADirectoryError",
    "NotImplemented",
    "NotImplementedError",
    "OSError",
    "OverflowError",
    "PendingDeprecationWarning",
    "PermissionError",
    "ProcessLookupError",
    "RecursionError",
    "ReferenceError",
    "ResourceWarning",
    "RuntimeError",
    "RuntimeWarning",
    "StopAsyncIteration",
    "StopIteration",
    "SyntaxError",
    "SyntaxWarning",
    "SystemError",
    "SystemExit",
    "TabError",
    "TimeoutError",
    "True",
    "TypeError",
    "UnboundLocalError",
    "UnicodeDecodeError",
    "UnicodeEncodeError",
    "UnicodeError",
    "UnicodeTranslateError",
    "UnicodeWarning",
    "UserWarning",
    "ValueError",
    "Warning",
    "ZeroDivisionError",
    "__build_class__",
    "__debug__",
    "__doc__",
    "__import__",
    "__loader__",
    "__name__",
    "__package__",
    "__spec__",
    "__file__",
    "__builtins__",
    "__cached__",
    "abs",
    "aiter",
    "all",
    "anext",
    "any",
    "ascii",
    "bin",
    "bool",
    "breakpoint",
    "bytearray",
    "bytes",
    "callable",
    "chr",
    "classmethod",
    "compile",
    "complex",
    "copyright",
    "credits",
    "delattr",
    "dict",
    "dir",
    "divmod",
    "enumerate",
    "eval",
    "exec",
    "exit",
    "filter",
    "float",
    "format",
    "frozenset",
    "getattr",
    "globals",
    "hasattr",
    "hash",
    "help",
    "hex",
    "id",
    "input",
    "int",
    "isinstance",
    "issubclass",
    "iter",
    "len",
    "license",
    "list",
    "locals",
    "map",
    "max",
    "memoryview",
    "min",
    "next",
    "object",
    "oct",
    "open",
    "ord",
    "pow",
    "print",
    "property",
    "quit",
    "range",
    "repr",
    "reversed",
    "round",
    "set",
    "setattr",
    "slice",
    "sorted",
    "staticmethod",
    "str",
    "sum",
    "super",
    "tuple",
    "type",
    "vars",
    "zip",
];

/// `type(x)` where x's class is a builtin the manifest can name (`<class 'int'>`,
/// `<class 'KeyError'>`); None for another (`NoneType`, `module`) or one not known.
fn class_of(value: &Value) -> Option<&'static str> {
    let class = match &value.kind {
        ValueKind::Unknown(_) => value.known_type()?,
        _ => value.type_name(),
    };
    // An unknown object of a class named in capitals is no builtin's (`TorchVersion`).
    let builtin = class.starts_with(char::is_lowercase) && crate::value::is_builtin_class(class);
    ((builtin && class != "object") || crate::value::raisable(class)).then_some(class)
}

/// `str()` of an exception made with known arguments (its message) or of a class made,
/// `len()` of a sized
/// value known by its type only (an int not known: `len(sys.argv)`).
fn of_value_not_known(fname: &str, arg: &Value, s: &Span) -> Option<Value> {
    // An exact value's `str()` is the general case's (an int over 4,300 digits raises).
    let known = if arg.repr_is_exact() { None } else { arg.str_known() };
    match (fname, known, arg.known_type()) {
        // A class `type(name, bases, dict)` made shows its repr.
        ("str", Some(text), _) | ("repr", Some(text), Some("type")) => {
            Some(Value::new(ValueKind::Str(text), s.clone()))
        }
        // A dict's view where it is made: `dict_keys(['a', 'b'])` (seed 913277).
        ("str" | "repr", _, Some(view @ ("dict_keys" | "dict_values" | "dict_items"))) => {
            let items = arg.iterated()?;
            let reprs: Option<Vec<String>> = items.iter().map(|i| i.repr_is_exact().then(|| i.repr())).collect();
            Some(Value::new(ValueKind::Str(format!("{view}([{}])", reprs?.join(", "))), s.clone()))
        }
        ("len", _, Some("list" | "tuple" | "str" | "bytes" | "set" | "dict")) => {
            let why = "the length of a value not known statically";
            Some(Value::unknown_of_type("int", Operators::NotModelled, Callable::No, why, s.clone()))
        }
        _ => None,
    }
}

/// What calling the builtin `fname` with `args` raises before it does anything: arguments
/// it refuses, an argument that does not iterate, an `int()` base, a conversion.
fn refusal(
    fname: &str,
    args: &CallArguments,
    version: crate::regex_check::PythonVersion,
) -> Option<(&'static str, String)> {
    let one_argument = args.positional.len() == 1 && args.keywords.is_empty() && !args.unpacked;
    super::builtin_arguments::arguments_refused(fname, args, version)
        .or_else(|| super::builtin_arguments::not_iterable_argument(fname, args))
        .map(|message| ("TypeError", message))
        .or_else(|| int_base_error(fname, args))
        .or_else(|| {
            let arg = args.positional.first().filter(|_| one_argument)?;
            super::huge_ints::conversion_raises(fname, arg).map(|(exception, message)| (exception, message.to_string()))
        })
}
