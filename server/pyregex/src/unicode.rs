//! Unicode character predicates and case mappings exactly as CPython 3.11
//! (Unicode 14.0.0) uses them in `re`, plus the few `str` helpers the
//! parser needs (`repr`, `isidentifier`, `int()`).

use crate::tables;

fn in_ranges(t: &[(u32, u32)], c: u32) -> bool {
    // binary search for the last range whose start is <= c
    let idx = t.partition_point(|&(lo, _)| lo <= c);
    idx > 0 && c <= t[idx - 1].1
}

fn lookup_pair(t: &[(u32, u32)], c: u32) -> Option<u32> {
    t.binary_search_by_key(&c, |&(k, _)| k).ok().map(|i| t[i].1)
}

/// `_sre.unicode_tolower` (simple lowercase mapping).
pub(crate) fn lower(c: u32) -> u32 {
    if c < 0x80 {
        return if (b'A' as u32..=b'Z' as u32).contains(&c) { c + 32 } else { c };
    }
    lookup_pair(tables::LOWER, c).unwrap_or(c)
}

/// `_PyUnicode_ToUppercase` (what `sre_upper_unicode` uses).
pub(crate) fn upper(c: u32) -> u32 {
    if c < 0x80 {
        return if (b'a' as u32..=b'z' as u32).contains(&c) { c - 32 } else { c };
    }
    lookup_pair(tables::UPPER, c).unwrap_or(c)
}

/// `_sre.unicode_iscased`.
pub(crate) fn iscased(c: u32) -> bool {
    lower(c) != c || upper(c) != c
}

/// `sre_lower_ascii` / `_sre.ascii_tolower`.
pub(crate) fn ascii_lower(c: u32) -> u32 {
    if (b'A' as u32..=b'Z' as u32).contains(&c) {
        c + 32
    } else {
        c
    }
}

/// `_sre.ascii_iscased`.
pub(crate) fn ascii_iscased(c: u32) -> bool {
    c < 128 && (c as u8).is_ascii_alphabetic()
}

/// `re._casefix._EXTRA_CASES[lo]` (empty when absent).
pub(crate) fn extra_cases(lo: u32) -> impl Iterator<Item = u32> {
    let t = tables::EXTRA_CASES;
    let start = t.partition_point(|&(k, _)| k < lo);
    t[start..].iter().take_while(move |&&(k, _)| k == lo).map(|&(_, v)| v)
}

/// Whether `lo` is a key of `_EXTRA_CASES`.
pub(crate) fn has_extra_cases(lo: u32) -> bool {
    extra_cases(lo).next().is_some()
}

/// `Py_UNICODE_TODECIMAL`: the decimal value of a `str.isdecimal` character.
pub(crate) fn decimal(c: u32) -> Option<u32> {
    if (b'0' as u32..=b'9' as u32).contains(&c) {
        return Some(c - b'0' as u32);
    }
    let t = tables::DECIMAL;
    let idx = t.partition_point(|&(lo, _, _)| lo <= c);
    if idx > 0 {
        let (lo, hi, v) = t[idx - 1];
        if c <= hi {
            return Some(v + (c - lo));
        }
    }
    None
}

/// `Py_UNICODE_ISSPACE`.
pub(crate) fn is_space(c: u32) -> bool {
    in_ranges(tables::SPACE, c)
}

/// `Py_UNICODE_ISALNUM`.
pub(crate) fn is_alnum(c: u32) -> bool {
    if c < 0x80 {
        return (c as u8).is_ascii_alphanumeric();
    }
    in_ranges(tables::ALNUM, c)
}

/// `str.isalpha` for one character.
pub(crate) fn is_alpha(c: u32) -> bool {
    in_ranges(tables::ALPHA, c)
}

fn is_printable(c: u32) -> bool {
    in_ranges(tables::PRINTABLE, c)
}

/// `str.isidentifier`.
pub(crate) fn is_identifier(s: &[char]) -> bool {
    match s.split_first() {
        None => false,
        Some((first, rest)) => {
            in_ranges(tables::ID_START, *first as u32) && rest.iter().all(|&c| in_ranges(tables::ID_CONTINUE, c as u32))
        }
    }
}

/// `str.isdecimal` (true for non-empty strings of decimal characters).
pub(crate) fn is_decimal_str(s: &[char]) -> bool {
    !s.is_empty() && s.iter().all(|&c| decimal(c as u32).is_some())
}

