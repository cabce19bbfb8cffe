//! Methods called on values we hold, in expressions: `"CPU".lower()`, `",".join(ops)`,
//! `caps.get("training")`, and what they certainly raise (`[1].remove(2)`: `ValueError:
//! list.remove(x): x not in list`, `{}.pop("k")`: `KeyError: 'k'`, `"x".index("y")`).
//!
//! Only methods whose result does not depend on the Unicode tables of the loading Python
//! are evaluated (case and whitespace of ASCII text). A method that changes its object
//! (`remove`, `pop`) is evaluated for what it raises and what it gives (`pop`'s item): the
//! change to the object bound to a name is `statements.rs`'s to follow, for the statements
//! it knows (`manifest["skip_ops"].remove(...)`). (Integers are made and read through
//! [`int`] and [`index_of`] only.)

use super::builtins::CallArguments;
use super::{span, Evaluator};
use crate::fields::{Field, FieldChild};
use crate::regex_check::PythonVersion;
use crate::value::{py_eq, Callable, Dict, Operators, Span, Value, ValueKind};
use tree_sitter::Node;

/// What a method gives: a value, or the exception it raises (type, `str(exc)`).
type Outcome = Result<ValueKind, (&'static str, String)>;

impl Evaluator<'_> {
    /// The callee `object.method` of a call: the object with the method's name where a
    /// method of it may be evaluated, and the attribute's value (its `AttributeError`
    /// recorded). The object is evaluated once: `a.b().c()` costs one pass.
    pub(super) fn method_lookup(&mut self, function: Node) -> (Option<(Value, String)>, Value) {
        let s = span(function);
        let (Some(object), Some(attr)) = (function.field(Field::Object), function.field(Field::Attribute)) else {
            return (None, Value::unknown("incomplete attribute", s));
        };
        let base = self.unstarred(object);
        let name = self.t(attr);
        let value = self.attribute_of(&base, name, function);
        // A str known by its type only still refuses a wrong count of arguments.
        let typed = base.known_type().is_some_and(|t| matches!(t, "str" | "list" | "tuple" | "set" | "dict"));
        let keep = self.model.load_error.is_none() && (base.is_builtin_instance() || typed);
        (keep.then(|| (base, name.to_string())), value)
    }

    /// `object.method(arguments)`, the arguments evaluated: its value or what it raises;
    /// None where not evaluated.
    pub(super) fn method_call(
        &mut self,
        object: &Value,
        method: &str,
        arguments: &CallArguments,
        s: Span,
    ) -> Option<Value> {
        let given = (!arguments.unpacked).then_some(arguments.positional.len());
        let refused = arguments
            .keyword_names()
            .filter(|names| !names.is_empty())
            .and_then(|names| keyword_error(object.exception_type_name(), method, &names, given, self.loading.version));
        if let Some(message) = refused {
            self.fail(s.clone(), "TypeError", message);
            return Some(Value::unknown("raises", s));
        }
        if arguments.unpacked || !arguments.keywords.is_empty() {
            return None;
        }
        let args = arguments.positional.as_slice();
        if let Some(message) = arity_error(object.exception_type_name(), method, args.len(), self.loading.version) {
            self.fail(s.clone(), "TypeError", message);
            return Some(Value::unknown("raises", s));
        }
        // A view of a dict: known by its type (`-d.items()` raises) and, for a dict known
        // whole, by what iterating it gives.
        if let (ValueKind::Dict(d), "keys" | "values" | "items") = (&object.kind, method) {
            return Some(dict_view(d, method, s));
        }
        if let Some(message) =
            matches!(object.kind, ValueKind::Bytes(_)).then(|| bytes_argument_error(method, args)).flatten()
        {
            self.fail(s.clone(), "TypeError", message);
            return Some(Value::unknown("raises", s));
        }
        // `f"{f}".upper()`: these give a str (`.split()` a list), whatever the str (CPython
        // 3.10-3.13).
        const STR_TO_STR: [&str; 9] =
            ["upper", "lower", "strip", "lstrip", "rstrip", "title", "capitalize", "casefold", "swapcase"];
        let result = match method {
            _ if STR_TO_STR.contains(&method) => "str",
            "split" | "rsplit" | "splitlines" => "list",
            _ => "",
        };
        if object.known_type() == Some("str") && args.is_empty() && !result.is_empty() {
            let why = format!("`.{method}()` of a str not known statically");
            // A str known but for its addresses keeps what it shows through an ASCII case
            // change (`f"{f}".upper()`: `<FUNCTION F AT 0X…>`).
            let ascii_shown = object.shown().filter(|t| t.chars().all(|c| c.is_ascii() || c == '\u{2026}'));
            return Some(match (method, ascii_shown) {
                ("upper", Some(text)) => Value::str_shown(text.to_ascii_uppercase(), why, s),
                ("lower", Some(text)) => Value::str_shown(text.to_ascii_lowercase(), why, s),
                _ => Value::unknown_of_type(result, Operators::NotModelled, Callable::No, why, s),
            });
        }
        if args.iter().any(Value::contains_unknown) {
            return None;
        }
        let outcome = match &object.kind {
            // UTF-8, the default: what CPython gives for text it can encode or decode.
            ValueKind::Str(text) if method == "encode" && is_utf8_codec(args) => {
                Some(Ok(ValueKind::Bytes(text.as_bytes().to_vec())))
            }
            ValueKind::Bytes(bytes) if method == "decode" && is_utf8_codec(args) => {
                std::str::from_utf8(bytes).ok().map(|text| Ok(ValueKind::Str(text.to_string())))
            }
            ValueKind::Str(text) => str_method(text, method, args, self.loading.version),
            ValueKind::List(items) => list_method(items, method, args),
            ValueKind::Dict(d) => dict_method(d, method, args),
            // A new set of the same elements.
            ValueKind::Set(elements) if method == "copy" && args.is_empty() => {
                Some(Ok(ValueKind::Set(elements.clone())))
            }
            _ => None,
        }?;
        Some(match outcome {
            Ok(ValueKind::List(mut items)) => {
                // Made by the call: its items stand where it does.
                items.iter_mut().for_each(|item| item.span = s.clone());
                Value::new(ValueKind::List(items), s)
            }
            Ok(kind) => Value::new(kind, s),
            Err((exception, message)) => {
                self.fail(s.clone(), exception, message);
                Value::unknown("raises", s)
            }
        })
    }
}

