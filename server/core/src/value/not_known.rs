//! Values not known statically: why, and their type where that alone is known. A type
//! decides some errors without the value: `-range(3)`, `sys.argv + 1`, `zip(1)`.

use super::{Value, ValueKind};

/// Why a value is not known statically, and its type where that alone is known
/// (`range(n)`, `sys.argv`, `d.items()`): a type's errors need no value (`-range(3)`).
/// Of the types given here only `int`, `bool` and `float` define unary operators
/// (`eval::expressions::unary`).
#[derive(Clone, Debug)]
pub struct NotKnown {
    pub why: String,
    pub type_name: Option<&'static str>,
    pub operators: Operators,
    pub callable: Callable,
    /// `iter()` of it raises (`*typing.Any`: its type has no `__iter__`).
    pub not_iterable: bool,
    /// What iterating it gives, where known (`range(3)`, `zip(a, b)`, `d.items()`).
    pub items: Option<Box<KnownItems>>,
    /// What `str()` of it prints, as a message shows it: a str's text where only the
    /// addresses of objects it shows are not known (`f"{f}"`: `<function f at 0x…>`), an
    /// exception's message (`KeyError("k")`: `'k'`).
    pub shown: Option<Box<str>>,
    /// An int too large to compute (`10 ** 10 ** 7`): at least this many bits, so that
    /// `|x| >= 2 ** (bits - 1)` (what `x / 7` or `f"{x}"` raises needs no more).
    pub int_bits: Option<u64>,
}

/// What iterating a value known by its type gives.
#[derive(Clone, Debug)]
pub struct KnownItems {
    pub items: Vec<Value>,
    /// The items are the object's in the expression that makes it only: an iterator is used
    /// up by iterating it, a dict view follows its dict. Forgotten once the object is
    /// stored ([`Value::forget_passing_items`]).
    pub passing: bool,
}

/// Whether an object of a [`NotKnown`]'s type can be called.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Callable {
    /// Calling it raises `'zip' object is not callable` (`zip(a)()`, `sys.argv()`).
    No,
    /// It may be called (`json.dumps`), or whether it can is not known.
    Maybe,
}

/// The binary operators of a [`NotKnown`]'s type, as far as they are modelled.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Operators {
    /// Not modelled (`d.keys() - s` takes a set; `sys.argv`'s list is judged as a list).
    #[default]
    NotModelled,
    /// None (comparisons aside): any binary operator on one raises unless the other
    /// operand's reflected method takes it (`[1] * range(3)` raises as a sequence does).
    NoneDefined,
    /// Only `|` (`type`, `typing.Any`: `Any | None` makes a union); the others raise as
    /// for [`Operators::NoneDefined`].
    OnlyOr,
    /// Only the set operators `-`, `&`, `|` and `^` (a dict's keys and items views: `d.keys()
    /// - {"a"}` is a set); the others raise as for [`Operators::NoneDefined`].
    SetOperators,
}

impl std::ops::Deref for NotKnown {
    type Target = String;
    fn deref(&self) -> &String {
        &self.why
    }
}

impl std::fmt::Display for NotKnown {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str(&self.why)
    }
}

impl From<&NotKnown> for String {
    fn from(not_known: &NotKnown) -> String {
        not_known.why.clone()
    }
}

/// Sets, iterators and dict views: their objects iterate without raising, and have no
/// `__getitem__` (`d.keys()[0]`: `'dict_keys' object is not subscriptable`).
const ITERABLE_NOT_SUBSCRIPTABLE: [&str; 8] =
    ["set", "zip", "enumerate", "map", "filter", "dict_keys", "dict_values", "dict_items"];

/// Other types whose objects iterate without raising.
const ITERABLE_SEQUENCES: [&str; 4] = ["list", "tuple", "range", "TorchVersion"];

/// Other types with no `__getitem__` whose class has no `__class_getitem__`.
const OTHERS_NOT_SUBSCRIPTABLE: [&str; 6] =
    ["function", "builtin_function_or_method", "ellipsis", "int", "bool", "float"];

impl Value {
    /// A number known only by its type (`len(x)`, `x == y`) as a value of that type, for
    /// the errors its type alone decides (`len(True)`, `list(len(x))`); None for another.
    pub fn typed_number_stand_in(&self) -> Option<Value> {
        self.type_known().filter(|v| matches!(v.kind, ValueKind::Int(_) | ValueKind::Bool(_) | ValueKind::Float(_)))
    }

    /// Whether `self[key]`, a value known only by its type, certainly raises.
    pub fn known_type_not_subscriptable(&self) -> bool {
        self.known_type()
            .is_some_and(|t| ITERABLE_NOT_SUBSCRIPTABLE.contains(&t) || OTHERS_NOT_SUBSCRIPTABLE.contains(&t))
    }

