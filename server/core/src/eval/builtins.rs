//! Python builtins: the calls evaluated on known arguments, and the names that exist
//! without being defined (builtins and the standard-library modules safe to import).

use super::{span, Evaluator};
use crate::fields::{Field, FieldChild};
use crate::value::{Value, ValueKind};
use tree_sitter::Node;

impl Evaluator<'_> {
    /// `float("nan")`, `int("4")`, `str(x)`, `len(x)`, `list(x)`, `tuple(x)`, `sorted(x)`
    /// and `bool(x)` on known arguments (unless the name was rebound).
    pub(super) fn builtin_call(&mut self, node: Node, fname: &str) -> Option<Value> {
        if !matches!(fname, "float" | "int" | "str" | "bool" | "len" | "list" | "tuple" | "sorted")
            || self.env.contains_key(fname)
            || self.bound_before.contains(fname)
        {
            return None;
        }
        let s = span(node);
        let args = node.field(Field::Arguments)?;
        let mut cursor = args.walk();
        let arg_nodes: Vec<Node> = args.named_children(&mut cursor).filter(|n| n.kind() != "comment").collect();
        if arg_nodes.iter().any(|a| a.kind() == "keyword_argument" || a.kind().ends_with("splat"))
            || arg_nodes.len() > 1
        {
            return None;
        }
        let arg = match arg_nodes.first() {
            Some(a) => self.expr(*a),
            None => {
                return Some(Value::new(
                    match fname {
                        "float" => ValueKind::Float(0.0),
                        "int" => ValueKind::Int(0),
                        "str" => ValueKind::Str(String::new()),
                        "bool" => ValueKind::Bool(false),
                        "list" => ValueKind::List(vec![]),
                        "tuple" => ValueKind::Tuple(vec![]),
                        _ => return None,
                    },
                    s,
                ))
            }
        };
        if arg.contains_unknown() {
            return None;
        }
        let items = |v: &Value| -> Option<Vec<Value>> {
            match &v.kind {
                ValueKind::List(i) | ValueKind::Tuple(i) => Some(i.clone()),
                ValueKind::Str(t) => {
                    Some(t.chars().map(|c| Value::new(ValueKind::Str(c.to_string()), v.span.clone())).collect())
                }
                ValueKind::Dict(d) => Some(d.entries.iter().map(|e| e.key.clone()).collect()),
                _ => None,
            }
        };
        let kind = match fname {
            "float" => match &arg.kind {
                ValueKind::Str(t) => {
                    let t = crate::schema::python_strip(t).to_ascii_lowercase().replace('_', "");
                    let parsed = match t.as_str() {
                        "nan" | "+nan" | "-nan" => Some(f64::NAN),
                        "inf" | "+inf" | "infinity" | "+infinity" => Some(f64::INFINITY),
                        "-inf" | "-infinity" => Some(f64::NEG_INFINITY),
                        _ => t.parse::<f64>().ok(),
                    };
                    match parsed {
                        Some(f) => ValueKind::Float(f),
                        None => {
                            self.fail(
                                s.clone(),
                                "ValueError",
                                format!("could not convert string to float: {}", arg.repr()),
                            );
                            return Some(Value::unknown("raises", s));
                        }
                    }
                }
                _ => ValueKind::Float(arg.as_number()?),
            },
            "int" => match &arg.kind {
                ValueKind::Float(f) if f.is_finite() => ValueKind::Int(f.trunc() as i128),
                ValueKind::Int(i) => ValueKind::Int(*i),
                ValueKind::Bool(b) => ValueKind::Int(*b as i128),
                ValueKind::Str(t) => ValueKind::Int(crate::schema::python_strip(t).replace('_', "").parse().ok()?),
                _ => return None,
            },
            "str" => ValueKind::Str(arg.py_str()),
            "bool" => ValueKind::Bool(arg.truthy()?),
            "len" => ValueKind::Int(items(&arg)?.len() as i128),
            "list" => ValueKind::List(items(&arg)?),
            "tuple" => ValueKind::Tuple(items(&arg)?),
            "sorted" => {
                let mut v = items(&arg)?;
                if v.iter().all(|x| x.as_str().is_some()) {
                    v.sort_by(|a, b| a.as_str().cmp(&b.as_str()));
                } else if v.iter().all(|x| x.as_number().is_some()) {
                    v.sort_by(|a, b| a.as_number().partial_cmp(&b.as_number()).unwrap_or(std::cmp::Ordering::Equal));
                } else {
                    return None;
                }
                ValueKind::List(v)
            }
            _ => return None,
        };
        Some(Value::new(kind, s))
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
