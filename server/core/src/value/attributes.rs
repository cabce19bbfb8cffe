//! Public attributes of the builtin types (CPython 3.11's `dir()`) and of `torch.dtype`
//! (torch 2.12): which a value lacks, and which are its methods.

use super::builtin::{attribute_type, is_builtin_class};
use super::{TypeForm, Value, ValueKind};

impl Value {
    /// The type name when this value certainly lacks attribute `attr` (the public attributes
    /// of CPython 3.11's `dir()` of its type, torch 2.12's for `torch.dtype`; a dunder name
    /// by its type's instances in CPython 3.10-3.13, assumed to exist where they are not
    /// listed), as exception messages name the type.
    pub fn lacks_attribute(&self, attr: &str) -> Option<&'static str> {
        let known = match self.kind {
            ValueKind::Dict(_) => DICT_ATTRIBUTES,
            ValueKind::List(_) => LIST_ATTRIBUTES,
            ValueKind::Tuple(_) => TUPLE_ATTRIBUTES,
            ValueKind::Int(_) | ValueKind::BigInt(_) | ValueKind::Bool(_) => INT_ATTRIBUTES,
            ValueKind::Float(_) => FLOAT_ATTRIBUTES,
            ValueKind::Str(_) if TEXT_ATTRIBUTES.contains(&attr) => return None,
            ValueKind::Str(_) => STR_ONLY_ATTRIBUTES,
            ValueKind::Bytes(_) if TEXT_ATTRIBUTES.contains(&attr) => return None,
            ValueKind::Bytes(_) => BYTES_ONLY_ATTRIBUTES,
            ValueKind::None => &[],
            ValueKind::Slice(_) => SLICE_ATTRIBUTES,
            ValueKind::Set(_) => SET_ATTRIBUTES,
            ValueKind::Dtype { .. } => DTYPE_ATTRIBUTES,
            // A builtin function's attributes are all dunders, and all known; a class has its
            // methods.
            ValueKind::Builtin(name) if !is_builtin_class(name) => FUNCTION_ATTRIBUTES,
            ValueKind::Method { type_name: "builtin_function_or_method", .. } => FUNCTION_ATTRIBUTES,
            // A typing form's message is not this one (see `TypeForm::lacks_attribute`).
            // A function takes any attribute set on it.
            ValueKind::Module { .. }
            | ValueKind::Builtin(_)
            | ValueKind::Method { .. }
            | ValueKind::TypeForm(_)
            | ValueKind::Function { .. }
            | ValueKind::Unknown(_) => return None,
        };
        let function = matches!(self.kind, ValueKind::Builtin(_) | ValueKind::Method { .. });
        let dunder = !function && attr.len() > 4 && attr.starts_with("__") && attr.ends_with("__");
        let type_name = self.exception_type_name();
        // A dunder is the instance's `dir()` in CPython 3.10-3.13, where that is listed.
        let lacks = match dunder {
            true => super::class_lacks(&format!("object:{type_name}"), attr),
            false => !known.contains(&attr),
        };
        lacks.then_some(type_name)
    }

    /// `list.append`, `print.__ne__`, `list[int].append`: a method or a descriptor of a
    /// builtin class or function (an alias looks up on its class what it does not keep), as
    /// a value of its type; the same in CPython 3.10-3.13. None for any other attribute.
    pub fn descriptor_attribute(&self, attr: &str) -> Option<ValueKind> {
        let ((name, type_name), owner) = match &self.kind {
            ValueKind::Builtin(class) if is_builtin_class(class) => (attribute_type(class, attr)?, *class),
            ValueKind::Builtin(_) => (attribute_type("builtin_function_or_method", attr)?, ""),
            ValueKind::TypeForm(form) => match &**form {
                // `ga_getattro`: every name but these few is its class's (3.10-3.13's union).
                TypeForm::Alias { origin, .. } if !ALIAS_OWN_ATTRIBUTES.contains(&attr) => {
                    (attribute_type(origin, attr)?, *origin)
                }
                // `(int | None).__ne__`: a `method-wrapper` (the table's `types.UnionType`).
                TypeForm::Union(_) => (attribute_type("types.UnionType", attr)?, ""),
                _ => return None,
            },
            _ => return None,
        };
        Some(ValueKind::Method { name, type_name, owner })
    }

    /// The method `attr` of this builtin value, as its type lists it (bound, it is a
    /// `builtin_function_or_method`); None for a data attribute (`real`, `start`), a dunder,
    /// or a name the type lacks.
    pub fn builtin_method(&self, attr: &str) -> Option<&'static str> {
        const DATA: [&str; 7] = ["real", "imag", "numerator", "denominator", "start", "stop", "step"];
        let lists: &[&[&'static str]] = match self.kind {
            ValueKind::Dict(_) => &[DICT_ATTRIBUTES],
            ValueKind::List(_) => &[LIST_ATTRIBUTES],
            ValueKind::Tuple(_) => &[TUPLE_ATTRIBUTES],
            ValueKind::Int(_) | ValueKind::BigInt(_) | ValueKind::Bool(_) => &[INT_ATTRIBUTES],
            ValueKind::Float(_) => &[FLOAT_ATTRIBUTES],
            ValueKind::Str(_) => &[TEXT_ATTRIBUTES, STR_ONLY_ATTRIBUTES],
            ValueKind::Bytes(_) => &[TEXT_ATTRIBUTES, BYTES_ONLY_ATTRIBUTES],
            ValueKind::Set(_) => &[SET_ATTRIBUTES],
            ValueKind::Slice(_) => &[SLICE_ATTRIBUTES],
            _ => return None,
        };
        if DATA.contains(&attr) {
            return None;
        }
        lists.iter().flat_map(|list| list.iter()).find(|a| **a == attr).copied()
    }
}

/// The names a generic alias answers itself (`attr_exceptions` of `Objects/genericaliasobject.c`
/// in 3.10-3.13, together); it passes every other to its class.
const ALIAS_OWN_ATTRIBUTES: &[&str] = &[
    "__class__",
    "__bases__",
    "__origin__",
    "__args__",
    "__unpacked__",
    "__parameters__",
    "__typing_unpacked_tuple_args__",
    "__mro_entries__",
    "__reduce_ex__",
    "__reduce__",
    "__copy__",
    "__deepcopy__",
];

/// `dir(print)`, the same for every `builtin_function_or_method` (`__getstate__` is
/// 3.11's and later; kept, so 3.10's AttributeError for it is not claimed).
const FUNCTION_ATTRIBUTES: &[&str] = &[
    "__call__",
    "__class__",
    "__delattr__",
    "__dir__",
    "__doc__",
    "__eq__",
    "__format__",
    "__ge__",
    "__getattribute__",
    "__getstate__",
    "__gt__",
    "__hash__",
    "__init__",
    "__init_subclass__",
    "__le__",
    "__lt__",
    "__module__",
    "__name__",
    "__ne__",
    "__new__",
    "__qualname__",
    "__reduce__",
    "__reduce_ex__",
    "__repr__",
    "__self__",
    "__setattr__",
    "__sizeof__",
    "__str__",
    "__subclasshook__",
    "__text_signature__",
];
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
