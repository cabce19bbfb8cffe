//! JSON as torchcts reads it: `Path.read_text(encoding="utf-8")` then Python's `json.loads`,
//! read as a stream from a file (issue 35). torchcts writes with `json.dumps`, which emits
//! `NaN`, `Infinity` and `-Infinity` for non-finite floats (a failing record's `cosim` or
//! `maxerr`), so they are values here as there; a float beyond `f64` (`1e999`) is infinite,
//! not an error; an integer keeps Python's meaning (`-0` is the integer 0; beyond `i64`
//! it is [`Json::BigInt`], beyond 4,300 digits an error as `int()` raises one).
//!
//! Why not `accounting::ledger::json`: that one answers with CPython's error messages and
//! positions on a whole text held as chars (a ledger is small and its errors are shown to the
//! user); a results file may be 64 MiB and must be read without a value tree of the whole,
//! so this reader pulls values one at a time from a buffer of [`BUFFER`] bytes and the caller
//! decides what to keep ([`Reader::next_key`] streams an object, [`Reader::skip_value`]
//! checks a value without keeping it). Both follow the same grammar.
//!
//! Invariants: never panics on any input; nesting deeper than [`MAX_DEPTH`] is an error (as
//! Python's recursion limit is); every string is checked as UTF-8 (Python decodes the whole
//! file first); memory is the buffer, one string at a time, and what the caller keeps.

use std::io::{Read, Seek, SeekFrom};

/// Python's recursion limit leaves `json.loads` a little under 1,000 nested containers.
pub(crate) const MAX_DEPTH: usize = 900;
/// `sys.get_int_max_str_digits()` by default: `json.loads` raises on longer integers.
const MAX_INT_DIGITS: usize = 4300;
const BUFFER: usize = 64 * 1024;

pub(crate) use super::pyvalue::{insert_last_wins, Json};

/// A pull reader of one JSON text.
pub(crate) struct Reader<R> {
    inner: R,
    buf: Box<[u8]>,
    pos: usize,
    len: usize,
    /// Bytes of the input before `buf[0]`.
    base: u64,
    /// The last string read, as bytes.
    scratch: Vec<u8>,
    /// The last key read.
    key: String,
    /// The input gave its last byte (a read returned nothing): [`Reader::ahead`] stops asking.
    at_end: bool,
}

type Result<T> = std::result::Result<T, String>;

impl<R: Read> Reader<R> {
    pub(crate) fn new(inner: R) -> Reader<R> {
        Reader {
            inner,
            buf: vec![0; BUFFER].into_boxed_slice(),
            pos: 0,
            len: 0,
            base: 0,
            scratch: Vec::new(),
            key: String::new(),
            at_end: false,
        }
    }

    /// What the reader reads from.
    pub(crate) fn get_ref(&self) -> &R {
        &self.inner
    }

    /// The offset of the next byte to read.
    pub(crate) fn offset(&self) -> u64 {
        self.base + self.pos as u64
    }

    fn error(&self, what: &str) -> String {
        format!("invalid JSON at byte {}: {what}", self.offset())
    }

    fn fill(&mut self) -> Result<bool> {
        if self.pos < self.len {
            return Ok(true);
        }
        self.base += self.len as u64;
        self.pos = 0;
        self.len = 0;
        loop {
            match self.inner.read(&mut self.buf) {
                Ok(n) => {
                    self.len = n;
                    self.at_end = n == 0;
                    return Ok(n > 0);
                }
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(format!("cannot read: {e}")),
            }
        }
    }

    /// The bytes not read yet that the buffer holds, at least `want` of them (at most the
    /// buffer's size) unless the input ends first: the unread bytes move to the buffer's
    /// start and more are read after them. For a caller that scans a whole value in place
    /// (`fast.rs`) and then [`Reader::consume`]s it.
    pub(crate) fn ahead(&mut self, want: usize) -> Result<&[u8]> {
        if self.len - self.pos < want.min(BUFFER) && !self.at_end {
            self.buf.copy_within(self.pos..self.len, 0);
            self.base += self.pos as u64;
            self.len -= self.pos;
            self.pos = 0;
            while self.len < BUFFER {
                match self.inner.read(&mut self.buf[self.len..]) {
                    Ok(0) => {
                        self.at_end = true;
                        break;
                    }
                    Ok(n) => self.len += n,
                    Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                    Err(e) => return Err(format!("cannot read: {e}")),
                }
            }
        }
        Ok(&self.buf[self.pos..self.len])
    }

