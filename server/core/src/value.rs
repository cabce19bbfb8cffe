//! Python values as the static evaluator sees them, each with the source range it came from.
//!
//! A value that cannot be known without running code is [`ValueKind::Unknown`] with the
//! reason; every rule treats it as "could be anything" and never reports an error on it.
//! Formatting follows Python (`repr()` and `str()`) because torchcts puts reprs into its
//! messages and we must print the same text.

use std::ops::Range;

mod attributes;
mod builtin;
mod equality;
pub mod format_spec;
mod not_known;
mod repr;
mod run_time;
mod set_order;
pub mod torch_functions;
pub mod type_form;
pub use builtin::{attribute_type, class_lacks, is_builtin_class, raisable};
pub use equality::{key_hash, py_eq};
pub use not_known::{Callable, NotKnown, Operators};
pub use run_time::{environment_decides, INSTALLED_TORCH, MACHINE_QUERIES, ONLY_AT_RUN_TIME, ON_THE_MACHINE};
pub use set_order::set_iteration_order;
use set_order::{set_order, set_order_is_known};
pub use type_form::TypeForm;

pub use accounting::pyfmt::{float_repr, str_repr};

/// Byte range in the document.
pub type Span = Range<usize>;

#[derive(Clone, Debug)]
pub struct Value {
    pub kind: ValueKind,
    /// Where the expression that produced this value is written.
    pub span: Span,
    /// Which list or dict object this is, where copies of it exist (see `eval::sharing`);
    /// 0 for any other value.
    pub identity: u32,
}

#[derive(Clone, Debug)]
pub enum ValueKind {
    None,
    Bool(bool),
    Int(i128),
    /// An int beyond `i128` (never one that fits: [`Value::int`] keeps that invariant).
    BigInt(Box<num_bigint::BigInt>),
    Float(f64),
    Str(String),
    Bytes(Vec<u8>),
    List(Vec<Value>),
    Tuple(Vec<Value>),
    Dict(Dict),
    /// `torch.<attr>` that is a dtype; `canonical` is `str(dtype)`.
    Dtype {
        attr: String,
        canonical: String,
    },
    /// The `torch` module itself, or another module we know by name; `repr` is the one the
    /// loading Python gives it (`<module 'torch' from '/venv/…/torch/__init__.py'>`), where
    /// it was asked ([`crate::eval::modules::ModuleFiles`]).
    Module {
        name: String,
        repr: Option<std::sync::Arc<str>>,
    },
    /// A set: its distinct elements in the order written (Python iterates them in hash
    /// order, so only a repr that order cannot change is exact).
    Set(Vec<Value>),
    /// `slice(start, stop, step)`, as `x[start:stop:step]` makes it (a subscript only).
    Slice(Box<[Value; 3]>),
    /// A builtin function or class by its name (`print`, `int`, `ValueError`): opaque, but
    /// its type and repr are known (`print + 1` raises a TypeError naming them).
    Builtin(&'static str),
    /// A method of a builtin value, bound to it (`skip_ops.append`: a
    /// `builtin_function_or_method`), or a method or descriptor of a builtin class or
    /// function (`list.append`: a `method_descriptor`; `print.__ne__`: a `method-wrapper`).
    /// Only its type is known: its repr names an address or its class.
    Method {
        name: &'static str,
        type_name: &'static str,
        /// The class a method descriptor is looked up on (`list` for `list.append`); empty
        /// for a bound method or a schema stand-in.
        owner: &'static str,
    },
    /// `int | None` or `list[int]`, made from builtins (see [`TypeForm`]).
    TypeForm(Box<TypeForm>),
    /// A function the manifest defines (`def`, `lambda`): its name, and where its `def`
    /// starts (`usize::MAX` for a lambda). Its repr names an address.
    Function {
        name: String,
        at: usize,
    },
    /// Could not be evaluated statically: why, and the type where only that is known.
    Unknown(NotKnown),
}

/// A dict with Python's semantics: insertion order, and a repeated key keeps its first
/// position but takes the last value.
///
/// `entries` may be read freely; add or remove keys only through [`Dict::insert`] and
/// [`Dict::remove`], which keep a hash index so that a literal with N entries costs O(N),
/// not O(N²) (the index is rebuilt whenever the number of entries changed behind its back).
#[derive(Clone, Debug, Default)]
pub struct Dict {
    pub entries: Vec<Entry>,
    /// True when keys we cannot see may be present (a `**splat` of an unknown value).
    pub open: bool,
    /// Entry positions by [`key_hash`]; only kept once the dict is large enough to need it.
    /// Boxed: every value is as large as its largest kind, and most dicts have no index.
    pub(crate) index: Option<Box<KeyIndex>>,
}

/// Positions of the entries by the hash of their key; `covered` is how many entries it holds.
#[derive(Clone, Debug, Default)]
pub(crate) struct KeyIndex {
    by_hash: std::collections::HashMap<u64, Vec<usize>>,
    covered: usize,
}

/// Below this many entries a linear scan is as fast as hashing and saves the index's memory.
const INDEX_FROM: usize = 16;

#[derive(Clone, Debug)]
pub struct Entry {
    pub key: Value,
    pub value: Value,
    /// Earlier writes of the same key, overridden by this one (for the duplicate-key hint).
    pub overridden: Vec<Overridden>,
}

#[derive(Clone, Debug)]
pub struct Overridden {
    pub key_span: Span,
    pub value_span: Span,
}

impl Dict {
    /// The position of the entry whose key Python's `==` says equals `key`.
    pub fn position(&mut self, key: &Value) -> Option<usize> {
        if self.entries.len() < INDEX_FROM {
            return self.entries.iter().position(|e| py_eq(&e.key, key) == Some(true));
        }
        let hash = key_hash(key)?;
        self.update_index();
        let candidates = self.index.as_ref()?.by_hash.get(&hash)?;
        candidates.iter().copied().find(|&p| py_eq(&self.entries[p].key, key) == Some(true))
    }