/// Python's `repr()` of a `str`.
pub(crate) fn py_repr(s: &[char]) -> String {
    let quote = if s.contains(&'\'') && !s.contains(&'"') { '"' } else { '\'' };
    let mut out = String::with_capacity(s.len() + 2);
    out.push(quote);
    for &ch in s {
        let c = ch as u32;
        if ch == quote || ch == '\\' {
            out.push('\\');
            out.push(ch);
        } else if ch == '\t' {
            out.push_str("\\t");
        } else if ch == '\n' {
            out.push_str("\\n");
        } else if ch == '\r' {
            out.push_str("\\r");
        } else if c < 0x20 || c == 0x7f {
            out.push_str(&format!("\\x{:02x}", c));
        } else if c < 0x7f || is_printable(c) {
            out.push(ch);
        } else if c <= 0xff {
            out.push_str(&format!("\\x{:02x}", c));
        } else if c <= 0xffff {
            out.push_str(&format!("\\u{:04x}", c));
        } else {
            out.push_str(&format!("\\U{:08x}", c));
        }
    }
    out.push(quote);
    out
}

/// Result of Python's `int(s)` (base 10) on a `str`.
pub(crate) enum PyInt {
    /// The value, as a sign and a decimal digit string without leading zeros
    /// (`"0"` for zero).
    Value { negative: bool, digits: String },
    /// `int()` raised `ValueError`.
    Invalid,
}

impl PyInt {
    /// The value if it fits into `u64` and is non-negative.
    pub(crate) fn as_u64(&self) -> Option<u64> {
        match self {
            PyInt::Value { negative: false, digits } if digits.len() <= 19 => digits.parse().ok(),
            _ => None,
        }
    }
}

/// Python's `int(s)` for a `str` argument (base 10), including Unicode
/// decimal digits, Unicode whitespace stripping, underscores between digits
/// and the 4300-digit conversion limit (which raises `ValueError`).
pub(crate) fn py_int(s: &[char]) -> PyInt {
    // _PyUnicode_TransformDecimalAndSpaceToASCII
    let mut ascii: Vec<u8> = Vec::with_capacity(s.len());
    for &ch in s {
        let c = ch as u32;
        if c < 127 {
            ascii.push(c as u8);
        } else if is_space(c) {
            ascii.push(b' ');
        } else if let Some(d) = decimal(c) {
            ascii.push(b'0' + d as u8);
        } else {
            return PyInt::Invalid;
        }
    }
    // PyLong_FromString(base=10)
    let is_space = |b: u8| matches!(b, b' ' | b'\t' | b'\n' | b'\r' | 0x0b | 0x0c);
    let mut i = 0;
    while i < ascii.len() && is_space(ascii[i]) {
        i += 1;
    }
    let mut negative = false;
    if i < ascii.len() && (ascii[i] == b'+' || ascii[i] == b'-') {
        negative = ascii[i] == b'-';
        i += 1;
    }
    let mut digits = String::new();
    let mut ndigits = 0usize;
    let mut prev_underscore = false;
    let start = i;
    while i < ascii.len() {
        let b = ascii[i];
        if b.is_ascii_digit() {
            digits.push(b as char);
            ndigits += 1;
            prev_underscore = false;
        } else if b == b'_' {
            if i == start || prev_underscore {
                return PyInt::Invalid;
            }
            prev_underscore = true;
        } else {
            break;
        }
        i += 1;
    }
    if ndigits == 0 || prev_underscore {
        return PyInt::Invalid;
    }
    while i < ascii.len() && is_space(ascii[i]) {
        i += 1;
    }
    if i != ascii.len() {
        return PyInt::Invalid;
    }
    if ndigits > 4300 {
        return PyInt::Invalid;
    }
    let trimmed = digits.trim_start_matches('0');
    let digits = if trimmed.is_empty() { "0".to_string() } else { trimmed.to_string() };
    if digits == "0" {
        negative = false;
    }
    PyInt::Value { negative, digits }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chars(s: &str) -> Vec<char> {
        s.chars().collect()
    }

    #[test]
    fn repr_matches_python() {
        assert_eq!(py_repr(&chars("a'")), "\"a'\"");
        assert_eq!(py_repr(&chars("a\"'")), "'a\"\\''");
        assert_eq!(
            py_repr(&chars("\x00\x7f\u{80}\u{a0}\u{2028}\u{1F600}é")),
            "'\\x00\\x7f\\x80\\xa0\\u2028\u{1F600}é'"
        );
    }

    #[test]
    fn int_parsing() {
        let v = |s: &str| match py_int(&chars(s)) {
            PyInt::Value { negative, digits } => Some((negative, digits)),
            PyInt::Invalid => None,
        };
        assert_eq!(v(" 1_0 "), Some((false, "10".into())));
        assert_eq!(v("-0"), Some((false, "0".into())));
        assert_eq!(v("\u{661}"), Some((false, "1".into())));
        assert_eq!(v("_1"), None);
        assert_eq!(v("1__0"), None);
        assert_eq!(v("1_"), None);
        assert_eq!(v(""), None);
        assert_eq!(v("+"), None);
    }

    #[test]
    fn identifiers() {
        assert!(is_identifier(&chars("_a1")));
        assert!(is_identifier(&chars("é")));
        assert!(!is_identifier(&chars("1a")));
        assert!(!is_identifier(&chars("a-b")));
    }
}
