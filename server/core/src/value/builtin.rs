//! Which builtin names are classes.
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
