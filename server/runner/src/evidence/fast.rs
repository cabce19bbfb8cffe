//! A record read in place from the reader's buffer (issue 35: 64 real-size compact history
//! files under a second). A torchcts record is some 40 short keys and values (`null`, a
//! number, `{"$": 4}`), so through the streaming reader (`pyjson.rs`: a byte at a time, each
//! step a `Result`, each key copied and checked for decoding twice) the cost is per token,
//! not per byte. Here a record that lies whole in the buffer is scanned as a slice: every
//! value checked as the streaming reader checks it, the six fields the index uses taken in
//! place, the others only checked.
//!
//! The scan never refuses a file: whatever it does not settle for certain gives `None` (an
//! escape in a field it keeps, a compact key that is not a token of the table, a `$` beside
//! other keys, a number too long, a status that is not one of torchcts's four, nesting past
//! [`MAX_DEPTH`], a record that runs past the buffer, any grammar error), and the caller reads
//! the same record with the streaming reader from the same place, which decides. So a record
//! taken here is one the streaming reader takes, as the same record
//! (`artifact.rs`, `tests::scanned_records_are_the_streamed_ones`, checks it on damaged and
//! hostile records). What a record is, is the caller's (`field_of`, `build`): this module
//! knows JSON and the compact tables only.
//!
//! Why a compact record needs no check of keys decoding twice here: its keys are all tokens
//! of the table (else `None`), distinct tokens are distinct entries, and the table has no
//! duplicates (checked when read); a token repeated is one `dict` key, its last value kept.

use super::compact::{token_index, Tables};

/// Nesting inside a record taken here; deeper goes to the streaming reader (which allows
/// Python's limit).
pub(crate) const MAX_DEPTH: usize = 32;

/// A number longer than this goes to the streaming reader (Python refuses integers of more
/// than 4,300 digits).
pub(crate) const MAX_NUMBER_BYTES: usize = 64;

/// A value as the record's fields need it.
#[derive(Clone, Copy)]
enum Value<'a> {
    /// A string without escapes, or a compact string reference resolved.
    Text(&'a str),
    /// A string with escapes (checked, not unescaped).
    Escaped,
    /// Anything else.
    Other,
}

struct Scan<'a> {
    bytes: &'a [u8],
    at: usize,
}

