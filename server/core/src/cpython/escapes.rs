//! CPython's errors for the escapes of string and bytes literals, as it raises them when
//! its parser builds the literal, and the characters `\\N{name}` names (shared with the
//! evaluator's string decoding).

/// CPython's error for the escapes of a non-raw `str` literal's body (between the quotes),
/// as `decode_unicode_with_escapes` raises it: the body is first rewritten with each
/// non-ASCII character as `\UXXXXXXXX` (and a backslash before one as `\u005c`), so the
/// positions count in that rewritten text. `is_f`: an f-string, whose literal parts (between
/// replacement fields) are decoded one by one.
pub fn str_escape_error(body: &str, is_f: bool) -> Option<String> {
    if !body.contains('\\') {
        return None;
    }
    let chunks = if is_f { fstring_literal_chunks(body) } else { vec![body] };
    chunks.into_iter().find_map(|chunk| unicode_escape_error(&cpython_escape_buffer(chunk)))
}

fn cpython_escape_buffer(body: &str) -> String {
    let mut out = String::with_capacity(body.len());
    let mut chars = body.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\\' {
            out.push('\\');
            match chars.peek() {
                None => {
                    out.push_str("u005c");
                    break;
                }
                Some(&next) if !next.is_ascii() => out.push_str("u005c"),
                Some(_) => {
                    let next = chars.next().unwrap_or('\\');
                    out.push(next);
                }
            }
        } else if c.is_ascii() {
            out.push(c);
        } else {
            out.push_str(&format!("\\U{:08x}", c as u32));
        }
    }
    out
}

/// The literal parts of an f-string body: text up to a `{`/`}` (a doubled brace keeps one
/// in the part before it), skipping replacement fields.
fn fstring_literal_chunks(body: &str) -> Vec<&str> {
    let bytes = body.as_bytes();
    let mut chunks = Vec::new();
    let (mut start, mut i) = (0, 0);
    while i < bytes.len() {
        match bytes[i] {
            b'\\' if bytes.get(i + 1) == Some(&b'N') && bytes.get(i + 2) == Some(&b'{') => {
                i = body[i..].find('}').map(|k| i + k + 1).unwrap_or(bytes.len());
            }
            b'\\' => i += 2,
            b'{' | b'}' if bytes.get(i + 1) == Some(&bytes[i]) => {
                chunks.push(&body[start..i + 1]);
                i += 2;
                start = i;
            }
            b'{' => {
                chunks.push(&body[start..i]);
                // The format specification's text (after the field's own `:`) is decoded
                // too, piece by piece between its nested fields (`{x:>{w}\u00e9}`).
                let mut spec: Option<usize> = None;
                let mut depth = 0usize;
                while i < bytes.len() {
                    match bytes[i] {
                        b':' if depth == 1 && spec.is_none() => spec = Some(i + 1),
                        b'{' if depth == 1 && spec.is_some() => {
                            chunks.extend(spec.map(|from| &body[from..i]));
                            depth += 1;
                        }
                        b'{' | b'[' | b'(' => depth += 1,
                        b'}' | b']' | b')' => {
                            depth = depth.saturating_sub(1);
                            if depth == 1 && bytes[i] == b'}' && spec.is_some() {
                                spec = Some(i + 1);
                            }
                            if depth == 0 {
                                chunks.extend(spec.map(|from| &body[from.min(i)..i]));
                                break;
                            }
                        }
                        _ => {}
                    }
                    i += 1;
                }
                i += 1;
                start = i.min(bytes.len());
            }
            _ => i += 1,
        }
    }
    if start < bytes.len() {
        chunks.push(&body[start..]);
    }
    chunks
}

/// The `unicodeescape` codec's first error in an ASCII buffer, as CPython words it.
fn unicode_escape_error(buffer: &str) -> Option<String> {
    let b = buffer.as_bytes();
    let n = b.len();
    let mut i = 0;
    let fail = |start: usize, end: usize, message: &str| {
        Some(format!(
            "(unicode error) 'unicodeescape' codec can't decode bytes in position {start}-{}: {message}",
            end.saturating_sub(1)
        ))
    };
    while i < n {
        if b[i] != b'\\' {
            i += 1;
            continue;
        }
        let start = i;
        i += 1;
        if i >= n {
            return fail(start, n, "\\ at end of string");
        }
        let c = b[i];
        i += 1;
        let (count, message) = match c {
            b'x' => (2, "truncated \\xXX escape"),
            b'u' => (4, "truncated \\uXXXX escape"),
            b'U' => (8, "truncated \\UXXXXXXXX escape"),
            b'N' => {
                let message = "malformed \\N character escape";
                if i >= n || b[i] != b'{' {
                    return fail(start, i, message);
                }
                i += 1;
                let name_start = i;
                while i < n && b[i] != b'}' {
                    i += 1;
                }
                if i >= n || i == name_start {
                    return fail(start, i, message);
                }
                let name = &buffer[name_start..i];
                i += 1;
                if !unicode_name_exists(name) {
                    return fail(start, i, "unknown Unicode character name");
                }
                continue;
            }
            _ => continue,
        };
        let mut value: u32 = 0;
        for _ in 0..count {
            match b.get(i).and_then(|d| (*d as char).to_digit(16)) {
                Some(d) => {
                    value = value.wrapping_mul(16).wrapping_add(d);
                    i += 1;
                }
                None => return fail(start, i, message),
            }
        }
        if value > 0x10FFFF {
            return fail(start, i, "illegal Unicode character");
        }
    }
    None
}

