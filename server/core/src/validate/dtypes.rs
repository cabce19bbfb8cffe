//! `supported_dtypes`: keys that name a dtype, values a boolean or a regex.

use super::common::{regex_finding, Out};
use crate::codes::Code;
use crate::fix_data::FixData;
use crate::schema::schema;
use crate::value::{Value, ValueKind};

pub(super) fn validate_supported_dtypes(out: &mut Out, value: &Value) {
    let ValueKind::Dict(dict) = &value.kind else {
        out.error(value.span.clone(), "'supported_dtypes' must be a dictionary".into(), Code::Type);
        return;
    };
    for entry in &dict.entries {
        let key = &entry.key;
        if dtype_from_manifest_key(key).is_none() {
            out.error(
                key.span.clone(),
                format!("Invalid supported_dtypes key {}", key.repr()),
                Code::InvalidDtypeKey,
            )
            .data = Some(FixData::InvalidDtypeKey { name: key.py_str() });
        }
        let v = &entry.value;
        match &v.kind {
            // Known by a type but `bool` and `str` (`sys.argv`): refused whatever it holds.
            ValueKind::Unknown(_) if v.known_type().is_none_or(|t| matches!(t, "bool" | "str")) => {}
            ValueKind::Str(pattern) => {
                let key_repr = key.repr();
                regex_finding(out, v, pattern, |exc| format!("supported_dtypes[{key_repr}] regex is invalid: {exc}"));
            }
            ValueKind::Bool(_) => {}
            _ => {
                out.error(
                    v.span.clone(),
                    format!("supported_dtypes[{}] must be a boolean or regex string", key.repr()),
                    Code::Type,
                );
            }
        }
    }
}

/// `dtype_from_manifest_key`: a torch dtype, or a string naming one.
pub fn dtype_from_manifest_key(key: &Value) -> Option<String> {
    match &key.kind {
        ValueKind::Dtype { canonical, .. } => Some(canonical.clone()),
        ValueKind::Str(s) => schema().dtype_from_string_key(s).map(|d| d.canonical.clone()),
        _ => None,
    }
}
