//! Python's unbounded ints: operators on ints beyond `i128` (or whose result is), computed
//! with `num_bigint` where the result stays a size worth holding; what CPython raises for
//! them (`ZeroDivisionError`, `ValueError: negative shift count`).

use crate::value::{Span, Value, ValueKind};
use num_bigint::BigInt;
use num_traits::{Signed, ToPrimitive, Zero};

/// Results larger than this many bits are not computed (`2 ** 10 ** 9` would take minutes
/// and gigabytes); they stay unknown.
const MAX_BITS: u64 = 1 << 20;

/// An exception: its type and `str()` of it.
type Raise = (&'static str, String);

/// The value as an unbounded int, for `bool`, `int` and big ints.
pub(super) fn big_of(v: &Value) -> Option<BigInt> {
    match &v.kind {
        ValueKind::Int(i) => Some(BigInt::from(*i)),
        ValueKind::Bool(b) => Some(BigInt::from(u8::from(*b))),
        ValueKind::BigInt(b) => Some((**b).clone()),
        _ => None,
    }
}

/// `a op b` on two ints, where `i128` does not hold an operand or the result: `Ok(None)`
/// where the result is not computed (too large, or a float result).
pub(super) fn big_binary(op: &str, a: &BigInt, b: &BigInt, s: Span) -> Result<Option<Value>, Raise> {
    let too_large = |bits: u64| bits > MAX_BITS;
    if b.is_zero() && matches!(op, "/" | "//" | "%") {
        let message = match op {
            "/" => "division by zero",
            "%" => "integer modulo by zero",
            _ => "integer division or modulo by zero",
        };
        return Err(("ZeroDivisionError", message.into()));
    }
    let r = match op {
        "+" => a + b,
        "-" => a - b,
        "*" if too_large(a.bits() + b.bits()) => return Ok(None),
        "*" => a * b,
        "//" => floor_div(a, b),
        "%" => a - floor_div(a, b) * b,
        "**" if b.is_negative() => return Ok(None),
        "**" => {
            let Some(e) = b.to_u32().filter(|e| !too_large(a.bits().saturating_mul(u64::from(*e)))) else {
                // 0, 1 and -1 to any power are small.
                return Ok(match a.to_i8() {
                    Some(0 | 1) => Some(Value::int(a.clone(), s)),
                    Some(-1) => Some(Value::int(if b.bit(0) { a.clone() } else { BigInt::from(1) }, s)),
                    _ => None,
                });
            };
            a.pow(e)
        }
        "<<" | ">>" if b.is_negative() => return Err(("ValueError", "negative shift count".into())),
        "<<" if a.is_zero() => BigInt::zero(),
        "<<" => match b.to_u64().filter(|n| !too_large(a.bits() + n)) {
            Some(n) => a << n,
            None => return Ok(None),
        },
        ">>" => match b.to_u64() {
            Some(n) => a >> n,
            None => BigInt::from(if a.is_negative() { -1 } else { 0 }),
        },
        "&" => a & b,
        "|" => a | b,
        "^" => a ^ b,
        _ => return Ok(None),
    };
    Ok(Some(Value::int(r, s)))
}

/// Python's `//`: the quotient rounded towards negative infinity.
fn floor_div(a: &BigInt, b: &BigInt) -> BigInt {
    let (q, r) = (a / b, a % b);
    if !r.is_zero() && (r.is_negative() != b.is_negative()) {
        q - 1
    } else {
        q
    }
}