/// No argument, or the encoding `utf-8` as Python spells it (`"UTF8"`, `"utf_8"`).
fn is_utf8_codec(args: &[Value]) -> bool {
    match args {
        [] => true,
        [Value { kind: ValueKind::Str(name), .. }] => {
            matches!(name.to_ascii_lowercase().replace('_', "-").as_str(), "utf-8" | "utf8")
        }
        _ => false,
    }
}

/// `d.keys()`, `d.values()` or `d.items()`: only its type is modelled (the keys and items
/// views take the set operators alone), and, where the dict is known whole, its items.
fn dict_view(d: &Dict, method: &str, s: Span) -> Value {
    let (view, operators) = match method {
        "keys" => ("dict_keys", Operators::SetOperators),
        "values" => ("dict_values", Operators::NoneDefined),
        _ => ("dict_items", Operators::SetOperators),
    };
    let why = format!("`.{method}()` is a view not evaluated statically");
    let value = Value::unknown_of_type(view, operators, Callable::No, why, s.clone());
    if d.open {
        return value;
    }
    let item = |e: &crate::value::Entry| match method {
        "keys" => e.key.clone(),
        "values" => e.value.clone(),
        _ => Value::new(ValueKind::Tuple(vec![e.key.clone(), e.value.clone()]), s.clone()),
    };
    value.with_items(d.entries.iter().map(item).collect(), true)
}

/// `b"a b".replace(" ", "")`: a bytes method whose bytes argument is another type, in the
/// order the arguments are parsed (CPython 3.10-3.13 alike; `None` is a default where it
/// may stand). None where an argument before it is not known.
fn bytes_argument_error(method: &str, args: &[Value]) -> Option<String> {
    let (checked, none_allowed) = match (method, args.len()) {
        ("replace", 2 | 3) => (2, false),
        ("split" | "rsplit", 1 | 2) | ("strip" | "lstrip" | "rstrip", 1) => (1, true),
        _ => return None,
    };
    for arg in &args[..checked] {
        match &arg.kind {
            ValueKind::Bytes(_) => {}
            ValueKind::None if none_allowed => {}
            ValueKind::Unknown(_) => return None,
            _ => return Some(format!("a bytes-like object is required, not '{}'", arg.exception_type_name())),
        }
    }
    None
}

/// How a method's argument count error reads (CPython 3.10-3.13, checked with each).
#[derive(Clone, Copy)]
enum Arity {
    /// `str.upper() takes no arguments (1 given)`
    NoArguments,
    /// `str.join() takes exactly one argument (2 given)`
    ExactlyOne,
    /// Argument Clinic: `strip expected at most 1 argument, got 2`
    Clinic,
    /// `PyArg_ParseTuple`: `find() takes at least 1 argument (0 given)`
    ParseTuple,
    /// `str.replace` of 3.13: `replace() takes at least 2 positional arguments (1 given)`
    Replace313,
    /// Argument Clinic with one count: `insert expected 2 arguments, got 1`
    ClinicExactly,
    /// Keywords only: `sort() takes no positional arguments`
    KeywordsOnly,
}

