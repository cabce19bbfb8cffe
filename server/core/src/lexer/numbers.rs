//! Number literals as CPython's tokenizer reads them (`tok_get`'s number branch): where one
//! ends, and its errors (`invalid decimal literal`, a bad digit for the radix, ...).

/// End of the number token starting at `i` (a digit, or a '.' before one), or CPython's
/// tokenizer error for it.
pub(super) fn number_end(b: &[u8], i: usize) -> Result<usize, String> {
    let at = |k: usize| b.get(k).copied().unwrap_or(0);
    // Digits of `is_digit` with single underscores between them; `Err` on a stray `_`.
    let digits = |mut k: usize, is_digit: &dyn Fn(u8) -> bool, kind: &str| -> Result<usize, String> {
        loop {
            while is_digit(at(k)) {
                k += 1;
            }
            if at(k) != b'_' {
                return Ok(k);
            }
            if !is_digit(at(k + 1)) {
                return Err(format!("invalid {kind} literal"));
            }
            k += 1;
        }
    };
    let radix = if at(i) == b'0' { at(i + 1).to_ascii_lowercase() } else { 0 };
    if matches!(radix, b'x' | b'o' | b'b') {
        let (kind, is_digit): (&str, &dyn Fn(u8) -> bool) = match radix {
            b'x' => ("hexadecimal", &|d: u8| d.is_ascii_hexdigit()),
            b'o' => ("octal", &|d: u8| (b'0'..=b'7').contains(&d)),
            _ => ("binary", &|d: u8| d == b'0' || d == b'1'),
        };
        let mut k = i + 2;
        if at(k) == b'_' {
            k += 1;
        }
        if !is_digit(at(k)) {
            if at(k).is_ascii_digit() {
                return Err(format!("invalid digit '{}' in {kind} literal", at(k) as char));
            }
            return Err(format!("invalid {kind} literal"));
        }
        let end = digits(k, is_digit, kind)?;
        if at(end).is_ascii_digit() {
            return Err(format!("invalid digit '{}' in {kind} literal", at(end) as char));
        }
        end_of_number(b, end, kind)?;
        return Ok(end);
    }
    let is_dec = |d: u8| d.is_ascii_digit();
    // A fraction like `.5` has no integer part.
    let int_end = digits(i, &is_dec, "decimal")?;
    let mut end = int_end;
    let mut is_float = false;
    if at(end) == b'.' {
        is_float = true;
        end += 1;
        if at(end).is_ascii_digit() {
            end = digits(end, &is_dec, "decimal")?;
        }
    }
    if matches!(at(end), b'e' | b'E') {
        let e = end;
        let mut k = end + 1;
        if matches!(at(k), b'+' | b'-') {
            k += 1;
            if !at(k).is_ascii_digit() {
                return Err("invalid decimal literal".into());
            }
        } else if !at(k).is_ascii_digit() {
            // `1else`: the `e` starts the next token.
            end_of_number(b, e, "decimal")?;
            return Ok(e);
        }
        is_float = true;
        end = digits(k, &is_dec, "decimal")?;
    }
    if matches!(at(end), b'j' | b'J') {
        end += 1;
        end_of_number(b, end, "imaginary")?;
        return Ok(end);
    }
    if !is_float && at(i) == b'0' && b[i..int_end].iter().any(|&d| d != b'0' && d != b'_') {
        return Err(
            "leading zeros in decimal integer literals are not permitted; use an 0o prefix for octal integers".into()
        );
    }
    end_of_number(b, end, "decimal")?;
    Ok(end)
}

/// `verify_end_of_number`: a number followed by an ASCII name character is an error,
/// except before the keywords that may follow a number in valid code (`1if x else 2`).
/// CPython 3.11 lets a non-ASCII character through (`1é` is a number and a name).
fn end_of_number(b: &[u8], end: usize, kind: &str) -> Result<(), String> {
    let rest = &b[end.min(b.len())..];
    let keyword = ["and", "else", "for", "if", "in", "is", "or", "not"].iter().any(|k| rest.starts_with(k.as_bytes()));
    match rest.first() {
        Some(&c) if !keyword && (c.is_ascii_alphanumeric() || c == b'_') => Err(format!("invalid {kind} literal")),
        _ => Ok(()),
    }
}

/// End of a malformed number: the run of characters that could belong to one.
pub(super) fn lenient_number_end(b: &[u8], start: usize) -> usize {
    let mut k = start;
    while k < b.len() {
        let c = b[k];
        let exponent_sign = matches!(c, b'+' | b'-')
            && k > start
            && matches!(b[k - 1], b'e' | b'E')
            && !b[start..k].iter().any(|d| matches!(d, b'x' | b'X'));
        if c.is_ascii_alphanumeric() || c == b'_' || c == b'.' || exponent_sign {
            k += 1;
        } else {
            break;
        }
    }
    k.max(start + 1)
}
