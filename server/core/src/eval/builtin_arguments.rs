//! What a builtin raises for its arguments whatever their values, before it runs: a
//! keyword where it takes none, Argument Clinic's keyword checks, the count of positional
//! arguments (`data/builtin_arity.txt`, recorded from CPython 3.10-3.13 by
//! `tools/cpython/builtin_arity.py`), and `str(x, encoding)`'s argument types.

use crate::regex_check::PythonVersion;
use crate::value::{Value, ValueKind};

/// A call's arguments, evaluated.
#[derive(Default)]
pub(super) struct CallArguments {
    pub(super) positional: Vec<Value>,
    /// `name=value`, the name as a `str` key.
    pub(super) keywords: Vec<(Value, Value)>,
    /// A `*x` or `**x` argument, or a generator: the arguments are not all known.
    pub(super) unpacked: bool,
    /// `f(*1)`: the type of a lone `*` argument that is not iterable (the call raises once
    /// the arguments are all evaluated).
    pub(super) lone_star_not_iterable: Option<&'static str>,
    /// `f(**{1: 2})`: a `**` mapping gave a key that is no str (the call raises
    /// `keywords must be strings`).
    pub(super) key_not_a_string: bool,
}

impl CallArguments {
    /// The keywords' names, in order; None where one is not a str.
    pub(super) fn keyword_names(&self) -> Option<Vec<&str>> {
        self.keywords
            .iter()
            .map(|(key, _)| match &key.kind {
                ValueKind::Str(name) => Some(name.as_str()),
                _ => None,
            })
            .collect()
    }
}

/// The builtins that take no keyword argument at all: any call with one raises `len() takes
/// no keyword arguments`, whatever its positional arguments (the same in CPython 3.10-3.13;
/// `tools/cpython/builtins_without_keywords.py` lists them).
const NO_KEYWORDS: &str = "abs aiter all anext any ascii bin bool callable chr classmethod delattr divmod filter float format frozenset getattr hasattr hash \
    hex id isinstance issubclass iter len list map next oct ord range repr reversed set setattr slice staticmethod super tuple";

/// Builtins whose keywords Argument Clinic unpacks before any other check of their
/// arguments: their parameters, and how many of them may be given by position (zip's
/// positional arguments are its iterables, apart from its one keyword).
const CLINIC_KEYWORDS: [(&str, &[&str], usize); 5] = [
    ("str", &["object", "encoding", "errors"], 3),
    ("bytes", &["source", "encoding", "errors"], 3),
    ("bytearray", &["source", "encoding", "errors"], 3),
    ("zip", &["strict"], 0),
    ("property", &["fget", "fset", "fdel", "doc"], 4),
];

/// print's keywords, all keyword-only: the first other keyword is refused, whatever else is
/// given (CPython 3.10-3.13, with `print(1, sep="", k=1)` among others).
const PRINT_KEYWORDS: [&str; 4] = ["sep", "end", "file", "flush"];

/// What a builtin raises for its arguments' names and count, whatever their values:
/// keywords where it takes none (checked before the count: `len(pr=int)`, `len(1, 2,
/// k=3)`), its keyword checks, then the count.
pub(super) fn arguments_refused(fname: &str, args: &CallArguments, python: PythonVersion) -> Option<String> {
    if !args.keywords.is_empty() && NO_KEYWORDS.split_whitespace().any(|name| name == fname) {
        return Some(format!("{fname}() takes no keyword arguments"));
    }
    if let Some(message) = unexpected_keyword(fname, args, python) {
        return Some(message);
    }
    // An exception class takes no keyword, but for the few with attributes of their own
    // (`NameError(name=...)`; CPython 3.10-3.13 alike).
    const KEYWORDED: [&str; 5] =
        ["AttributeError", "ImportError", "ModuleNotFoundError", "NameError", "UnboundLocalError"];
    if !args.keywords.is_empty() && crate::value::raisable(fname) && !KEYWORDED.contains(&fname) {
        return Some(format!("{fname}() takes no keyword arguments"));
    }
    let counted = !args.unpacked && args.keywords.is_empty();
    counted
        .then(|| argument_count_error(fname, args.positional.len(), python))
        .flatten()
        .or_else(|| (fname == "str" && counted).then(|| str_decoding_error(&args.positional, python)).flatten())
}

/// `str(x, encoding[, errors])` of known values: the encoding and errors must be str
/// (Argument Clinic names None `None` before 3.13), then x must be bytes-like (CPython
/// 3.10-3.13). None where it decodes, or where a value is not known.
fn str_decoding_error(args: &[Value], python: PythonVersion) -> Option<String> {
    if !(2..=3).contains(&args.len()) || args.iter().any(Value::contains_unknown) {
        return None;
    }
    let type_name = |v: &Value| match (&v.kind, python >= PythonVersion::V3_13) {
        (ValueKind::None, false) => "None",
        _ => v.exception_type_name(),
    };
    for (arg, name) in args[1..].iter().zip(["encoding", "errors"]) {
        if !matches!(arg.kind, ValueKind::Str(_)) {
            return Some(format!("str() argument '{name}' must be str, not {}", type_name(arg)));
        }
    }
    match &args[0].kind {
        ValueKind::Bytes(_) => None,
        ValueKind::Str(_) => Some("decoding str is not supported".into()),
        _ => Some(format!("decoding to str: need a bytes-like object, {} found", args[0].exception_type_name())),
    }
}

