//! Python formatting helpers needed to reproduce torchcts detail texts exactly:
//! `repr(str)`, `repr(float)`, `format(x, "g")` and `float(str)`.

/// Python's `repr(str)`, as CPython 3.11 (torchcts's Python) escapes it: the characters
/// its Unicode data calls not printable (an unassigned `\u12bf`, controls, separators).
pub fn str_repr(s: &str) -> String {
    pyregex::str_repr(s, pyregex::PythonVersion::V3_11)
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
        // CPython 3.11's Unicode data: U+12BF and U+0378 are unassigned, U+D7FF a lone
        // code point it does not print (`python3.11 -c "print(repr(...))"`; seed 1005006).
        assert_eq!(str_repr("\u{12bf}loat16"), "'\\u12bfloat16'");
        assert_eq!(
            str_repr("\u{85}\u{a0}\u{200b}\u{d7ff}\u{378}caf\u{e9}\u{2028}\u{1f600}"),
            "'\\x85\\xa0\\u200b\\ud7ff\\u0378caf\u{e9}\\u2028\u{1f600}'"
        );
    }
}