/// The `TypeError` of calling `type_name.method` with `given` positional arguments, where
/// the count is wrong (only the methods [`method_call`](Evaluator::method_call) knows).
pub(super) fn arity_error(type_name: &str, method: &str, given: usize, python: PythonVersion) -> Option<String> {
    let new_clinic = python >= PythonVersion::V3_13;
    let (least, most, arity) = match (type_name, method) {
        ("str" | "bytes", "upper" | "lower")
        | ("list", "copy" | "clear" | "reverse")
        | ("dict", "clear" | "popitem" | "keys" | "values" | "items" | "copy")
        | ("set", "clear" | "pop" | "copy") => (0, 0, Arity::NoArguments),
        ("str" | "bytes", "join")
        | ("list", "count" | "remove" | "append" | "extend")
        | ("set", "add" | "discard" | "remove") => (1, 1, Arity::ExactlyOne),
        ("list", "insert") => (2, 2, Arity::ClinicExactly),
        ("list", "sort") => (0, 0, Arity::KeywordsOnly),
        ("dict", "update") => (0, 1, Arity::Clinic),
        ("dict", "setdefault") => (1, 2, Arity::Clinic),
        ("str" | "bytes", "strip" | "lstrip" | "rstrip") | ("list", "pop") => (0, 1, Arity::Clinic),
        ("str", "replace") => (2, 3, if new_clinic { Arity::Replace313 } else { Arity::Clinic }),
        // bytes.replace kept Argument Clinic's wording in 3.13.
        ("bytes", "replace") => (2, 3, Arity::Clinic),
        ("str" | "bytes", "startswith" | "endswith" | "find" | "index" | "count") => {
            (1, 3, if new_clinic { Arity::Clinic } else { Arity::ParseTuple })
        }
        ("str", "split") | ("bytes", "split" | "rsplit" | "decode") => (0, 2, Arity::ParseTuple),
        ("list", "index") => (1, 3, Arity::Clinic),
        ("dict", "get" | "pop") => (1, 2, Arity::Clinic),
        _ => return None,
    };
    if (least..=most).contains(&given) {
        return None;
    }
    let (bound, limit) = if given < least { ("at least", least) } else { ("at most", most) };
    let plural = |n: usize| if n == 1 { "" } else { "s" };
    Some(match arity {
        Arity::NoArguments => format!("{type_name}.{method}() takes no arguments ({given} given)"),
        Arity::ExactlyOne => format!("{type_name}.{method}() takes exactly one argument ({given} given)"),
        Arity::Clinic => format!("{method} expected {bound} {limit} argument{}, got {given}", plural(limit)),
        Arity::ParseTuple => format!("{method}() takes {bound} {limit} argument{} ({given} given)", plural(limit)),
        Arity::Replace313 if given < least => {
            format!("replace() takes at least 2 positional arguments ({given} given)")
        }
        Arity::Replace313 => format!("replace() takes at most 3 arguments ({given} given)"),
        Arity::ClinicExactly => format!("{method} expected {least} argument{}, got {given}", plural(least)),
        // More than its keywords in all is counted first (`[].sort(1, 2, 3)`).
        Arity::KeywordsOnly if given > 2 => format!("{method}() takes at most 2 arguments ({given} given)"),
        Arity::KeywordsOnly => format!("{method}() takes no positional arguments"),
    })
}

/// The `TypeError` of calling `type_name.method` with the keywords `names` (and `given`
/// positional arguments, None where a `*` of a value not known gives some), where it
/// certainly raises for them: a method that takes no keyword refuses any before counting
/// its arguments; one that takes some (`split(sep=)`) checks them as Argument Clinic does.
/// Worded per CPython 3.10-3.13 (each run with `x.m(k=1)`, `x.m("x", k=1)` and
/// `x.m("x", "y", k=1)`: a bound method called later words some otherwise).
pub(super) fn keyword_error(
    type_name: &str,
    method: &str,
    names: &[&str],
    given: Option<usize>,
    python: PythonVersion,
) -> Option<String> {
    let new_clinic = python >= PythonVersion::V3_13;
    let qualified = format!("{type_name}.{method}() takes no keyword arguments");
    let (parameters, max_positional) = match (type_name, method) {
        ("str" | "bytes", "upper" | "lower" | "join" | "strip")
        | ("str", "lstrip" | "rstrip" | "title")
        | (
            "list",
            "copy" | "clear" | "reverse" | "count" | "remove" | "append" | "extend" | "insert" | "pop" | "index",
        )
        | ("dict", "clear" | "popitem" | "keys" | "values" | "items" | "copy" | "setdefault" | "get" | "pop")
        | ("set", "clear" | "pop" | "copy" | "add" | "discard" | "remove") => return Some(qualified),
        // 3.13 takes `count=` and checks the positional arguments first.
        ("str", "replace") if !new_clinic => return Some(qualified),
        ("bytes", "replace") => return Some(qualified),
        ("str", "startswith" | "endswith" | "find" | "index" | "count")
        | ("bytes", "find" | "startswith")
        | ("set", "update" | "union") => {
            // Called as `x.find(...)`, 3.11 and later name the type (3.10 does not).
            return Some(match python >= PythonVersion::V3_11 {
                true => qualified,
                false => format!("{method}() takes no keyword arguments"),
            });
        }
        // Clinic's: counted first, keywords included (`split(",", 1, k=2)` is 3 of at most 2).
        ("str" | "bytes", "split" | "rsplit") => (["sep", "maxsplit"], 2),
        ("str", "encode") | ("bytes", "decode") => (["encoding", "errors"], 2),
        ("list", "sort") => (["key", "reverse"], 0),
        _ => return None,
    };
    super::builtin_arguments::clinic_keyword_error(method, &parameters, max_positional, given?, names, python)
}

