//! `format(value, spec)`, as an f-string field `{value:spec}` calls it: the specification
//! read as CPython 3.11's `parse_internal_render_format_spec` reads it, its errors, and the
//! text for a str, an int or a bool (a float's digits are left not known). CPython 3.10's
//! messages and zero-padding differ: there only an empty specification is answered.

use super::{Value, ValueKind};
use crate::regex_check::PythonVersion;

/// What formatting gives.
#[derive(Debug, PartialEq)]
pub enum Formatted {
    Text(String),
    /// The exception and its message.
    Raises(&'static str, String),
    NotKnown,
}

/// A specification, read.
struct Spec {
    fill: char,
    align: Option<char>,
    sign: Option<char>,
    no_neg_0: bool,
    alternate: bool,
    zero: bool,
    width: usize,
    grouping: Option<char>,
    precision: Option<usize>,
    kind: Option<char>,
}

/// Whether `format(value, spec)` raises for any `spec` but `""`: `object.__format__`
/// answers it (None, containers, bytes, a dtype, a module, a function, a class, a typing
/// form: `unsupported format string passed to list.__format__`).
pub fn refuses_any_spec(value: &Value) -> bool {
    use ValueKind::*;
    matches!(
        value.kind,
        None | List(_)
            | Tuple(_)
            | Dict(_)
            | Set(_)
            | Bytes(_)
            | Dtype { .. }
            | Module { .. }
            | Builtin(_)
            | Method { .. }
            | Slice(_)
            | TypeForm(_)
            | Function { .. }
    )
}

pub fn format_value(value: &Value, spec: &str, python: PythonVersion) -> Formatted {
    use ValueKind::*;
    if spec.is_empty() {
        return match value.repr_is_exact() {
            true => Formatted::Text(value.py_str()),
            false => Formatted::NotKnown,
        };
    }
    if python < PythonVersion::V3_11 || spec.contains('{') {
        return Formatted::NotKnown;
    }
    let type_name = value.exception_type_name();
    match &value.kind {
        _ if refuses_any_spec(value) => {
            return Formatted::Raises(
                "TypeError",
                format!("unsupported format string passed to {type_name}.__format__"),
            )
        }
        Str(_) | Int(_) | Bool(_) | Float(_) => {}
        // An int over 4,300 digits, whose decimal digits are never made (see below).
        _ if value.exceeds_str_digits() => {}
        _ => return Formatted::NotKnown,
    }
    let spec = match parse(spec, type_name, matches!(value.kind, Str(_))) {
        Ok(spec) => spec,
        Err(message) => return Formatted::Raises("ValueError", message),
    };
    // CPython names a code outside printable ASCII by its hex value (`'\x20'` for a space).
    let code = |c: char| match (c as u32) > 32 && (c as u32) < 128 {
        true => c.to_string(),
        false => format!("\\x{:x}", c as u32),
    };
    let unknown_code = |c: char| {
        Formatted::Raises("ValueError", format!("Unknown format code '{}' for object of type '{type_name}'", code(c)))
    };
    match &value.kind {
        Str(text) => match spec.kind {
            Some('s') | Option::None => string(text, &spec),
            Some(c) => unknown_code(c),
        },
        // In decimal it raises once the specification is read (not in binary, octal or hex;
        // a float's codes are not modelled for it).
        _ if value.exceeds_str_digits() => match spec.kind {
            Some('d' | 'n') | Option::None => {
                Formatted::Raises("ValueError", crate::value::STR_DIGITS_EXCEEDED.to_string())
            }
            Some('b' | 'c' | 'o' | 'x' | 'X' | 'e' | 'E' | 'f' | 'F' | 'g' | 'G' | '%') => Formatted::NotKnown,
            Some(c) => unknown_code(c),
        },
        Int(_) | Bool(_) => match spec.kind {
            Some('b' | 'c' | 'd' | 'o' | 'x' | 'X') | Option::None => {
                integer(value.as_number().unwrap_or(0.0) as i128, &spec, value)
            }
            Some('n' | 'e' | 'E' | 'f' | 'F' | 'g' | 'G' | '%') => Formatted::NotKnown,
            Some(c) => unknown_code(c),
        },
        _ => match spec.kind {
            Some('e' | 'E' | 'f' | 'F' | 'g' | 'G' | 'n' | '%') | Option::None => Formatted::NotKnown,
            Some(c) => unknown_code(c),
        },
    }
}

/// The specification's fields, or the ValueError reading it raises.
fn parse(spec: &str, type_name: &str, string: bool) -> Result<Spec, String> {
    let chars: Vec<char> = spec.chars().collect();
    let mut at = 0;
    let mut out = Spec {
        fill: ' ',
        align: None,
        sign: None,
        no_neg_0: false,
        alternate: false,
        zero: false,
        width: 0,
        grouping: None,
        precision: None,
        kind: None,
    };
    let is_align = |c: char| matches!(c, '<' | '>' | '=' | '^');
    let mut fill_given = false;
    if chars.len() >= 2 && is_align(chars[1]) {
        (out.fill, out.align, fill_given, at) = (chars[0], Some(chars[1]), true, 2);
    } else if chars.first().is_some_and(|c| is_align(*c)) {
        (out.align, at) = (Some(chars[0]), 1);
    }
    let next_is = |at: &mut usize, c: char| {
        let found = chars.get(*at) == Some(&c);
        if found {
            *at += 1;
        }
        found
    };
    if let Some(&c) = chars.get(at).filter(|c| matches!(c, '+' | '-' | ' ')) {
        out.sign = Some(c);
        at += 1;
    }
    out.no_neg_0 = next_is(&mut at, 'z');
    out.alternate = next_is(&mut at, '#');
    if !fill_given && next_is(&mut at, '0') {
        out.fill = '0';
        out.zero = true;
        // 3.11: a number's default alignment puts the zeros after the sign.
        if out.align.is_none() && !string {
            out.align = Some('=');
        }
    }
    let digits = |at: &mut usize| -> Result<Option<usize>, String> {
        let start = *at;
        while chars.get(*at).is_some_and(char::is_ascii_digit) {
            *at += 1;
        }
        let text: String = chars[start..*at].iter().collect();
        match text.is_empty() {
            true => Ok(None),
            false => text.parse().map(Some).map_err(|_| "Too many decimal digits in format string".to_string()),
        }
    };
    out.width = digits(&mut at)?.unwrap_or(0);
    let both = || "Cannot specify both ',' and '_'.".to_string();
    if next_is(&mut at, ',') {
        out.grouping = Some(',');
    }
    if next_is(&mut at, '_') {
        if out.grouping.is_some() {
            return Err(both());
        }
        out.grouping = Some('_');
    }
    if chars.get(at) == Some(&',') && out.grouping == Some('_') {
        return Err(both());
    }
    if next_is(&mut at, '.') {
        out.precision = Some(digits(&mut at)?.ok_or("Format specifier missing precision")?);
    }
    if chars.len() - at > 1 {
        return Err(format!("Invalid format specifier '{spec}' for object of type '{type_name}'"));
    }
    out.kind = chars.get(at).copied();
    if let Some(separator) = out.grouping {
        // The type a str takes without one is 's'; a number's allows separators.
        let kind = out.kind.unwrap_or(if string { 's' } else { '\0' });
        let allowed = matches!(kind, 'd' | 'e' | 'f' | 'g' | 'E' | 'G' | '%' | 'F' | '\0')
            || (separator == '_' && matches!(kind, 'b' | 'o' | 'x' | 'X'));
        if !allowed {
            return Err(match (kind as u32) > 32 && (kind as u32) < 128 {
                true => format!("Cannot specify '{separator}' with '{kind}'."),
                false => format!("Cannot specify '{separator}' with '\\x{:x}'.", kind as u32),
            });
        }
    }
    Ok(out)
}

/// A str, cut to the precision and padded to the width.
fn string(text: &str, spec: &Spec) -> Formatted {
    let refuse = |m: &str| Formatted::Raises("ValueError", m.to_string());
    match spec.sign {
        Some(' ') => return refuse("Space not allowed in string format specifier"),
        Some(_) => return refuse("Sign not allowed in string format specifier"),
        None => {}
    }
    if spec.no_neg_0 {
        return refuse("Negative zero coercion (z) not allowed in string format specifier");
    }
    if spec.alternate {
        return refuse("Alternate form (#) not allowed in string format specifier");
    }
    if spec.align == Some('=') {
        return refuse("'=' alignment not allowed in string format specifier");
    }
    let body: String = match spec.precision {
        Some(p) => text.chars().take(p).collect(),
        None => text.to_string(),
    };
    Formatted::Text(pad("", &body, spec, '<'))
}

/// An int (a bool as its int) in base 2, 8, 10 or 16, or as a character.
fn integer(n: i128, spec: &Spec, value: &Value) -> Formatted {
    let refuse = |m: &str| Formatted::Raises("ValueError", m.to_string());
    if spec.precision.is_some() {
        return refuse("Precision not allowed in integer format specifier");
    }
    if spec.no_neg_0 {
        return refuse("Negative zero coercion (z) not allowed in integer format specifier");
    }
    let kind = spec.kind.unwrap_or('d');
    if kind == 'c' {
        if spec.sign.is_some() {
            return refuse("Sign not allowed with integer format specifier 'c'");
        }
        if spec.alternate {
            return refuse("Alternate form (#) not allowed with integer format specifier 'c'");
        }
        // CPython 3.10-3.13 alike: a C long first, then a code point (a surrogate is one,
        // which a Rust `char` cannot hold: not known).
        if i64::try_from(n).is_err() {
            return Formatted::Raises("OverflowError", "Python int too large to convert to C long".into());
        }
        if !(0..0x110000).contains(&n) {
            return Formatted::Raises("OverflowError", "%c arg not in range(0x110000)".into());
        }
        return match u32::try_from(n).ok().and_then(char::from_u32) {
            Some(c) => Formatted::Text(pad("", &c.to_string(), spec, '>')),
            None => Formatted::NotKnown,
        };
    }
    // Zeros that are grouped too (`08,`) are not modelled.
    if spec.zero && spec.grouping.is_some() || matches!(value.kind, ValueKind::BigInt(_)) {
        return Formatted::NotKnown;
    }
    let magnitude = n.unsigned_abs();
    let (digits, prefix, group) = match kind {
        'b' => (format!("{magnitude:b}"), "0b", 4),
        'o' => (format!("{magnitude:o}"), "0o", 4),
        'x' => (format!("{magnitude:x}"), "0x", 4),
        'X' => (format!("{magnitude:X}"), "0X", 4),
        _ => (magnitude.to_string(), "", 3),
    };
    let digits = match spec.grouping {
        Some(separator) => grouped(&digits, separator, group),
        None => digits,
    };
    let sign = match (n < 0, spec.sign) {
        (true, _) => "-",
        (false, Some('+')) => "+",
        (false, Some(' ')) => " ",
        _ => "",
    };
    let prefix = if spec.alternate { prefix } else { "" };
    Formatted::Text(pad(&format!("{sign}{prefix}"), &digits, spec, '>'))
}

fn grouped(digits: &str, separator: char, every: usize) -> String {
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(every) {
            out.push(separator);
        }
        out.push(c);
    }
    out
}