    /// Moves past `n` bytes of what [`Reader::ahead`] gave.
    pub(crate) fn consume(&mut self, n: usize) {
        self.pos = (self.pos + n).min(self.len);
    }

    #[inline]
    fn peek(&mut self) -> Result<Option<u8>> {
        if self.pos < self.len {
            return Ok(Some(self.buf[self.pos]));
        }
        Ok(if self.fill()? { Some(self.buf[self.pos]) } else { None })
    }

    fn next_byte(&mut self, what: &str) -> Result<u8> {
        match self.peek()? {
            Some(b) => {
                self.pos += 1;
                Ok(b)
            }
            None => Err(self.error(&format!("the file ends where {what} was expected (truncated?)"))),
        }
    }

    /// The next byte that is not whitespace (Python's: space, tab, `\n`, `\r`), not consumed.
    pub(crate) fn peek_token(&mut self) -> Result<Option<u8>> {
        while let Some(b) = self.peek()? {
            if !matches!(b, b' ' | b'\t' | b'\n' | b'\r') {
                return Ok(Some(b));
            }
            self.pos += 1;
        }
        Ok(None)
    }

    fn expect_token(&mut self, byte: u8, what: &str) -> Result<()> {
        match self.peek_token()? {
            Some(b) if b == byte => {
                self.pos += 1;
                Ok(())
            }
            Some(_) => Err(self.error(&format!("expected {what}"))),
            None => Err(self.error(&format!("the file ends where {what} was expected (truncated?)"))),
        }
    }

    /// Nothing but whitespace is left (Python: "Extra data" otherwise). A UTF-8 byte order
    /// mark is refused where the text starts, as `json.loads` refuses it.
    pub(crate) fn expect_end(&mut self) -> Result<()> {
        match self.peek_token()? {
            None => Ok(()),
            Some(_) => Err(self.error("extra data after the JSON value")),
        }
    }

    /// Starts an object (`{`); then [`Reader::next_key`] until `None`.
    pub(crate) fn begin_object(&mut self) -> Result<bool> {
        match self.peek_token()? {
            Some(b'{') => {
                self.pos += 1;
                Ok(true)
            }
            Some(0xEF) if self.offset() == 0 => Err(self.error("a UTF-8 byte order mark (Python's json refuses it)")),
            _ => Ok(false),
        }
    }

    /// The next key of the object being read (its value is next), or `None` at its end.
    pub(crate) fn next_key(&mut self, first: &mut bool) -> Result<Option<String>> {
        Ok(self.next_key_ref(first)?.map(str::to_string))
    }

    /// [`Reader::next_key`] without an allocation: the key lives until the next call.
    pub(crate) fn next_key_ref(&mut self, first: &mut bool) -> Result<Option<&str>> {
        match self.peek_token()? {
            Some(b'}') => {
                self.pos += 1;
                return Ok(None);
            }
            Some(b',') if !*first => self.pos += 1,
            Some(_) if *first => {}
            Some(_) => return Err(self.error("expected ',' or '}'")),
            None => return Err(self.error("the file ends inside an object (truncated?)")),
        }
        *first = false;
        if self.peek_token()? != Some(b'"') {
            return Err(self.error("expected a property name in double quotes"));
        }
        let mut key = std::mem::take(&mut self.key);
        key.clear();
        key.push_str(self.read_string()?);
        self.key = key;
        self.expect_token(b':', "':'")?;
        Ok(Some(&self.key))
    }

    /// A whole value as a tree (bounded by the input; callers use it for small parts).
    pub(crate) fn read_value(&mut self, depth: usize) -> Result<Json> {
        if depth > MAX_DEPTH {
            return Err(self.error("nested too deeply"));
        }
        match self.peek_token()? {
            Some(b'{') => {
                self.pos += 1;
                let mut entries: Vec<(Box<str>, Json)> = Vec::new();
                let mut first = true;
                while let Some(key) = self.next_key(&mut first)? {
                    let value = self.read_value(depth + 1)?;
                    insert_last_wins(&mut entries, key.into_boxed_str(), value);
                }
                Ok(Json::Object(entries))
            }
            Some(b'[') => {
                self.pos += 1;
                let mut items = Vec::new();
                if self.peek_token()? == Some(b']') {
                    self.pos += 1;
                    return Ok(Json::Array(items));
                }
                loop {
                    items.push(self.read_value(depth + 1)?);
                    match self.next_byte_token("',' or ']'")? {
                        b',' => continue,
                        b']' => return Ok(Json::Array(items)),
                        _ => return Err(self.error("expected ',' or ']'")),
                    }
                }
            }
            _ => self.read_scalar(),
        }
    }