/// An int value (the one place this file makes one).
fn int(n: usize) -> ValueKind {
    ValueKind::Int(n as i128)
}

/// An int argument that fits an index.
fn index_of(v: &Value) -> Option<i64> {
    match v.kind {
        ValueKind::Int(i) => i64::try_from(i).ok(),
        ValueKind::Bool(b) => Some(b as i64),
        _ => None,
    }
}

fn str_of(v: &Value) -> Option<&str> {
    match &v.kind {
        ValueKind::Str(s) => Some(s),
        _ => None,
    }
}

/// The characters `str.isspace()` is true for, among ASCII ones (Python's `strip()`).
fn ascii_space(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\n' | '\r' | '\x0b' | '\x0c' | '\x1c'..='\x1f')
}

/// `TypeError: message` as a method's outcome.
fn type_error(message: String) -> Option<Outcome> {
    Some(Err(("TypeError", message)))
}

/// The `TypeError` of an argument of the wrong type, in the order CPython checks them
/// (3.10-3.13 alike but for the `find` family's wording in 3.13).
fn str_argument_error(text: &str, method: &str, args: &[Value], python: PythonVersion) -> Option<Outcome> {
    let not_str = |v: &Value| str_of(v).is_none().then(|| v.exception_type_name());
    let none = |v: &Value| matches!(v.kind, ValueKind::None);
    match (method, args) {
        ("replace", [old, new, rest @ ..]) => {
            if let Some((n, t)) = [old, new].iter().enumerate().find_map(|(n, v)| not_str(v).map(|t| (n + 1, t))) {
                return type_error(format!("replace() argument {n} must be str, not {t}"));
            }
            // The count is a C ssize_t (3.10-3.13 alike).
            let count = rest.first()?;
            match &count.kind {
                ValueKind::Int(_) | ValueKind::Bool(_) if index_of(count).is_some() => None,
                ValueKind::Int(_) | ValueKind::BigInt(_) => {
                    Some(Err(("OverflowError", "Python int too large to convert to C ssize_t".into())))
                }
                _ => {
                    type_error(format!("'{}' object cannot be interpreted as an integer", count.exception_type_name()))
                }
            }
        }
        ("strip" | "lstrip" | "rstrip", [chars]) if not_str(chars).is_some() && !none(chars) => {
            type_error(format!("{method} arg must be None or str"))
        }
        ("startswith" | "endswith", [prefix, ..]) => match &prefix.kind {
            ValueKind::Str(_) => None,
            ValueKind::Tuple(items) => {
                // Stops at the first match: a later item is never looked at.
                let matches = |p: &str| if method == "startswith" { text.starts_with(p) } else { text.ends_with(p) };
                let first = items.iter().find(|item| str_of(item).is_none_or(matches))?;
                let t = not_str(first)?;
                type_error(format!("tuple for {method} must only contain str, not {t}"))
            }
            _ => {
                let t = prefix.exception_type_name();
                type_error(format!("{method} first arg must be str or a tuple of str, not {t}"))
            }
        },
        ("find" | "index" | "count", [needle, ..]) => {
            let t = not_str(needle)?;
            type_error(match python >= PythonVersion::V3_13 {
                true => format!("{method}() argument 1 must be str, not {t}"),
                false => format!("must be str, not {t}"),
            })
        }
        ("split", [separator, ..]) if !none(separator) => {
            let t = not_str(separator)?;
            type_error(format!("must be str or None, not {t}"))
        }
        ("join", [items])
            if matches!(
                items.kind,
                ValueKind::Int(_)
                    | ValueKind::Float(_)
                    | ValueKind::Bool(_)
                    | ValueKind::None
                    | ValueKind::Dtype { .. }
            ) =>
        {
            type_error("can only join an iterable".into())
        }
        _ => None,
    }
}

