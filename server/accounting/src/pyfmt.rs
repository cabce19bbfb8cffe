//! Python formatting helpers needed to reproduce torchcts detail texts exactly:
//! `repr(str)`, `repr(float)`, `format(x, "g")` and `float(str)`.

/// `repr()` of a Python `str` (printable ASCII and common escapes; other
/// characters are kept as they are, as Python does for printable ones).
pub fn str_repr(s: &str) -> String {
    let quote = if s.contains('\'') && !s.contains('"') { '"' } else { '\'' };
    let mut out = String::with_capacity(s.len() + 2);
    out.push(quote);
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if c == quote => {
                out.push('\\');
                out.push(c);
            }
            c if (c as u32) < 0x20 || c as u32 == 0x7f => out.push_str(&format!("\\x{:02x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push(quote);
    out
}

/// `repr()` of a Python float.
pub fn float_repr(f: f64) -> String {
    if f.is_nan() {
        return "nan".into();
    }
    if f.is_infinite() {
        return if f > 0.0 { "inf".into() } else { "-inf".into() };
    }
    if f == f.trunc() && f.abs() < 1e16 {
        return format!("{:.1}", f);
    }
    let s = format!("{}", f);
    if f.abs() >= 1e16 || (f != 0.0 && f.abs() < 1e-4) {
        // Python switches to exponent notation here.
        let e = format!("{:e}", f);
        return fix_exponent(&e);
    }
    s
}

fn fix_exponent(e: &str) -> String {
    // Rust writes 1e-5 / 1.5e20; Python writes 1e-05 / 1.5e+20.
    if let Some((mant, exp)) = e.split_once('e') {
        let (sign, digits) = match exp.strip_prefix('-') {
            Some(d) => ("-", d),
            None => ("+", exp),
        };
        let digits = if digits.len() < 2 { format!("0{digits}") } else { digits.to_string() };
        format!("{mant}e{sign}{digits}")
    } else {
        e.to_string()
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
}