    /// Brings the index up to date with `entries` (extended after pushes, rebuilt otherwise).
    fn update_index(&mut self) {
        let index = self.index.get_or_insert_with(Box::default);
        if index.covered > self.entries.len() {
            **index = KeyIndex::default();
        }
        for (p, entry) in self.entries.iter().enumerate().skip(index.covered) {
            if let Some(hash) = key_hash(&entry.key) {
                index.by_hash.entry(hash).or_default().push(p);
            }
        }
        index.covered = self.entries.len();
    }

    /// Removes the entry for `key` like Python's `del d[key]`; false when there is none.
    pub fn remove(&mut self, key: &Value) -> bool {
        let Some(p) = self.position(key) else { return false };
        self.entries.remove(p);
        // Positions after `p` moved: rebuild on next use.
        self.index = None;
        true
    }

    /// Inserts like Python's `d[key] = value`.
    pub fn insert(&mut self, key: Value, value: Value) {
        if let Some(existing) = self.position(&key).map(|p| &mut self.entries[p]) {
            existing
                .overridden
                .push(Overridden { key_span: existing.key.span.clone(), value_span: existing.value.span.clone() });
            // Python keeps the first key object and replaces the value.
            existing.value = value;
            // Point later diagnostics at the key that set the value the user sees.
            existing.key.span = key.span;
            return;
        }
        self.entries.push(Entry { key, value, overridden: Vec::new() });
    }

    pub fn get(&self, key: &str) -> Option<&Entry> {
        self.entries.iter().find(|e| matches!(&e.key.kind, ValueKind::Str(s) if s == key))
    }

    pub fn get_mut(&mut self, key: &str) -> Option<&mut Entry> {
        self.entries.iter_mut().find(|e| matches!(&e.key.kind, ValueKind::Str(s) if s == key))
    }

    pub fn contains(&self, key: &str) -> bool {
        self.get(key).is_some()
    }
}

impl Value {
    pub fn new(kind: ValueKind, span: Span) -> Value {
        Value { kind, span, identity: 0 }
    }

    /// An int, as `Int` where it fits in `i128`.
    pub fn int(i: num_bigint::BigInt, span: Span) -> Value {
        match i128::try_from(&i) {
            Ok(small) => Value::new(ValueKind::Int(small), span),
            Err(_) => Value::new(ValueKind::BigInt(Box::new(i)), span),
        }
    }

