//! The typing forms builtins make without importing anything: `int | None` (a
//! `types.UnionType`) and `list[int]` (a `types.GenericAlias`). Only forms whose repr is the
//! same in CPython 3.10-3.13 are made; any other is left not known.

use super::builtin::{class_lacks, is_builtin_class};
use super::{py_eq, Callable, Operators, Span, Value, ValueKind};
use crate::regex_check::PythonVersion;

#[derive(Clone, Debug)]
pub enum TypeForm {
    /// `int | None | list[int]`: the members, each None, a builtin class or an alias, no two
    /// equal, in the order first written.
    Union(Vec<Value>),
    /// `dict[str, int]`: the builtin class and its arguments.
    Alias { origin: &'static str, args: Vec<Value> },
}

/// The builtin classes with `__class_getitem__` in CPython 3.10-3.13 (the exception groups
/// are 3.11's and later), and `type`, whose metaclass subscript makes an alias too.
const GENERIC_CLASSES: [&str; 9] =
    ["BaseExceptionGroup", "ExceptionGroup", "dict", "enumerate", "frozenset", "list", "set", "tuple", "type"];

impl TypeForm {
    /// Whether Python can hash it: an alias hashes its arguments (`list[1:2]` holds a slice).
    pub fn hashable(&self) -> Result<(), &'static str> {
        match self {
            TypeForm::Alias { args, .. } => args.iter().try_for_each(Value::hashable),
            TypeForm::Union(_) => Ok(()),
        }
    }

    /// `types.UnionType` or `types.GenericAlias`, as exception messages name the type.
    pub fn exception_type_name(&self) -> &'static str {
        match self {
            TypeForm::Union(_) => "types.UnionType",
            TypeForm::Alias { .. } => "types.GenericAlias",
        }
    }

    /// `type(x).__name__`.
    pub fn type_name(&self) -> &'static str {
        match self {
            TypeForm::Union(_) => "UnionType",
            TypeForm::Alias { .. } => "GenericAlias",
        }
    }

    /// Python's `repr()`: `int | None`, `dict[str, int]`, `tuple[()]`.
    pub fn repr(&self) -> String {
        match self {
            TypeForm::Union(members) => members.iter().map(argument_repr).collect::<Vec<_>>().join(" | "),
            TypeForm::Alias { origin, args } if args.is_empty() => format!("{origin}[()]"),
            TypeForm::Alias { origin, args } => {
                format!("{origin}[{}]", args.iter().map(argument_repr).collect::<Vec<_>>().join(", "))
            }
        }
    }

    /// Where `form.attr` certainly raises, the message: a union's own attributes are all it
    /// has; an alias looks any name it does not keep for itself up on its class.
    pub fn lacks_attribute(&self, attr: &str) -> Option<String> {
        match self {
            TypeForm::Union(_) if class_lacks("types.UnionType", attr) => {
                Some(format!("'types.UnionType' object has no attribute '{attr}'"))
            }
            TypeForm::Alias { origin, .. } if class_lacks("types.GenericAlias", attr) && class_lacks(origin, attr) => {
                Some(format!("type object '{origin}' has no attribute '{attr}'"))
            }
            _ => None,
        }
    }

    /// `__args__` (a union's members, an alias's arguments) and an alias's `__origin__`.
    /// A union's `None` stands as the class `NoneType`, which is not modelled: that tuple is
    /// known by its type only.
    pub fn data_attribute(&self, attr: &str, s: Span) -> Option<Value> {
        let tuple = |items: &[Value]| Value::new(ValueKind::Tuple(items.to_vec()), s.clone());
        Some(match (self, attr) {
            (TypeForm::Union(members), "__args__") if members.iter().any(|m| matches!(m.kind, ValueKind::None)) => {
                let why = "a union's `__args__` holds `NoneType`, a class not modelled";
                let items = members
                    .iter()
                    .map(|m| match m.kind {
                        ValueKind::None => Value::unknown("the class `NoneType` is not modelled", s.clone()),
                        _ => m.clone(),
                    })
                    .collect();
                Value::unknown_of_type("tuple", Operators::NotModelled, Callable::No, why, s.clone())
                    .with_items(items, false)
            }
            (TypeForm::Union(members), "__args__") => tuple(members),
            (TypeForm::Alias { args, .. }, "__args__") => tuple(args),
            (TypeForm::Alias { origin, .. }, "__origin__") => Value::new(ValueKind::Builtin(origin), s),
            _ => return None,
        })
    }

    /// Python `==`: unions are equal with the same members in any order, aliases with the
    /// same class and arguments.
    pub fn equals(&self, other: &TypeForm) -> Option<bool> {
        match (self, other) {
            (TypeForm::Union(a), TypeForm::Union(b)) => {
                Some(a.len() == b.len() && a.iter().all(|m| b.iter().any(|n| same(m, n))))
            }
            (TypeForm::Alias { .. }, TypeForm::Alias { .. }) => Some(self.repr() == other.repr()),
            _ => Some(false),
        }
    }

    /// What a hash of this form feeds: the same for forms [`TypeForm::equals`] calls equal.
    pub fn hash_key(&self) -> String {
        match self {
            TypeForm::Union(members) => {
                let mut reprs: Vec<String> = members.iter().map(argument_repr).collect();
                reprs.sort();
                format!("union {}", reprs.join(" | "))
            }
            TypeForm::Alias { .. } => format!("alias {}", self.repr()),
        }
    }
}