/// Whether `\N{name}` names a character (names and aliases, any case, as CPython's
/// `unicodedata` lookup accepts them).
fn unicode_name_exists(name: &str) -> bool {
    unicode_character_named(name).is_some()
}

/// The character `\N{name}` stands for, as CPython 3.11's `unicodedata` lookup finds it:
/// names and aliases in any case, but not the loose forms (`EMDASH`, `em_dash`) that
/// `unicode_names2` also accepts.
pub fn unicode_character_named(name: &str) -> Option<char> {
    // Names hold letters, digits, spaces and hyphens only (`unicode_names2` also reads a tab),
    // one space between words (`unicode_names2` reads `EM DASH ` and `EM  DASH` too), and
    // start with a letter or digit (`unicode_names2` 4.0 overflows on a leading hyphen).
    let spelled = name.chars().all(|c| c.is_ascii_alphanumeric() || c == ' ' || c == '-')
        && name.starts_with(|c: char| c.is_ascii_alphanumeric())
        && !name.ends_with(' ')
        && !name.contains("  ");
    if !spelled {
        return None;
    }
    let c = unicode_names2::character(name)?;
    let upper = name.to_ascii_uppercase();
    let official = unicode_names2::name(c).map(|n| n.to_string()).unwrap_or_default();
    let squeeze = |s: &str| s.chars().filter(|&c| c != ' ' && c != '-').collect::<String>();
    // Same letters as the official name but written differently: a loose match, not an alias.
    let loose = upper != official && squeeze(&upper) == squeeze(&official);
    (!loose).then_some(c)
}

/// CPython's error for the escapes of a non-raw bytes literal's body.
pub fn bytes_escape_error(body: &str) -> Option<String> {
    let b = body.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if b[i] != b'\\' {
            i += 1;
            continue;
        }
        if b.get(i + 1) == Some(&b'x') {
            let hex = |k: usize| b.get(k).is_some_and(|d| d.is_ascii_hexdigit());
            if !(hex(i + 2) && hex(i + 3)) {
                return Some(format!("(value error) invalid \\x escape at position {i}"));
            }
        }
        i += 2;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::str_escape_error;

    /// CPython 3.10's and 3.11's messages (3.12 and later raise UnicodeDecodeError instead):
    /// a format specification's text is decoded piece by piece, positions from its start.
    #[test]
    fn a_format_specification_is_decoded_as_literal_text() {
        let illegal = |from: usize| {
            format!("(unicode error) 'unicodeescape' codec can't decode bytes in position {from}-{}: illegal Unicode character", from + 9)
        };
        assert_eq!(str_escape_error(r"cpu-{memory:>5\U0011ffff }", true), Some(illegal(2)));
        assert_eq!(str_escape_error(r"{1:\U0011ffff}", true), Some(illegal(0)));
        assert_eq!(str_escape_error(r"{1:{w}\U0011ffff}", true), Some(illegal(0)));
        assert_eq!(str_escape_error(r"{d[1:2]}\u00e9", true), None);
        assert_eq!(str_escape_error(r"{x!r:>{w}}", true), None);
    }

    /// A name is spelled with one space between words (CPython 3.10-3.13 refuse `EM DASH `,
    /// ` EM DASH`, `EM  DASH` and `EM }`, and take `em dash` and `BOM`).
    #[test]
    fn a_character_name_is_spelled_exactly() {
        for name in ["EM DASH ", " EM DASH", "EM  DASH", "EM ", "-EM DASH", "", "-"] {
            assert_eq!(super::unicode_character_named(name), None, "{name:?}");
        }
        assert_eq!(super::unicode_character_named("em dash"), Some('\u{2014}'));
        assert_eq!(super::unicode_character_named("BOM"), Some('\u{feff}'));
    }
}
