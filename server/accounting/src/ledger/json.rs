//! `json.loads` as torchcts reads a ledger: `Path.read_text` (universal newlines), then
//! CPython 3.11's C scanner, with its error messages and positions
//! (`Expecting ',' delimiter: line 3 column 5 (char 40)`). Values are [`PyValue`]s: JSON
//! objects keep their first key's position and the last value, ints beyond `i64` keep
//! their digits (`PyValue::Other`).

use crate::facts::PyValue;

/// Python's recursion limit leaves torchcts a little under 1,000 nested containers; the
/// exact depth depends on the stack at the call, so deeper files are refused with
/// CPython's message at this depth.
const MAX_DEPTH: usize = 900;
/// `sys.get_int_max_str_digits()` by default.
const MAX_INT_DIGITS: usize = 4300;

/// Why the text is no JSON: `message` is Python's exception text; `position` the char
/// offset it names (in the newline-translated text), `None` when it names none.
#[derive(Debug, Clone, PartialEq)]
pub struct JsonError {
    pub message: String,
    pub position: Option<usize>,
    /// A `json.JSONDecodeError` (torchcts reports it as `malformed JSON: ...` on the
    /// file); else another exception (no path in torchcts' message).
    pub decode_error: bool,
}

/// `open(..., newline=None).read()`: `\r\n` and lone `\r` become `\n`.
pub fn universal_newlines(text: &str) -> String {
    text.replace("\r\n", "\n").replace('\r', "\n")
}

/// The byte offset in `original` of char `position` of its newline-translated text.
pub fn original_offset(original: &str, position: usize) -> usize {
    let mut chars = 0;
    let mut iter = original.char_indices().peekable();
    while let Some((offset, c)) = iter.next() {
        if chars == position {
            return offset;
        }
        if c == '\r' && matches!(iter.peek(), Some((_, '\n'))) {
            iter.next();
        }
        chars += 1;
    }
    original.len()
}

/// `json.loads(text)` where `text` is already newline-translated.
pub fn loads(text: &str) -> Result<PyValue, JsonError> {
    if text.starts_with('\u{feff}') {
        return Err(decode_error(text, "Unexpected UTF-8 BOM (decode using utf-8-sig)", 0));
    }
    let chars: Vec<char> = text.chars().collect();
    let mut scanner = Scanner { s: &chars, text, depth: 0 };
    let start = scanner.skip_ws(0);
    let (value, end) = scanner.scan_once(start)?;
    let end = scanner.skip_ws(end);
    if end != chars.len() {
        return Err(decode_error(text, "Extra data", end));
    }
    Ok(value)
}

/// `json.JSONDecodeError`'s text: `pos - doc.rfind('\n', 0, pos)` is the column.
fn decode_error(text: &str, message: &str, position: usize) -> JsonError {
    let (mut line, mut last_newline) = (1, -1i64);
    for (k, c) in text.chars().take(position).enumerate() {
        if c == '\n' {
            line += 1;
            last_newline = k as i64;
        }
    }
    let column = position as i64 - last_newline;
    JsonError {
        message: format!("{message}: line {line} column {column} (char {position})"),
        position: Some(position),
        decode_error: true,
    }
}

struct Scanner<'a> {
    s: &'a [char],
    text: &'a str,
    depth: usize,
}

/// `StopIteration(idx)`: no value starts at `idx` (`Expecting value`).
type Scan<T> = Result<T, JsonError>;

