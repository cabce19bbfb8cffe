//! `supported_container_formats`, `custom_container_decoders` and the capability they
//! need (`quantized_decoders.py`).

use super::common::{section, validate_bool_map, Out, Section};
use crate::codes::Code;
use crate::fix_data::{FixData, KeySection};
use crate::schema::schema;
use crate::value::{py_eq, Dict, Value, ValueKind};

pub(super) fn validate_quantized_sections(out: &mut Out, manifest: &Dict) {
    let s = schema();
    let formats = match section(manifest, "supported_container_formats") {
        Section::Known(v) => Some(v),
        Section::Missing => None,
        Section::Unknown => return,
    };
    if let Some(formats) = formats {
        if !matches!(formats.kind, ValueKind::Dict(_)) {
            out.error(formats.span.clone(), "'supported_container_formats' must be a dictionary".into(), Code::Type);
            return;
        }
        validate_bool_map(out, KeySection::SupportedContainerFormats, formats, Some(&s.container_formats), false);
    }
    let formats_dict = formats.and_then(Value::as_dict);

    let decoders = match section(manifest, "custom_container_decoders") {
        Section::Known(v) => Some(v),
        Section::Missing => None,
        Section::Unknown => return,
    };
    if let Some(d) = decoders {
        if !matches!(d.kind, ValueKind::Dict(_)) {
            out.error(d.span.clone(), "'custom_container_decoders' must be a dictionary".into(), Code::Type);
            return;
        }
    }
    let decoders_dict = decoders.and_then(Value::as_dict);
    if let Some(dd) = decoders_dict {
        validate_decoders(out, dd, formats_dict);
    }
    decoders_need_capability(out, manifest, decoders, decoders_dict);
}

/// Each `custom_container_decoders` entry: a known format, enabled in
/// `supported_container_formats`, with a valid `module:function` path.
fn validate_decoders(out: &mut Out, dd: &Dict, formats_dict: Option<&Dict>) {
    let s = schema();
    for entry in &dd.entries {
        let fmt = entry.key.py_str();
        let known = matches!(&entry.key.kind, ValueKind::Str(k) if s.container_formats.contains(k));
        if !known {
            out.error(
                entry.key.span.clone(),
                format!("Unknown custom_container_decoders key '{fmt}'"),
                Code::UnknownKey,
            )
            .data = Some(FixData::UnknownKey { section: KeySection::CustomContainerDecoders, name: fmt.clone() });
            continue;
        }
        // `formats.get(fmt, False)` truthiness.
        let enabled = match formats_dict {
            None => Some(false),
            Some(f) => match f.entries.iter().find(|e| py_eq(&e.key, &entry.key) == Some(true)) {
                Some(e) => e.value.truthy(),
                None if f.open => None,
                None => Some(false),
            },
        };
        if enabled == Some(false) {
            out.error(
                entry.key.span.clone(),
                format!("custom_container_decoders.{fmt} requires supported_container_formats.{fmt}=True"),
                Code::DecoderFormat,
            );
        }
        if entry.value.is_unknown() {
            continue;
        }
        if let Some(err) = validate_decoder_spec(&entry.value) {
            out.error(
                entry.value.span.clone(),
                format!("Invalid custom_container_decoders.{fmt}: {err}"),
                Code::DecoderSpec,
            );
        }
    }
}

/// `capabilities.custom_quantized_decode` and `custom_container_decoders`: each needs the
/// other.
fn decoders_need_capability(out: &mut Out, manifest: &Dict, decoders: Option<&Value>, decoders_dict: Option<&Dict>) {
    // `manifest.get("capabilities", {})`: no capabilities at all reads as an empty dict.
    let no_caps = Value::new(ValueKind::Dict(Dict::default()), decoders.map(|d| d.span.clone()).unwrap_or(0..0));
    let caps_section = match section(manifest, "capabilities") {
        Section::Missing => Section::Known(&no_caps),
        other => other,
    };
    if let Section::Known(caps_value) = caps_section {
        if let ValueKind::Dict(caps) = &caps_value.kind {
            let cqd = caps.get("custom_quantized_decode");
            let cqd_truthy = match cqd {
                Some(e) => e.value.truthy(),
                None if caps.open => None,
                None => Some(false),
            };
            let decoders_truthy = match decoders_dict {
                None => Some(false),
                Some(d) if d.entries.is_empty() && d.open => None,
                Some(d) => Some(!d.entries.is_empty()),
            };
            if cqd_truthy == Some(true) && decoders_truthy == Some(false) {
                let at = cqd.map(|e| e.key.span.clone()).unwrap_or(caps_value.span.clone());
                out.error(
                    at,
                    "'capabilities.custom_quantized_decode' requires at least one custom_container_decoders entry"
                        .into(),
                    Code::DecoderRequired,
                );
            }
            if decoders_truthy == Some(true) && cqd_truthy == Some(false) {
                let at = decoders.map(|d| d.span.clone()).unwrap_or(caps_value.span.clone());
                out.warning(
                    at,
                    "custom_container_decoders is set but capabilities.custom_quantized_decode is false".into(),
                    Code::DecoderUnused,
                );
            }
        }
    }
}

/// `quantized_decoders.validate_decoder_spec`.
fn validate_decoder_spec(spec: &Value) -> Option<&'static str> {
    let Some(text) = spec.as_str().filter(|t| t.contains(':')) else {
        return Some("decoder path must be a string in 'module:function' form");
    };
    let (module, attr) = text.split_once(':').unwrap_or((text, ""));
    let bad = module.is_empty()
        || attr.is_empty()
        || module.split('.').any(|p| !is_identifier_match(p))
        || attr.split('.').any(|p| !is_identifier_match(p));
    bad.then_some("decoder path must be a valid 'module:function' import path")
}

/// `re.match(r"^[A-Za-z_][A-Za-z0-9_]*$", part)`: `$` also matches before a final newline.
fn is_identifier_match(part: &str) -> bool {
    let part = part.strip_suffix('\n').unwrap_or(part);
    let mut chars = part.chars();
    matches!(chars.next(), Some(c) if c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}