    /// The type of an object known by its type (or a function the manifest defines) that
    /// has no attribute `attr` in CPython 3.10-3.13 (`d.keys().update`); None where it has
    /// it, or where that is not known. A function takes attributes set on it: see
    /// [`Value::takes_attributes`]; another module's, whose `__dict__` is not known, is not
    /// claimed.
    pub fn object_lacks_attribute(&self, attr: &str) -> Option<&'static str> {
        let type_name = match &self.kind {
            ValueKind::Function { .. } => "function",
            // A module's function may hold attributes in its `__dict__` (`__wrapped__`).
            _ => self.known_type().filter(|t| *t != "function")?,
        };
        super::class_lacks(&format!("object:{type_name}"), attr).then_some(type_name)
    }

    /// Whether attributes may be set on this object (a function's `__dict__`).
    pub fn takes_attributes(&self) -> bool {
        matches!(self.kind, ValueKind::Function { .. })
    }

    /// The type of a value not known statically, where that alone is known.
    pub fn known_type(&self) -> Option<&'static str> {
        match &self.kind {
            ValueKind::Unknown(not_known) => not_known.type_name,
            _ => None,
        }
    }

    /// An exception made, not raised, with known arguments (`KeyError("k")`): its class and
    /// message, what `raise` of it and `str()` of it print (`'k'`).
    pub fn made_exception(&self) -> Option<(&'static str, &str)> {
        match &self.kind {
            ValueKind::Unknown(NotKnown { type_name: Some(class), shown: Some(message), .. })
                if super::raisable(class) =>
            {
                Some((class, message))
            }
            _ => None,
        }
    }

    /// What `str()` of this value gives, where known: an exact value's text, a made
    /// exception's message, or a class `type(name, bases, dict)` made (`<class 'manifest.A'>`).
    pub fn str_known(&self) -> Option<String> {
        if self.repr_is_exact() {
            return Some(self.py_str());
        }
        match &self.kind {
            ValueKind::Unknown(NotKnown { type_name: Some("type"), shown: Some(repr), .. }) => Some(repr.to_string()),
            _ => self.made_exception().map(|(_, message)| message.to_string()),
        }
    }

    /// A value not known whose type certainly lacks the binary operator `op` (see
    /// [`Operators`]).
    pub fn lacks_operator(&self, op: &str) -> bool {
        match &self.kind {
            ValueKind::Unknown(not_known) => match not_known.operators {
                Operators::NoneDefined => true,
                Operators::OnlyOr => op != "|",
                Operators::SetOperators => !matches!(op, "-" | "&" | "|" | "^"),
                Operators::NotModelled => false,
            },
            _ => false,
        }
    }

    /// What the manifest schema's `isinstance` checks see of a value known only by its
    /// type, where that type is none of those they check for (`dict`, `list`, `tuple`,
    /// `str`, `int`, `float`, `bool`, `torch.dtype`): an opaque object of that type
    /// (`semantic_level = range(3)` is no integer). None for a `list` (`sys.argv`), a `dict`
    /// a `tuple`, a `str` and a `TorchVersion` (a `str`), an `int`, a `float` and a `bool`
    /// (`len(sys.argv)`, `sys.argv == []`), whose checks need the value. The stand-in is a
    /// [`ValueKind::Method`]'s kind of value: only its type is known, its repr is not.
    pub fn schema_stand_in(&self) -> Option<Value> {
        let type_name = self
            .known_type()
            .filter(|t| !matches!(*t, "list" | "tuple" | "dict" | "str" | "TorchVersion" | "int" | "float" | "bool"))?;
        Some(Value::new(ValueKind::Method { name: "", type_name, owner: "" }, self.span.clone()))
    }

    /// Whether calling this value, known only by its type, certainly raises.
    pub fn known_type_not_callable(&self) -> bool {
        matches!(&self.kind, ValueKind::Unknown(NotKnown { type_name: Some(_), callable: Callable::No, .. }))
    }

    /// The same value with the items of every iterator and dict view it holds forgotten
    /// (see [`KnownItems::passing`]): stored under a name, such an object iterates as it
    /// is when read, not as it was when made.
    pub fn forget_passing_items(&mut self) {
        match &mut self.kind {
            ValueKind::Unknown(not_known) if not_known.items.as_ref().is_some_and(|i| i.passing) => {
                not_known.items = None
            }
            ValueKind::List(items) | ValueKind::Tuple(items) | ValueKind::Set(items) => {
                items.iter_mut().for_each(Value::forget_passing_items)
            }
            ValueKind::Dict(d) => d.entries.iter_mut().for_each(|e| e.value.forget_passing_items()),
            _ => {}
        }
    }

    /// This value, known by its type, whose type does not iterate (`iter()` of it raises).
    pub fn that_does_not_iterate(mut self) -> Value {
        if let ValueKind::Unknown(not_known) = &mut self.kind {
            not_known.not_iterable = true;
        }
        self
    }

    /// `...` (`Ellipsis`): only its type is modelled, which has no operator, no call, no
    /// item and no iteration.
    pub fn ellipsis(s: super::Span) -> Value {
        let why = "`...` (Ellipsis) is not evaluated statically";
        Value::unknown_of_type("ellipsis", Operators::NoneDefined, Callable::No, why, s).that_does_not_iterate()
    }

    /// This value, known by its type, with what iterating it gives.
    pub fn with_items(mut self, items: Vec<Value>, passing: bool) -> Value {
        if let ValueKind::Unknown(not_known) = &mut self.kind {
            not_known.items = Some(Box::new(KnownItems { items, passing }));
        }
        self
    }

    /// Whether `iter()` of this value certainly succeeds (its items need not be known).
    pub fn certainly_iterable(&self) -> bool {
        self.is_builtin_iterable()
            || self
                .known_type()
                .is_some_and(|t| ITERABLE_NOT_SUBSCRIPTABLE.contains(&t) || ITERABLE_SEQUENCES.contains(&t))
    }
}
