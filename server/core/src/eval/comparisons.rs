//! Comparisons (`<`, `==`, `in`, `is`, chained `a < b < c`) on known operands, with the
//! exceptions CPython 3.11 raises (`'<' not supported between instances of 'list' and 'int'`,
//! `argument of type 'int' is not iterable`, ...; checked against `python3.11 -c`).

use super::{span, Evaluator};
use crate::value::{py_eq, Callable, Operators, Value, ValueKind};
use std::cmp::Ordering;
use tree_sitter::Node;

/// An exception: its type and `str()` of it.
pub(super) type Raise = (&'static str, String);

impl Evaluator<'_> {
    /// `a op1 b op2 c ...`: the operands are evaluated left to right, and evaluation stops at
    /// the first comparison that is false (or raises), as Python's chained comparison does.
    pub(super) fn comparison(&mut self, node: Node) -> Value {
        let s = span(node);
        let mut cursor = node.walk();
        let children: Vec<Node> = node.children(&mut cursor).filter(|c| c.kind() != "comment").collect();
        // Operands are named nodes; each operator is one or two unnamed tokens (`not in`).
        let mut operands = Vec::new();
        let mut operators: Vec<String> = Vec::new();
        let mut pending = String::new();
        for child in children {
            if child.is_named() {
                if !pending.is_empty() {
                    operators.push(std::mem::take(&mut pending));
                }
                operands.push(child);
            } else {
                if !pending.is_empty() {
                    pending.push(' ');
                }
                // `not  in` may be one token, its words apart as written.
                pending.push_str(&self.t(child).split_whitespace().collect::<Vec<_>>().join(" "));
            }
        }
        if operands.len() != operators.len() + 1 || operands.is_empty() {
            return Value::unknown("incomplete comparison", s);
        }
        let mut left = self.expr(operands[0]);
        let mut result = Value::unknown("comparison", s.clone());
        let last = operators.len() - 1;
        for (i, (op, right_node)) in operators.iter().zip(&operands[1..]).enumerate() {
            if self.model.load_error.is_some() {
                return Value::unknown("raises", s);
            }
            let right = self.expr(*right_node);
            if self.model.load_error.is_some() {
                return Value::unknown("raises", s);
            }
            match compare(op, &left, &right) {
                Err((exception, message)) => {
                    self.fail(s.clone(), exception, message);
                    return Value::unknown("raises", s);
                }
                // The last comparison decides the chain's value: a bool, where it can only be one.
                Ok(None) if i == last && gives_bool(op, &left, &right) => {
                    let why = format!("`{op}` on these operands is not evaluated statically");
                    return Value::unknown_of_type("bool", Operators::NotModelled, Callable::No, why, s);
                }
                Ok(None) => return Value::unknown(format!("`{op}` on these operands is not evaluated statically"), s),
                Ok(Some(false)) => return Value::new(ValueKind::Bool(false), s),
                Ok(Some(true)) => result = Value::new(ValueKind::Bool(true), s.clone()),
            }
            left = right;
        }
        result
    }
}

/// Whether `left op right` is a bool whatever the operands' values: `is` always is; `==`
/// and `!=` are where both operands are of builtin types (whose comparison gives a bool;
/// `sys.argv != ["a"]`), not an object whose own `__eq__` may give anything; an ordering is
/// where both are numbers.
fn gives_bool(op: &str, left: &Value, right: &Value) -> bool {
    const BUILTIN: [&str; 12] =
        ["bool", "int", "float", "str", "bytes", "list", "tuple", "dict", "set", "NoneType", "range", "frozenset"];
    let builtin = |v: &Value| match &v.kind {
        ValueKind::Unknown(_) => v.known_type().is_some_and(|t| BUILTIN.contains(&t)),
        _ => !v.contains_unknown(),
    };
    // Numbers order among themselves without raising (`len(x) < 3`).
    let number = |v: &Value| {
        matches!(v.kind, ValueKind::Int(_) | ValueKind::BigInt(_) | ValueKind::Float(_) | ValueKind::Bool(_))
            || v.typed_number_stand_in().is_some()
    };
    match op {
        "is" | "is not" => true,
        "==" | "!=" => builtin(left) && builtin(right),
        "<" | "<=" | ">" | ">=" => number(left) && number(right),
        _ => false,
    }
}

