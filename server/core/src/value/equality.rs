//! Python's `==` between values we know, and a hash consistent with it (dict keys, set
//! members).

use super::torch_functions::TORCH;
use super::{Value, ValueKind};

/// A slice's (start, stop, step) as a tuple: slices compare as these tuples do.
fn tuple_of(parts: &[Value; 3]) -> Value {
    Value::new(ValueKind::Tuple(parts.to_vec()), 0..0)
}

/// A hash consistent with [`py_eq`]: values it calls equal hash alike (numbers by their
/// `f64`, as `py_eq` compares them). `None` for a value `py_eq` never calls equal to anything.
pub fn key_hash(v: &Value) -> Option<u64> {
    use std::hash::{Hash, Hasher};
    fn feed(v: &Value, h: &mut std::collections::hash_map::DefaultHasher) -> Option<()> {
        match &v.kind {
            // A slice is unhashable in 3.11: never a key.
            // A torch function is one object (hashed by its repr, `py_eq`).
            ValueKind::Method { name, owner: TORCH, .. } => {
                (11u8, super::torch_functions::torch_function_repr(name)).hash(h)
            }
            ValueKind::Unknown(_)
            | ValueKind::Dict(_)
            | ValueKind::Slice(_)
            | ValueKind::Set(_)
            | ValueKind::Method { .. } => return None,
            ValueKind::Function { .. } if v.identity == 0 => return None,
            ValueKind::Function { .. } => (10u8, v.identity).hash(h),
            ValueKind::None => 0u8.hash(h),
            ValueKind::Bool(_) | ValueKind::Int(_) | ValueKind::Float(_) => {
                let x = v.as_number()?;
                // 0.0 and -0.0 are equal; NaN equals nothing but hashing it is harmless.
                let x = if x == 0.0 { 0.0 } else { x };
                (1u8, x.to_bits()).hash(h)
            }
            // Never equal to an `Int` (see `Value::int`); to a float, not known (`py_eq`).
            ValueKind::BigInt(b) => (7u8, b).hash(h),
            ValueKind::Str(s) => (2u8, s).hash(h),
            ValueKind::Bytes(b) => (3u8, b).hash(h),
            ValueKind::Dtype { canonical, .. } => (4u8, canonical).hash(h),
            ValueKind::Module { name, .. } => (5u8, name).hash(h),
            ValueKind::Builtin(name) => (8u8, name).hash(h),
            ValueKind::TypeForm(form) => (9u8, form.hash_key()).hash(h),
            ValueKind::List(items) | ValueKind::Tuple(items) => {
                // `py_eq` calls a list equal to a list, a tuple to a tuple: one tag for both
                // is still consistent.
                (6u8, items.len()).hash(h);
                for item in items {
                    feed(item, h)?;
                }
            }
        }
        Some(())
    }
    let mut h = std::collections::hash_map::DefaultHasher::new();
    feed(v, &mut h)?;
    Some(h.finish())
}

