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
//! taken here is one the streaming reader takes, as the same [`Record`]
//! (`tests::scanned_records_are_the_streamed_ones` checks it on damaged and hostile records).
//!
//! Why a compact record needs no check of keys decoding twice here: its keys are all tokens
//! of the table (else `None`), distinct tokens are distinct entries, and the table has no
//! duplicates (checked when read); a token repeated is one `dict` key, its last value kept.

use super::artifact::{field_index, status_of, Record};
use super::compact::{token_index, Tables};

/// Nesting inside a record taken here; deeper goes to the streaming reader (which allows
/// Python's limit).
const MAX_DEPTH: usize = 32;

/// A number longer than this goes to the streaming reader (Python refuses integers of more
/// than 4,300 digits).
const MAX_NUMBER_BYTES: usize = 64;

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
/// documentation); `tables`: a compact file's.
pub(crate) fn record<'a>(bytes: &'a [u8], tables: Option<&'a Tables>) -> Option<(usize, Record)> {
    let mut scan = Scan { bytes, at: 0 };
    scan.expect(b'{')?;
    let mut fields: [Option<Value<'a>>; 6] = [None; 6];
    loop {
        // An escaped key (it could spell a field's name) or no key (`{}`): the reader's.
        let key = scan.string()??;
        scan.expect(b':')?;
        let field = match tables {
            Some(t) => t.token_field(key)?.map(usize::from),
            None => field_index(key),
        };
        let value = scan.value(tables, 1)?;
        if let Some(i) = field {
            fields[i] = Some(value);
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
    let status = status_of(status)?;
    let mut kept = [None; 5];
    for (slot, value) in kept.iter_mut().zip(texts) {
        *slot = match value {
            Some(Value::Text(text)) => Some(text),
            Some(Value::Escaped) => return None,
            Some(Value::Other) | None => None,
        };
    }
    Some((scan.at, Record::new(status, kept)))
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::evidence::artifact::read_record;
    use crate::evidence::pyjson::Reader;

    /// A key table whose tokens `0`-`9` stand for the fields the index uses and some others.
    fn tables() -> Tables {
        let keys = [
            "status",
            "error_message",
            "op",
            "dtype",
            "last_tested",
            "skip_reason",
            "cosim",
            "shapes",
            "semantic_level_selection",
            "mode",
        ];
        let strings = ["PASS", "float32", "a long\nmessage", "\u{e9}t\u{e9}"];
        Tables::new(keys.map(Box::from).to_vec(), strings.map(Box::from).to_vec())
    }

    const COMPACT: [&str; 3] = [
        r#"{"0":"PASS","1":null,"2":{"$":1},"3":"torch.float32","4":"2026-11-30T16:24:12.093778Z","6":NaN,"7":[[2,3],[4]],"8":{"9":{"$":3},"0":-1.5e-3},"5":null}"#,
        r#"{ "0" : "FAIL" , "1" : {"$":2}, "6": -Infinity, "7": [], "8": {}, "9": "\u00e9t\u00e9", "5": 1E+2 }"#,
        r#"{"0":{"$":0},"1":"RuntimeError: x\nTraceback","2":"add","3":{"$":3},"4":true}"#,
    ];

    const PLAIN: [&str; 3] = [
        r#"{"status":"PASS","error_message":null,"op":"add","dtype":"torch.float32","last_tested":"2026-11-30T16:24:12Z","cosim":Infinity,"shapes":[[1,2]],"nested":{"$":3,"x":"é"},"status":"SKIP"}"#,
        r#"{"status":"ERROR","skip_reason":"no\tsamples","op":"\u00e9","error_message":"  \n first line \n second","dtype":0}"#,
        "{\"status\":\"FAIL\",\r\n\t\"op\": \"\u{e9}\u{1F600}\", \"x\": [0, -0, 0.5, 10e-3, null, false]}",
    ];

    /// The streaming reader's reading of the record at the start of `text`, and where it ended.
    fn streamed(text: &[u8], tables: Option<&Tables>) -> Option<(usize, Record)> {
        let mut reader = Reader::new(text);
        match read_record(&mut reader, tables) {
            Ok(Ok(record)) => Some((reader.offset() as usize, record)),
            _ => None,
        }
    }

    /// Every record this scan takes, the streaming reader takes the same, to the same byte:
    /// on the records above and on each of them cut at every byte, and with one byte
    /// replaced by or inserted as a byte that matters to JSON at every position.
    #[test]
    fn scanned_records_are_the_streamed_ones() {
        let tables = tables();
        let bytes_that_matter = b"\"\\{}[],:0-1.eEnNI$~ \t\x01\x1f\x7f\xc3\xff";
        let mut taken = 0;
        let mut checked = 0;
        let cases = COMPACT.iter().map(|r| (r, Some(&tables))).chain(PLAIN.iter().map(|r| (r, None)));
        for (base, tables) in cases {
            let base = base.as_bytes();
            let mut variants = vec![base.to_vec()];
            for at in 0..base.len() {
                variants.push(base[..at].to_vec());
                for &b in bytes_that_matter {
                    let mut replaced = base.to_vec();
                    replaced[at] = b;
                    variants.push(replaced);
                    let mut inserted = base.to_vec();
                    inserted.insert(at, b);
                    variants.push(inserted);
                }
            }
            for variant in &variants {
                checked += 1;
                if let Some(scanned) = record(variant, tables) {
                    taken += 1;
                    assert_eq!(
                        Some(&scanned),
                        streamed(variant, tables).as_ref(),
                        "{}",
                        String::from_utf8_lossy(variant)
                    );
                }
            }
        }
        // The scan takes the common records, not only a few.
        for (base, tables) in
            [(COMPACT[0], Some(&tables)), (COMPACT[1], Some(&tables)), (PLAIN[0], None), (PLAIN[2], None)]
        {
            assert!(record(base.as_bytes(), tables).is_some(), "{base}");
        }
        assert!(taken > checked / 10, "{taken} of {checked}");
    }

    #[test]
    fn what_needs_the_streaming_reader_is_left_to_it() {
        let tables = tables();
        for (text, tables) in [
            // An escape in a field kept; a key that is not a token; `$` beside other keys; a
            // status that is not torchcts's; a number too long to judge here.
            (COMPACT[2], Some(&tables)),
            (r#"{"0":"PASS","~op":"x"}"#, Some(&tables)),
            (r#"{"0":"PASS","z":"x"}"#, Some(&tables)),
            (r#"{"0":"PASS","8":{"$":1,"0":2}}"#, Some(&tables)),
            (r#"{"0":"PASS","8":{"$":4}}"#, Some(&tables)),
            (r#"{"0":"PASS","8":{"$":-0}}"#, Some(&tables)),
            (r#"{"$":0}"#, Some(&tables)),
            (r#"{"status":"Passed"}"#, None),
            (r#"{"status":null}"#, None),
            (r#"{"st\u0061tus":"PASS"}"#, None),
            (r#"{}"#, None),
        ] {
            assert_eq!(record(text.as_bytes(), tables), None, "{text}");
        }
        let long = format!(r#"{{"status":"PASS","x":1{}}}"#, "0".repeat(MAX_NUMBER_BYTES));
        assert_eq!(record(long.as_bytes(), None), None);
        let deep = format!(r#"{{"status":"PASS","x":{}{}}}"#, "[".repeat(MAX_DEPTH + 1), "]".repeat(MAX_DEPTH + 1));
        assert_eq!(record(deep.as_bytes(), None), None);
    }
}
