//! Python formatting helpers needed to reproduce torchcts detail texts exactly:
//! `repr(str)`, `repr(float)`, `format(x, "g")` and `float(str)`.

/// Python's `repr(str)`.
pub fn str_repr(s: &str) -> String {
    let quote = if s.contains('\'') && !s.contains('"') { '"' } else { '\'' };
    let mut out = String::with_capacity(s.len() + 2);
    out.push(quote);
    for ch in s.chars() {
        match ch {
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if c == quote => {
                out.push('\\');
                out.push(c);
            }
            c if !is_printable(c) => {
                let code = c as u32;
                if code <= 0xff {
                    out.push_str(&format!("\\x{code:02x}"));
                } else if code <= 0xffff {
                    out.push_str(&format!("\\u{code:04x}"));
                } else {
                    out.push_str(&format!("\\U{code:08x}"));
                }
            }
            c => out.push(c),
        }
    }
    out.push(quote);
    out
}

/// An approximation of Python's `str.isprintable()` for the characters manifests contain:
/// controls, separators other than space, format characters and surrogates/private use
/// are not printable.
fn is_printable(c: char) -> bool {
    let code = c as u32;
    if code < 0x20 || (0x7f..=0xa0).contains(&code) {
        return false;
    }
    !matches!(
        code,
        0xad | 0x34f | 0x61c | 0x115f..=0x1160 | 0x1680 | 0x180e | 0x2000..=0x200f | 0x2028..=0x202f
            | 0x205f..=0x206f | 0x3000 | 0x3164 | 0xd800..=0xf8ff | 0xfe00..=0xfe0f | 0xfeff
            | 0xfff0..=0xfffb | 0xe0000..=0xe0fff | 0xf0000..
    )
}

/// Python's `repr(float)`: the shortest round-tripping digits, in fixed notation when the
/// exponent is in -4..16 and scientific (`1e-05`, `1e+16`) otherwise.
pub fn float_repr(f: f64) -> String {
    if f.is_nan() {
        return "nan".into();
    }
    if f.is_infinite() {
        return if f > 0.0 { "inf".into() } else { "-inf".into() };
    }
    if f == 0.0 {
        return if f.is_sign_negative() { "-0.0".into() } else { "0.0".into() };
    }
    // Rust's `{:e}` gives the shortest round-trip digits, e.g. "1.5e-7".
    let sci = format!("{:e}", f);
    let (mantissa, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let negative = mantissa.starts_with('-');
    let digits: String = mantissa.chars().filter(|c| c.is_ascii_digit()).collect();
    let sign = if negative { "-" } else { "" };
    if (-4..16).contains(&exp) {
        let point = exp + 1; // digits before the decimal point
        let body = if point <= 0 {
            format!("0.{}{}", "0".repeat((-point) as usize), digits)
        } else if point as usize >= digits.len() {
            format!("{}{}.0", digits, "0".repeat(point as usize - digits.len()))
        } else {
            format!("{}.{}", &digits[..point as usize], &digits[point as usize..])
        };
        format!("{sign}{body}")
    } else {
        let mant = if digits.len() > 1 { format!("{}.{}", &digits[..1], &digits[1..]) } else { digits };
        let esign = if exp < 0 { '-' } else { '+' };
        format!("{sign}{mant}e{esign}{:02}", exp.abs())
    }
}

/// `format(x, "g")` (6 significant digits, trailing zeros stripped).
pub fn fmt_g(x: f64) -> String {
    if x.is_nan() {
        return "nan".into();
    }
    if x.is_infinite() {
        return if x > 0.0 { "inf".into() } else { "-inf".into() };
    }
    if x == 0.0 {
        return if x.is_sign_negative() { "-0".into() } else { "0".into() };
    }
    let p = 6i32;
    let e = format!("{:.*e}", (p - 1) as usize, x);
    let (mant, exp) = e.split_once('e').unwrap_or((&e, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    if exp < -4 || exp >= p {
        let mant = strip_zeros(mant);
        let sign = if exp < 0 { "-" } else { "+" };
        format!("{mant}e{sign}{:02}", exp.abs())
    } else {
        let decimals = (p - 1 - exp).max(0) as usize;
        strip_zeros(&format!("{:.*}", decimals, x))
    }
}

fn strip_zeros(s: &str) -> String {
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        s.to_string()
    }
}

/// `float(text)` for a Python `str`: `None` where Python raises `ValueError`.
pub fn parse_float(text: &str) -> Option<f64> {
    let t = text.trim();
    let lower = t.to_ascii_lowercase();
    let body = lower.trim_start_matches(['+', '-']);
    let neg = lower.starts_with('-');
    match body {
        "inf" | "infinity" => return Some(if neg { f64::NEG_INFINITY } else { f64::INFINITY }),
        "nan" => return Some(f64::NAN),
        _ => {}
    }
    if t.is_empty() || t.contains("__") || t.starts_with('_') || t.ends_with('_') {
        return None;
    }
    let cleaned: String = t.chars().filter(|&c| c != '_').collect();
    if cleaned.chars().any(|c| !(c.is_ascii_digit() || matches!(c, '.' | 'e' | 'E' | '+' | '-'))) {
        return None;
    }
    cleaned.parse::<f64>().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn g_format_matches_python() {
        assert_eq!(fmt_g(512.0), "512");
        assert_eq!(fmt_g(4.0), "4");
        assert_eq!(fmt_g(2.5), "2.5");
        assert_eq!(fmt_g(1234567.0), "1.23457e+06");
        assert_eq!(fmt_g(0.0001), "0.0001");
        assert_eq!(fmt_g(0.00001), "1e-05");
    }

    #[test]
    fn float_parsing_like_python() {
        assert_eq!(parse_float(" 12 "), Some(12.0));
        assert_eq!(parse_float("1_000"), Some(1000.0));
        assert_eq!(parse_float("auto"), None);
        assert_eq!(parse_float("1e3"), Some(1000.0));
    }

    #[test]
    fn reprs() {
        assert_eq!(str_repr("a'b"), "\"a'b\"");
        assert_eq!(str_repr("ab"), "'ab'");
        assert_eq!(float_repr(1.0), "1.0");
        assert_eq!(float_repr(0.5), "0.5");
    }

    // Expected strings are what CPython 3.11 prints for repr() of the same values.
    #[test]
    fn float_repr_matches_python() {
        assert_eq!(float_repr(1e-5), "1e-05");
        assert_eq!(float_repr(0.0001), "0.0001");
        assert_eq!(float_repr(1e16), "1e+16");
        assert_eq!(float_repr(1234567890123456.0), "1234567890123456.0");
        assert_eq!(float_repr(2.5), "2.5");
        assert_eq!(float_repr(1.0), "1.0");
        assert_eq!(float_repr(-1.5e-7), "-1.5e-07");
        assert_eq!(float_repr(0.1), "0.1");
        assert_eq!(float_repr(1e300), "1e+300");
    }

    #[test]
    fn str_repr_matches_python() {
        assert_eq!(str_repr("float32"), "'float32'");
        assert_eq!(str_repr("it's"), "\"it's\"");
        assert_eq!(str_repr("a'b\"c"), "'a\\'b\"c'");
        assert_eq!(str_repr("tab\there\n"), "'tab\\there\\n'");
        assert_eq!(str_repr("é漢😀"), "'é漢😀'");
        assert_eq!(str_repr("\u{7}\u{2028}"), "'\\x07\\u2028'");
    }
}
