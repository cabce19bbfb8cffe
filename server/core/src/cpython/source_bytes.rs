//! A manifest's bytes read as CPython 3.11's `compile()` reads a source file's bytes (what
//! check-manifest's importlib loader hands it): a UTF-8 BOM, a PEP 263 coding cookie on line
//! 1 or 2 (line 2 only after a blank or comment line), UTF-8 otherwise. Bytes that are not
//! UTF-8 are accepted inside comments (CPython's tokenizer never decodes a comment); in a
//! string or a name they are the `(unicode error) 'utf-8' codec can't decode ...` CPython
//! raises, with its position and line; in a bytes literal `bytes can only contain ASCII
//! literal characters`. Measured on CPython 3.10-3.13 (`tests/parity/check` cases
//! `encoding_*`).

use crate::lexer::{lex, TokenKind};

/// What the bytes of a manifest are to CPython.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SourceText {
    /// The text to analyse (bytes a comment held that are not UTF-8 shown as U+FFFD).
    Text(String),
    /// `compile()` raises this SyntaxError (`line` 0: before any line is read).
    Error { message: String, line: usize },
    /// A coding cookie names a codec this emulation does not decode, and the text is not ASCII.
    UnknownEncoding(String),
}

/// The bytes of a manifest as CPython decodes them.
pub fn decode_source(bytes: &[u8]) -> SourceText {
    // compile() refuses a NUL byte before it reads a coding cookie or decodes anything: the
    // text keeps it for that error (`cpython::estimate`), whatever else it holds.
    if bytes.contains(&0) {
        return SourceText::Text(String::from_utf8_lossy(bytes).into_owned());
    }
    let (bom, body) = match bytes.strip_prefix(b"\xef\xbb\xbf") {
        Some(rest) => (true, rest),
        None => (false, bytes),
    };
    let encoding = coding_cookie(body).map(|name| normal_encoding_name(&name));
    // Another spelling of UTF-8 or Latin-1 (`utf8`, `latin1`): that codec decodes the text.
    let module = encoding.as_deref().map(codec_module);
    match encoding.as_deref() {
        Some(name) if module == Some(None) => {
            SourceText::Error { message: format!("unknown encoding: {name}"), line: 0 }
        }
        Some(name) if bom && name != "utf-8" => {
            SourceText::Error { message: format!("encoding problem: {name} with BOM"), line: 0 }
        }
        Some(name) if name != "utf-8" && module == Some(Some("utf_8")) && std::str::from_utf8(body).is_ok() => {
            decode_utf8(body)
        }
        _ if module == Some(Some("latin_1")) => SourceText::Text(body.iter().map(|&b| char::from(b)).collect()),
        None | Some("utf-8") => match decode_utf8(body) {
            // The text keeps its BOM, as it has always been analysed (the lexer skips it).
            SourceText::Text(text) if bom => SourceText::Text(format!("\u{feff}{text}")),
            decoded => decoded,
        },
        Some("iso-8859-1") => SourceText::Text(body.iter().map(|&b| char::from(b)).collect()),
        Some("ascii" | "us-ascii") => match body.iter().position(|b| !b.is_ascii()) {
            None => decode_utf8(body),
            Some(at) => SourceText::Error {
                message: format!(
                    "'ascii' codec can't decode byte 0x{:02x} in position {}: ordinal not in range(128)",
                    body[at], at
                ),
                line: 0,
            },
        },
        // Every codec CPython accepts for source reads ASCII as ASCII.
        Some(_) if body.is_ascii() => decode_utf8(body),
        Some(other) => SourceText::UnknownEncoding(other.to_string()),
    }
}

/// The name a PEP 263 cookie gives on line 1, or on line 2 when line 1 is blank or a
/// comment (CPython's `check_coding_spec`: `^[ \t\f]*#.*?coding[:=][ \t]*([-\w.]+)`).
fn coding_cookie(bytes: &[u8]) -> Option<String> {
    let mut lines = bytes.split(|&b| b == b'\n');
    let first = lines.next().unwrap_or(&[]);
    if let Some(name) = cookie_on(first) {
        return Some(name);
    }
    let code = first.iter().position(|b| !matches!(b, b' ' | b'\t' | b'\x0c' | b'\r'));
    match code.map(|i| first[i]) {
        None | Some(b'#') => cookie_on(lines.next()?),
        Some(_) => None,
    }
}

