//! Python's unbounded ints: operators on ints beyond `i128` (or whose result is), computed
//! with `num_bigint` where the result stays a size worth holding; what CPython raises for
//! them (`ZeroDivisionError`, `ValueError: negative shift count`).

use crate::value::{Span, Value, ValueKind};
use num_bigint::BigInt;
use num_traits::{Signed, ToPrimitive, Zero};

/// Results larger than this many bits are not computed (`2 ** 10 ** 9` would take minutes
/// and gigabytes); they stay unknown.
const MAX_BITS: u64 = 1 << 20;

/// Beyond this many bits CPython runs out of memory (or of the user's patience) before it
/// has the int: not even its size is claimed.
const MAX_HUGE_BITS: u64 = 1 << 36;

/// An int too large to compute, of at least `bits` bits (see [`Value::huge_int`]).
fn huge(bits: u64, s: Span) -> Option<Value> {
    (bits <= MAX_HUGE_BITS).then(|| Value::huge_int(bits, s))
}

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
        return Err(int_zero_division(op));
    }
    if op == "/" {
        return Ok(true_divide(a, b)?.map(|f| Value::new(ValueKind::Float(f), s)));
    }
    let r = match op {
        "+" => a + b,
        "-" => a - b,
        "*" if too_large(a.bits() + b.bits()) => return Ok(huge(a.bits() + b.bits() - 1, s)),
        "*" => a * b,
        "//" => floor_div(a, b),
        "%" => a - floor_div(a, b) * b,
        "**" if b.is_negative() => return Ok(None),
        "**" => {
            let Some(e) = b.to_u32().filter(|e| !too_large(a.bits().saturating_mul(u64::from(*e)))) else {
                // 0, 1 and -1 to any power are small; |a| >= 2 makes at least
                // 2 ** ((bits - 1) * b).
                return Ok(match a.to_i8() {
                    Some(0 | 1) => Some(Value::int(a.clone(), s)),
                    Some(-1) => Some(Value::int(if b.bit(0) { a.clone() } else { BigInt::from(1) }, s)),
                    _ => huge((a.bits() - 1).saturating_mul(b.to_u64().unwrap_or(u64::MAX)).saturating_add(1), s),
                });
            };
            a.pow(e)
        }
        "<<" | ">>" if b.is_negative() => return Err(("ValueError", "negative shift count".into())),
        "<<" if a.is_zero() => BigInt::zero(),
        "<<" => match b.to_u64() {
            Some(n) if too_large(a.bits() + n) => return Ok(huge(a.bits() + n, s)),
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

/// What `x / 0`, `x // 0` or `x % 0` raises with `x` an int.
pub(super) fn int_zero_division(op: &str) -> Raise {
    let message = match op {
        "/" => "division by zero",
        "%" => "integer modulo by zero",
        _ => "integer division or modulo by zero",
    };
    ("ZeroDivisionError", message.into())
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

/// Python's `a / b` on ints: the quotient correctly rounded to a float (round half to
/// even), as CPython's `long_true_divide` gives it; `None` for a subnormal result (not
/// modelled).
pub(super) fn true_divide(a: &BigInt, b: &BigInt) -> Result<Option<f64>, Raise> {
    if b.is_zero() {
        return Err(("ZeroDivisionError", "division by zero".into()));
    }
    let negative = a.is_negative() != b.is_negative();
    let (a, b) = (a.abs(), b.abs());
    if a.is_zero() {
        return Ok(Some(if negative { -0.0 } else { 0.0 }));
    }
    // Scaled so that the quotient has 55 or 56 bits: 53 kept, the rest and the remainder
    // decide the rounding.
    let shift = 55 + b.bits() as i64 - a.bits() as i64;
    let (n, d) = if shift >= 0 { (a << shift as u64, b) } else { (a, b << (-shift) as u64) };
    let (q, r) = (&n / &d, &n % &d);
    let extra = q.bits() - 53;
    let mut mantissa = (&q >> extra).to_u64().unwrap_or(0);
    let low_bits: BigInt = (BigInt::from(1) << extra) - 1;
    let dropped = (&q & low_bits).to_u64().unwrap_or(0);
    let half = 1u64 << (extra - 1);
    if dropped > half || (dropped == half && (!r.is_zero() || mantissa & 1 == 1)) {
        mantissa += 1;
    }
    // The value is mantissa * 2^exponent, the mantissa at most 2^53 (exact as a float).
    let exponent = extra as i64 - shift;
    if exponent + 53 > 1024 {
        return Err(("OverflowError", "integer division result too large for a float".into()));
    }
    // Below half the least float it rounds to zero; a subnormal result is not modelled.
    if exponent + 53 <= -1075 {
        return Ok(Some(if negative { -0.0 } else { 0.0 }));
    }
    if exponent < -1022 {
        return Ok(None);
    }
    let value = mantissa as f64 * 2f64.powi(exponent as i32);
    if value.is_infinite() {
        return Err(("OverflowError", "integer division result too large for a float".into()));
    }
    Ok(Some(if negative { -value } else { value }))
}

/// `float(n)` of an int, correctly rounded; CPython's `OverflowError` beyond the floats.
pub(super) fn int_to_float(n: &BigInt) -> Result<f64, Raise> {
    match true_divide(n, &BigInt::from(1)) {
        Ok(Some(f)) => Ok(f),
        // Only a quotient below the normal floats is not modelled; an int never is.
        Ok(None) => Ok(0.0),
        Err(_) => Err(("OverflowError", "int too large to convert to float".into())),
    }
}

/// Python's `x % y` and `x // y` on floats (CPython's `float_divmod`); `y` is not zero.
pub(super) fn float_divmod(x: f64, y: f64) -> (f64, f64) {
    let mut modulo = x % y;
    let mut div = (x - modulo) / y;
    if modulo != 0.0 {
        if (y < 0.0) != (modulo < 0.0) {
            modulo += y;
            div -= 1.0;
        }
    } else {
        modulo = 0f64.copysign(y);
    }
    let floor_div = if div != 0.0 {
        let floor = div.floor();
        if div - floor > 0.5 {
            floor + 1.0
        } else {
            floor
        }
    } else {
        0f64.copysign(x / y)
    };
    (floor_div, modulo)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Answers of CPython 3.11 (`repr(a / b)`).
    #[test]
    fn true_division_is_correctly_rounded() {
        let big = |s: &str| s.parse::<BigInt>().unwrap();
        let cases = [
            ("1152921504606846977", "3", "3.843071682022823e+17"),
            (
                "-1234567890123456789012345678901234567890123450000000000000000000000000000000000000000",
                "7",
                "-1.7636684144620812e+83",
            ),
            ("10000000000000000000000000000000000000000", "1000000000000000000000000000000000000000", "10.0"),
            ("0", "-5", "-0.0"),
            ("1", "3", "0.3333333333333333"),
            ("9007199254740993", "1", "9007199254740992.0"),
            ("9007199254740995", "1", "9007199254740996.0"),
        ];
        for (a, b, want) in cases {
            let got = true_divide(&big(a), &big(b)).unwrap().unwrap();
            assert_eq!(crate::value::float_repr(got), want, "{a} / {b}");
        }
        let huge = BigInt::from(10).pow(400);
        assert_eq!(
            true_divide(&huge, &BigInt::from(3)).unwrap_err().1,
            "integer division result too large for a float"
        );
        assert_eq!(int_to_float(&huge).unwrap_err().1, "int too large to convert to float");
        assert_eq!(float_divmod(-7.5, 2.0), (-4.0, 0.5));
        assert_eq!(float_divmod(7.5, -2.0), (-4.0, -0.5));
        assert!(float_divmod(5.0, -0.5).1.is_sign_negative());
    }
}