    /// An int's value clamped into `i128` (a big int is beyond any bound a rule checks);
    /// `None` for any other kind (`bool` included).
    pub fn int_clamped(&self) -> Option<i128> {
        match &self.kind {
            ValueKind::Int(i) => Some(*i),
            ValueKind::BigInt(b) if b.sign() == num_bigint::Sign::Minus => Some(i128::MIN),
            ValueKind::BigInt(_) => Some(i128::MAX),
            _ => Option::None,
        }
    }

    /// Whether `str()` or `repr()` of this value raises CPython's `ValueError: Exceeds the
    /// limit (4300 digits) for integer string conversion` (an int inside it too long).
    pub fn exceeds_str_digits(&self) -> bool {
        match &self.kind {
            ValueKind::BigInt(b) => b.bits() > 14_000 && b.magnitude().to_string().len() > MAX_STR_DIGITS,
            // At least 2 ** 14290, beyond 10 ** 4300.
            ValueKind::Unknown(NotKnown { int_bits: Some(bits), .. }) => *bits > 14_290,
            ValueKind::List(items) | ValueKind::Tuple(items) | ValueKind::Set(items) => {
                items.iter().any(Value::exceeds_str_digits)
            }
            ValueKind::Slice(parts) => parts.iter().any(Value::exceeds_str_digits),
            ValueKind::Dict(d) => d.entries.iter().any(|e| e.key.exceeds_str_digits() || e.value.exceeds_str_digits()),
            _ => false,
        }
    }

    pub fn unknown(reason: impl Into<String>, span: Span) -> Value {
        let not_known = NotKnown {
            why: reason.into(),
            type_name: None,
            operators: Operators::NotModelled,
            callable: Callable::Maybe,
            not_iterable: false,
            items: None,
            shown: None,
            int_bits: None,
        };
        Value { kind: ValueKind::Unknown(not_known), span, identity: 0 }
    }

    /// A value not known statically of which the type is known (see [`NotKnown`]).
    pub fn unknown_of_type(
        type_name: &'static str,
        operators: Operators,
        callable: Callable,
        reason: impl Into<String>,
        span: Span,
    ) -> Value {
        let not_known = NotKnown {
            why: reason.into(),
            type_name: Some(type_name),
            operators,
            callable,
            not_iterable: false,
            items: None,
            shown: None,
            int_bits: None,
        };
        Value { kind: ValueKind::Unknown(not_known), span, identity: 0 }
    }

    /// An int too large to compute, of at least `bits` bits (see [`NotKnown::int_bits`]).
    pub fn huge_int(bits: u64, span: Span) -> Value {
        let why = "an int too large to compute statically";
        let mut v = Value::unknown_of_type("int", Operators::NotModelled, Callable::No, why, span);
        if let ValueKind::Unknown(not_known) = &mut v.kind {
            not_known.int_bits = Some(bits);
        }
        v
    }

    /// An `int` or a `float` (`type_name`) whose value is not known statically.
    pub fn number_not_known(type_name: &'static str, span: Span) -> Value {
        let why = if type_name == "int" { "an int not known statically" } else { "a float not known statically" };
        Value::unknown_of_type(type_name, Operators::NotModelled, Callable::No, why, span)
    }

    /// The least number of bits of an int too large to compute ([`Value::huge_int`]).
    pub fn huge_int_bits(&self) -> Option<u64> {
        match &self.kind {
            ValueKind::Unknown(not_known) => not_known.int_bits,
            _ => None,
        }
    }

    pub fn is_unknown(&self) -> bool {
        matches!(self.kind, ValueKind::Unknown(_))
    }

    /// True when this value or anything inside it is unknown.
    pub fn contains_unknown(&self) -> bool {
        self.unknown_inside(false)
    }

    /// True when something inside is unknown other than an object known by its type whose
    /// items are known (`for k, v in d.items(),:` binds the view's items, which are known).
    pub fn contains_unknown_but_items(&self) -> bool {
        self.unknown_inside(true)
    }