    /// Checks a value (grammar, UTF-8, numbers) without keeping it.
    pub(crate) fn skip_value(&mut self, depth: usize) -> Result<()> {
        if depth > MAX_DEPTH {
            return Err(self.error("nested too deeply"));
        }
        match self.peek_token()? {
            Some(b'{') => {
                self.pos += 1;
                let mut first = true;
                while self.next_key(&mut first)?.is_some() {
                    self.skip_value(depth + 1)?;
                }
                Ok(())
            }
            Some(b'[') => {
                self.pos += 1;
                if self.peek_token()? == Some(b']') {
                    self.pos += 1;
                    return Ok(());
                }
                loop {
                    self.skip_value(depth + 1)?;
                    match self.next_byte_token("',' or ']'")? {
                        b',' => continue,
                        b']' => return Ok(()),
                        _ => return Err(self.error("expected ',' or ']'")),
                    }
                }
            }
            _ => self.read_scalar().map(drop),
        }
    }

    /// Skips one object or array following only its strings and brackets, unchecked, to find
    /// where it ends (a compact file's payload, before its tables are read): the caller parses
    /// it fully later and compares the end. Another value is skipped checked.
    pub(crate) fn skip_unchecked(&mut self) -> Result<()> {
        if !matches!(self.peek_token()?, Some(b'{' | b'[')) {
            return self.skip_value(1);
        }
        let mut depth = 0usize;
        let mut in_string = false;
        loop {
            if !self.fill()? {
                return Err(self.error("the file ends inside a value (truncated?)"));
            }
            if in_string {
                match memchr::memchr2(b'"', b'\\', &self.buf[self.pos..self.len]) {
                    None => self.pos = self.len,
                    Some(i) => {
                        self.pos += i + 1;
                        if self.buf[self.pos - 1] == b'"' {
                            in_string = false;
                        } else {
                            // The escaped byte (never a quote that ends the string).
                            self.next_byte("an escape")?;
                        }
                    }
                }
                continue;
            }
            // Outside strings: to the next structural byte of this buffer.
            while self.pos < self.len {
                let b = self.buf[self.pos];
                self.pos += 1;
                match b {
                    b'"' => {
                        in_string = true;
                        break;
                    }
                    b'{' | b'[' => depth += 1,
                    b'}' | b']' => {
                        depth = depth.saturating_sub(1);
                        if depth == 0 {
                            return Ok(());
                        }
                    }
                    _ => {}
                }
            }
        }
    }

    fn next_byte_token(&mut self, what: &str) -> Result<u8> {
        self.peek_token()?;
        self.next_byte(what)
    }

    fn read_scalar(&mut self) -> Result<Json> {
        match self.peek_token()? {
            Some(b'"') => Ok(Json::Str(self.read_string()?.into())),
            Some(b'n') => self.literal("null", Json::Null),
            Some(b't') => self.literal("true", Json::Bool(true)),
            Some(b'f') => self.literal("false", Json::Bool(false)),
            Some(b'N') => self.literal("NaN", Json::Float(f64::NAN)),
            Some(b'I') => self.literal("Infinity", Json::Float(f64::INFINITY)),
            Some(b'-' | b'0'..=b'9') => self.read_number(),
            Some(0xEF) if self.offset() == 0 => Err(self.error("a UTF-8 byte order mark (Python's json refuses it)")),
            Some(_) => Err(self.error("expected a value")),
            None => Err(self.error("the file ends where a value was expected (truncated?)")),
        }
    }

    fn literal(&mut self, word: &str, value: Json) -> Result<Json> {
        for &expected in word.as_bytes() {
            if self.peek()? != Some(expected) {
                return Err(self.error("expected a value"));
            }
            self.pos += 1;
        }
        Ok(value)
    }

