//! The top-level keys and the scalar settings: required and unknown keys,
//! `manifest_version`, `device_name`, `backend_import`, `device_count`, the seeds and sample
//! counts, `semantic_level`, `show_traceback`, and `skip_ops`.

use super::common::{known_value, Out};
use crate::codes::Code;
use crate::fix_data::{FixData, KeySection};
use crate::schema::schema;
use crate::value::{py_eq, Dict, Span, Value, ValueKind};

/// Required keys missing (a closed dict only: an open one may hold them) and unknown keys.
pub(super) fn keys(out: &mut Out, manifest: &Dict, manifest_span: &Span) {
    let s = schema();
    if !manifest.open {
        for key in &s.required_top_level_keys {
            if !manifest.contains(key) {
                out.error(manifest_span.clone(), format!("Missing required key '{key}'"), Code::MissingKey).data =
                    Some(FixData::MissingKey { key: key.clone() });
            }
        }
    }

    for entry in &manifest.entries {
        let known = matches!(&entry.key.kind, ValueKind::Str(k) if s.top_level_keys.contains(k));
        if !known {
            out.error(
                entry.key.span.clone(),
                format!("Unknown top-level manifest key '{}'", entry.key.py_str()),
                Code::UnknownKey,
            )
            .data = Some(FixData::UnknownKey { section: KeySection::TopLevel, name: entry.key.py_str() });
        }
    }
}

pub(super) fn manifest_version(out: &mut Out, manifest: &Dict, manifest_span: &Span) {
    match manifest.get("manifest_version") {
        // The warning's f-string takes the repr, which raises for an int of over 4300 digits.
        Some(e) if e.value.exceeds_str_digits() => {
            out.crash(e.value.span.clone(), "ValueError", crate::value::STR_DIGITS_EXCEEDED)
        }
        // A value whose repr we cannot print exactly (a set in hash order, a bound method) is
        // not claimed; where nothing inside it was noted already, the user is told.
        Some(e) if e.value.is_unknown() => {}
        Some(e) if !e.value.repr_is_exact() => {
            let one = py_eq(&e.value, &Value::new(ValueKind::Int(1), 0..0)) == Some(true);
            if !one && !e.value.contains_unknown() {
                let message = "Not evaluated statically: check-manifest warns \"Unexpected manifest_version ...; expected 1\" with a repr only Python prints (an address, or a set's order)";
                out.not_evaluated(e.value.span.clone(), message.into());
            }
        }
        Some(e) if py_eq(&e.value, &Value::new(ValueKind::Int(1), 0..0)) != Some(true) => {
            out.warning(
                e.value.span.clone(),
                format!("Unexpected manifest_version {}; expected 1", e.value.repr()),
                Code::ManifestVersion,
            );
        }
        Some(_) => {}
        None if !manifest.open => {
            out.warning(
                manifest_span.clone(),
                "Unexpected manifest_version None; expected 1".into(),
                Code::ManifestVersion,
            );
        }
        None => {}
    }
}

/// `device_name`, `backend_import`, `device_count`, the seeds and sample counts.
pub(super) fn settings(out: &mut Out, manifest: &Dict) {
    if let Some(e) = known_value(manifest, "device_name") {
        if !matches!(e.kind, ValueKind::Str(_)) {
            out.error(e.span.clone(), "'device_name' must be a string".into(), Code::Type);
        }
    }
    if let Some(span) = of_another_type(manifest, "device_name", "str") {
        out.error(span, "'device_name' must be a string".into(), Code::Type);
    }
    if let Some(e) = known_value(manifest, "backend_import") {
        if !matches!(e.kind, ValueKind::Str(_) | ValueKind::None) {
            out.error(e.span.clone(), "'backend_import' must be null or a string".into(), Code::Type);
        }
    }
    if let Some(e) = known_value(manifest, "device_count") {
        if e.int_clamped().is_none_or(|i| i < 1) {
            out.error(e.span.clone(), "'device_count' must be a positive integer".into(), Code::Type);
        }
    }
    // A value known by its type only: any type but `int` is refused (a bool too).
    if let Some(span) = of_another_type(manifest, "device_count", "int") {
        out.error(span, "'device_count' must be a positive integer".into(), Code::Type);
    }
    for key in ["ieee754_seed", "max_samples", "max_samples_ieee754"] {
        if let Some(e) = known_value(manifest, key) {
            if e.int_clamped().is_none_or(|i| i < 0) {
                out.error(e.span.clone(), format!("'{key}' must be a non-negative integer"), Code::Type);
            }
        }
        if let Some(span) = of_another_type(manifest, key, "int") {
            out.error(span, format!("'{key}' must be a non-negative integer"), Code::Type);
        }
    }
}

pub(super) fn semantic_level(out: &mut Out, manifest: &Dict) {
    let s = schema();
    if let Some(e) = known_value(manifest, "semantic_level") {
        let (min, max) = (s.semantic_levels.min, s.semantic_levels.max);
        match e.int_clamped() {
            Some(i) if (min as i128..=max as i128).contains(&i) => {}
            Some(_) => {
                out.error(e.span.clone(), format!("semantic_level must be from {min} to {max}"), Code::SemanticLevel);
            }
            _ => {
                out.error(
                    e.span.clone(),
                    format!("semantic_level must be an integer from {min} to {max}"),
                    Code::SemanticLevel,
                );
            }
        }
    }
    // Known by a type but `int` (`x is y`, a bool): no integer, whatever the value.
    if let Some(span) = of_another_type(manifest, "semantic_level", "int") {
        let (min, max) = (s.semantic_levels.min, s.semantic_levels.max);
        out.error(span, format!("semantic_level must be an integer from {min} to {max}"), Code::SemanticLevel);
    }
}

pub(super) fn show_traceback(out: &mut Out, manifest: &Dict) {
    if let Some(e) = known_value(manifest, "show_traceback") {
        if !matches!(e.kind, ValueKind::Bool(_)) {
            out.error(e.span.clone(), "'show_traceback' must be a boolean".into(), Code::Type);
        }
    }
    if let Some(span) = of_another_type(manifest, "show_traceback", "bool") {
        out.error(span, "'show_traceback' must be a boolean".into(), Code::Type);
    }
}

pub(super) fn skip_ops(out: &mut Out, manifest: &Dict) {
    if let Some(e) = known_value(manifest, "skip_ops") {
        let ok = match &e.kind {
            ValueKind::List(items) => items.iter().all(|i| matches!(i.kind, ValueKind::Str(_) | ValueKind::Unknown(_))),
            _ => false,
        };
        if !ok {
            out.error(e.span.clone(), "'skip_ops' must be a list of strings".into(), Code::Type);
        }
    }
}

/// The span of a top-level value not known but by its type, where that type is not
/// `accepted` (`sys.argv != x`, a bool, as an int key): the rules a type alone decides.
fn of_another_type(manifest: &Dict, key: &str, accepted: &str) -> Option<crate::value::Span> {
    let value = &manifest.get(key)?.value;
    let type_name = value.known_type().filter(|_| value.is_unknown())?;
    (type_name != accepted).then(|| value.span.clone())
}