    fn unknown_inside(&self, items_known: bool) -> bool {
        let inside = |items: &[Value]| items.iter().any(|i| i.unknown_inside(items_known));
        match &self.kind {
            ValueKind::Unknown(NotKnown { items: Some(known), .. }) if items_known => inside(&known.items),
            ValueKind::Unknown(_) => true,
            ValueKind::List(items) | ValueKind::Tuple(items) | ValueKind::Set(items) => inside(items),
            ValueKind::Slice(parts) => inside(&parts[..]),
            ValueKind::Dict(d) => {
                d.open
                    || d.entries
                        .iter()
                        .any(|e| e.key.unknown_inside(items_known) || e.value.unknown_inside(items_known))
            }
            _ => false,
        }
    }

    pub fn as_str(&self) -> Option<&str> {
        match &self.kind {
            ValueKind::Str(s) => Some(s),
            _ => None,
        }
    }

    pub fn as_dict(&self) -> Option<&Dict> {
        match &self.kind {
            ValueKind::Dict(d) => Some(d),
            _ => None,
        }
    }

    /// The type's name as CPython's exception messages print it (`tp_name`: `torch.dtype`,
    /// where `type(x).__name__` is `dtype`).
    pub fn exception_type_name(&self) -> &'static str {
        match &self.kind {
            ValueKind::Dtype { .. } => "torch.dtype",
            ValueKind::TypeForm(form) => form.exception_type_name(),
            ValueKind::Unknown(not_known) => not_known.type_name.unwrap_or("object"),
            _ => self.type_name(),
        }
    }

    /// Whether calling this value certainly raises `TypeError: '...' object is not callable`.
    pub fn not_callable(&self) -> bool {
        let union = matches!(&self.kind, ValueKind::TypeForm(form) if matches!(**form, TypeForm::Union(_)));
        union
            || self.is_builtin_instance()
            || self.known_type_not_callable()
            || matches!(self.kind, ValueKind::Dtype { .. } | ValueKind::Module { .. })
    }

    /// Whether iterating this value certainly raises `TypeError: '...' object is not iterable`.
    pub fn not_iterable(&self) -> bool {
        let iterable = self.is_builtin_iterable();
        // A generic alias iterates in 3.11 and later (`*tuple[int]`), not in 3.10.
        let union = matches!(&self.kind, ValueKind::TypeForm(form) if matches!(**form, TypeForm::Union(_)));
        union
            || matches!(
                self.kind,
                ValueKind::Dtype { .. }
                    | ValueKind::Module { .. }
                    | ValueKind::Builtin(_)
                    | ValueKind::Method { .. }
                    | ValueKind::Function { .. }
            )
            || (self.is_builtin_instance() && !iterable)
            || matches!(&self.kind, ValueKind::Unknown(NotKnown { not_iterable: true, .. }))
            || self.typed_number_stand_in().is_some()
    }

    /// A str, bytes, list, tuple, dict or set: iterating it never raises.
    pub fn is_builtin_iterable(&self) -> bool {
        matches!(
            self.kind,
            ValueKind::Str(_)
                | ValueKind::Bytes(_)
                | ValueKind::List(_)
                | ValueKind::Tuple(_)
                | ValueKind::Dict(_)
                | ValueKind::Set(_)
        )
    }

    /// An instance of a builtin type (no `__setattr__` of its own, not callable).
    pub fn is_builtin_instance(&self) -> bool {
        matches!(
            self.kind,
            ValueKind::None
                | ValueKind::Bool(_)
                | ValueKind::Int(_)
                | ValueKind::BigInt(_)
                | ValueKind::Float(_)
                | ValueKind::Str(_)
                | ValueKind::Bytes(_)
                | ValueKind::List(_)
                | ValueKind::Tuple(_)
                | ValueKind::Dict(_)
                | ValueKind::Slice(_)
                | ValueKind::Set(_)
        )
    }

