//! Ints too large to compute (`10 ** 10 ** 7`), known by a lower bound on their size:
//! enough to tell what CPython raises for `x / 7`, `x * 1.5` or `f"{x}"`.

use super::integers::{big_of, int_zero_division};
use crate::value::{Span, Value, ValueKind};
use num_bigint::BigInt;
use num_traits::{Signed, ToPrimitive, Zero};

/// An exception: its type and `str()` of it.
type Raise = (&'static str, String);

/// `left op right` where an operand is an int too large to compute ([`Value::huge_int`]);
/// `None` where neither is, or where the other operand is no number (its type errors are
/// the typed path's).
pub(super) fn binary(op: &str, left: &Value, right: &Value, s: Span) -> Option<Result<Value, Raise>> {
    let (bits, other, huge_left) = match (left.huge_int_bits(), right.huge_int_bits()) {
        (Some(n), _) => (n, right, true),
        (None, Some(n)) => (n, left, false),
        _ => return None,
    };
    let unknown_int = || Value::number_not_known("int", s.clone());
    let unknown_float = || Value::number_not_known("float", s.clone());
    let arithmetic = matches!(op, "+" | "-" | "*" | "/" | "//" | "%" | "**");
    if !arithmetic && !matches!(op, "<<" | ">>" | "&" | "|" | "^") {
        return None;
    }
    if let Some(other_bits) = other.huge_int_bits() {
        return match op {
            "*" => Some(Ok(Value::huge_int(bits + other_bits - 1, s))),
            "/" => Some(Ok(unknown_float())),
            "**" | "<<" | ">>" => Some(Ok(Value::unknown(format!("`{op}` of ints too large to compute"), s))),
            _ => Some(Ok(unknown_int())),
        };
    }
    if matches!(other.kind, ValueKind::Float(_)) && arithmetic {
        // Python converts the int to a float first.
        return Some(if bits > 1025 {
            Err(("OverflowError", "int too large to convert to float".into()))
        } else {
            Ok(unknown_float())
        });
    }
    let k = big_of(other)?;
    Some(if huge_left { huge_op_int(op, bits, &k, s) } else { int_op_huge(op, s) })
}

/// `x op k`, `x` an int of at least `bits` bits (`|x| >= 2 ** (bits - 1)`).
fn huge_op_int(op: &str, bits: u64, k: &BigInt, s: Span) -> Result<Value, Raise> {
    let unknown = |type_name| Value::number_not_known(type_name, s.clone());
    let at_least = |n: u64| if n > 1 { Value::huge_int(n, s.clone()) } else { unknown("int") };
    let k_bits = k.bits();
    if k.is_zero() && matches!(op, "/" | "//" | "%") {
        return Err(int_zero_division(op));
    }
    if k.is_negative() && matches!(op, "<<" | ">>") {
        return Err(("ValueError", "negative shift count".into()));
    }
    Ok(match op {
        // |x / k| > 2 ** (bits - 1 - k_bits): beyond the floats from 2 ** 1024.
        "/" if bits.saturating_sub(1 + k_bits) >= 1024 => {
            return Err(("OverflowError", "integer division result too large for a float".into()))
        }
        "/" => unknown("float"),
        "*" if k.is_zero() => Value::new(ValueKind::Int(0), s),
        "*" => at_least(bits + k_bits - 1),
        // |k| < 2 ** (bits - 2) leaves at least 2 ** (bits - 2).
        "+" | "-" if k_bits + 2 <= bits => at_least(bits - 1),
        "//" => at_least(bits.saturating_sub(k_bits)),
        "**" if k.is_negative() && bits > 1025 => {
            return Err(("OverflowError", "int too large to convert to float".into()))
        }
        "**" if k.is_negative() => unknown("float"),
        "**" if k.is_zero() => Value::new(ValueKind::Int(1), s),
        "**" => at_least((bits - 1).saturating_mul(k.to_u64().unwrap_or(u64::MAX)).saturating_add(1)),
        "<<" => at_least(bits.saturating_add(k.to_u64().unwrap_or(u64::MAX))),
        ">>" => at_least(bits.saturating_sub(k.to_u64().unwrap_or(u64::MAX))),
        _ => unknown("int"),
    })
}

/// `k op x`, `x` an int too large to compute: what it gives is not known, but its type is
/// (but for `**`, `<<` and `>>`, which may raise or make a float where `x` is negative).
fn int_op_huge(op: &str, s: Span) -> Result<Value, Raise> {
    let type_name = match op {
        "/" => "float",
        "**" | "<<" | ">>" => return Ok(Value::unknown(format!("`{op}` by an int too large to compute"), s)),
        _ => "int",
    };
    Ok(Value::number_not_known(type_name, s))
}

/// What `str(arg)`, `repr(arg)` or `float(arg)` raises for an int too long to convert: one
/// over 4,300 digits has no str, one too large to compute no float either.
pub(super) fn conversion_raises(fname: &str, arg: &Value) -> Option<(&'static str, &'static str)> {
    match fname {
        "str" | "repr" if arg.exceeds_str_digits() => Some(("ValueError", crate::value::STR_DIGITS_EXCEEDED)),
        "float" if arg.huge_int_bits().is_some_and(|bits| bits > 1025) => {
            Some(("OverflowError", "int too large to convert to float"))
        }
        _ => None,
    }
}
