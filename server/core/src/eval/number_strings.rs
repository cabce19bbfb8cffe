//! `int(x)` and `float(x)` of a str or bytes (and of other known values) as CPython 3.11
//! reads them: underscores, signs, whitespace, `inf`/`nan`, and the `ValueError` texts.

use crate::schema::python_strip;
use crate::value::{Value, ValueKind};

/// `float(arg)` or `int(arg)` as CPython 3.11 answers it: the value, the exception it raises,
/// or `None` where not known here.
pub(super) fn number_of(fname: &str, arg: &Value) -> Option<Result<ValueKind, (&'static str, String)>> {
    let not_a_number =
        matches!(arg.kind, ValueKind::None | ValueKind::List(_) | ValueKind::Tuple(_) | ValueKind::Dict(_));
    let type_name = arg.type_name();
    Some(match (fname, &arg.kind) {
        ("float", ValueKind::Str(t)) => match float_from_str(t)? {
            Some(f) => Ok(ValueKind::Float(f)),
            None => Err(("ValueError", format!("could not convert string to float: {}", arg.repr()))),
        },
        ("float", _) if not_a_number => {
            Err(("TypeError", format!("float() argument must be a string or a real number, not '{type_name}'")))
        }
        ("float", _) => Ok(ValueKind::Float(arg.as_number()?)),
        ("int", ValueKind::Float(f)) if f.is_nan() => Err(("ValueError", "cannot convert float NaN to integer".into())),
        ("int", ValueKind::Float(f)) if f.is_infinite() => {
            Err(("OverflowError", "cannot convert float infinity to integer".into()))
        }
        // Beyond i128 the value is Python's exact big int: not evaluated.
        ("int", ValueKind::Float(f)) if f.abs() < 1.7e38 => Ok(ValueKind::Int(f.trunc() as i128)),
        ("int", ValueKind::Int(i)) => Ok(ValueKind::Int(*i)),
        ("int", ValueKind::Bool(b)) => Ok(ValueKind::Int(*b as i128)),
        ("int", ValueKind::Str(t)) => match int_from_str(t)? {
            Some(i) => Ok(ValueKind::Int(i)),
            // CPython's `%.200R`: the repr cut to 200 characters.
            None => Err((
                "ValueError",
                format!("invalid literal for int() with base 10: {}", arg.repr().chars().take(200).collect::<String>()),
            )),
        },
        // Bytes are read as ASCII text (`_PyLong_FromBytes`); \x1c-\x1f are whitespace to a
        // str only, so those are not evaluated.
        ("int", ValueKind::Bytes(b)) if b.iter().all(|c| c.is_ascii() && !(0x1c..=0x1f).contains(c)) => {
            match int_from_str(&String::from_utf8_lossy(b))? {
                Some(i) => Ok(ValueKind::Int(i)),
                None => Err((
                    "ValueError",
                    format!(
                        "invalid literal for int() with base 10: {}",
                        arg.repr().chars().take(200).collect::<String>()
                    ),
                )),
            }
        }
        ("int", _) if not_a_number => Err((
            "TypeError",
            format!("int() argument must be a string, a bytes-like object or a real number, not '{type_name}'"),
        )),
        _ => return None,
    })
}

/// `int(text)` (base 10) as CPython reads it: `Some(Some(n))`, `Some(None)` where it raises
/// `ValueError`, `None` where not known here (beyond i128, or non-ASCII digits, which Python
/// accepts).
fn int_from_str(text: &str) -> Option<Option<i128>> {
    let t = python_strip(text);
    if t.chars().any(|c| !c.is_ascii() && c.is_numeric()) {
        return None;
    }
    let (negative, digits) = split_sign(t);
    if !is_digit_part(digits) {
        return Some(None);
    }
    let n: i128 = digits.replace('_', "").parse().ok()?;
    Some(Some(if negative { -n } else { n }))
}

/// `float(text)` as CPython reads it (`_Py_string_to_number_with_underscores`): the same
/// three answers as [`int_from_str`].
fn float_from_str(text: &str) -> Option<Option<f64>> {
    let t = python_strip(text);
    if t.chars().any(|c| !c.is_ascii() && c.is_numeric()) {
        return None;
    }
    let (negative, body) = split_sign(t);
    let magnitude = match body.to_ascii_lowercase().as_str() {
        "inf" | "infinity" => f64::INFINITY,
        "nan" => f64::NAN,
        lower => {
            let (mantissa, exponent) = match lower.split_once('e') {
                Some((m, e)) => (m, Some(e)),
                None => (lower, None),
            };
            let mantissa_ok = match mantissa.split_once('.') {
                Some(("", "")) => false,
                Some((whole, fraction)) => {
                    (whole.is_empty() || is_digit_part(whole)) && (fraction.is_empty() || is_digit_part(fraction))
                }
                None => is_digit_part(mantissa),
            };
            let exponent_ok = exponent.is_none_or(|e| is_digit_part(split_sign(e).1));
            if !(mantissa_ok && exponent_ok) {
                return Some(None);
            }
            lower.replace('_', "").parse::<f64>().ok()?
        }
    };
    Some(Some(if negative { -magnitude } else { magnitude }))
}

fn split_sign(t: &str) -> (bool, &str) {
    match t.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, t.strip_prefix('+').unwrap_or(t)),
    }
}

/// ASCII digits, a single `_` allowed between two of them (Python's `digitpart`).
fn is_digit_part(text: &str) -> bool {
    !text.is_empty() && text.split('_').all(|group| !group.is_empty() && group.bytes().all(|b| b.is_ascii_digit()))
}