fn str_method(text: &str, method: &str, args: &[Value], python: PythonVersion) -> Option<Outcome> {
    if let Some(raised) = str_argument_error(text, method, args, python) {
        return Some(raised);
    }
    let ascii = text.is_ascii();
    let value = match (method, args) {
        ("upper", []) if ascii => ValueKind::Str(text.to_ascii_uppercase()),
        ("lower", []) if ascii => ValueKind::Str(text.to_ascii_lowercase()),
        ("strip" | "lstrip" | "rstrip", [] | [Value { kind: ValueKind::None, .. }]) if ascii => {
            ValueKind::Str(strip(text, method, &ascii_space).to_string())
        }
        ("strip" | "lstrip" | "rstrip", [chars]) => {
            let chars = str_of(chars)?;
            ValueKind::Str(strip(text, method, &|c| chars.contains(c)).to_string())
        }
        ("replace", [old, new]) => ValueKind::Str(text.replace(str_of(old)?, str_of(new)?)),
        ("replace", [old, new, count]) => ValueKind::Str(match usize::try_from(index_of(count)?) {
            Ok(count) => text.replacen(str_of(old)?, str_of(new)?, count),
            Err(_) => text.replace(str_of(old)?, str_of(new)?),
        }),
        ("startswith" | "endswith", [prefix]) => {
            let candidates: Vec<&str> = match &prefix.kind {
                ValueKind::Str(p) => vec![p.as_str()],
                ValueKind::Tuple(items) => items.iter().map(str_of).collect::<Option<_>>()?,
                _ => return None,
            };
            let starts = method == "startswith";
            ValueKind::Bool(candidates.iter().any(|p| if starts { text.starts_with(p) } else { text.ends_with(p) }))
        }
        ("join", [Value { kind: ValueKind::Str(chars), .. }]) => {
            ValueKind::Str(chars.chars().map(String::from).collect::<Vec<_>>().join(text))
        }
        ("join", [items]) => {
            let (ValueKind::List(items) | ValueKind::Tuple(items)) = &items.kind else { return None };
            let mut parts = Vec::with_capacity(items.len());
            for (i, item) in items.iter().enumerate() {
                match str_of(item) {
                    Some(part) => parts.push(part),
                    None => {
                        let message = format!("sequence item {i}: expected str instance, {} found", item.type_name());
                        return Some(Err(("TypeError", message)));
                    }
                }
            }
            ValueKind::Str(parts.join(text))
        }
        ("split", [separator]) if str_of(separator).is_some() => {
            let separator = str_of(separator)?;
            if separator.is_empty() {
                return Some(Err(("ValueError", "empty separator".into())));
            }
            ValueKind::List(text.split(separator).map(|p| Value::new(ValueKind::Str(p.into()), 0..0)).collect())
        }
        ("split", [] | [Value { kind: ValueKind::None, .. }]) if ascii => ValueKind::List(
            text.split(ascii_space)
                .filter(|p| !p.is_empty())
                .map(|p| Value::new(ValueKind::Str(p.into()), 0..0))
                .collect(),
        ),
        ("find" | "index", [needle]) => match text.find(str_of(needle)?) {
            Some(at) => int(text[..at].chars().count()),
            None if method == "find" => ValueKind::Int(-1),
            None => return Some(Err(("ValueError", "substring not found".into()))),
        },
        ("count", [needle]) => int(text.matches(str_of(needle)?).count()),
        _ => return None,
    };
    Some(Ok(value))
}

fn strip<'t>(text: &'t str, method: &str, strips: &dyn Fn(char) -> bool) -> &'t str {
    match method {
        "lstrip" => text.trim_start_matches(strips),
        "rstrip" => text.trim_end_matches(strips),
        _ => text.trim_matches(strips),
    }
}

/// Where `x` is in `items`: `Some(Some(i))` the first equal item (every one before it known
/// to differ), `Some(None)` in none, None where an unknown comparison leaves it open.
fn position(items: &[Value], x: &Value) -> Option<Option<usize>> {
    for (i, item) in items.iter().enumerate() {
        if py_eq(item, x)? {
            return Some(Some(i));
        }
    }
    Some(None)
}

fn list_method(items: &[Value], method: &str, args: &[Value]) -> Option<Outcome> {
    let value = match (method, args) {
        ("index", [x]) => match position(items, x)? {
            Some(i) => int(i),
            None if x.repr_is_exact() => return Some(Err(("ValueError", format!("{} is not in list", x.repr())))),
            None => return None,
        },
        ("count", [x]) => {
            let equal: Option<Vec<bool>> = items.iter().map(|item| py_eq(item, x)).collect();
            int(equal?.into_iter().filter(|e| *e).count())
        }
        ("copy", []) => ValueKind::List(items.to_vec()),
        // Changes the list (followed elsewhere): what it raises, and what `pop` gives.
        ("remove", [x]) => match position(items, x)? {
            Some(_) => return None,
            None => return Some(Err(("ValueError", "list.remove(x): x not in list".into()))),
        },
        ("pop", []) if items.is_empty() => return Some(Err(("IndexError", "pop from empty list".into()))),
        ("pop", [at]) => {
            // Any object but an int (or a bool) has no `__index__` here (`pop(type)`).
            if !matches!(at.kind, ValueKind::Int(_) | ValueKind::Bool(_) | ValueKind::BigInt(_) | ValueKind::Unknown(_))
            {
                return type_error(format!(
                    "'{}' object cannot be interpreted as an integer",
                    at.exception_type_name()
                ));
            }
            let at = index_of(at)?;
            let len = items.len() as i64;
            if items.is_empty() {
                return Some(Err(("IndexError", "pop from empty list".into())));
            }
            if at >= len || at < -len {
                return Some(Err(("IndexError", "pop index out of range".into())));
            }
            // The item it takes out (the change follows, `changes_in_place`).
            items[if at < 0 { at + len } else { at } as usize].kind.clone()
        }
        ("pop", []) => items.last()?.kind.clone(),
        _ => return None,
    };
    Some(Ok(value))
}