    /// Python's `NUMBER_RE`: `-?(0|[1-9]\d*)(\.\d+)?([eE][-+]?\d+)?`, and `-Infinity`.
    fn read_number(&mut self) -> Result<Json> {
        self.scratch.clear();
        if self.peek()? == Some(b'-') {
            self.pos += 1;
            if self.peek()? == Some(b'I') {
                return self.literal("Infinity", Json::Float(f64::NEG_INFINITY));
            }
            self.scratch.push(b'-');
        }
        let digits = |r: &mut Self| -> Result<usize> {
            let mut n = 0;
            while let Some(b @ b'0'..=b'9') = r.peek()? {
                r.scratch.push(b);
                r.pos += 1;
                n += 1;
            }
            Ok(n)
        };
        match self.peek()? {
            Some(b'0') => {
                self.scratch.push(b'0');
                self.pos += 1;
            }
            Some(b'1'..=b'9') => {
                digits(self)?;
            }
            _ => return Err(self.error("expected a value")),
        }
        let mut float = false;
        if self.peek()? == Some(b'.') {
            // `1.` is the integer 1 followed by garbage in Python: its regex needs a digit.
            self.pos += 1;
            self.scratch.push(b'.');
            if digits(self)? == 0 {
                return Err(self.error("expected a digit after '.'"));
            }
            float = true;
        }
        if let Some(b'e' | b'E') = self.peek()? {
            self.pos += 1;
            self.scratch.push(b'e');
            if let Some(sign @ (b'+' | b'-')) = self.peek()? {
                self.pos += 1;
                self.scratch.push(sign);
            }
            if digits(self)? == 0 {
                return Err(self.error("expected a digit in the exponent"));
            }
            float = true;
        }
        // ASCII only: the bytes pushed above are digits, signs, '.' and 'e'.
        let text = std::str::from_utf8(&self.scratch).unwrap_or("");
        if float {
            // Rust's parse rounds as Python's float() does; beyond f64 it is infinite.
            return text.parse::<f64>().map(Json::Float).map_err(|_| self.error("bad number"));
        }
        let negative = text.starts_with('-');
        if text.len() - usize::from(negative) > MAX_INT_DIGITS {
            return Err(self.error("an integer of more than 4300 digits (Python's int() refuses it)"));
        }
        Ok(text.parse::<i64>().map_or(Json::BigInt(negative), Json::Int))
    }

    /// A string (the opening quote next), unescaped, checked as UTF-8 as Python's decoder
    /// and `strict` scanner check it: no raw control character, only JSON's escapes. A
    /// `\u` escape of a lone surrogate (Python keeps it) is U+FFFD here.
    pub(crate) fn read_string(&mut self) -> Result<&str> {
        self.pos += 1; // the opening quote
        self.scratch.clear();
        // The common case: no escape, the whole string in the buffer: checked in place.
        if let Some(run) = memchr::memchr2(b'"', b'\\', &self.buf[self.pos..self.len]) {
            let text = &self.buf[self.pos..self.pos + run];
            if self.buf[self.pos + run] == b'"' && !text.iter().any(|&b| b < 0x20) {
                let start = self.pos;
                self.pos += run + 1;
                return std::str::from_utf8(&self.buf[start..start + run])
                    .map_err(|_| format!("invalid UTF-8 before byte {}", self.offset()));
            }
        }
        loop {
            if !self.fill()? {
                return Err(self.error("the file ends inside a string (truncated?)"));
            }
            // The run of plain bytes up to a quote, a backslash or a control character.
            let chunk = &self.buf[self.pos..self.len];
            let run = chunk.iter().position(|&b| b == b'"' || b == b'\\' || b < 0x20).unwrap_or(chunk.len());
            self.scratch.extend_from_slice(&chunk[..run]);
            self.pos += run;
            if self.pos == self.len {
                continue;
            }
            match self.buf[self.pos] {
                b'"' => {
                    self.pos += 1;
                    break;
                }
                b'\\' => {
                    self.pos += 1;
                    self.escape()?;
                }
                _ => return Err(self.error("a control character inside a string")),
            }
        }
        std::str::from_utf8(&self.scratch).map_err(|_| format!("invalid UTF-8 before byte {}", self.offset()))
    }

