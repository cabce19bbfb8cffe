//! Literal lexing: numbers and string literals (prefixes, quotes, escapes) as Python reads them.

use crate::value::{Span, Value, ValueKind};

/// Decodes one Python string literal (prefix, quotes and body) into its value.
pub fn decode_string_literal(literal: &str, s: Span) -> Value {
    let prefix_len = literal.find(['\'', '"']).unwrap_or(0);
    let prefix = literal[..prefix_len].to_ascii_lowercase();
    let body_with_quotes = &literal[prefix_len..];
    let quote_len = if body_with_quotes.starts_with("'''") || body_with_quotes.starts_with("\"\"\"") { 3 } else { 1 };
    // A literal tree-sitter closed with other quotes than it opened (its error recovery)
    // is not one Python reads.
    let quote = body_with_quotes.get(..quote_len).filter(|q| q.starts_with(['\'', '"']));
    let end = body_with_quotes.len().saturating_sub(quote_len);
    let body = match quote {
        Some(q) if body_with_quotes.len() >= 2 * quote_len && body_with_quotes.ends_with(q) => {
            body_with_quotes.get(quote_len..end)
        }
        _ => None,
    };
    let Some(body) = body else {
        return Value::unknown("unterminated string", s);
    };
    let raw = prefix.contains('r');
    let is_bytes = prefix.contains('b');
    let is_f = prefix.contains('f');
    // Python normalises newlines inside literals to \n.
    let body = body.replace("\r\n", "\n").replace('\r', "\n");
    let mut decoded = if raw {
        body.clone()
    } else {
        match decode_escapes(&body, is_bytes) {
            Some(d) => d,
            None => return Value::unknown("a `\\N{...}` escape the server does not know", s),
        }
    };
    if is_f {
        decoded = decoded.replace("{{", "{").replace("}}", "}");
    }
    if is_bytes {
        Value::new(ValueKind::Bytes(decoded.chars().map(|c| c as u32 as u8).collect()), s)
    } else {
        Value::new(ValueKind::Str(decoded), s)
    }
}

fn decode_escapes(body: &str, is_bytes: bool) -> Option<String> {
    let mut out = String::with_capacity(body.len());
    let mut chars = body.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        let Some(e) = chars.next() else {
            out.push('\\');
            break;
        };
        match e {
            '\n' => {}
            '\\' => out.push('\\'),
            '\'' => out.push('\''),
            '"' => out.push('"'),
            'a' => out.push('\u{7}'),
            'b' => out.push('\u{8}'),
            'f' => out.push('\u{c}'),
            'n' => out.push('\n'),
            'r' => out.push('\r'),
            't' => out.push('\t'),
            'v' => out.push('\u{b}'),
            '0'..='7' => {
                let mut value = e.to_digit(8).unwrap_or(0);
                for _ in 0..2 {
                    match chars.peek().and_then(|d| d.to_digit(8)) {
                        Some(d) => {
                            value = value * 8 + d;
                            chars.next();
                        }
                        None => break,
                    }
                }
                out.push(char::from_u32(value).unwrap_or('\u{fffd}'));
            }
            'x' | 'u' | 'U' if e == 'x' || !is_bytes => {
                let n = match e {
                    'x' => 2,
                    'u' => 4,
                    _ => 8,
                };
                let hex: String = (0..n).filter_map(|_| chars.next()).collect();
                let value = u32::from_str_radix(&hex, 16).ok()?;
                out.push(char::from_u32(value)?);
            }
            'N' if !is_bytes => {
                // Named escapes need the Unicode name table; only a few common ones here.
                if chars.next() != Some('{') {
                    return None;
                }
                let name: String = chars.by_ref().take_while(|&c| c != '}').collect();
                out.push(crate::cpython::escapes::unicode_character_named(&name)?);
            }
            other => {
                // Unknown escapes keep the backslash (a DeprecationWarning in 3.11).
                out.push('\\');
                out.push(other);
            }
        }
    }
    Some(out)
}

pub(super) fn parse_int(literal: &str, s: Span) -> Value {
    let clean: String = literal.chars().filter(|&c| c != '_').collect();
    let lower = clean.to_ascii_lowercase();
    let parsed = if let Some(h) = lower.strip_prefix("0x") {
        i128::from_str_radix(h, 16).ok()
    } else if let Some(o) = lower.strip_prefix("0o") {
        i128::from_str_radix(o, 8).ok()
    } else if let Some(b) = lower.strip_prefix("0b") {
        i128::from_str_radix(b, 2).ok()
    } else {
        lower.parse::<i128>().ok()
    };
    if let Some(i) = parsed {
        return Value::new(ValueKind::Int(i), s);
    }
    let (digits, radix) = match (lower.get(..2), lower.get(2..)) {
        (Some("0x"), Some(d)) => (d, 16),
        (Some("0o"), Some(d)) => (d, 8),
        (Some("0b"), Some(d)) => (d, 2),
        _ => (lower.as_str(), 10),
    };
    // Decimal parsing is quadratic; past CPython's 4300-digit limit the literal does not compile.
    let big = (radix != 10 || digits.len() <= crate::value::MAX_STR_DIGITS)
        .then(|| num_bigint::BigInt::parse_bytes(digits.as_bytes(), radix))
        .flatten();
    match big {
        Some(i) => Value::int(i, s),
        None => Value::unknown("integer literal too large to evaluate", s),
    }
}

pub(super) fn parse_float(literal: &str, s: Span) -> Value {
    let clean: String = literal.chars().filter(|&c| c != '_').collect();
    if clean.ends_with(['j', 'J']) {
        return Value::unknown("complex numbers are not evaluated statically", s);
    }
    match clean.parse::<f64>() {
        Ok(f) => Value::new(ValueKind::Float(f), s),
        Err(_) => Value::unknown("float literal the server cannot read", s),
    }
}