fn dict_method(d: &Dict, method: &str, args: &[Value]) -> Option<Outcome> {
    // A new dict holding the same objects (their places stay where they were written).
    if let ("copy", []) = (method, args) {
        return Some(Ok(ValueKind::Dict(d.clone())));
    }
    let key = args.first()?;
    if key.hashable().is_err() || !key.repr_is_exact() {
        return None;
    }
    let found = || -> Option<Option<&Value>> {
        for entry in &d.entries {
            if py_eq(&entry.key, key)? {
                return Some(Some(&entry.value));
            }
        }
        (!d.open).then_some(None)
    };
    let value = match (method, args) {
        ("get", [_] | [_, _]) => match found()? {
            Some(v) => v.kind.clone(),
            None => args.get(1).map_or(ValueKind::None, |default| default.kind.clone()),
        },
        // The value it takes out (the change follows, `changes_in_place`), or what it raises.
        ("pop", [_] | [_, _]) => match (found()?, args.get(1)) {
            (Some(v), _) => v.kind.clone(),
            (None, Some(default)) => default.kind.clone(),
            (None, None) => return Some(Err(("KeyError", key.repr()))),
        },
        _ => return None,
    };
    Some(Ok(value))
}

#[cfg(test)]
mod tests {
    use crate::analysis::{analyze, AnalysisInput};

    fn load_error(text: &str) -> Option<String> {
        analyze(text, &AnalysisInput::default()).model.load_error.map(|e| format!("{}: {}", e.exception, e.message))
    }

    fn manifest_of(text: &str) -> String {
        analyze(text, &AnalysisInput::default()).model.manifest.map(|m| m.repr()).unwrap_or_default()
    }

    #[test]
    fn methods_of_known_values() {
        assert_eq!(manifest_of("manifest = ' CPU '.strip().lower()"), "'cpu'");
        assert_eq!(manifest_of("manifest = ','.join(['a', 'b']).split(',')"), "['a', 'b']");
        assert_eq!(manifest_of("manifest = 'aten::add'.startswith(('x', 'aten'))"), "True");
        assert_eq!(manifest_of("manifest = {'a': 1}.get('b', 2)"), "2");
        assert_eq!(manifest_of("manifest = [1, 2, 2].count(2) + 'héé'.find('é')"), "3");
        // Unicode case mapping depends on the Python: not evaluated.
        assert_eq!(manifest_of("manifest = 'é'.upper()"), "<unknown>");
    }

    /// Every message of [`super::arity_error`] against what CPython 3.10-3.13 print (recorded
    /// with each: `str.replace` and the `find` family changed wording in 3.13).
    #[test]
    fn argument_count_errors_per_version() {
        use super::arity_error;
        use crate::regex_check::PythonVersion::{V3_12, V3_13};
        let cases = [
            ("str", "lower", 2, V3_12, "str.lower() takes no arguments (2 given)"),
            ("str", "join", 0, V3_12, "str.join() takes exactly one argument (0 given)"),
            ("list", "remove", 2, V3_13, "list.remove() takes exactly one argument (2 given)"),
            ("str", "strip", 2, V3_13, "strip expected at most 1 argument, got 2"),
            ("str", "replace", 4, V3_12, "replace expected at most 3 arguments, got 4"),
            ("str", "replace", 1, V3_13, "replace() takes at least 2 positional arguments (1 given)"),
            ("str", "replace", 4, V3_13, "replace() takes at most 3 arguments (4 given)"),
            ("str", "startswith", 0, V3_12, "startswith() takes at least 1 argument (0 given)"),
            ("str", "endswith", 4, V3_13, "endswith expected at most 3 arguments, got 4"),
            ("str", "split", 3, V3_13, "split() takes at most 2 arguments (3 given)"),
            ("list", "index", 0, V3_12, "index expected at least 1 argument, got 0"),
            ("dict", "get", 3, V3_12, "get expected at most 2 arguments, got 3"),
            ("dict", "pop", 0, V3_13, "pop expected at least 1 argument, got 0"),
            // The methods that change a container in place (the same in 3.10-3.13).
            ("list", "append", 0, V3_12, "list.append() takes exactly one argument (0 given)"),
            ("list", "extend", 2, V3_13, "list.extend() takes exactly one argument (2 given)"),
            ("list", "insert", 1, V3_12, "insert expected 2 arguments, got 1"),
            ("list", "clear", 1, V3_12, "list.clear() takes no arguments (1 given)"),
            ("dict", "update", 2, V3_12, "update expected at most 1 argument, got 2"),
            ("dict", "setdefault", 0, V3_13, "setdefault expected at least 1 argument, got 0"),
            ("dict", "popitem", 1, V3_12, "dict.popitem() takes no arguments (1 given)"),
            ("set", "add", 2, V3_12, "set.add() takes exactly one argument (2 given)"),
            ("set", "pop", 1, V3_13, "set.pop() takes no arguments (1 given)"),
            // bytes (3.10-3.12 alike; 3.13 rewords the `find` family only).
            ("bytes", "replace", 1, V3_13, "replace expected at least 2 arguments, got 1"),
            ("bytes", "replace", 4, V3_12, "replace expected at most 3 arguments, got 4"),
            ("bytes", "split", 3, V3_13, "split() takes at most 2 arguments (3 given)"),
            ("bytes", "lstrip", 2, V3_12, "lstrip expected at most 1 argument, got 2"),
            ("bytes", "upper", 1, V3_13, "bytes.upper() takes no arguments (1 given)"),
            ("bytes", "join", 2, V3_12, "bytes.join() takes exactly one argument (2 given)"),
            ("bytes", "find", 0, V3_12, "find() takes at least 1 argument (0 given)"),
            ("bytes", "index", 0, V3_13, "index expected at least 1 argument, got 0"),
            ("bytes", "decode", 3, V3_13, "decode() takes at most 2 arguments (3 given)"),
        ];
        for (type_name, method, given, python, message) in cases {
            assert_eq!(arity_error(type_name, method, given, python).as_deref(), Some(message));
        }
        assert_eq!(arity_error("str", "replace", 2, V3_13), None);
        assert_eq!(arity_error("str", "format", 9, V3_13), None);
    }