    fn escape(&mut self) -> Result<()> {
        let simple = match self.next_byte("an escape")? {
            b'"' => b'"',
            b'\\' => b'\\',
            b'/' => b'/',
            b'b' => 0x08,
            b'f' => 0x0c,
            b'n' => b'\n',
            b'r' => b'\r',
            b't' => b'\t',
            b'u' => {
                let high = self.hex4()?;
                let mut c = high;
                if (0xD800..0xDC00).contains(&high) {
                    // A pair only when `\uDC00-\uDFFF` follows at once (Python's rule).
                    if self.peek()? == Some(b'\\') {
                        self.pos += 1;
                        if self.next_byte("an escape")? != b'u' {
                            // Not a pair: the backslash starts another escape.
                            self.push_char(0xFFFD);
                            self.pos -= 1;
                            return self.escape();
                        }
                        let low = self.hex4()?;
                        if (0xDC00..0xE000).contains(&low) {
                            c = 0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00);
                        } else {
                            self.push_char(0xFFFD);
                            self.push_char(low);
                            return Ok(());
                        }
                    }
                }
                self.push_char(c);
                return Ok(());
            }
            _ => return Err(self.error("an invalid escape in a string")),
        };
        self.scratch.push(simple);
        Ok(())
    }

    fn push_char(&mut self, code: u32) {
        let c = char::from_u32(code).unwrap_or('\u{FFFD}');
        let mut bytes = [0; 4];
        self.scratch.extend_from_slice(c.encode_utf8(&mut bytes).as_bytes());
    }

    fn hex4(&mut self) -> Result<u32> {
        let mut value = 0;
        for _ in 0..4 {
            let b = self.next_byte("a \\u escape")?;
            let digit = (b as char).to_digit(16).ok_or_else(|| self.error("an invalid \\u escape"))?;
            value = value * 16 + digit;
        }
        Ok(value)
    }
}

impl<R: Read + Seek> Reader<R> {
    /// Continues at `offset` (a position [`Reader::offset`] gave).
    pub(crate) fn seek(&mut self, offset: u64) -> Result<()> {
        self.inner.seek(SeekFrom::Start(offset)).map_err(|e| format!("cannot read: {e}"))?;
        self.base = offset;
        self.pos = 0;
        self.len = 0;
        self.at_end = false;
        Ok(())
    }
}

/// A whole text as one value (`json.loads`), for small files.
pub(crate) fn loads(bytes: &[u8]) -> Result<Json> {
    let mut reader = Reader::new(bytes);
    if reader.peek_token()? == Some(0xEF) {
        return Err(reader.error("a UTF-8 byte order mark (Python's json refuses it)"));
    }
    let value = reader.read_value(0)?;
    reader.expect_end()?;
    Ok(value)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn python_grammar() {
        // What `json.loads` accepts and `serde_json` refuses.
        assert_eq!(
            loads(b"[NaN, Infinity, -Infinity, 1e999, -0, -0.0]").map(|v| format!("{v:?}")).unwrap(),
            "Array([Float(NaN), Float(inf), Float(-inf), Float(inf), Int(0), Float(-0.0)])"
        );
        assert_eq!(loads(b"123456789012345678901234567890").unwrap(), Json::BigInt(false));
        assert_eq!(
            loads(br#"{"a": 1, "b": 2, "a": 3}"#).unwrap(),
            Json::Object(vec![("a".into(), Json::Int(3)), ("b".into(), Json::Int(2))])
        );
        assert_eq!(loads(br#""\ud83d\ude00 \u00e9""#).unwrap(), Json::Str("\u{1F600} \u{e9}".into()));
        assert_eq!(loads(br#""\ud800x""#).unwrap(), Json::Str("\u{FFFD}x".into()));
        // What it refuses.
        for bad in [
            &b"nan"[..],
            b"-NaN",
            b"01",
            b"1.",
            b".5",
            b"1e",
            b"[1,]",
            b"{\"a\":1,}",
            b"\"\x01\"",
            b"\"\\x\"",
            b"\"\xff\"",
            b"\xef\xbb\xbf{}",
            b"{} {}",
            b"{'a': 1}",
            b"[",
            b"\"abc",
        ] {
            assert!(loads(bad).is_err(), "{:?}", String::from_utf8_lossy(bad));
        }
        let long = format!("1{}", "0".repeat(4300));
        assert!(loads(long.as_bytes()).is_err());
        assert_eq!(loads(&long.as_bytes()[..4300]).unwrap(), Json::BigInt(false));
        let deep = format!("{}{}", "[".repeat(MAX_DEPTH + 2), "]".repeat(MAX_DEPTH + 2));
        assert!(loads(deep.as_bytes()).is_err());
    }

    #[test]
    fn strings_across_buffer_ends() {
        let text = format!("[\"{}\\n{}\"]", "é".repeat(BUFFER), "x".repeat(BUFFER));
        let Json::Array(items) = loads(text.as_bytes()).unwrap() else { panic!() };
        assert_eq!(items[0].as_str().unwrap().chars().count(), 2 * BUFFER + 1);
    }
}
