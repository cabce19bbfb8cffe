//! Public attributes of the builtin types (CPython 3.11's `dir()`) and of `torch.dtype`
//! (torch 2.12), for [`super::Value::lacks_attribute`].

pub(super) const DICT_ATTRIBUTES: &[&str] =
    &["clear", "copy", "fromkeys", "get", "items", "keys", "pop", "popitem", "setdefault", "update", "values"];
pub(super) const LIST_ATTRIBUTES: &[&str] =
    &["append", "clear", "copy", "count", "extend", "index", "insert", "pop", "remove", "reverse", "sort"];
pub(super) const TUPLE_ATTRIBUTES: &[&str] = &["count", "index"];
pub(super) const INT_ATTRIBUTES: &[&str] = &[
    "as_integer_ratio",
    "bit_count",
    "bit_length",
    "conjugate",
    "denominator",
    "from_bytes",
    "imag",
    "numerator",
    "real",
    "to_bytes",
];
pub(super) const FLOAT_ATTRIBUTES: &[&str] =
    &["as_integer_ratio", "conjugate", "fromhex", "hex", "imag", "is_integer", "real"];
/// What `str` and `bytes` both have.
pub(super) const TEXT_ATTRIBUTES: &[&str] = &[
    "capitalize",
    "center",
    "count",
    "endswith",
    "expandtabs",
    "find",
    "index",
    "isalnum",
    "isalpha",
    "isascii",
    "isdigit",
    "islower",
    "isspace",
    "istitle",
    "isupper",
    "join",
    "ljust",
    "lower",
    "lstrip",
    "maketrans",
    "partition",
    "removeprefix",
    "removesuffix",
    "replace",
    "rfind",
    "rindex",
    "rjust",
    "rpartition",
    "rsplit",
    "rstrip",
    "split",
    "splitlines",
    "startswith",
    "strip",
    "swapcase",
    "title",
    "translate",
    "upper",
    "zfill",
];
pub(super) const STR_ONLY_ATTRIBUTES: &[&str] =
    &["casefold", "encode", "format", "format_map", "isdecimal", "isidentifier", "isnumeric", "isprintable"];
pub(super) const BYTES_ONLY_ATTRIBUTES: &[&str] = &["decode", "fromhex", "hex"];
pub(super) const SET_ATTRIBUTES: &[&str] = &[
    "add",
    "clear",
    "copy",
    "difference",
    "difference_update",
    "discard",
    "intersection",
    "intersection_update",
    "isdisjoint",
    "issubset",
    "issuperset",
    "pop",
    "remove",
    "symmetric_difference",
    "symmetric_difference_update",
    "union",
    "update",
];
pub(super) const SLICE_ATTRIBUTES: &[&str] = &["indices", "start", "step", "stop"];
pub(super) const DTYPE_ATTRIBUTES: &[&str] =
    &["is_complex", "is_floating_point", "is_signed", "itemsize", "to_complex", "to_real"];