fn cookie_on(line: &[u8]) -> Option<String> {
    let start = line.iter().position(|b| !matches!(b, b' ' | b'\t' | b'\x0c'))?;
    if line[start] != b'#' {
        return None;
    }
    let comment = &line[start..];
    let at = comment.windows(7).position(|w| &w[..6] == b"coding" && matches!(w[6], b':' | b'='))?;
    let rest = &comment[at + 7..];
    let rest = &rest[rest.iter().position(|b| !matches!(b, b' ' | b'\t')).unwrap_or(rest.len())..];
    let len = rest.iter().take_while(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.')).count();
    (len > 0).then(|| String::from_utf8_lossy(&rest[..len]).into_owned())
}

/// CPython's `get_normal_name`: `utf-8` and `latin-1` spellings made one name.
fn normal_encoding_name(name: &str) -> String {
    let low: String = name.chars().take(12).map(|c| if c == '_' { '-' } else { c.to_ascii_lowercase() }).collect();
    let is = |base: &str| low == base || low.starts_with(&format!("{base}-"));
    if is("utf-8") {
        "utf-8".into()
    } else if is("latin-1") || is("iso-8859-1") || is("iso-latin-1") {
        "iso-8859-1".into()
    } else {
        name.to_string()
    }
}

/// The codec module CPython's registry finds for `name` (`codecs.lookup`: lower case, then
/// `encodings.search_function`'s `normalize_encoding`, an alias, else a module of that name).
fn codec_module(name: &str) -> Option<&'static str> {
    use super::codec_names::{CODEC_ALIASES, CODEC_MODULES};
    let mut normal = String::new();
    let mut punctuation = false;
    for c in name.to_ascii_lowercase().chars() {
        if c.is_ascii_alphanumeric() || c == '.' {
            if punctuation && !normal.is_empty() {
                normal.push('_');
            }
            normal.push(c);
            punctuation = false;
        } else {
            punctuation = true;
        }
    }
    let alias = |n: &str| CODEC_ALIASES.binary_search_by(|(a, _)| (*a).cmp(n)).ok().map(|i| CODEC_ALIASES[i].1);
    let module = || {
        let at = CODEC_MODULES.binary_search(&normal.as_str()).ok()?;
        (!normal.contains('.')).then_some(CODEC_MODULES[at])
    };
    alias(&normal).or_else(|| alias(&normal.replace('.', "_"))).or_else(module)
}

/// UTF-8 source: bytes that are not UTF-8 are fine in a comment and an error anywhere else.
fn decode_utf8(bytes: &[u8]) -> SourceText {
    let Err(_) = std::str::from_utf8(bytes) else {
        return SourceText::Text(String::from_utf8_lossy(bytes).into_owned());
    };
    // Each byte of a sequence that is not UTF-8 becomes `x`: an identifier character, as any
    // byte over 0x7F is to CPython's tokenizer, so the tokens keep CPython's spans.
    let (stand_in, bad) = with_stand_ins(bytes);
    for token in lex(&stand_in) {
        let span = token.span.clone();
        if token.kind == TokenKind::Comment || !bad.iter().any(|&b| span.contains(&b)) {
            continue;
        }
        if let Some(body) = token.string_body() {
            let prefix = stand_in[span.start..token.quote_offset().unwrap_or(span.start)].to_ascii_lowercase();
            let line = super::error::line_at(&stand_in, span.end.saturating_sub(1).max(span.start));
            let message = if prefix.contains('b') {
                "bytes can only contain ASCII literal characters".to_string()
            } else {
                let body = &bytes[body];
                let whole = !prefix.contains('f') && (prefix.contains('r') || !body.contains(&b'\\'));
                let error = if whole { utf8_error(body) } else { run_error(body) };
                format!("(unicode error) {}", error.unwrap_or_default())
            };
            return SourceText::Error { message, line };
        }
        let first_bad = bad.iter().copied().find(|b| span.contains(b)).unwrap_or(span.start);
        let run = identifier_run(bytes, first_bad);
        let line = super::error::line_at(&stand_in, first_bad);
        let message = format!("(unicode error) {}", utf8_error(&bytes[run]).unwrap_or_default());
        return SourceText::Error { message, line };
    }
    SourceText::Text(String::from_utf8_lossy(bytes).into_owned())
}

/// `bytes` with every byte of a sequence that is not UTF-8 replaced by `x`, and where they were.
fn with_stand_ins(bytes: &[u8]) -> (String, Vec<usize>) {
    let mut out = Vec::with_capacity(bytes.len());
    let mut bad = Vec::new();
    let mut rest = bytes;
    let mut at = 0;
    loop {
        match std::str::from_utf8(rest) {
            Ok(_) => {
                out.extend_from_slice(rest);
                break;
            }
            Err(e) => {
                let good = e.valid_up_to();
                let len = e.error_len().unwrap_or(rest.len() - good);
                out.extend_from_slice(&rest[..good]);
                out.extend(std::iter::repeat_n(b'x', len));
                bad.extend(at + good..at + good + len);
                at += good + len;
                rest = &rest[good + len..];
            }
        }
    }
    (String::from_utf8(out).unwrap_or_default(), bad)
}

