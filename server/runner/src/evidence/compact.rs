//! The compact format's decoding as torchcts's `decode_compact_result` does it (issue 35):
//! key tokens, `~` literal keys, `{"$": i}` string references, a key that decodes twice or a
//! reference out of range refusing the file; on trees (records, metadata, a whole small
//! file) and on streamed values checked without a tree (`skip_compact`).

use std::collections::{HashMap, HashSet};

use super::pyjson::{Json, Reader};

/// The largest single record, metadata or table string list kept as a tree: a real record
/// with a long traceback is some KB; more is damage, not evidence.
const MAX_VALUE_BYTES: u64 = 4 * 1024 * 1024;

/// How keys decode: as written (plain) or through the compact tables.
pub(crate) struct Tables {
    pub keys: Vec<Box<str>>,
    pub strings: Vec<Box<str>>,
    /// Per key token, which field of a record the index uses it is of its key): a record's keys are looked up here, not decoded and compared.
    pub fields: Vec<Option<u8>>,
}

impl Tables {
    /// `field_of`: which field of a record the index uses a key is (`artifact::field_index`).
    pub(crate) fn new(keys: Vec<Box<str>>, strings: Vec<Box<str>>, field_of: fn(&str) -> Option<usize>) -> Tables {
        let fields = keys.iter().map(|k| field_of(k).map(|i| i as u8)).collect();
        Tables { keys, strings, fields }
    }

    /// A record key's field when it is a token of the table (`Some(None)`: a field the index
    /// does not use); `None` when it is not a token of the table (`~` literal, `$`, anything
    /// else: the streaming reader decides what it means).
    #[inline]
    pub(crate) fn token_field(&self, raw: &str) -> Option<Option<u8>> {
        token_index(raw).and_then(|i| self.fields.get(i).copied())
    }

    pub(crate) fn key<'k>(&'k self, raw: &'k str) -> &'k str {
        match raw.strip_prefix('~') {
            Some(literal) => literal,
            None => token_index(raw).and_then(|i| self.keys.get(i)).map_or(raw, |k| &**k),
        }
    }
}

/// The index a key table token stands for (`token(i)`: base 62, digits then lower then
/// upper case, no leading zero), computed instead of looked up: every key of a compact file
/// goes through here.
pub(crate) fn token_index(raw: &str) -> Option<usize> {
    let bytes = raw.as_bytes();
    if bytes.is_empty() || bytes.len() > 6 || (bytes[0] == b'0' && bytes.len() > 1) {
        return None;
    }
    let mut index = 0usize;
    for &b in bytes {
        let digit = match b {
            b'0'..=b'9' => b - b'0',
            b'a'..=b'z' => b - b'a' + 10,
            b'A'..=b'Z' => b - b'A' + 36,
            _ => return None,
        };
        index = index * 62 + digit as usize;
    }
    Some(index)
}

pub(crate) fn key_of<'k>(tables: Option<&'k Tables>, raw: &'k str) -> &'k str {
    tables.map_or(raw, |t| t.key(raw))
}

/// A value as a tree, refused past [`MAX_VALUE_BYTES`].
pub(crate) fn read_bounded<R: std::io::Read>(reader: &mut Reader<R>) -> Result<Json, String> {
    reader.peek_token()?;
    let start = reader.offset();
    let value = reader.read_value(1)?;
    if reader.offset() - start > MAX_VALUE_BYTES {
        return Err(format!("a value of more than {MAX_VALUE_BYTES} bytes at byte {start}"));
    }
    Ok(value)
}

fn hash_of(s: &str) -> u64 {
    use std::hash::BuildHasher;
    foldhash::fast::FixedState::default().hash_one(s)
}

/// The keys of one compact object by (decoded, raw) hash, to find a key that decodes twice
/// (the loader refuses the file then): a few on the stack, a wide object (a `skips` map) in a
/// map. A 64-bit hash stands for the key: a collision could refuse a file the loader reads,
/// never the other way round.
pub(crate) struct KeySet<const N: usize> {
    few: [(u64, u64); N],
    len: usize,
    many: HashMap<u64, u64, foldhash::fast::RandomState>,
}

impl<const N: usize> KeySet<N> {
    pub(crate) fn new() -> KeySet<N> {
        KeySet { few: [(0, 0); N], len: 0, many: HashMap::default() }
    }

    /// Adds a key: `false` when its decoded form came before from another raw key.
    pub(crate) fn add(&mut self, raw: &str, decoded: &str) -> bool {
        let (d, r) = (hash_of(decoded), hash_of(raw));
        if self.many.is_empty() {
            if let Some((_, old)) = self.few[..self.len].iter().find(|(k, _)| *k == d) {
                return *old == r;
            }
            if self.len < self.few.len() {
                self.few[self.len] = (d, r);
                self.len += 1;
                return true;
            }
            self.many.extend(self.few.iter().copied());
        }
        self.many.insert(d, r).is_none_or(|old| old == r)
    }

    /// How many keys, a repeated one once.
    pub(crate) fn distinct(&self) -> usize {
        if self.many.is_empty() {
            self.len
        } else {
            self.many.len()
        }
    }
}