/// `head` (sign and prefix) and `body` padded to the width: `=` pads between them.
fn pad(head: &str, body: &str, spec: &Spec, default_align: char) -> String {
    let len = head.chars().count() + body.chars().count();
    let total = spec.width.max(len);
    let fill = |n: usize| spec.fill.to_string().repeat(n);
    let padding = total - len;
    match spec.align.unwrap_or(default_align) {
        '>' => format!("{}{head}{body}", fill(padding)),
        '^' => format!("{}{head}{body}{}", fill(padding / 2), fill(padding - padding / 2)),
        '=' => format!("{head}{}{body}", fill(padding)),
        _ => format!("{head}{body}{}", fill(padding)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each expected answer is what CPython 3.11.7's `format()` gave (and 3.12, 3.13).
    #[test]
    fn answers_as_cpython() {
        let v = |kind: ValueKind| Value::new(kind, 0..0);
        let text = |s: &str| Formatted::Text(s.to_string());
        let raises = |e: &'static str, m: &str| Formatted::Raises(e, m.to_string());
        let cases = [
            (
                v(ValueKind::Int(1)),
                "** 6000",
                raises("ValueError", "Invalid format specifier '** 6000' for object of type 'int'"),
            ),
            (v(ValueKind::Int(255)), "#x", text("0xff")),
            (v(ValueKind::Int(-5)), "c", raises("OverflowError", "%c arg not in range(0x110000)")),
            (v(ValueKind::Int(0x110000)), "c", raises("OverflowError", "%c arg not in range(0x110000)")),
            (v(ValueKind::Int(1 << 70)), "c", raises("OverflowError", "Python int too large to convert to C long")),
            (v(ValueKind::Int(65)), ">3c", text("  A")),
            (v(ValueKind::Int(-42)), "08d", text("-0000042")),
            (v(ValueKind::Int(1234567)), ",", text("1,234,567")),
            (v(ValueKind::Int(255)), "_b", text("1111_1111")),
            (v(ValueKind::Int(5)), "^7", text("   5   ")),
            (v(ValueKind::Int(5)), "*<+4", text("+5**")),
            (v(ValueKind::Int(1)), "s", raises("ValueError", "Unknown format code 's' for object of type 'int'")),
            (
                v(ValueKind::Int(1)),
                "z",
                raises("ValueError", "Negative zero coercion (z) not allowed in integer format specifier"),
            ),
            (v(ValueKind::Int(1)), ".2", raises("ValueError", "Precision not allowed in integer format specifier")),
            (v(ValueKind::Bool(true)), "d", text("1")),
            (v(ValueKind::Bool(true)), ">5", text("    1")),
            (v(ValueKind::Str("a".into())), ">5", text("    a")),
            (v(ValueKind::Str("abc".into())), ".2", text("ab")),
            (v(ValueKind::Str("a".into())), "05", text("a0000")),
            (
                v(ValueKind::Str("a".into())),
                "d",
                raises("ValueError", "Unknown format code 'd' for object of type 'str'"),
            ),
            (v(ValueKind::Str("a".into())), ",", raises("ValueError", "Cannot specify ',' with 's'.")),
            (
                v(ValueKind::Str("a".into())),
                "=5",
                raises("ValueError", "'=' alignment not allowed in string format specifier"),
            ),
            (v(ValueKind::Str("a".into())), "+", raises("ValueError", "Sign not allowed in string format specifier")),
            (v(ValueKind::Float(1.5)), "d", raises("ValueError", "Unknown format code 'd' for object of type 'float'")),
            (v(ValueKind::Float(1.5)), ".2f", Formatted::NotKnown),
            (v(ValueKind::None), "x", raises("TypeError", "unsupported format string passed to NoneType.__format__")),
            (
                v(ValueKind::Int(1)),
                "1_000",
                raises("ValueError", "Invalid format specifier '1_000' for object of type 'int'"),
            ),
            (v(ValueKind::Int(1)), ",_", raises("ValueError", "Cannot specify both ',' and '_'.")),
            (v(ValueKind::Int(1)), ".", raises("ValueError", "Format specifier missing precision")),
            (v(ValueKind::Int(1)), ",x", raises("ValueError", "Cannot specify ',' with 'x'.")),
            (v(ValueKind::Int(65)), "c", text("A")),
            (v(ValueKind::Int(-5)), " d", text("-5")),
            (v(ValueKind::Int(10)), "#o", text("0o12")),
            (v(ValueKind::Int(7)), "=+5", text("+   7")),
            (v(ValueKind::Str("ab".into())), "^5", text(" ab  ")),
            (v(ValueKind::Str("x".into())), "_", raises("ValueError", "Cannot specify '_' with 's'.")),
            (v(ValueKind::Int(1)), "__", raises("ValueError", "Cannot specify '_' with '_'.")),
            (v(ValueKind::Bool(true)), "", text("True")),
            (v(ValueKind::Int(1)), "0>3", text("001")),
            (v(ValueKind::Int(1)), ">5 ", raises("ValueError", "Unknown format code '\\x20' for object of type 'int'")),
        ];
        for (value, spec, expected) in cases {
            assert_eq!(format_value(&value, spec, PythonVersion::V3_11), expected, "{value:?} {spec:?}");
        }
        assert_eq!(format_value(&v(ValueKind::Int(1)), "** 6000", PythonVersion::V3_10), Formatted::NotKnown);
    }
}
