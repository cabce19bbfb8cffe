//! Which builtin names are classes, and the attributes each class has in CPython
//! 3.10-3.13 (`data/builtin_class_attributes.txt`, made by
//! `tools/cpython/builtin_class_attributes.py`).

use std::collections::{HashMap, HashSet};
use std::sync::OnceLock;

static CLASS_ATTRIBUTES: &str = include_str!("../../data/builtin_class_attributes.txt");
static ATTRIBUTE_TYPES: &str = include_str!("../../data/builtin_attribute_types.txt");

/// The attribute `attr` of the builtin class `class` (or, for `class` =
/// `builtin_function_or_method`, of a builtin function such as `print`) where it is a method
/// or a descriptor, with its type's name (`list.append`: `method_descriptor`), the same in
/// CPython 3.10-3.13 (`data/builtin_attribute_types.txt`, made by
/// `tools/cpython/builtin_attribute_types.py`).
pub fn attribute_type(class: &str, attr: &str) -> Option<(&'static str, &'static str)> {
    type Table = HashMap<&'static str, HashMap<&'static str, &'static str>>;
    static TABLE: OnceLock<Table> = OnceLock::new();
    let table = TABLE.get_or_init(|| {
        let lines = ATTRIBUTE_TYPES.lines().filter(|l| !l.starts_with('#'));
        lines
            .filter_map(|line| {
                let mut words = line.split(' ');
                Some((words.next()?, words.filter_map(|w| w.split_once(':')).collect()))
            })
            .collect()
    });
    table.get(class)?.get_key_value(attr).map(|(a, t)| (*a, *t))
}

/// Whether the builtin class `class` certainly has no attribute `attr` in any CPython
/// 3.10-3.13 (`OSError.x`: `type object 'OSError' has no attribute 'x'`).
pub fn class_lacks(class: &str, attr: &str) -> bool {
    static TABLE: OnceLock<HashMap<&'static str, HashSet<&'static str>>> = OnceLock::new();
    let table = TABLE.get_or_init(|| {
        let lines = CLASS_ATTRIBUTES.lines().filter(|l| !l.starts_with('#'));
        lines
            .filter_map(|line| {
                let mut words = line.split(' ');
                Some((words.next()?, words.collect()))
            })
            .collect()
    });
    // type's descriptor raises its own AttributeError (`__abstractmethods__`).
    attr != "__abstractmethods__" && table.get(class).is_some_and(|names| !names.contains(attr))
}
/// Builtin exception classes `raise` makes a load error of: those deriving from `Exception`
/// whose `str()` of plain arguments is their str or repr (not the `OSError` family's errno
/// form, the Unicode errors' or the groups', which take arguments of their own).
pub fn raisable(name: &str) -> bool {
    let exception = name == "Exception"
        || ["Error", "Warning", "Exception"].iter().any(|end| name.ends_with(end))
        || matches!(name, "StopIteration" | "StopAsyncIteration");
    let special = matches!(
        name,
        "BaseException"
            | "OSError"
            | "IOError"
            | "EnvironmentError"
            | "BlockingIOError"
            | "ChildProcessError"
            | "ConnectionError"
            | "BrokenPipeError"
            | "ConnectionAbortedError"
            | "ConnectionRefusedError"
            | "ConnectionResetError"
            | "FileExistsError"
            | "FileNotFoundError"
            | "InterruptedError"
            | "IsADirectoryError"
            | "NotADirectoryError"
            | "PermissionError"
            | "ProcessLookupError"
            | "TimeoutError"
            | "UnicodeDecodeError"
            | "UnicodeEncodeError"
            | "UnicodeTranslateError"
    ) || name.ends_with("Group");
    exception && !special && is_builtin_class(name)
}

/// The builtin names that are classes (`type(int)` is `type`): the exceptions and warnings,
/// and the lowercase ones listed; every other builtin [`ValueKind::Builtin`] is a function.
pub fn is_builtin_class(name: &str) -> bool {
    const CLASSES: [&str; 26] = [
        "bool",
        "bytearray",
        "bytes",
        "classmethod",
        "complex",
        "dict",
        "enumerate",
        "filter",
        "float",
        "frozenset",
        "int",
        "list",
        "map",
        "memoryview",
        "object",
        "property",
        "range",
        "reversed",
        "set",
        "slice",
        "staticmethod",
        "str",
        "super",
        "tuple",
        "type",
        "zip",
    ];
    name.starts_with(|c: char| c.is_ascii_uppercase()) || CLASSES.contains(&name)
}