    /// Every wording of [`super::keyword_error`] against what CPython 3.10-3.13 print
    /// (recorded with each; 3.10 does not name the type for the `find` family, and 3.13
    /// rewords the refused keyword).
    #[test]
    fn keyword_errors_per_version() {
        use super::keyword_error;
        use crate::regex_check::PythonVersion::{V3_10, V3_12, V3_13};
        let cases = [
            ("str", "upper", 0, V3_12, "str.upper() takes no keyword arguments"),
            ("list", "insert", 0, V3_13, "list.insert() takes no keyword arguments"),
            ("dict", "get", 1, V3_10, "dict.get() takes no keyword arguments"),
            ("set", "add", 2, V3_12, "set.add() takes no keyword arguments"),
            ("str", "replace", 1, V3_12, "str.replace() takes no keyword arguments"),
            ("bytes", "replace", 1, V3_13, "bytes.replace() takes no keyword arguments"),
            ("str", "find", 1, V3_10, "find() takes no keyword arguments"),
            ("str", "find", 1, V3_12, "str.find() takes no keyword arguments"),
            ("set", "union", 0, V3_10, "union() takes no keyword arguments"),
            ("set", "update", 0, V3_13, "set.update() takes no keyword arguments"),
            ("str", "split", 1, V3_12, "'k' is an invalid keyword argument for split()"),
            ("bytes", "decode", 0, V3_13, "decode() got an unexpected keyword argument 'k'"),
            ("list", "sort", 0, V3_12, "'k' is an invalid keyword argument for sort()"),
        ];
        for (type_name, method, given, python, message) in cases {
            assert_eq!(keyword_error(type_name, method, &["k"], Some(given), python).as_deref(), Some(message));
        }
        // Counted first, keywords included; then the positional count; then a name given
        // twice; then a name not taken (CPython 3.12 and 3.10 alike).
        let more = [
            ("split", &["k"][..], 3, "split() takes at most 2 arguments (4 given)"),
            ("split", &["k"], 2, "split() takes at most 2 arguments (3 given)"),
            ("sort", &["k"], 1, "sort() takes no positional arguments"),
            ("sort", &["k", "a", "b"], 0, "sort() takes at most 2 keyword arguments (3 given)"),
            ("split", &["sep", "k"], 0, "'k' is an invalid keyword argument for split()"),
            ("split", &["sep"], 1, "argument for split() given by name ('sep') and position (1)"),
        ];
        for (method, names, given, message) in more {
            let type_name = if method == "sort" { "list" } else { "str" };
            assert_eq!(keyword_error(type_name, method, names, Some(given), V3_12).as_deref(), Some(message));
        }
        // A keyword taken where it may be; a count not known; 3.13's replace; a method not
        // modelled.
        assert_eq!(keyword_error("str", "split", &["maxsplit"], Some(1), V3_12), None);
        assert_eq!(keyword_error("str", "split", &["k"], None, V3_12), None);
        assert_eq!(
            keyword_error("str", "upper", &["k"], None, V3_12).as_deref(),
            Some("str.upper() takes no keyword arguments")
        );
        assert_eq!(keyword_error("str", "replace", &["k"], Some(1), V3_13), None);
        assert_eq!(keyword_error("dict", "update", &["k"], Some(0), V3_12), None);
    }