/// Checks a compact value as the loader decodes it (string references in range, no key
/// decoding twice) without keeping it.
pub(crate) fn skip_compact<R: std::io::Read>(
    reader: &mut Reader<R>,
    tables: &Tables,
    depth: usize,
) -> Result<(), String> {
    if depth > super::pyjson::MAX_DEPTH {
        return Err("nested too deeply".into());
    }
    match reader.peek_token()? {
        Some(b'{') => {
            reader.begin_object()?;
            // Small on the stack: this recurses.
            let mut keys = KeySet::<4>::new();
            let mut dollar = None;
            let mut first = true;
            while let Some(raw) = reader.next_key_ref(&mut first)? {
                if !keys.add(raw, tables.key(raw)) {
                    return Err(format!("compact result decodes duplicate key {:?}", tables.key(raw)));
                }
                if raw == "$" {
                    dollar = Some(read_bounded(reader)?);
                } else {
                    skip_compact(reader, tables, depth + 1)?;
                }
            }
            if let (Some(index), 1) = (dollar, keys.distinct()) {
                string_ref(&index, tables)?;
            }
            Ok(())
        }
        Some(b'[') => {
            // Arrays in skipped parts are small (lists of names); read and decode them.
            decode(read_bounded(reader)?, tables).map(drop)
        }
        _ => reader.skip_value(depth),
    }
}

/// The string `{"$": index}` stands for.
pub(crate) fn string_ref<'t>(index: &Json, tables: &'t Tables) -> Result<&'t str, String> {
    match index {
        Json::Int(i) if *i >= 0 && (*i as u64) < tables.strings.len() as u64 => Ok(&tables.strings[*i as usize]),
        Json::Int(_) | Json::BigInt(_) => Err("compact result string reference is out of range".into()),
        _ => Err("compact result string reference must be an integer".into()),
    }
}

/// `decode_compact_result`'s `decode` on a tree.
pub(crate) fn decode(value: Json, tables: &Tables) -> Result<Json, String> {
    Ok(match value {
        Json::Object(entries) => {
            if entries.len() == 1 && &*entries[0].0 == "$" {
                return string_ref(&entries[0].1, tables).map(|s| Json::Str(s.into()));
            }
            let mut out: Vec<(Box<str>, Json)> = Vec::with_capacity(entries.len());
            for (raw, item) in entries {
                let key = tables.key(&raw);
                if out.iter().any(|(k, _)| &**k == key) {
                    return Err(format!("compact result decodes duplicate key {key:?}"));
                }
                let key: Box<str> = key.into();
                out.push((key, decode(item, tables)?));
            }
            Json::Object(out)
        }
        Json::Array(items) => Json::Array(items.into_iter().map(|i| decode(i, tables)).collect::<Result<_, _>>()?),
        other => other,
    })
}

/// `decode_compact_result` on a whole compact object already read as a tree (a run's own
/// small `_latest.json`, `results.rs`).
pub(crate) fn expand_compact(object: Json) -> Result<Json, String> {
    let Json::Object(mut entries) = object else {
        return Err("result artifact must contain a JSON object".into());
    };
    let mut take = |k: &str| entries.iter().position(|(key, _)| &**key == k).map(|i| entries.swap_remove(i).1);
    if !take("format_version").is_some_and(|v| v.equals_one()) {
        return Err("unsupported compact result format version".into());
    }
    let strings = |v: Option<Json>, name: &str| -> Result<Vec<Box<str>>, String> {
        match v {
            Some(Json::Array(items)) => items
                .into_iter()
                .map(|i| match i {
                    Json::Str(s) => Ok(s),
                    _ => Err(format!("compact result {name} must contain strings")),
                })
                .collect(),
            _ => Err(format!("compact result {name} must contain strings")),
        }
    };
    let keys = strings(take("key_table"), "key_table")?;
    if keys.iter().collect::<HashSet<_>>().len() != keys.len() {
        return Err("compact result key_table contains duplicates".into());
    }
    let strings = strings(take("string_table"), "string_table")?;
    // A whole small file: no record is read field by field.
    let tables = Tables::new(keys, strings, |_| None);
    let payload = decode(take("payload").unwrap_or(Json::Null), &tables)?;
    if !matches!(payload, Json::Object(_)) {
        return Err("compact result payload must decode to an object".into());
    }
    Ok(payload)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// torchcts's `_token`.
    fn token(mut index: usize) -> String {
        const ALPHABET: &[u8] = b"0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";
        let mut out = Vec::new();
        loop {
            out.push(ALPHABET[index % 62]);
            index /= 62;
            if index == 0 {
                break;
            }
        }
        out.reverse();
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn token_indexes_are_torchcts_tokens() {
        for i in [0, 1, 9, 10, 35, 36, 61, 62, 63, 3843, 3844, 238_327, 1_000_000] {
            assert_eq!(token_index(&token(i)), Some(i), "{}", token(i));
        }
        for not_a_token in ["", "00", "01", "a-b", "~x", "\u{e9}", "ZZZZZZZ"] {
            assert_eq!(token_index(not_a_token), None, "{not_a_token}");
        }
    }
}