/// The record at the start of `bytes` (its `{` first, after whitespace) and how many bytes
/// it took, when it lies whole in `bytes` and is a plain case (see the module's
/// documentation); `tables`: a compact file's. `field_of`: which of the six kept fields a
/// key is (the status first); `build`: the record of the status's text and the other five
/// fields' texts (a field that is no string is `None`), `None` to leave it to the streaming
/// reader.
pub(crate) fn record<'a, R>(
    bytes: &'a [u8],
    tables: Option<&'a Tables>,
    field_of: fn(&str) -> Option<usize>,
    build: impl FnOnce(&'a str, [Option<&'a str>; 7]) -> Option<R>,
) -> Option<(usize, R)> {
    let mut scan = Scan { bytes, at: 0 };
    scan.expect(b'{')?;
    // The status and the seven text fields of `field_index` (error .. failure_stage).
    let mut fields: [Option<Value<'a>>; 8] = [None; 8];
    loop {
        // An escaped key (it could spell a field's name) or no key (`{}`): the reader's.
        let key = scan.string()??;
        scan.expect(b':')?;
        let field = match tables {
            Some(t) => t.token_field(key)?.map(usize::from),
            None => field_of(key),
        };
        let value = scan.value(tables, 1)?;
        if let Some(slot) = field.and_then(|i| fields.get_mut(i)) {
            *slot = Some(value);
        }
        match scan.token()? {
            b',' => scan.at += 1,
            b'}' => {
                scan.at += 1;
                break;
            }
            _ => return None,
        }
    }
    let [status, texts @ ..] = fields;
    let Some(Value::Text(status)) = status else { return None };
    let mut kept = [None; 7];
    for (slot, value) in kept.iter_mut().zip(texts) {
        *slot = match value {
            Some(Value::Text(text)) => Some(text),
            Some(Value::Escaped) => return None,
            Some(Value::Other) | None => None,
        };
    }
    Some((scan.at, build(status, kept)?))
}

impl<'a> Scan<'a> {
    /// The next byte that is not whitespace (Python's four), not consumed.
    #[inline]
    fn token(&mut self) -> Option<u8> {
        while let Some(&b) = self.bytes.get(self.at) {
            if !matches!(b, b' ' | b'\t' | b'\n' | b'\r') {
                return Some(b);
            }
            self.at += 1;
        }
        None
    }

    #[inline]
    fn expect(&mut self, byte: u8) -> Option<()> {
        (self.token()? == byte).then(|| self.at += 1)
    }

    /// A string as the next token, checked as the streaming reader checks it (no raw control
    /// character, valid UTF-8, only JSON's escapes): its text when it has no escape,
    /// `Some(None)` when it has.
    fn string(&mut self) -> Option<Option<&'a str>> {
        self.expect(b'"')?;
        let bytes = self.bytes;
        let start = self.at;
        let mut at = start;
        let mut escaped = false;
        // A byte loop, not `memchr`: most strings of a record are a few bytes (a key token,
        // `PASS`), where a vector search costs more than it saves.
        loop {
            match *bytes.get(at)? {
                b'"' => break,
                b'\\' => {
                    escaped = true;
                    at += match *bytes.get(at + 1)? {
                        b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' => 2,
                        b'u' if bytes.get(at + 2..at + 6)?.iter().all(u8::is_ascii_hexdigit) => 6,
                        _ => return None,
                    };
                }
                0..=0x1f => return None,
                _ => at += 1,
            }
        }
        self.at = at + 1;
        // The raw bytes: an escape is ASCII and never splits a UTF-8 sequence.
        let raw = &bytes[start..at];
        let text = std::str::from_utf8(raw).ok()?;
        Some((!escaped).then_some(text))
    }

    /// `word` as the next bytes.
    #[inline]
    fn word(&mut self, word: &[u8]) -> Option<Value<'a>> {
        // Byte by byte: a slice comparison is a `memcmp` call, and `null` is most values.
        let here = self.bytes.get(self.at..self.at + word.len())?;
        here.iter().zip(word).all(|(a, b)| a == b).then(|| {
            self.at += word.len();
            Value::Other
        })
    }

    /// A number as Python's `NUMBER_RE` reads it (`-?(0|[1-9]\d*)(\.\d+)?([eE][-+]?\d+)?`), or
    /// `-Infinity`; its value when it is an integer from 0 to 10^18 written without a sign.
    fn number(&mut self) -> Option<Option<u64>> {
        let bytes = self.bytes;
        let start = self.at;
        let mut at = start;
        let digits = |at: &mut usize| {
            let from = *at;
            while bytes.get(*at).is_some_and(u8::is_ascii_digit) {
                *at += 1;
            }
            *at - from
        };
        if bytes.get(at) == Some(&b'-') {
            at += 1;
            if bytes.get(at..at + 8) == Some(b"Infinity") {
                self.at = at + 8;
                return Some(None);
            }
        }
        match bytes.get(at)? {
            b'0' => at += 1,
            b'1'..=b'9' => {
                digits(&mut at);
            }
            _ => return None,
        }
        let integer_end = at;
        if bytes.get(at) == Some(&b'.') {
            at += 1;
            if digits(&mut at) == 0 {
                return None;
            }
        }
        if matches!(bytes.get(at), Some(b'e' | b'E')) {
            at += 1;
            if matches!(bytes.get(at), Some(b'+' | b'-')) {
                at += 1;
            }
            if digits(&mut at) == 0 {
                return None;
            }
        }
        if at - start > MAX_NUMBER_BYTES {
            return None;
        }
        self.at = at;
        let plain = at == integer_end && bytes[start] != b'-' && at - start <= 18;
        Some(plain.then(|| bytes[start..at].iter().fold(0u64, |n, d| n * 10 + u64::from(d - b'0'))))
    }

    /// Any value, checked; a compact object's keys must be tokens of the table.
    fn value(&mut self, tables: Option<&'a Tables>, depth: usize) -> Option<Value<'a>> {
        if depth > MAX_DEPTH {
            return None;
        }
        match self.token()? {
            b'"' => Some(self.string()?.map_or(Value::Escaped, Value::Text)),
            b'{' => {
                self.at += 1;
                self.object(tables, depth)
            }
            b'[' => {
                self.at += 1;
                if self.token()? == b']' {
                    self.at += 1;
                    return Some(Value::Other);
                }
                loop {
                    self.value(tables, depth + 1)?;
                    match self.token()? {
                        b',' => self.at += 1,
                        b']' => {
                            self.at += 1;
                            return Some(Value::Other);
                        }
                        _ => return None,
                    }
                }
            }
            b'n' => self.word(b"null"),
            b't' => self.word(b"true"),
            b'f' => self.word(b"false"),
            b'N' => self.word(b"NaN"),
            b'I' => self.word(b"Infinity"),
            b'-' | b'0'..=b'9' => self.number().map(|_| Value::Other),
            _ => None,
        }
    }

    /// An object's members after its `{`. Compact: `{"$": i}` alone is the string `i` of the
    /// table (in range), other keys are tokens of the table.
    fn object(&mut self, tables: Option<&'a Tables>, depth: usize) -> Option<Value<'a>> {
        if self.token()? == b'}' {
            self.at += 1;
            return Some(Value::Other);
        }
        let mut first = true;
        loop {
            let key = self.string()?;
            self.expect(b':')?;
            if let Some(t) = tables {
                let key = key?;
                if key == "$" {
                    if !first {
                        return None;
                    }
                    if self.token()? == b'-' {
                        return None;
                    }
                    let index = self.number()??;
                    self.expect(b'}')?;
                    return t.strings.get(usize::try_from(index).ok()?).map(|s| Value::Text(s));
                }
                if token_index(key).is_none_or(|i| i >= t.keys.len()) {
                    return None;
                }
            }
            first = false;
            self.value(tables, depth + 1)?;
            match self.token()? {
                b',' => self.at += 1,
                b'}' => {
                    self.at += 1;
                    return Some(Value::Other);
                }
                _ => return None,
            }
        }
    }
}