/// The identifier characters around `at` (ASCII letters, digits, `_`, any byte over 0x7F):
/// the token CPython's tokenizer decodes to check a name.
fn identifier_run(bytes: &[u8], at: usize) -> std::ops::Range<usize> {
    let ident = |b: u8| b.is_ascii_alphanumeric() || b == b'_' || b >= 0x80;
    let start = bytes[..at].iter().rposition(|&b| !ident(b)).map_or(0, |i| i + 1);
    let end = bytes[at..].iter().position(|&b| !ident(b)).map_or(bytes.len(), |i| at + i);
    start..end
}

/// The first run of bytes over 0x7F that is not UTF-8, as CPython's string decoder with
/// escapes decodes each such run on its own (positions counted from the run's start).
fn run_error(body: &[u8]) -> Option<String> {
    let mut i = 0;
    while i < body.len() {
        if body[i] < 0x80 {
            i += 1;
            continue;
        }
        let end = body[i..].iter().position(|&b| b < 0x80).map_or(body.len(), |n| i + n);
        if let Some(error) = utf8_error(&body[i..end]) {
            return Some(error);
        }
        i = end;
    }
    None
}

/// Python's `UnicodeDecodeError` text for `bytes.decode('utf-8')`, if it fails.
pub fn utf8_error(bytes: &[u8]) -> Option<String> {
    let e = std::str::from_utf8(bytes).err()?;
    let start = e.valid_up_to();
    let (end, reason) = match e.error_len() {
        None => (bytes.len(), "unexpected end of data"),
        Some(1) if matches!(bytes[start], 0x80..=0xC1 | 0xF5..=0xFF) => (start + 1, "invalid start byte"),
        Some(n) => (start + n, "invalid continuation byte"),
    };
    Some(if end - start == 1 {
        format!("'utf-8' codec can't decode byte 0x{:02x} in position {start}: {reason}", bytes[start])
    } else {
        format!("'utf-8' codec can't decode bytes in position {start}-{}: {reason}", end - 1)
    })
}

#[cfg(test)]
mod tests {
    //! Expected texts: CPython 3.11.7's `compile(source, "manifest.py", "exec")` of each
    //! byte string (3.10, 3.12 and 3.13 say the same message and line).
    use super::*;