/// `print(k=1)`, `str(1, object=1)`: what a builtin's keyword check raises.
fn unexpected_keyword(fname: &str, args: &CallArguments, python: PythonVersion) -> Option<String> {
    let names = args.keyword_names().filter(|names| !names.is_empty())?;
    if fname == "print" {
        let first = names.iter().find(|name| !PRINT_KEYWORDS.contains(name))?;
        return Some(invalid_keyword(fname, first, python));
    }
    let (_, parameters, max_positional) = CLINIC_KEYWORDS.iter().find(|(name, _, _)| *name == fname)?;
    let given = match fname {
        "zip" => 0,
        _ => args.positional.len(),
    };
    (!args.unpacked).then(|| clinic_keyword_error(fname, parameters, *max_positional, given, &names, python)).flatten()
}

/// What Argument Clinic's `_PyArg_UnpackKeywords` raises for `given` positional arguments
/// and the keywords `names`, for a callee whose `parameters` may be given by name and the
/// first `max_positional` by position, none required: too many in all, too many by
/// position, one given by name and position, or a name it does not take. Checked against
/// CPython 3.10-3.13 on every call of up to 4 positional arguments and 3 keywords of
/// str, bytes, bytearray, zip, property and str.split, rsplit, encode, bytes.decode and
/// list.sort (`tools/cpython/clinic_keywords.py`).
pub(super) fn clinic_keyword_error(
    callee: &str,
    parameters: &[&str],
    max_positional: usize,
    given: usize,
    names: &[&str],
    python: PythonVersion,
) -> Option<String> {
    let most = parameters.len();
    let plural = |n: usize| if n == 1 { "" } else { "s" };
    if given + names.len() > most {
        let keyword = if given == 0 { "keyword " } else { "" };
        let total = given + names.len();
        return Some(format!("{callee}() takes at most {most} {keyword}argument{} ({total} given)", plural(most)));
    }
    if given > max_positional {
        return Some(match max_positional {
            0 => format!("{callee}() takes no positional arguments"),
            _ => format!(
                "{callee}() takes at most {max_positional} positional argument{} ({given} given)",
                plural(max_positional)
            ),
        });
    }
    let left: Vec<&str> = names.iter().copied().filter(|name| !parameters[given..].contains(name)).collect();
    let first_left = left.first()?;
    if let Some(i) = (0..given).find(|&i| names.contains(&parameters[i])) {
        return Some(format!("argument for {callee}() given by name ('{}') and position ({})", parameters[i], i + 1));
    }
    Some(invalid_keyword(callee, first_left, python))
}

/// `'k' is an invalid keyword argument for split()`, reworded in 3.13.
fn invalid_keyword(callee: &str, name: &str, python: PythonVersion) -> String {
    match python >= PythonVersion::V3_13 {
        true => format!("{callee}() got an unexpected keyword argument '{name}'"),
        false => format!("'{name}' is an invalid keyword argument for {callee}()"),
    }
}

static ARITY_TABLE: &str = include_str!("../../data/builtin_arity.txt");

/// The `TypeError` calling the builtin `fname` with `given` positional arguments (and no
/// keyword) raises for their count; None where the count is one it takes.
pub(super) fn argument_count_error(fname: &str, given: usize, python: PythonVersion) -> Option<String> {
    let count = if given >= 5 { "5+".to_string() } else { given.to_string() };
    let version = format!("3.{}", python.minor());
    ARITY_TABLE.lines().filter(|line| !line.starts_with('#')).find_map(|line| {
        let mut fields = line.splitn(4, '\t');
        let (name, n, versions, message) = (fields.next()?, fields.next()?, fields.next()?, fields.next()?);
        let applies = name == fname && n == count && (versions == "all" || versions == version);
        applies.then(|| message.replace("{n}", &given.to_string()))
    })
}

/// `zip(a, 1)`, `map(f, 1)`: the first of the iterables zip, map, filter or enumerate take
/// that does not iterate raises as they get its iterator (CPython 3.10-3.13 alike).
pub(super) fn not_iterable_argument(fname: &str, args: &CallArguments) -> Option<String> {
    let p = args.positional.as_slice();
    let iterables = match (fname, p.len()) {
        _ if args.unpacked => return None,
        ("zip", _) => p,
        ("map", 2..) | ("filter", 2) => &p[1..],
        ("enumerate", 1 | 2) => &p[..1],
        _ => return None,
    };
    // One that may not iterate, before, may raise first with its own type.
    let first = iterables.iter().find(|v| !v.certainly_iterable())?;
    first.not_iterable().then(|| format!("'{}' object is not iterable", first.exception_type_name()))
}
