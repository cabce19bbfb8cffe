//! Python's binary operators on known operands, with the exceptions they raise.

use super::integers::{big_binary, big_of, float_divmod, int_to_float, true_divide};
use crate::value::{type_form, Span, Value, ValueKind};

/// Python binary operators on known operands; unknown otherwise.
pub(super) fn binary(op: &str, left: &Value, right: &Value, s: Span) -> Result<Value, (&'static str, String)> {
    use ValueKind::*;
    let zero_division = |float: bool| -> Result<Value, (&'static str, String)> {
        let message = match (op, float) {
            ("/", false) => "division by zero",
            ("/", true) => "float division by zero",
            ("%", true) => "float modulo",
            ("//", true) => "float floor division by zero",
            ("%", false) => "integer modulo by zero",
            _ => "integer division or modulo by zero",
        };
        Err(("ZeroDivisionError", message.to_string()))
    };
    if matches!(op, "/" | "//" | "%") && right.as_number() == Some(0.0) && left.as_number().is_some() {
        let float = matches!(left.kind, Float(_)) || matches!(right.kind, Float(_));
        return zero_division(float);
    }
    if let Some(result) = super::huge_ints::binary(op, left, right, s.clone()) {
        return result;
    }
    if let Some(result) = view_set_operation(op, left, right, s.clone()) {
        return result;
    }
    // `sys.argv + 1`: a list whose items are not known still has a list's type errors;
    // `range(3) + 1` raises as no operand is a number.
    let typed_only = |v: &Value| v.type_known().is_some() || v.lacks_operator(op);
    if left.formats_unknown_text(op) {
        return Ok(Value::unknown(format!("`{op}` on a value not known statically"), s));
    }
    if typed_only(left) || typed_only(right) {
        let typed = |v: &Value| v.type_known().unwrap_or_else(|| v.clone());
        return match type_error(op, &typed(left), &typed(right)) {
            Some(message) => Err(("TypeError", message)),
            Option::None => Ok(Value::unknown(format!("`{op}` on a value not known statically"), s)),
        };
    }
    if op == "|" && type_form::makes_union(left, right) {
        return Ok(type_form::union(left, right, s));
    }
    if let Some(message) = type_error(op, left, right) {
        return Err(("TypeError", message));
    }
    if op == "**" {
        if let Some(power) = negative_power(left, right, s.clone()) {
            return power;
        }
    }
    // An int beyond `i128` meets a float: Python converts the int first (an OverflowError
    // beyond the floats).
    let big_and_float = matches!((&left.kind, &right.kind), (BigInt(_), Float(_)) | (Float(_), BigInt(_)));
    if big_and_float && matches!(op, "+" | "-" | "*" | "/" | "//" | "%" | "**") {
        let as_float = |v: &Value| match &v.kind {
            BigInt(b) => int_to_float(b).map(|f| Value::new(Float(f), v.span.clone())),
            _ => Ok(v.clone()),
        };
        return binary(op, &as_float(left)?, &as_float(right)?, s);
    }
    let value = binary_value(op, left, right, s.clone());
    // CPython's float pow raises where the C library's result overflows (`errno` ERANGE).
    if let (Float(r), Some(a), Some(b)) = (&value.kind, left.as_number(), right.as_number()) {
        if op == "**" && r.is_infinite() && a.is_finite() && b.is_finite() {
            return Err(("OverflowError", "(34, 'Numerical result out of range')".into()));
        }
    }
    let bools = matches!((&left.kind, &right.kind), (Bool(_), Bool(_))) && matches!(op, "&" | "|" | "^");
    if let (Some(a), Some(b), true, false) = (big_of(left), big_of(right), value.is_unknown(), bools) {
        // Beyond `i128`: Python's ints do not overflow.
        return Ok(big_binary(op, &a, &b, s)?.unwrap_or(value));
    }
    Ok(value)
}