/// `left op right` for one operator: `Ok(None)` where it is not known.
pub(super) fn compare(op: &str, left: &Value, right: &Value) -> Result<Option<bool>, Raise> {
    // `1 in f"{f}"`: a str known by its type only takes only a str.
    let typed_str = right.known_type() == Some("str") && matches!(op, "in" | "not in");
    if typed_str && !left.is_unknown() && !matches!(left.kind, ValueKind::Str(_)) {
        let t = left.exception_type_name();
        return Err(("TypeError", format!("'in <string>' requires string as left operand, not {t}")));
    }
    // `x in (a == b)`: a container known by a type that does not iterate raises whatever it is.
    if matches!(op, "in" | "not in") && right.is_unknown() && right.typed_number_stand_in().is_some() {
        return contains(right, left);
    }
    // An ordering of values known by type only may raise for the types (see `order`).
    if (left.is_unknown() || right.is_unknown()) && !matches!(op, "<" | "<=" | ">" | ">=") {
        return Ok(None);
    }
    match op {
        "==" => Ok(py_eq(left, right)),
        "!=" => Ok(py_eq(left, right).map(|e| !e)),
        "<" | "<=" | ">" | ">=" => Ok(order(left, right, op)?.map(|o| match op {
            "<" => o == Ordering::Less,
            "<=" => o != Ordering::Greater,
            ">" => o == Ordering::Greater,
            _ => o != Ordering::Less,
        })),
        "in" => contains(right, left),
        "not in" => Ok(contains(right, left)?.map(|c| !c)),
        "is" => Ok(identical(left, right)),
        "is not" => Ok(identical(left, right).map(|i| !i)),
        _ => Ok(None),
    }
}

/// How `left` orders against `right` for the ordering operator `op` (named in the TypeError).
pub(super) fn order(left: &Value, right: &Value, op: &str) -> Result<Option<Ordering>, Raise> {
    use ValueKind::{BigInt, Bool, Bytes, Float, Int, List, Set, Str, Tuple, Unknown};
    let unsupported = || {
        let (l, r) = (left.exception_type_name(), right.exception_type_name());
        Err(("TypeError", format!("'{op}' not supported between instances of '{l}' and '{r}'")))
    };
    let int_of = |v: &Value| match v.kind {
        Int(i) => Some(i),
        Bool(b) => Some(b as i128),
        _ => None,
    };
    match (&left.kind, &right.kind) {
        (Unknown(_), _) | (_, Unknown(_)) if never_ordered(left, right) => unsupported(),
        (Unknown(_), _) | (_, Unknown(_)) => Ok(None),
        (BigInt(_), Float(_)) | (Float(_), BigInt(_)) => Ok(None),
        (BigInt(_), _) | (_, BigInt(_))
            if super::integers::big_of(left).and(super::integers::big_of(right)).is_some() =>
        {
            Ok(super::integers::big_of(left).zip(super::integers::big_of(right)).map(|(a, b)| a.cmp(&b)))
        }
        _ if int_of(left).is_some() && int_of(right).is_some() => {
            Ok(int_of(left).zip(int_of(right)).map(|(a, b)| a.cmp(&b)))
        }
        (Bool(_) | Int(_) | Float(_), Bool(_) | Int(_) | Float(_)) => {
            // Exact only where the int converts to a float exactly (Python compares exactly).
            let exact = |v: &Value| int_of(v).is_none_or(|i| i.unsigned_abs() <= 1 << 53);
            match (left.as_number(), right.as_number()) {
                (Some(a), Some(b)) if exact(left) && exact(right) => Ok(a.partial_cmp(&b)),
                _ => Ok(None),
            }
        }
        // Subset order is not modelled.
        (Set(_), Set(_)) => Ok(None),
        (Str(a), Str(b)) => Ok(Some(a.cmp(b))),
        (Bytes(a), Bytes(b)) => Ok(Some(a.cmp(b))),
        (List(a), List(b)) | (Tuple(a), Tuple(b)) => {
            // The first pair of items that are not `==` decides; else the lengths.
            for (x, y) in a.iter().zip(b) {
                match py_eq(x, y) {
                    Some(true) => continue,
                    Some(false) => return order(x, y, op),
                    None => return Ok(None),
                }
            }
            Ok(Some(a.len().cmp(&b.len())))
        }
        _ => unsupported(),
    }
}