/// Python `==` between two values; `None` when either side is unknown.
pub fn py_eq(a: &Value, b: &Value) -> Option<bool> {
    use ValueKind::*;
    Some(match (&a.kind, &b.kind) {
        (Unknown(_), _) | (_, Unknown(_)) => return Option::None,
        // A torch function is one object, equal to itself only (`torch_functions.rs`).
        (Method { owner: TORCH, name: x, .. }, Method { owner: TORCH, name: y, .. }) => {
            super::torch_functions::torch_function_repr(x) == super::torch_functions::torch_function_repr(y)
        }
        (Method { owner: TORCH, .. }, other) | (other, Method { owner: TORCH, .. })
            if !matches!(other, Method { .. }) =>
        {
            false
        }
        // Bound methods are equal where their objects are the same one. Another kind of
        // object is never one: both `__eq__` give NotImplemented, then identity decides.
        (Method { .. }, Method { .. }) => return Option::None,
        (Method { .. }, _) | (_, Method { .. }) => false,
        // A function equals itself only: the object each `def` or `lambda` run made (one
        // `def` run twice makes two), where both are known by their identity.
        (Function { .. }, Function { .. }) if a.identity != 0 && b.identity != 0 => a.identity == b.identity,
        (Function { .. }, _) | (_, Function { .. }) => return Option::None,
        (None, None) => true,
        (Str(x), Str(y)) => x == y,
        (Bytes(x), Bytes(y)) => x == y,
        (BigInt(x), BigInt(y)) => x == y,
        (BigInt(_), Float(_)) | (Float(_), BigInt(_)) => return Option::None,
        (BigInt(_), Int(_) | Bool(_)) | (Int(_) | Bool(_), BigInt(_)) => false,
        (Dtype { canonical: x, .. }, Dtype { canonical: y, .. }) => x == y,
        (Module { name: x, .. }, Module { name: y, .. }) => x == y,
        (Builtin(x), Builtin(y)) => x == y,
        (TypeForm(x), TypeForm(y)) => return x.equals(y),
        (Slice(x), Slice(y)) => return py_eq(&tuple_of(x), &tuple_of(y)),
        (List(x), List(y)) | (Tuple(x), Tuple(y)) => {
            if x.len() != y.len() {
                return Some(false);
            }
            for (p, q) in x.iter().zip(y) {
                match py_eq(p, q) {
                    Some(true) => {}
                    other => return other,
                }
            }
            true
        }
        (Dict(_), Dict(_)) => return Option::None,
        (Set(x), Set(y)) => {
            if x.len() != y.len() {
                return Some(false);
            }
            // Equal where every element of one is in the other.
            let mut all = true;
            for p in x {
                match y.iter().map(|q| py_eq(p, q)).try_fold(false, |found, e| e.map(|e| found || e)) {
                    Some(true) => {}
                    Some(false) => all = false,
                    Option::None => return Option::None,
                }
            }
            all
        }
        _ => match (a.as_number(), b.as_number()) {
            (Some(x), Some(y)) => x == y,
            _ => false,
        },
    })
}

impl Value {
    /// The value as a number if it is a bool, int or float (Python's numeric tower).
    pub fn as_number(&self) -> Option<f64> {
        match self.kind {
            ValueKind::Bool(b) => Some(if b { 1.0 } else { 0.0 }),
            ValueKind::Int(i) => Some(i as f64),
            ValueKind::Float(f) => Some(f),
            _ => Option::None,
        }
    }

    /// Whether Python could use this value as a dict key; `None` when unknown.
    pub fn hashable(&self) -> Result<(), &'static str> {
        match &self.kind {
            ValueKind::List(_) => Err("list"),
            ValueKind::Dict(_) => Err("dict"),
            ValueKind::Slice(_) => Err("slice"),
            ValueKind::Set(_) => Err("set"),
            ValueKind::Tuple(items) => items.iter().try_for_each(Value::hashable),
            ValueKind::TypeForm(form) => form.hashable(),
            // A value known by its type: that type's (a dict's keys and items views are sets).
            ValueKind::Unknown(_) => match self.known_type() {
                Some(t @ ("list" | "set" | "dict" | "dict_keys" | "dict_items")) => Err(t),
                _ => Ok(()),
            },
            _ => Ok(()),
        }
    }

    /// Whether hashing this value certainly succeeds: a value known whole that
    /// [`Value::hashable`] takes, or one known by a type whose objects all hash (CPython
    /// 3.10-3.13: `...`, a range, an iterator, a function, a dict's values view, a str).
    pub fn certainly_hashable(&self) -> bool {
        const HASHABLE: [&str; 11] = [
            "str",
            "ellipsis",
            "range",
            "zip",
            "enumerate",
            "map",
            "filter",
            "function",
            "builtin_function_or_method",
            "dict_values",
            "TorchVersion",
        ];
        match &self.kind {
            ValueKind::Unknown(_) => self.known_type().is_some_and(|t| HASHABLE.contains(&t)),
            ValueKind::Tuple(items) => items.iter().all(Value::certainly_hashable),
            _ => self.hashable().is_ok() && !self.contains_unknown(),
        }
    }
}