/// Whether `x | y` is a union (both operands None, a class or a typing form; not both None).
pub fn makes_union(left: &Value, right: &Value) -> bool {
    let unionable = |v: &Value| {
        matches!(&v.kind, ValueKind::None | ValueKind::TypeForm(_))
            || matches!(v.kind, ValueKind::Builtin(name) if is_builtin_class(name))
    };
    unionable(left) && unionable(right) && !matches!((&left.kind, &right.kind), (ValueKind::None, ValueKind::None))
}

/// Whether `x | y` involves a class or a typing form (a `TypeError` unless [`makes_union`]).
pub fn is_type_operand(v: &Value) -> bool {
    matches!(&v.kind, ValueKind::TypeForm(_)) || matches!(v.kind, ValueKind::Builtin(name) if is_builtin_class(name))
}

/// `left | right` where [`makes_union`]: members in order, repeats dropped; one member left
/// is that member itself (`int | int` is `int`).
pub fn union(left: &Value, right: &Value, s: Span) -> Value {
    let mut members: Vec<Value> = Vec::new();
    for operand in [left, right] {
        let parts = match &operand.kind {
            ValueKind::TypeForm(form) => match &**form {
                TypeForm::Union(inner) => inner.clone(),
                TypeForm::Alias { .. } => vec![operand.clone()],
            },
            _ => vec![operand.clone()],
        };
        for part in parts {
            if !members.iter().any(|m| same(m, &part)) {
                members.push(part);
            }
        }
    }
    match members.len() {
        1 => Value::new(members.remove(0).kind, s),
        _ => Value::new(ValueKind::TypeForm(Box::new(TypeForm::Union(members))), s),
    }
}

/// `class[key]` for a builtin class: an alias where the class is generic and every argument
/// has a repr CPython 3.10-3.13 agree on; None where not known (`int[0]`'s message differs
/// between them).
pub fn alias(class: &'static str, key: &Value, s: Span) -> Option<Value> {
    if !GENERIC_CLASSES.contains(&class) {
        return None;
    }
    let args = match &key.kind {
        ValueKind::Tuple(items) => items.clone(),
        _ => vec![key.clone()],
    };
    fn exact(a: &Value) -> bool {
        match &a.kind {
            ValueKind::None
            | ValueKind::Bool(_)
            | ValueKind::Int(_)
            | ValueKind::Float(_)
            | ValueKind::Str(_)
            | ValueKind::Bytes(_)
            | ValueKind::TypeForm(_) => true,
            // `list[1:2]`: `slice(1, 2, None)`; `tuple[:()]`: `slice(None, (), None)`.
            ValueKind::Slice(parts) => parts.iter().all(exact),
            ValueKind::Tuple(items) => items.iter().all(exact),
            // `Builtin("exit")` is `sys.exit`, which a form names by its module.
            ValueKind::Builtin(name) => *name != "exit",
            _ => false,
        }
    }
    Some(match args.iter().all(exact) {
        true => Value::new(ValueKind::TypeForm(Box::new(TypeForm::Alias { origin: class, args })), s),
        // Whatever its arguments, an alias: its type's errors are known (`~dict[str, Any]`).
        false => {
            let why = format!("`{class}[...]` of arguments whose repr is not known statically");
            Value::unknown_of_type("types.GenericAlias", Operators::OnlyOr, Callable::Maybe, why, s)
        }
    })
}

/// The `TypeError` subscripting a class that is not generic (`int[0]`) or a typing form
/// made of builtins (which has no type variables left) raises; None for any other value.
pub fn subscript_error(object: &Value, python: PythonVersion) -> Option<String> {
    let before_3_11 = python < PythonVersion::V3_11;
    match &object.kind {
        ValueKind::Builtin(class) if is_builtin_class(class) && !GENERIC_CLASSES.contains(class) => {
            Some(match before_3_11 {
                true => "'type' object is not subscriptable".to_string(),
                false => format!("type '{class}' is not subscriptable"),
            })
        }
        ValueKind::TypeForm(form) => Some(match before_3_11 {
            true => format!("There are no type variables left in {}", form.repr()),
            false => format!("{} is not a generic class", form.repr()),
        }),
        _ => None,
    }
}

/// How a typing form's repr shows an argument: a class or function by its name, a form by
/// its repr, anything else by `repr()`.
fn argument_repr(v: &Value) -> String {
    match &v.kind {
        ValueKind::Builtin(name) => name.to_string(),
        _ => v.repr(),
    }
}

fn same(a: &Value, b: &Value) -> bool {
    py_eq(a, b) == Some(true) && std::mem::discriminant(&a.kind) == std::mem::discriminant(&b.kind)
}