/// `d.keys() - {"a"}`, `{1} | d.items()`: a dict's keys or items view and a set operator
/// make a set of any iterable operand, and raise for another (`d.keys() | 1`: `'int' object
/// is not iterable`, in CPython 3.10-3.13). None where not such an operation, or where
/// whether the other operand iterates is not known.
pub(super) fn view_set_operation(
    op: &str,
    left: &Value,
    right: &Value,
    s: Span,
) -> Option<Result<Value, (&'static str, String)>> {
    let view = |v: &Value| matches!(v.known_type(), Some("dict_keys" | "dict_items"));
    if !matches!(op, "-" | "&" | "|" | "^") || !(view(left) || view(right)) {
        return Option::None;
    }
    let other = if view(left) { right } else { left };
    if other.not_iterable() {
        return Some(Err(("TypeError", format!("'{}' object is not iterable", other.exception_type_name()))));
    }
    let why = format!("`{op}` of a dict view: a set not evaluated statically");
    let set = Value::unknown_of_type("set", crate::value::Operators::NotModelled, crate::value::Callable::No, why, s);
    other.certainly_iterable().then_some(Ok(set))
}

/// `x ** y` with `y` negative: zero raises, and an int to a negative int is a float (CPython
/// converts both); None where `y` is not a negative number.
fn negative_power(left: &Value, right: &Value, s: Span) -> Option<Result<Value, (&'static str, String)>> {
    use ValueKind::*;
    let negative = match &right.kind {
        Int(i) => *i < 0,
        Float(f) => *f < 0.0,
        BigInt(b) => b.sign() == num_bigint::Sign::Minus,
        _ => false,
    };
    let number = matches!(left.kind, Bool(_) | Int(_) | BigInt(_) | Float(_));
    if !negative || !number || matches!(right.kind, Bool(_)) {
        return Option::None;
    }
    if left.as_number() == Some(0.0) {
        return Some(Err(("ZeroDivisionError", "0.0 cannot be raised to a negative power".into())));
    }
    let (Int(a), Int(b)) = (&left.kind, &right.kind) else { return Option::None };
    let (Ok(a), Ok(b)) = (i32::try_from(*a), i32::try_from(*b)) else { return Option::None };
    Some(Ok(Value::new(Float(f64::from(a).powf(f64::from(b))), s)))
}

/// The `TypeError` CPython 3.11 raises for `left op right` where the operands' types do not
/// support `op` (`tests/fixture/binary_operators.tsv` holds its answers); `None` where they
/// do, or where an operand is not known.
fn type_error(op: &str, left: &Value, right: &Value) -> Option<String> {
    use ValueKind::*;
    if [left, right].iter().any(|v| v.is_unknown() && !v.lacks_operator(op)) {
        return Option::None;
    }
    let type_name = |v: &Value| v.known_type().unwrap_or_else(|| v.exception_type_name());
    let (lt, rt) = (type_name(left), type_name(right));
    let numeric = |v: &Value| matches!(v.kind, Bool(_) | Int(_) | BigInt(_) | Float(_));
    let integral = |v: &Value| matches!(v.kind, Bool(_) | Int(_) | BigInt(_));
    let sequence = |v: &Value| matches!(v.kind, Str(_) | Bytes(_) | List(_) | Tuple(_));
    let shown = if op == "**" { "** or pow()" } else { op };
    let unsupported = Some(format!("unsupported operand type(s) for {shown}: '{lt}' and '{rt}'"));
    let same_type = std::mem::discriminant(&left.kind) == std::mem::discriminant(&right.kind);
    match op {
        _ if numeric(left) && numeric(right) && !matches!(op, "<<" | ">>" | "&" | "|" | "^" | "@") => Option::None,
        "+" => match &left.kind {
            _ if sequence(left) && same_type => Option::None,
            Str(_) => Some(format!("can only concatenate str (not \"{rt}\") to str")),
            List(_) => Some(format!("can only concatenate list (not \"{rt}\") to list")),
            Tuple(_) => Some(format!("can only concatenate tuple (not \"{rt}\") to tuple")),
            Bytes(_) => Some(format!("can't concat {rt} to bytes")),
            _ => unsupported,
        },
        "*" if sequence(left) => {
            (!integral(right)).then(|| format!("can't multiply sequence by non-int of type '{rt}'"))
        }
        "*" if sequence(right) => {
            (!integral(left)).then(|| format!("can't multiply sequence by non-int of type '{lt}'"))
        }
        // `str % x` and `bytes % x` format: only a format without `%` is modelled.
        "%" if matches!(left.kind, Str(_) | Bytes(_)) => format_without_specifiers(left, right).and_then(Result::err),
        "|" if matches!((&left.kind, &right.kind), (Dict(_), Dict(_))) => Option::None,
        "-" | "&" | "|" | "^" if matches!((&left.kind, &right.kind), (Set(_), Set(_))) => Option::None,
        "<<" | ">>" | "&" | "|" | "^" if integral(left) && integral(right) => Option::None,
        "-" | "*" | "/" | "//" | "%" | "**" | "<<" | ">>" | "&" | "|" | "^" | "@" => unsupported,
        _ => Option::None,
    }
}

