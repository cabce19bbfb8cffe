//! `hardware` and `resource_limits`.

use super::common::{is_positive_number, known_value, section, Out, Section};
use crate::codes::Code;
use crate::fix_data::{FixData, KeySection};
use crate::schema::schema;
use crate::value::{Dict, ValueKind};

pub(super) fn validate_hardware(out: &mut Out, manifest: &Dict) {
    let hardware = match section(manifest, "hardware") {
        Section::Known(v) => v,
        _ => return,
    };
    let ValueKind::Dict(hw) = &hardware.kind else {
        out.error(hardware.span.clone(), "'hardware' must be a dictionary".into(), Code::Type);
        return;
    };
    let s = schema();
    for entry in &hw.entries {
        let known = matches!(&entry.key.kind, ValueKind::Str(k) if s.hardware_keys.contains(k));
        if !known {
            out.error(
                entry.key.span.clone(),
                format!("Unknown hardware key '{}'", entry.key.py_str()),
                Code::UnknownKey,
            )
            .data = Some(FixData::UnknownKey { section: KeySection::Hardware, name: entry.key.py_str() });
        }
    }
    if let Some(v) = known_value(hw, "memory_model") {
        // `memory_model not in frozenset(...)` hashes the value; a set is looked up as the
        // frozenset of its elements (`set_contains`), which no str equals.
        if let (Err(t), false) = (v.hashable(), matches!(v.kind, ValueKind::Set(_))) {
            out.crash(v.span.clone(), "TypeError", &format!("unhashable type: '{t}'"));
            return;
        }
        let ok = match &v.kind {
            ValueKind::None => true,
            ValueKind::Str(m) => s.memory_models.contains(m),
            _ => false,
        };
        if !ok {
            out.error(
                v.span.clone(),
                "'hardware.memory_model' must be 'discrete' or 'unified'".into(),
                Code::EnumValue,
            );
        }
    }
    if let Some(v) = known_value(hw, "system_memory_gb") {
        let ok = matches!(&v.kind, ValueKind::None) || v.as_str() == Some("auto") || is_positive_number(v);
        if !ok {
            out.error(
                v.span.clone(),
                "'hardware.system_memory_gb' must be 'auto' or a positive number".into(),
                Code::Type,
            );
        }
    }
    if let Some(v) = known_value(hw, "device_memory_gb") {
        let ok = match &v.kind {
            ValueKind::None => true,
            ValueKind::Str(a) if a == "auto" => true,
            ValueKind::List(items) => {
                !items.is_empty() && items.iter().all(|i| i.is_unknown() || is_positive_number(i))
            }
            _ => false,
        };
        if !ok {
            out.error(
                v.span.clone(),
                "'hardware.device_memory_gb' must be 'auto' or a non-empty list of positive numbers".into(),
                Code::Type,
            );
        }
    }
    if let Some(v) = known_value(hw, "oom_recoverable") {
        if !matches!(v.kind, ValueKind::Bool(_)) {
            out.error(v.span.clone(), "'hardware.oom_recoverable' must be a boolean".into(), Code::Type);
        }
    }
}

pub(super) fn validate_resource_limits(out: &mut Out, manifest: &Dict) {
    let limits = match section(manifest, "resource_limits") {
        Section::Known(v) => v,
        _ => return,
    };
    let ValueKind::Dict(dict) = &limits.kind else {
        out.error(limits.span.clone(), "'resource_limits' must be a dictionary".into(), Code::Type);
        return;
    };
    let s = schema();
    for entry in &dict.entries {
        let key = entry.key.py_str();
        let known = matches!(&entry.key.kind, ValueKind::Str(k) if s.resource_limit_keys.contains(k));
        if !known {
            out.error(entry.key.span.clone(), format!("Unknown resource_limits key '{key}'"), Code::UnknownKey).data =
                Some(FixData::UnknownKey { section: KeySection::ResourceLimits, name: key.clone() });
            continue;
        }
        let v = &entry.value;
        if v.is_unknown() {
            continue;
        }
        if key == "cleanup_threshold_pct" {
            if !v.int_clamped().is_some_and(|i| (1..=100).contains(&i)) {
                out.error(
                    v.span.clone(),
                    "'resource_limits.cleanup_threshold_pct' must be an integer from 1 to 100".into(),
                    Code::Type,
                );
            }
        } else if !matches!(v.kind, ValueKind::None) && !is_positive_number(v) {
            out.error(v.span.clone(), format!("'resource_limits.{key}' must be null or a positive number"), Code::Type);
        }
    }
}