/// Whether `left < right` raises for the types alone, one of them known by its type only
/// (`sorted([f"{x}", 1])`): two different builtin types of this list never order, numbers
/// aside (`'<' not supported between instances of 'str' and 'int'`, CPython 3.10-3.13); nor
/// do two of these types, nor two of a type that defines no order. Sets and dict views are
/// not judged (they order as subsets), nor any other type (`torch.__version__`'s orders
/// against a str).
fn never_ordered(left: &Value, right: &Value) -> bool {
    // Builtin types that order among themselves only (numbers among numbers), and those
    // that never order, not even with themselves.
    const ORDERED: [&str; 7] = ["str", "bytes", "int", "float", "bool", "list", "tuple"];
    const UNORDERED: [&str; 10] = [
        "NoneType",
        "dict",
        "range",
        "zip",
        "enumerate",
        "map",
        "type",
        "function",
        "builtin_function_or_method",
        "module",
    ];
    const NUMBERS: [&str; 3] = ["int", "float", "bool"];
    let type_of = |v: &Value| match &v.kind {
        ValueKind::Unknown(_) => v.known_type(),
        _ => Some(v.type_name()),
    };
    match (type_of(left), type_of(right)) {
        (Some(l), Some(r)) if [l, r].iter().all(|t| ORDERED.contains(t) || UNORDERED.contains(t)) => {
            (l != r && !(NUMBERS.contains(&l) && NUMBERS.contains(&r))) || (l == r && UNORDERED.contains(&l))
        }
        _ => false,
    }
}

/// `needle in container`.
fn contains(container: &Value, needle: &Value) -> Result<Option<bool>, Raise> {
    use ValueKind::{Bool, Bytes, Dict, Int, List, Set, Str, Tuple};
    match &container.kind {
        // A set looked for in a set is taken as a frozenset.
        Set(_) if needle.hashable().is_err() && !matches!(needle.kind, Set(_)) => {
            let t = needle.hashable().err().unwrap_or("list");
            Err(("TypeError", format!("unhashable type: '{t}'")))
        }
        List(items) | Tuple(items) | Set(items) => {
            let equal: Vec<Option<bool>> = items.iter().map(|v| py_eq(v, needle)).collect();
            Ok(match equal.iter().position(|e| *e != Some(false)) {
                None => Some(false),
                Some(p) if equal[p] == Some(true) => Some(true),
                Some(_) => None,
            })
        }
        Dict(d) => {
            if let Err(t) = needle.hashable() {
                return Err(("TypeError", format!("unhashable type: '{t}'")));
            }
            if needle.contains_unknown() {
                return Ok(None);
            }
            let mut d = d.clone();
            Ok(match d.position(needle) {
                Some(_) => Some(true),
                None if d.open => None,
                None => Some(false),
            })
        }
        Str(text) => match &needle.kind {
            Str(part) => Ok(Some(text.contains(part.as_str()))),
            _ => {
                let t = needle.exception_type_name();
                Err(("TypeError", format!("'in <string>' requires string as left operand, not {t}")))
            }
        },
        Bytes(bytes) => match &needle.kind {
            Bytes(part) => Ok(Some(part.is_empty() || bytes.windows(part.len()).any(|w| w == part.as_slice()))),
            Int(_) | Bool(_) => match needle.as_number() {
                Some(n) if (0.0..256.0).contains(&n) => Ok(Some(bytes.contains(&(n as u8)))),
                _ => Err(("ValueError", "byte must be in range(0, 256)".into())),
            },
            _ => {
                let t = needle.exception_type_name();
                Err(("TypeError", format!("a bytes-like object is required, not '{t}'")))
            }
        },
        _ if container.not_iterable() => {
            let t = container.exception_type_name();
            Err(("TypeError", format!("argument of type '{t}' is not iterable")))
        }
        _ => Ok(None),
    }
}

/// `left is right`, where it is certain: the singletons `None`, `True` and `False`, and
/// values of different types.
fn identical(left: &Value, right: &Value) -> Option<bool> {
    use ValueKind::{Bool, None as NoneType};
    match (&left.kind, &right.kind) {
        (NoneType, NoneType) => Some(true),
        (Bool(a), Bool(b)) => Some(a == b),
        (NoneType | Bool(_), _) | (_, NoneType | Bool(_)) => Some(false),
        // One object per builtin and per dtype (`type([]) is list`, `torch.float is torch.float32`).
        (ValueKind::Builtin(a), ValueKind::Builtin(b)) => Some(a == b),
        (ValueKind::Dtype { canonical: a, .. }, ValueKind::Dtype { canonical: b, .. }) => Some(a == b),
        _ if std::mem::discriminant(&left.kind) != std::mem::discriminant(&right.kind) => Some(false),
        _ => None,
    }
}
