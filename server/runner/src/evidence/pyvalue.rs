//! A JSON value with Python's meaning, as `pyjson.rs` reads it (issue 35): what a results
//! file's small parts (metadata, a record's kept fields, the tables) become.

/// A JSON value with Python's meaning. Objects keep their first key's position and the last
/// value of a repeated key, as a `dict` built by `json.loads` does.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Json {
    Null,
    Bool(bool),
    Int(i64),
    /// An integer beyond `i64` (its sign): never a valid index or version.
    BigInt(bool),
    Float(f64),
    Str(Box<str>),
    Array(Vec<Json>),
    Object(Vec<(Box<str>, Json)>),
}

impl Json {
    pub(crate) fn as_str(&self) -> Option<&str> {
        match self {
            Json::Str(s) => Some(s),
            _ => None,
        }
    }

    pub(crate) fn get(&self, key: &str) -> Option<&Json> {
        match self {
            Json::Object(entries) => entries.iter().find(|(k, _)| &**k == key).map(|(_, v)| v),
            _ => None,
        }
    }

    /// Python's `value == 1` (so `1`, `1.0` and `true` all are).
    pub(crate) fn equals_one(&self) -> bool {
        matches!(self, Json::Int(1) | Json::Bool(true)) || matches!(self, Json::Float(f) if *f == 1.0)
    }

    /// The type's name as Python would say it, for messages.
    pub(crate) fn kind(&self) -> &'static str {
        match self {
            Json::Null => "null",
            Json::Bool(_) => "a boolean",
            Json::Int(_) | Json::BigInt(_) => "an integer",
            Json::Float(_) => "a float",
            Json::Str(_) => "a string",
            Json::Array(_) => "a list",
            Json::Object(_) => "an object",
        }
    }

    /// As `serde_json` holds it: non-finite floats become `null` (JSON has no word for them).
    pub(crate) fn to_serde(&self) -> serde_json::Value {
        use serde_json::Value;
        match self {
            Json::Null => Value::Null,
            Json::Bool(b) => Value::Bool(*b),
            Json::Int(i) => Value::from(*i),
            Json::BigInt(_) => Value::Null,
            Json::Float(f) => serde_json::Number::from_f64(*f).map_or(Value::Null, Value::Number),
            Json::Str(s) => Value::String(s.to_string()),
            Json::Array(items) => Value::Array(items.iter().map(Json::to_serde).collect()),
            Json::Object(entries) => {
                Value::Object(entries.iter().map(|(k, v)| (k.to_string(), v.to_serde())).collect())
            }
        }
    }
}

/// Inserts with `dict` semantics: a repeated key replaces the value in its first position.
pub(crate) fn insert_last_wins(entries: &mut Vec<(Box<str>, Json)>, key: Box<str>, value: Json) {
    match entries.iter_mut().find(|(k, _)| *k == key) {
        Some(slot) => slot.1 = value,
        None => entries.push((key, value)),
    }
}