impl Scanner<'_> {
    fn at(&self, i: usize) -> Option<char> {
        self.s.get(i).copied()
    }
    fn skip_ws(&self, mut i: usize) -> usize {
        while matches!(self.at(i), Some(' ' | '\t' | '\n' | '\r')) {
            i += 1;
        }
        i
    }
    fn err(&self, message: &str, position: usize) -> JsonError {
        decode_error(self.text, message, position)
    }
    fn literal(&self, i: usize, word: &str) -> bool {
        let n = word.chars().count();
        // The C scanner wants the whole word inside the text (`idx + n - 1 < length`).
        i + n <= self.s.len() && self.s[i..i + n].iter().copied().eq(word.chars())
    }

    fn scan_once(&mut self, i: usize) -> Scan<(PyValue, usize)> {
        let Some(c) = self.at(i) else { return Err(self.err("Expecting value", i)) };
        match c {
            '"' => return self.string(i + 1).map(|(s, end)| (PyValue::Str(s), end)),
            '{' | '[' => {
                if self.depth >= MAX_DEPTH {
                    let what = if c == '{' { "object" } else { "array" };
                    return Err(JsonError {
                        message: format!(
                            "maximum recursion depth exceeded while decoding a JSON {what} from a unicode string"
                        ),
                        position: Some(i),
                        decode_error: false,
                    });
                }
                self.depth += 1;
                let out = if c == '{' { self.object(i + 1) } else { self.array(i + 1) };
                self.depth -= 1;
                return out;
            }
            'n' if self.literal(i, "null") => return Ok((PyValue::None, i + 4)),
            't' if self.literal(i, "true") => return Ok((PyValue::Bool(true), i + 4)),
            'f' if self.literal(i, "false") => return Ok((PyValue::Bool(false), i + 5)),
            'N' if self.literal(i, "NaN") => return Ok((PyValue::Float(f64::NAN), i + 3)),
            'I' if self.literal(i, "Infinity") => return Ok((PyValue::Float(f64::INFINITY), i + 8)),
            '-' if self.literal(i, "-Infinity") => return Ok((PyValue::Float(f64::NEG_INFINITY), i + 9)),
            _ => {}
        }
        self.number(i)
    }

    fn number(&self, start: usize) -> Scan<(PyValue, usize)> {
        let digit = |i: usize| matches!(self.at(i), Some('0'..='9'));
        let mut i = start;
        if self.at(i) == Some('-') {
            i += 1;
            if i >= self.s.len() {
                return Err(self.err("Expecting value", start));
            }
        }
        match self.at(i) {
            Some('1'..='9') => {
                i += 1;
                while digit(i) {
                    i += 1;
                }
            }
            Some('0') => i += 1,
            _ => return Err(self.err("Expecting value", start)),
        }
        let mut is_float = false;
        if self.at(i) == Some('.') && digit(i + 1) {
            is_float = true;
            i += 2;
            while digit(i) {
                i += 1;
            }
        }
        if matches!(self.at(i), Some('e' | 'E')) && i + 1 < self.s.len() {
            let e_start = i;
            i += 1;
            if matches!(self.at(i), Some('-' | '+')) && i + 1 < self.s.len() {
                i += 1;
            }
            while digit(i) {
                i += 1;
            }
            if digit(i - 1) {
                is_float = true;
            } else {
                i = e_start;
            }
        }
        let text: String = self.s[start..i].iter().collect();
        if is_float {
            let value = text.parse::<f64>().unwrap_or(f64::NAN);
            return Ok((PyValue::Float(value), i));
        }
        let digits = text.trim_start_matches('-').len();
        if digits > MAX_INT_DIGITS {
            return Err(JsonError {
                message: format!(
                    "Exceeds the limit ({MAX_INT_DIGITS} digits) for integer string conversion: value has {digits} digits; use sys.set_int_max_str_digits() to increase the limit"
                ),
                position: Some(start),
                decode_error: false,
            });
        }
        let value = match text.parse::<i64>() {
            Ok(n) => PyValue::Int(n),
            Err(_) => PyValue::Other(if text == "-0" { "0".into() } else { text }),
        };
        Ok((value, i))
    }

    /// `scanstring` (strict): `i` is just after the opening quote.
    fn string(&self, i: usize) -> Scan<(String, usize)> {
        let begin = i - 1;
        let mut out = String::new();
        let mut end = i;
        loop {
            let mut next = end;
            let mut c = None;
            while let Some(d) = self.at(next) {
                if d == '"' || d == '\\' {
                    c = Some(d);
                    break;
                }
                if (d as u32) <= 0x1f {
                    return Err(self.err("Invalid control character at", next));
                }
                next += 1;
            }
            let Some(c) = c else { return Err(self.err("Unterminated string starting at", begin)) };
            out.extend(&self.s[end..next]);
            if c == '"' {
                return Ok((out, next + 1));
            }
            next += 1;
            let Some(escape) = self.at(next) else {
                return Err(self.err("Unterminated string starting at", begin));
            };
            if escape != 'u' {
                end = next + 1;
                let decoded = match escape {
                    '"' => '"',
                    '\\' => '\\',
                    '/' => '/',
                    'b' => '\u{8}',
                    'f' => '\u{c}',
                    'n' => '\n',
                    'r' => '\r',
                    't' => '\t',
                    _ => return Err(self.err("Invalid \\escape", end - 2)),
                };
                out.push(decoded);
                continue;
            }
            next += 1;
            end = next + 4;
            if end >= self.s.len() {
                return Err(self.err("Invalid \\uXXXX escape", next - 1));
            }
            let Some(mut code) = self.hex4(next) else { return Err(self.err("Invalid \\uXXXX escape", end - 5)) };
            if (0xD800..0xDC00).contains(&code)
                && end + 6 < self.s.len()
                && self.at(end) == Some('\\')
                && self.at(end + 1) == Some('u')
            {
                let Some(low) = self.hex4(end + 2) else {
                    return Err(self.err("Invalid \\uXXXX escape", end + 1));
                };
                if (0xDC00..0xE000).contains(&low) {
                    code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00);
                    end += 6;
                }
            }
            // A lone surrogate is a Python str but no Rust char: it stands as U+FFFD.
            out.push(char::from_u32(code).unwrap_or('\u{fffd}'));
        }
    }

    fn hex4(&self, i: usize) -> Option<u32> {
        (i..i + 4).try_fold(0u32, |acc, j| self.at(j)?.to_digit(16).map(|d| acc * 16 + d))
    }

    fn object(&mut self, i: usize) -> Scan<(PyValue, usize)> {
        let mut pairs: Vec<(PyValue, PyValue)> = Vec::new();
        let mut i = self.skip_ws(i);
        if self.at(i) != Some('}') {
            loop {
                if self.at(i) != Some('"') {
                    return Err(self.err("Expecting property name enclosed in double quotes", i));
                }
                let (key, next) = self.string(i + 1)?;
                i = self.skip_ws(next);
                if self.at(i) != Some(':') {
                    return Err(self.err("Expecting ':' delimiter", i));
                }
                i = self.skip_ws(i + 1);
                let (value, next) = self.scan_once(i)?;
                match pairs.iter_mut().find(|(k, _)| matches!(k, PyValue::Str(s) if *s == key)) {
                    Some(pair) => pair.1 = value,
                    None => pairs.push((PyValue::Str(key), value)),
                }
                i = self.skip_ws(next);
                if self.at(i) == Some('}') {
                    break;
                }
                if self.at(i) != Some(',') {
                    return Err(self.err("Expecting ',' delimiter", i));
                }
                i = self.skip_ws(i + 1);
            }
        }
        Ok((PyValue::Dict(pairs), i + 1))
    }

    fn array(&mut self, i: usize) -> Scan<(PyValue, usize)> {
        let mut items = Vec::new();
        let mut i = self.skip_ws(i);
        if self.at(i) != Some(']') {
            loop {
                let (value, next) = self.scan_once(i)?;
                items.push(value);
                i = self.skip_ws(next);
                if self.at(i) == Some(']') {
                    break;
                }
                if self.at(i) != Some(',') {
                    return Err(self.err("Expecting ',' delimiter", i));
                }
                i = self.skip_ws(i + 1);
            }
        }
        Ok((PyValue::List(items), i + 1))
    }
}