    /// Python's `type(x).__name__`.
    pub fn type_name(&self) -> &'static str {
        match &self.kind {
            ValueKind::None => "NoneType",
            ValueKind::Bool(_) => "bool",
            ValueKind::Int(_) | ValueKind::BigInt(_) => "int",
            ValueKind::Float(_) => "float",
            ValueKind::Str(_) => "str",
            ValueKind::Bytes(_) => "bytes",
            ValueKind::List(_) => "list",
            ValueKind::Tuple(_) => "tuple",
            ValueKind::Dict(_) => "dict",
            ValueKind::Dtype { .. } => "dtype",
            ValueKind::Module { .. } => "module",
            ValueKind::Slice(_) => "slice",
            ValueKind::Set(_) => "set",
            ValueKind::Builtin(name) if is_builtin_class(name) => "type",
            ValueKind::Builtin(_) => "builtin_function_or_method",
            ValueKind::Method { type_name, .. } => type_name,
            ValueKind::Function { .. } => "function",
            ValueKind::TypeForm(form) => form.type_name(),
            ValueKind::Unknown(_) => "object",
        }
    }

    /// What iterating a known value gives: a str's characters, bytes' ints, a dict's keys,
    /// a set's elements in CPython's order (where that order is not known, as many values
    /// not known statically). None where not known.
    pub fn iterated(&self) -> Option<Vec<Value>> {
        let at = || self.span.clone();
        Some(match &self.kind {
            ValueKind::List(items) | ValueKind::Tuple(items) => items.clone(),
            ValueKind::Str(text) => text.chars().map(|c| Value::new(ValueKind::Str(c.into()), at())).collect(),
            ValueKind::Bytes(bytes) => bytes.iter().map(|&b| Value::new(ValueKind::Int(b.into()), at())).collect(),
            ValueKind::Dict(d) if !d.open => d.entries.iter().map(|e| e.key.clone()).collect(),
            ValueKind::Unknown(NotKnown { items: Some(known), .. }) => known.items.clone(),
            // An element not known may equal another: then even the count is not known.
            ValueKind::Set(items) if !self.contains_unknown() => match set_order_is_known(items) {
                true => set_order(items),
                false => items
                    .iter()
                    .map(|i| Value::unknown("a set's order is not known statically", i.span.clone()))
                    .collect(),
            },
            _ => return None,
        })
    }

    /// Python truthiness; `None` when unknown.
    pub fn truthy(&self) -> Option<bool> {
        Some(match &self.kind {
            ValueKind::None => false,
            ValueKind::Bool(b) => *b,
            ValueKind::Int(i) => *i != 0,
            ValueKind::BigInt(_) => true,
            ValueKind::Float(f) => *f != 0.0,
            ValueKind::Str(s) => !s.is_empty(),
            ValueKind::Bytes(b) => !b.is_empty(),
            ValueKind::List(v) | ValueKind::Tuple(v) | ValueKind::Set(v) => !v.is_empty(),
            ValueKind::Dict(d) => {
                if d.entries.is_empty() && d.open {
                    return None;
                }
                !d.entries.is_empty()
            }
            ValueKind::Dtype { .. }
            | ValueKind::Module { .. }
            | ValueKind::Slice(_)
            | ValueKind::Builtin(_)
            | ValueKind::Method { .. }
            | ValueKind::Function { .. }
            | ValueKind::TypeForm(_) => true,
            ValueKind::Unknown(_) => return None,
        })
    }

    /// A str known by its type, whose text is `shown` but for the addresses it holds.
    pub fn str_shown(shown: String, why: impl Into<String>, span: Span) -> Value {
        let mut value = Value::unknown_of_type("str", Operators::NotModelled, Callable::No, why, span);
        if let ValueKind::Unknown(not_known) = &mut value.kind {
            not_known.shown = Some(shown.into_boxed_str());
        }
        value
    }

    /// Keeps `shown` as what `str()` of this value not known prints (an exception made
    /// with known arguments: its message).
    pub fn set_shown(&mut self, shown: Option<String>) {
        if let ValueKind::Unknown(not_known) = &mut self.kind {
            not_known.shown = shown.map(String::into_boxed_str);
        }
    }

    /// The text of a str known but for the addresses it holds (see [`Value::str_shown`]).
    pub fn shown(&self) -> Option<&str> {
        match &self.kind {
            ValueKind::Unknown(NotKnown { shown: Some(text), .. }) => Some(text),
            _ => None,
        }
    }
}

/// CPython's default `sys.get_int_max_str_digits()`.
pub const MAX_STR_DIGITS: usize = 4300;

/// What `str()` of an int over [`MAX_STR_DIGITS`] digits raises (a `ValueError`; CPython
/// 3.10.7+ and 3.11-3.13 alike).
pub const STR_DIGITS_EXCEEDED: &str =
    "Exceeds the limit (4300 digits) for integer string conversion; use sys.set_int_max_str_digits() to increase the limit";