    fn error(bytes: &[u8]) -> (String, usize) {
        match decode_source(bytes) {
            SourceText::Error { message, line } => (message, line),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn comments_may_hold_any_bytes() {
        assert_eq!(
            decode_source(b"# caf\xe9 backend\nmanifest = {}\n"),
            SourceText::Text("# caf\u{fffd} backend\nmanifest = {}\n".into())
        );
        assert!(matches!(decode_source(b"x = 1 # \xff\xfe\n"), SourceText::Text(_)));
        assert!(matches!(decode_source(b"# caf\xe9\n# coding: utf-8\n"), SourceText::Text(_)));
    }

    #[test]
    fn strings_and_names_that_are_not_utf8() {
        let ue = |m: &str| format!("(unicode error) 'utf-8' codec can't decode {m}");
        assert_eq!(error(b"x = \"caf\xe9\"\n"), (ue("byte 0xe9 in position 3: unexpected end of data"), 1));
        assert_eq!(error(b"x = caf\xe9\n"), (ue("byte 0xe9 in position 3: unexpected end of data"), 1));
        assert_eq!(error(b"x = 1 \xe9\n"), (ue("byte 0xe9 in position 0: unexpected end of data"), 1));
        assert_eq!(
            error(b"x = \"\"\"a\nb\xe9c\"\"\"\n"),
            (ue("byte 0xe9 in position 3: invalid continuation byte"), 2)
        );
        assert_eq!(error(b"x = \"\"\"a\xe9\nb\"\"\"\n"), (ue("byte 0xe9 in position 1: invalid continuation byte"), 2));
        assert_eq!(error(b"x = \"ab\\n\xe9\"\n"), (ue("byte 0xe9 in position 0: unexpected end of data"), 1));
        assert_eq!(error(b"x = r\"ab\xe9\"\n"), (ue("byte 0xe9 in position 2: unexpected end of data"), 1));
        assert_eq!(error(b"x = \"a\xe2\x82\"\n"), (ue("bytes in position 1-2: unexpected end of data"), 1));
        assert_eq!(error(b"x = \"a\xff\xfeb\"\n"), (ue("byte 0xff in position 1: invalid start byte"), 1));
        assert_eq!(error(b"x = \"\xe0\x80\"\n"), (ue("byte 0xe0 in position 0: invalid continuation byte"), 1));
        assert_eq!(error(b"x = \"\xc0\xaf\"\n"), (ue("byte 0xc0 in position 0: invalid start byte"), 1));
        assert_eq!(error(b"x = f\"a\xe9\"\n"), (ue("byte 0xe9 in position 0: unexpected end of data"), 1));
        assert_eq!(error(b"x = 1\n\xff = 2\n"), (ue("byte 0xff in position 0: invalid start byte"), 2));
        assert_eq!(error(b"x = [\n\"\xe9\",\n1 2]\n"), (ue("byte 0xe9 in position 0: unexpected end of data"), 2));
        assert_eq!(error(b"x = b\"caf\xe9\"\n"), ("bytes can only contain ASCII literal characters".into(), 1));
    }

    #[test]
    fn a_cookie_naming_no_codec_is_an_unknown_encoding() {
        // CPython 3.11.7: `compile(b"# -*- coding: ut8 -*-\\nx=1\\n", ...)` and friends.
        let error = |cookie: &str| match decode_source(format!("# -*- coding: {cookie} -*-\nx = 1\n").as_bytes()) {
            SourceText::Error { message, line: 0 } => Some(message),
            _ => None,
        };
        assert_eq!(error("ut8").as_deref(), Some("unknown encoding: ut8"));
        assert_eq!(error("utuf-8").as_deref(), Some("unknown encoding: utuf-8"));
        assert_eq!(error("latin.1").as_deref(), Some("unknown encoding: latin.1"));
        assert_eq!(error("cp-1252").as_deref(), Some("unknown encoding: cp-1252"));
        for known in ["UTF8", "u8", "euc--jp", "mac-roman", "x-mac-japanese", "Latin_1", "cp1252", "utf-8-sig"] {
            assert_eq!(error(known), None, "{known}");
        }
        // Other spellings of UTF-8 and Latin-1 decode as those codecs do.
        let text =
            |cookie: &str, body: &[u8]| decode_source(&[format!("# coding: {cookie}\n").as_bytes(), body].concat());
        assert_eq!(text("utf8", "x = 'é'\n".as_bytes()), SourceText::Text("# coding: utf8\nx = 'é'\n".into()));
        assert_eq!(text("latin1", b"x = '\xe9'\n"), SourceText::Text("# coding: latin1\nx = 'é'\n".into()));
    }

    /// A NUL byte is refused first (the real check-manifest on CPython 3.11.7: `source code
    /// string cannot contain null bytes` for a file whose cookie names no codec).
    #[test]
    fn a_nul_byte_comes_before_the_cookie_and_the_decoding() {
        for bytes in
            [&b"# -*- coding: utfu-8 -*-\nx = 1\0\n"[..], b"x = '\xe9'\0\n", b"\xef\xbb\xbf# coding: latin-1\n\0"]
        {
            assert!(matches!(decode_source(bytes), SourceText::Text(text) if text.contains('\0')), "{bytes:?}");
        }
    }

    #[test]
    fn coding_cookies_and_the_bom() {
        assert_eq!(
            decode_source(b"# -*- coding: latin-1 -*-\nx = \"caf\xe9\"\n"),
            SourceText::Text("# -*- coding: latin-1 -*-\nx = \"caf\u{e9}\"\n".into())
        );
        assert!(matches!(decode_source(b"\n# coding: latin-1\nx=\"\xe9\"\n"), SourceText::Text(_)));
        assert!(matches!(
            decode_source(b"#!/bin/sh\n# vim: set fileencoding=latin-1 :\nx=\"\xe9\"\n"),
            SourceText::Text(_)
        ));
        // A cookie on line 2 counts only after a blank or comment line.
        assert_eq!(
            error(b"x=1 \n# coding: latin-1\nx=\"\xe9\"\n"),
            ("(unicode error) 'utf-8' codec can't decode byte 0xe9 in position 0: unexpected end of data".into(), 3)
        );
        assert_eq!(error(b"\xef\xbb\xbf# coding: latin-1\nx=1\n"), ("encoding problem: iso-8859-1 with BOM".into(), 0));
        assert_eq!(
            error(b"# coding: ascii\n# \xe9\nx=1\n"),
            ("'ascii' codec can't decode byte 0xe9 in position 18: ordinal not in range(128)".into(), 0)
        );
        assert_eq!(decode_source(b"# coding: cp1252\nx=\"\x80\"\n"), SourceText::UnknownEncoding("cp1252".into()));
        assert!(matches!(decode_source(b"\xef\xbb\xbfx = 1\n"), SourceText::Text(t) if t == "\u{feff}x = 1\n"));
    }
}