    /// Arguments of the wrong type, as CPython 3.10-3.13 word them (3.11 here).
    #[test]
    fn argument_type_errors() {
        let type_error = |text: &str| load_error(text).map(|e| e.trim_start_matches("TypeError: ").to_string());
        let cases = [
            ("x = 'cpu'.replace(' ', 2)", "replace() argument 2 must be str, not int"),
            ("x = 'a'.strip(1)", "strip arg must be None or str"),
            ("x = 'a'.startswith(1.5)", "startswith first arg must be str or a tuple of str, not float"),
            ("x = 'ab'.endswith(('x', None))", "tuple for endswith must only contain str, not NoneType"),
            ("x = 'a'.find(1)", "must be str, not int"),
            ("x = 'a'.split(1)", "must be str or None, not int"),
            ("x = ','.join(3)", "can only join an iterable"),
            ("x = [].pop('a')", "'str' object cannot be interpreted as an integer"),
            // Seed 913210 (the real check-manifest's message).
            ("x = [True].pop( type )", "'type' object cannot be interpreted as an integer"),
            ("import torch\nx = [1].pop(torch.float32)", "'torch.dtype' object cannot be interpreted as an integer"),
            // CPython 3.10-3.13 alike.
            ("x = 'a b'.replace(' ', '', 9 * [1])", "'list' object cannot be interpreted as an integer"),
            ("x = 'a b'.replace(' ', '', None)", "'NoneType' object cannot be interpreted as an integer"),
            ("x = 'a b'.replace(1, '', [])", "replace() argument 1 must be str, not int"),
        ];
        for (text, message) in cases {
            assert_eq!(type_error(text).as_deref(), Some(message), "{text}");
        }
        assert_eq!(type_error("x = 'ab'.startswith(('a', None))"), None);
        assert_eq!(
            load_error("x = 'a'.replace('', '', 10 ** 30)").as_deref(),
            Some("OverflowError: Python int too large to convert to C ssize_t")
        );
        assert_eq!(
            manifest_of("manifest = 'a b c'.replace(' ', '', True) + 'a b c'.replace(' ', '', -1)"),
            "'ab cabc'"
        );
        assert_eq!(manifest_of("manifest = 'abc'.replace('', '-', 2)"), "'-a-bc'");
        assert_eq!(manifest_of("manifest = ','.join('ab') + ' a  b '.split(None)[1]"), "'a,bb'");
        let path_module = if cfg!(windows) { "ntpath" } else { "posixpath" };
        let no_sp = format!("AttributeError: module '{path_module}' has no attribute 'sp'");
        assert_eq!(load_error("import os\nx = os.path.sp"), Some(no_sp));
        let unpack = "ValueError: not enough values to unpack (expected 2, got 1)";
        assert_eq!(load_error("import os\na, b = os.path.sep").as_deref(), Some(unpack));
        assert_eq!(load_error("import os\nos.sep = 'ab'\na, b = os.sep"), None);
    }

    #[test]
    fn what_methods_certainly_raise() {
        assert_eq!(load_error("[1].remove(2)").as_deref(), Some("ValueError: list.remove(x): x not in list"));
        assert_eq!(load_error("x = {}.pop('k')").as_deref(), Some("KeyError: 'k'"));
        assert_eq!(load_error("x = [].pop()").as_deref(), Some("IndexError: pop from empty list"));
        assert_eq!(load_error("x = [1].index('a')").as_deref(), Some("ValueError: 'a' is not in list"));
        assert_eq!(load_error("x = 'ab'.index('c')").as_deref(), Some("ValueError: substring not found"));
        assert_eq!(
            load_error("x = ','.join(['a', 1])").as_deref(),
            Some("TypeError: sequence item 1: expected str instance, int found")
        );
        assert_eq!(load_error("x = 'x'.foo()").as_deref(), Some("AttributeError: 'str' object has no attribute 'foo'"));
        assert_eq!(load_error("x = [1, y].remove(2)").as_deref(), Some("NameError: name 'y' is not defined"));
        assert_eq!(load_error("x = [1].remove(1)"), None);
        assert_eq!(
            load_error("x = 'a'.replace(' ')").as_deref(),
            Some("TypeError: replace expected at least 2 arguments, got 1")
        );
        assert_eq!(load_error("x = 'a'.upper(y)").as_deref(), Some("NameError: name 'y' is not defined"));
        assert_eq!(
            load_error("x = 'a'.upper(1)").as_deref(),
            Some("TypeError: str.upper() takes no arguments (1 given)")
        );
        assert_eq!(
            load_error("x = 'a'.find()").as_deref(),
            Some("TypeError: find() takes at least 1 argument (0 given)")
        );
        assert_eq!(
            load_error("x = [].pop(1, 2)").as_deref(),
            Some("TypeError: pop expected at most 1 argument, got 2")
        );
        assert_eq!(load_error("x = {**y}.pop('k')").as_deref(), Some("NameError: name 'y' is not defined"));
    }
}