/// `"ab" % x` where the format holds no `%`: it is itself, unless an argument is left over
/// (CPython 3.10-3.13 alike: a non-empty tuple, or one value that is no mapping; a str is
/// no mapping to a str format, nor a str or bytes to a bytes format). None where a `%` or
/// the argument's type is not modelled.
fn format_without_specifiers(format: &Value, argument: &Value) -> Option<Result<(), String>> {
    use ValueKind::*;
    let (text, kind): (&[u8], &str) = match &format.kind {
        Str(text) => (text.as_bytes(), "string"),
        Bytes(bytes) => (bytes, "bytes"),
        _ => return Option::None,
    };
    if text.contains(&b'%') {
        return Option::None;
    }
    let left_over = match &argument.kind {
        Tuple(items) => !items.is_empty(),
        Dict(_) | List(_) => false,
        Bytes(_) => kind == "bytes",
        Str(_) | None | Bool(_) | Int(_) | BigInt(_) | Float(_) | Set(_) | Dtype { .. } => true,
        _ => return Option::None,
    };
    Some(match left_over {
        true => Err(format!("not all arguments converted during {kind} formatting")),
        false => Ok(()),
    })
}

fn binary_value(op: &str, left: &Value, right: &Value, s: Span) -> Value {
    use ValueKind::*;
    let unknown = || Value::unknown(format!("`{op}` on these operands is not evaluated statically"), s.clone());
    let int_of = |v: &Value| match v.kind {
        Int(i) => Some(i),
        Bool(b) => Some(b as i128),
        _ => Option::None,
    };
    match (&left.kind, &right.kind) {
        // `bool`'s own `&`, `|` and `^` keep the type.
        (Bool(a), Bool(b)) if matches!(op, "&" | "|" | "^") => {
            let r = match op {
                "&" => a & b,
                "|" => a | b,
                _ => a ^ b,
            };
            Value::new(Bool(r), s)
        }
        (Str(_) | Bytes(_), _) if op == "%" && format_without_specifiers(left, right) == Some(Ok(())) => {
            Value::new(left.kind.clone(), s)
        }
        (Str(a), Str(b)) if op == "+" => Value::new(Str(format!("{a}{b}")), s),
        (Bytes(a), Bytes(b)) if op == "+" => Value::new(Bytes([a.clone(), b.clone()].concat()), s),
        (List(a), List(b)) if op == "+" => Value::new(List([a.clone(), b.clone()].concat()), s),
        (Tuple(a), Tuple(b)) if op == "+" => Value::new(Tuple([a.clone(), b.clone()].concat()), s),
        (Dict(a), Dict(b)) if op == "|" => {
            let mut d = a.clone();
            for e in b.entries.clone() {
                d.insert(e.key, e.value);
            }
            d.open |= b.open;
            Value::new(Dict(d), s)
        }
        (Set(a), Set(b)) if !left.contains_unknown() && !right.contains_unknown() => {
            match super::sets::algebra(op, a, b) {
                Some(items) => Value::new(Set(items), s),
                Option::None => unknown(),
            }
        }
        (Str(a), _) | (_, Str(a)) if op == "*" => {
            let n = int_of(right).or_else(|| int_of(left));
            match n {
                Some(n) if n <= 10_000 => Value::new(Str(a.repeat(n.max(0) as usize)), s),
                _ => unknown(),
            }
        }
        (List(_) | Tuple(_), _) | (_, List(_) | Tuple(_)) if op == "*" => repeated(left, right, s),
        _ => {
            if let (Some(a), Some(b)) = (int_of(left), int_of(right)) {
                let r = match op {
                    "+" => a.checked_add(b),
                    "-" => a.checked_sub(b),
                    "*" => a.checked_mul(b),
                    "//" if b != 0 => Some(a.div_euclid(b) - if (a.rem_euclid(b) != 0) && (b < 0) { 1 } else { 0 }),
                    "%" if b != 0 => Some(((a % b) + b) % b),
                    "**" if (0..=126).contains(&b) => a.checked_pow(b as u32),
                    "<<" if (0..=126).contains(&b) => a.checked_shl(b as u32),
                    ">>" if b >= 0 => Some(a >> b.min(127)),
                    "|" => Some(a | b),
                    "&" => Some(a & b),
                    "^" => Some(a ^ b),
                    // Exact below 2^53; beyond, the quotient is rounded once, as CPython does.
                    "/" if b != 0 => {
                        return match true_divide(&a.into(), &b.into()) {
                            Ok(Some(f)) => Value::new(Float(f), s),
                            _ => unknown(),
                        }
                    }
                    _ => Option::None,
                };
                return match r {
                    Some(r) => Value::new(Int(r), s),
                    Option::None => unknown(),
                };
            }
            if let (Some(a), Some(b)) = (left.as_number(), right.as_number()) {
                let r = match op {
                    "+" => a + b,
                    "-" => a - b,
                    "*" => a * b,
                    "/" if b != 0.0 => a / b,
                    "//" if b != 0.0 => float_divmod(a, b).0,
                    "%" if b != 0.0 => float_divmod(a, b).1,
                    // A negative base to a fractional power is a complex number.
                    "**" if a < 0.0 && b.fract() != 0.0 => return unknown(),
                    "**" => a.powf(b),
                    _ => return unknown(),
                };
                return Value::new(Float(r), s);
            }
            unknown()
        }
    }
}

/// `[1] * 2`, `2 * [1]`, `(1,) * 2`: the items repeated (the same objects), where the count is
/// an int and the result not too long to hold.
fn repeated(left: &Value, right: &Value, s: Span) -> Value {
    use ValueKind::*;
    let (items, count, tuple) = match (&left.kind, &right.kind) {
        (List(a), _) => (a, right, false),
        (Tuple(a), _) => (a, right, true),
        (_, List(a)) => (a, left, false),
        (_, Tuple(a)) => (a, left, true),
        _ => return Value::unknown("`*` on these operands is not evaluated statically", s),
    };
    let n = match count.kind {
        Int(i) => i,
        Bool(b) => b as i128,
        _ => return Value::unknown("`*` on these operands is not evaluated statically", s),
    };
    if n > 10_000 || items.len() * (n.max(0) as usize) > 100_000 {
        return Value::unknown("`*` on these operands is not evaluated statically", s);
    }
    let repeated = items.iter().cloned().cycle().take(items.len() * n.max(0) as usize).collect();
    Value::new(if tuple { Tuple(repeated) } else { List(repeated) }, s)
}
