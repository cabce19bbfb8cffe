//! Validation with the rules of torchcts 0.4.1's `validate_manifest`, message for message.
//!
//! Each function mirrors one helper of `torchcts/core/manifest_schema.py` (and what it
//! calls in `tolerances.py`, `quantized_decoders.py`, `semantic_levels.py`) in the same
//! order, so the findings come out in the order the real tool prints them. Every finding
//! is placed on the key or value it is about. A value that could not be evaluated
//! statically is skipped by every rule: we never report an error we cannot prove.
//!
//! After the parity rules, [`lsp_hints`] adds what the real tool does not say but users
//! need: duplicate keys, stale capability names, dtype keys that selection ignores, and
//! Python's own regex warnings.

use crate::findings::{Finding, Origin, Severity};
use crate::fix_data::{FixData, KeySection};
use crate::regex_check::{check_regex, RegexVerdict};
use crate::schema::{python_strip, schema};
use crate::value::{py_eq, Dict, Span, Value, ValueKind};

/// What the validator needs from the outside world.
pub struct ValidationContext<'a> {
    /// Whether a `custom_test_dirs` entry names an existing directory (relative entries are
    /// relative to the manifest's folder). `None`: the manifest has no folder (an unsaved
    /// buffer), and the existence check is skipped as torchcts skips it without `base_dir`.
    pub dir_exists: Option<&'a dyn Fn(&str) -> bool>,
}

struct Out {
    findings: Vec<Finding>,
}

impl Out {
    /// An exception escaping `validate_manifest`: check-manifest prints a traceback.
    fn crash(&mut self, span: Span, exception: &str, message: &str) {
        let line = format!("{exception}: {message}");
        self.findings.push(
            Finding::new(
                span,
                Severity::Error,
                format!("check-manifest crashes: {line}"),
                "check-crash",
                Origin::Torchcts,
            )
            .with_data(FixData::CheckCrash { exception_line: line }),
        );
    }

    fn error(&mut self, span: Span, message: String, code: &'static str) -> &mut Finding {
        self.findings.push(Finding::new(span, Severity::Error, message, code, Origin::Torchcts));
        self.findings.last_mut().expect("just pushed")
    }

    fn warning(&mut self, span: Span, message: String, code: &'static str) -> &mut Finding {
        self.findings.push(Finding::new(span, Severity::Warning, message, code, Origin::Torchcts));
        self.findings.last_mut().expect("just pushed")
    }
}

/// Runs `validate_manifest(manifest, base_dir)` on an evaluated manifest dict.
/// `manifest_span` is where module-level findings go (the `manifest` name).
pub fn validate_manifest(manifest: &Dict, manifest_span: Span, ctx: &ValidationContext) -> Vec<Finding> {
    let mut out = Out { findings: Vec::new() };
    let s = schema();

    if !manifest.open {
        for key in &s.required_top_level_keys {
            if !manifest.contains(key) {
                out.error(manifest_span.clone(), format!("Missing required key '{key}'"), "missing-key").data =
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
                "unknown-key",
            )
            .data = Some(FixData::UnknownKey { section: KeySection::TopLevel, name: entry.key.py_str() });
        }
    }

    match manifest.get("manifest_version") {
        Some(e) if e.value.is_unknown() => {}
        Some(e) if py_eq(&e.value, &Value::new(ValueKind::Int(1), 0..0)) != Some(true) => {
            out.warning(
                e.value.span.clone(),
                format!("Unexpected manifest_version {}; expected 1", e.value.repr()),
                "manifest-version",
            );
        }
        Some(_) => {}
        None if !manifest.open => {
            out.warning(
                manifest_span.clone(),
                "Unexpected manifest_version None; expected 1".into(),
                "manifest-version",
            );
        }
        None => {}
    }

    if let Some(e) = known_value(manifest, "device_name") {
        if !matches!(e.kind, ValueKind::Str(_)) {
            out.error(e.span.clone(), "'device_name' must be a string".into(), "type");
        }
    }
    if let Some(e) = known_value(manifest, "backend_import") {
        if !matches!(e.kind, ValueKind::Str(_) | ValueKind::None) {
            out.error(e.span.clone(), "'backend_import' must be null or a string".into(), "type");
        }
    }
    if let Some(e) = known_value(manifest, "device_count") {
        if !matches!(e.kind, ValueKind::Int(i) if i >= 1) {
            out.error(e.span.clone(), "'device_count' must be a positive integer".into(), "type");
        }
    }
    for key in ["ieee754_seed", "max_samples", "max_samples_ieee754"] {
        if let Some(e) = known_value(manifest, key) {
            if !matches!(e.kind, ValueKind::Int(i) if i >= 0) {
                out.error(e.span.clone(), format!("'{key}' must be a non-negative integer"), "type");
            }
        }
    }
    if let Some(e) = known_value(manifest, "semantic_level") {
        let (min, max) = (s.semantic_levels.min, s.semantic_levels.max);
        match e.kind {
            ValueKind::Int(i) if (min as i128..=max as i128).contains(&i) => {}
            ValueKind::Int(_) => {
                out.error(e.span.clone(), format!("semantic_level must be from {min} to {max}"), "semantic-level");
            }
            _ => {
                out.error(
                    e.span.clone(),
                    format!("semantic_level must be an integer from {min} to {max}"),
                    "semantic-level",
                );
            }
        }
    }
    if let Some(e) = known_value(manifest, "show_traceback") {
        if !matches!(e.kind, ValueKind::Bool(_)) {
            out.error(e.span.clone(), "'show_traceback' must be a boolean".into(), "type");
        }
    }

    if let Some(e) = known_value(manifest, "supported_dtypes") {
        validate_supported_dtypes(&mut out, e);
    }

    match section(manifest, "capabilities") {
        Section::Known(caps) => {
            validate_bool_map(&mut out, KeySection::Capabilities, caps, Some(&s.capabilities), true)
        }
        Section::Missing | Section::Unknown => {}
    }

    if let Some(e) = known_value(manifest, "skip_ops") {
        let ok = match &e.kind {
            ValueKind::List(items) => items.iter().all(|i| matches!(i.kind, ValueKind::Str(_) | ValueKind::Unknown(_))),
            _ => false,
        };
        if !ok {
            out.error(e.span.clone(), "'skip_ops' must be a list of strings".into(), "type");
        }
    }

    validate_hardware(&mut out, manifest);
    validate_resource_limits(&mut out, manifest);
    validate_tolerance_overrides(&mut out, manifest);
    validate_quantized_sections(&mut out, manifest);
    validate_custom_test_dirs(&mut out, manifest, ctx);

    out.findings
}

/// The value of a top-level key when it is present and known.
fn known_value<'d>(dict: &'d Dict, key: &str) -> Option<&'d Value> {
    dict.get(key).map(|e| &e.value).filter(|v| !v.is_unknown())
}

enum Section<'d> {
    Known(&'d Value),
    /// Absent: `manifest.get(key, {})` gives an empty dict.
    Missing,
    Unknown,
}

fn section<'d>(dict: &'d Dict, key: &str) -> Section<'d> {
    match dict.get(key) {
        Some(e) if e.value.is_unknown() => Section::Unknown,
        Some(e) => Section::Known(&e.value),
        None if dict.open => Section::Unknown,
        None => Section::Missing,
    }
}

fn validate_bool_map(
    out: &mut Out,
    section: KeySection,
    mapping: &Value,
    known_keys: Option<&[String]>,
    allow_ieee754_patterns: bool,
) {
    let section_name = section.name();
    let ValueKind::Dict(dict) = &mapping.kind else {
        out.error(mapping.span.clone(), format!("'{section_name}' must be a dictionary"), "type");
        return;
    };
    for entry in &dict.entries {
        let key = &entry.key;
        let value = &entry.value;
        if let Some(known) = known_keys {
            let is_known = matches!(&key.kind, ValueKind::Str(k) if known.contains(k));
            if !is_known {
                out.error(key.span.clone(), format!("Unknown {section_name} key '{}'", key.py_str()), "unknown-key")
                    .data = Some(FixData::UnknownKey { section, name: key.py_str() });
                continue;
            }
        }
        if value.is_unknown() {
            continue;
        }
        if allow_ieee754_patterns && key.as_str() == Some("ieee754") {
            match &value.kind {
                ValueKind::Bool(_) => continue,
                ValueKind::Str(pattern) => {
                    regex_finding(out, value, pattern, |exc| format!("capabilities.ieee754 regex is invalid: {exc}"));
                    continue;
                }
                ValueKind::List(items) | ValueKind::Tuple(items)
                    if items.iter().all(|i| matches!(i.kind, ValueKind::Str(_) | ValueKind::Unknown(_))) =>
                {
                    for item in items {
                        if let ValueKind::Str(pattern) = &item.kind {
                            regex_finding(out, item, pattern, |exc| {
                                format!("capabilities.ieee754 regex is invalid: {exc}")
                            });
                        }
                    }
                    continue;
                }
                _ => {}
            }
        }
        if !matches!(value.kind, ValueKind::Bool(_)) {
            out.error(value.span.clone(), format!("'{section_name}.{}' must be a boolean", key.py_str()), "type");
        }
    }
}

/// Reports `re.compile(pattern)` failing, with CPython's `str(re.error)`.
fn regex_finding(out: &mut Out, at: &Value, pattern: &str, message: impl Fn(&str) -> String) {
    match check_regex(pattern) {
        RegexVerdict::Valid { .. } => {}
        RegexVerdict::Invalid { message: exc, .. } => {
            out.error(at.span.clone(), message(&exc), "invalid-regex").data =
                Some(FixData::InvalidRegex { pattern: pattern.to_string() });
        }
        RegexVerdict::Crash { exception, message: text } => {
            // torchcts only catches re.error: this one stops check-manifest with a traceback.
            out.crash(at.span.clone(), &exception, &text);
        }
    }
}

fn validate_supported_dtypes(out: &mut Out, value: &Value) {
    let ValueKind::Dict(dict) = &value.kind else {
        out.error(value.span.clone(), "'supported_dtypes' must be a dictionary".into(), "type");
        return;
    };
    for entry in &dict.entries {
        let key = &entry.key;
        if dtype_from_manifest_key(key).is_none() {
            out.error(key.span.clone(), format!("Invalid supported_dtypes key {}", key.repr()), "invalid-dtype-key")
                .data = Some(FixData::InvalidDtypeKey { name: key.py_str() });
        }
        let v = &entry.value;
        match &v.kind {
            ValueKind::Unknown(_) => {}
            ValueKind::Str(pattern) => {
                let key_repr = key.repr();
                regex_finding(out, v, pattern, |exc| format!("supported_dtypes[{key_repr}] regex is invalid: {exc}"));
            }
            ValueKind::Bool(_) => {}
            _ => {
                out.error(
                    v.span.clone(),
                    format!("supported_dtypes[{}] must be a boolean or regex string", key.repr()),
                    "type",
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

fn is_positive_number(v: &Value) -> bool {
    match v.kind {
        ValueKind::Int(i) => i > 0,
        ValueKind::Float(f) => f > 0.0,
        _ => false,
    }
}

fn validate_hardware(out: &mut Out, manifest: &Dict) {
    let hardware = match section(manifest, "hardware") {
        Section::Known(v) => v,
        _ => return,
    };
    let ValueKind::Dict(hw) = &hardware.kind else {
        out.error(hardware.span.clone(), "'hardware' must be a dictionary".into(), "type");
        return;
    };
    let s = schema();
    for entry in &hw.entries {
        let known = matches!(&entry.key.kind, ValueKind::Str(k) if s.hardware_keys.contains(k));
        if !known {
            out.error(
                entry.key.span.clone(),
                format!("Unknown hardware key '{}'", entry.key.py_str()),
                "unknown-key",
            )
            .data = Some(FixData::UnknownKey { section: KeySection::Hardware, name: entry.key.py_str() });
        }
    }
    if let Some(v) = known_value(hw, "memory_model") {
        if let Err(t) = v.hashable() {
            // `memory_model not in frozenset(...)` hashes the value.
            out.crash(v.span.clone(), "TypeError", &format!("unhashable type: '{t}'"));
            return;
        }
        let ok = match &v.kind {
            ValueKind::None => true,
            ValueKind::Str(m) => s.memory_models.contains(m),
            _ => false,
        };
        if !ok {
            out.error(v.span.clone(), "'hardware.memory_model' must be 'discrete' or 'unified'".into(), "enum-value");
        }
    }
    if let Some(v) = known_value(hw, "system_memory_gb") {
        let ok = matches!(&v.kind, ValueKind::None) || v.as_str() == Some("auto") || is_positive_number(v);
        if !ok {
            out.error(v.span.clone(), "'hardware.system_memory_gb' must be 'auto' or a positive number".into(), "type");
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
                "type",
            );
        }
    }
    if let Some(v) = known_value(hw, "oom_recoverable") {
        if !matches!(v.kind, ValueKind::Bool(_)) {
            out.error(v.span.clone(), "'hardware.oom_recoverable' must be a boolean".into(), "type");
        }
    }
}

fn validate_resource_limits(out: &mut Out, manifest: &Dict) {
    let limits = match section(manifest, "resource_limits") {
        Section::Known(v) => v,
        _ => return,
    };
    let ValueKind::Dict(dict) = &limits.kind else {
        out.error(limits.span.clone(), "'resource_limits' must be a dictionary".into(), "type");
        return;
    };
    let s = schema();
    for entry in &dict.entries {
        let key = entry.key.py_str();
        let known = matches!(&entry.key.kind, ValueKind::Str(k) if s.resource_limit_keys.contains(k));
        if !known {
            out.error(entry.key.span.clone(), format!("Unknown resource_limits key '{key}'"), "unknown-key").data =
                Some(FixData::UnknownKey { section: KeySection::ResourceLimits, name: key.clone() });
            continue;
        }
        let v = &entry.value;
        if v.is_unknown() {
            continue;
        }
        if key == "cleanup_threshold_pct" {
            if !matches!(v.kind, ValueKind::Int(i) if (1..=100).contains(&i)) {
                out.error(
                    v.span.clone(),
                    "'resource_limits.cleanup_threshold_pct' must be an integer from 1 to 100".into(),
                    "type",
                );
            }
        } else if !matches!(v.kind, ValueKind::None) && !is_positive_number(v) {
            out.error(v.span.clone(), format!("'resource_limits.{key}' must be null or a positive number"), "type");
        }
    }
}

/// One override after `normalize_tolerance_overrides`.
struct NormalizedOverride<'d> {
    category: String,
    canonical_dtype: String,
    key_span: Span,
    value: &'d Value,
}

fn validate_tolerance_overrides(out: &mut Out, manifest: &Dict) {
    let overrides = match section(manifest, "tolerance_overrides") {
        Section::Known(v) => v,
        _ => return,
    };
    let ValueKind::Dict(dict) = &overrides.kind else {
        out.error(overrides.span.clone(), "'tolerance_overrides' must be a dictionary".into(), "type");
        return;
    };
    let mut normalized: Vec<NormalizedOverride> = Vec::new();
    // Position in `normalized` by (category, dtype): a lookup per entry, not a scan.
    let mut position_of: std::collections::HashMap<(String, String), usize> = std::collections::HashMap::new();
    for entry in &dict.entries {
        let key = &entry.key;
        let (category, dtype_key): (Value, Value) = match &key.kind {
            ValueKind::Tuple(items) if items.len() == 2 => (items[0].clone(), items[1].clone()),
            ValueKind::Str(text) => {
                let split = text.split_once(':').or_else(|| text.split_once('/'));
                let Some((c, d)) = split else {
                    out.error(
                        key.span.clone(),
                        format!(
                            "Invalid tolerance_overrides: tolerance_overrides string keys must use 'category:dtype' or 'category/dtype', got {}",
                            key.repr()
                        ),
                        "tolerance-key",
                    );
                    return;
                };
                (
                    Value::new(ValueKind::Str(python_strip(c).to_string()), key.span.clone()),
                    Value::new(ValueKind::Str(python_strip(d).to_string()), key.span.clone()),
                )
            }
            _ => {
                out.error(
                    key.span.clone(),
                    format!("Invalid tolerance_overrides: Invalid tolerance override key: {}", key.repr()),
                    "tolerance-key",
                );
                return;
            }
        };
        if category.is_unknown() || dtype_key.is_unknown() {
            continue;
        }
        let category_ok = matches!(&category.kind, ValueKind::Str(c) if !c.is_empty());
        if !category_ok {
            out.error(
                key.span.clone(),
                format!("Invalid tolerance_overrides: Invalid tolerance override category: {}", category.repr()),
                "tolerance-key",
            );
            return;
        }
        let Some(canonical) = dtype_from_manifest_key(&dtype_key) else {
            out.error(
                key.span.clone(),
                format!("Invalid tolerance_overrides: Invalid tolerance override dtype: {}", dtype_key.repr()),
                "tolerance-key",
            );
            return;
        };
        let category = category.py_str();
        // A repeated (category, dtype) keeps its first position and takes the last value.
        if let Some(&p) = position_of.get(&(category.clone(), canonical.clone())) {
            let existing = &mut normalized[p];
            existing.value = &entry.value;
            existing.key_span = key.span.clone();
        } else {
            position_of.insert((category.clone(), canonical.clone()), normalized.len());
            normalized.push(NormalizedOverride {
                category,
                canonical_dtype: canonical,
                key_span: key.span.clone(),
                value: &entry.value,
            });
        }
    }
    let s = schema();
    for n in &normalized {
        let (category, dtype) = (&n.category, &n.canonical_dtype);
        if !s.tolerance_categories.contains(category) {
            out.error(
                n.key_span.clone(),
                format!("Invalid tolerance_overrides category '{category}'"),
                "tolerance-category",
            )
            .data = Some(FixData::Category { category: category.clone() });
        }
        let value = n.value;
        match &value.kind {
            ValueKind::Unknown(_) => {}
            ValueKind::Dict(d) => {
                let mut unknown: Vec<&Value> = d
                    .entries
                    .iter()
                    .map(|e| &e.key)
                    .filter(|k| !matches!(k.as_str(), Some("rtol") | Some("atol")))
                    .collect();
                let has_str = unknown.iter().any(|k| k.as_str().is_some());
                let has_other = unknown.iter().any(|k| k.as_str().is_none());
                if has_str && has_other {
                    // sorted() of str and non-str keys raises; which pair Python compares
                    // first depends on set order (hash randomisation).
                    let other = unknown.iter().find(|k| k.as_str().is_none()).map(|k| k.type_name()).unwrap_or("int");
                    out.crash(
                        value.span.clone(),
                        "TypeError",
                        &format!("'<' not supported between instances of '{other}' and 'str'"),
                    );
                    return;
                }
                if !unknown.is_empty() {
                    unknown.sort_by(|a, b| {
                        python_sort_key(a).partial_cmp(&python_sort_key(b)).unwrap_or(std::cmp::Ordering::Equal)
                    });
                    let list = Value::new(ValueKind::List(unknown.into_iter().cloned().collect()), 0..0);
                    out.error(
                        value.span.clone(),
                        format!("Invalid tolerance override keys for '{category}:{dtype}': {}", list.repr()),
                        "tolerance-value",
                    );
                }
                for tol_key in ["rtol", "atol"] {
                    if let Some(e) = d.get(tol_key) {
                        if !e.value.is_unknown() && e.value.as_number().is_none() {
                            out.error(
                                e.value.span.clone(),
                                format!("tolerance_overrides {category}:{dtype} {tol_key} must be numeric"),
                                "tolerance-value",
                            );
                        }
                    }
                }
            }
            ValueKind::List(items) | ValueKind::Tuple(items) if items.len() == 2 => {
                if !items.iter().all(|i| i.is_unknown() || i.as_number().is_some()) {
                    out.error(
                        value.span.clone(),
                        format!("tolerance_overrides {category}:{dtype} tuple values must be numeric"),
                        "tolerance-value",
                    );
                }
            }
            _ => {
                out.error(
                    value.span.clone(),
                    format!("Invalid tolerance override value for '{category}:{dtype}'"),
                    "tolerance-value",
                );
            }
        }
    }
}

/// Orders values as Python's `sorted()` does for the homogeneous lists we meet (strings,
/// then numbers); mixed types would raise TypeError in Python, which we do not model.
fn python_sort_key(v: &Value) -> (u8, String, f64) {
    match &v.kind {
        ValueKind::Str(s) => (0, s.clone(), 0.0),
        _ => (1, String::new(), v.as_number().unwrap_or(0.0)),
    }
}

fn validate_quantized_sections(out: &mut Out, manifest: &Dict) {
    let s = schema();
    let formats = match section(manifest, "supported_container_formats") {
        Section::Known(v) => Some(v),
        Section::Missing => None,
        Section::Unknown => return,
    };
    if let Some(formats) = formats {
        if !matches!(formats.kind, ValueKind::Dict(_)) {
            out.error(formats.span.clone(), "'supported_container_formats' must be a dictionary".into(), "type");
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
            out.error(d.span.clone(), "'custom_container_decoders' must be a dictionary".into(), "type");
            return;
        }
    }
    let decoders_dict = decoders.and_then(Value::as_dict);
    if let Some(dd) = decoders_dict {
        for entry in &dd.entries {
            let fmt = entry.key.py_str();
            let known = matches!(&entry.key.kind, ValueKind::Str(k) if s.container_formats.contains(k));
            if !known {
                out.error(
                    entry.key.span.clone(),
                    format!("Unknown custom_container_decoders key '{fmt}'"),
                    "unknown-key",
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
                    "decoder-format",
                );
            }
            if entry.value.is_unknown() {
                continue;
            }
            if let Some(err) = validate_decoder_spec(&entry.value) {
                out.error(
                    entry.value.span.clone(),
                    format!("Invalid custom_container_decoders.{fmt}: {err}"),
                    "decoder-spec",
                );
            }
        }
    }

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
                    "decoder-required",
                );
            }
            if decoders_truthy == Some(true) && cqd_truthy == Some(false) {
                let at = decoders.map(|d| d.span.clone()).unwrap_or(caps_value.span.clone());
                out.warning(
                    at,
                    "custom_container_decoders is set but capabilities.custom_quantized_decode is false".into(),
                    "decoder-unused",
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

fn validate_custom_test_dirs(out: &mut Out, manifest: &Dict, ctx: &ValidationContext) {
    let Some(v) = known_value(manifest, "custom_test_dirs") else { return };
    let items = match &v.kind {
        ValueKind::List(items) if items.iter().all(|i| matches!(i.kind, ValueKind::Str(_) | ValueKind::Unknown(_))) => {
            items
        }
        _ => {
            out.error(v.span.clone(), "'custom_test_dirs' must be a list of strings".into(), "type");
            return;
        }
    };
    let Some(dir_exists) = ctx.dir_exists else { return };
    for item in items {
        if let ValueKind::Str(path) = &item.kind {
            if !dir_exists(path) {
                out.warning(
                    item.span.clone(),
                    format!("custom_test_dirs entry '{path}' does not exist"),
                    "missing-dir",
                );
            }
        }
    }
}

// ---- beyond the real tool ------------------------------------------------------------

/// Capability names from older torchcts versions, and what replaced them.
pub const STALE_CAPABILITIES: &[(&str, &[&str])] =
    &[("generator", &["device_generator"]), ("quantized", &["quantized_container_plumbing", "native_quantization"])];

/// Findings the real tool does not report: duplicate keys, stale capability names, dtype
/// keys that selection ignores, Python's warnings for regexes.
pub fn lsp_hints(manifest: &Dict, line_of: &dyn Fn(usize) -> usize) -> Vec<Finding> {
    let mut out = Vec::new();
    duplicate_keys(manifest, "manifest", line_of, &mut out, 0);

    if let Some(caps) = manifest.get("capabilities").and_then(|e| e.value.as_dict()) {
        for entry in &caps.entries {
            let Some(name) = entry.key.as_str() else { continue };
            if let Some((_, replacements)) = STALE_CAPABILITIES.iter().find(|(old, _)| *old == name) {
                let names: Vec<String> = replacements.iter().map(|r| format!("'{r}'")).collect();
                out.push(
                    Finding::new(
                        entry.key.span.clone(),
                        Severity::Warning,
                        format!(
                            "'{name}' is a stale capability name; torchcts {} uses {}",
                            schema().torchcts_version,
                            names.join(" or ")
                        ),
                        "stale-capability",
                        Origin::Lsp,
                    )
                    .with_data(FixData::Replacements {
                        name: name.to_string(),
                        replacements: replacements.iter().map(|r| r.to_string()).collect(),
                    }),
                );
            }
        }
        if let Some(e) = caps.get("ieee754") {
            let patterns: Vec<&Value> = match &e.value.kind {
                ValueKind::Str(_) => vec![&e.value],
                ValueKind::List(items) | ValueKind::Tuple(items) => items.iter().collect(),
                _ => vec![],
            };
            for p in patterns {
                python_regex_warnings(p, &mut out);
            }
        }
    }

    if let Some(overrides) = manifest.get("tolerance_overrides").and_then(|e| e.value.as_dict()) {
        wide_tolerances(overrides, &mut out);
    }

    if let Some(dtypes) = manifest.get("supported_dtypes").and_then(|e| e.value.as_dict()) {
        for entry in &dtypes.entries {
            if let ValueKind::Str(key) = &entry.key.kind {
                if let Some(d) = schema().dtype_from_string_key(key) {
                    if *key != d.canonical {
                        let attr = python_strip(key).trim_start_matches("torch.");
                        out.push(
                            Finding::new(
                                entry.key.span.clone(),
                                Severity::Warning,
                                format!(
                                    "{} passes check-manifest but test selection ignores it: selection matches only {} or the exact string '{}'",
                                    entry.key.repr(),
                                    format_args!("torch.{attr}"),
                                    d.canonical
                                ),
                                "dtype-key-ignored",
                                Origin::Lsp,
                            )
                            .with_data(FixData::DtypeKeyIgnored { canonical: d.canonical.clone(), attr: attr.to_string() }),
                        );
                    }
                }
            }
            python_regex_warnings(&entry.value, &mut out);
        }
    }
    out
}

fn python_regex_warnings(value: &Value, out: &mut Vec<Finding>) {
    let ValueKind::Str(pattern) = &value.kind else { return };
    let warnings = match check_regex(pattern) {
        RegexVerdict::Valid { warnings } | RegexVerdict::Invalid { warnings, .. } => warnings,
        RegexVerdict::Crash { .. } => return,
    };
    for w in warnings {
        out.push(Finding::new(
            value.span.clone(),
            Severity::Warning,
            format!("Python warns when compiling this regex: {w}"),
            "regex-warning",
            Origin::Lsp,
        ));
    }
}

fn duplicate_keys(dict: &Dict, path: &str, line_of: &dyn Fn(usize) -> usize, out: &mut Vec<Finding>, depth: usize) {
    if depth > 16 {
        return;
    }
    for entry in &dict.entries {
        for earlier in &entry.overridden {
            out.push(
                Finding::new(
                    earlier.key_span.clone(),
                    Severity::Warning,
                    format!(
                        "Duplicate key {} in {path}: this value is overridden by the one on line {} (the last one wins)",
                        entry.key.repr(),
                        line_of(entry.key.span.start) + 1
                    ),
                    "duplicate-key",
                    Origin::Lsp,
                )
                .with_related(entry.key.span.clone(), "the value that wins"),
            );
        }
        if let ValueKind::Dict(inner) = &entry.value.kind {
            duplicate_keys(inner, &entry.key.py_str(), line_of, out, depth + 1);
        }
    }
}

/// An override looser than this many times TorchCTS's default usable tolerance is flagged.
const WIDE_TOLERANCE_FACTOR: f64 = 10.0;

/// "A tolerance override must not accept arbitrary drift": flags overrides far looser than
/// the default usable tolerance of their category and dtype, or at least 1.
fn wide_tolerances(overrides: &Dict, out: &mut Vec<Finding>) {
    let s = schema();
    for entry in &overrides.entries {
        let Some(key) = entry.key.as_str() else { continue };
        let Some((category, dtype_key)) = key.split_once(':').or_else(|| key.split_once('/')) else { continue };
        let category = python_strip(category);
        let Some(dtype) = s.dtype_from_string_key(dtype_key) else { continue };
        let default = s
            .tolerance_default(category, &dtype.canonical)
            .or_else(|| s.tolerance_default("default", &dtype.canonical));
        let values: Vec<(&str, &Value)> = match &entry.value.kind {
            ValueKind::Dict(d) => ["rtol", "atol"].iter().filter_map(|k| d.get(k).map(|e| (*k, &e.value))).collect(),
            ValueKind::List(items) | ValueKind::Tuple(items) if items.len() == 2 => {
                vec![("rtol", &items[0]), ("atol", &items[1])]
            }
            _ => continue,
        };
        for (name, v) in values {
            let Some(x) = v.as_number() else { continue };
            let usable = default.map(|d| if name == "rtol" { d.usable[0] } else { d.usable[1] });
            let too_wide = x >= 1.0 || usable.is_some_and(|u| u > 0.0 && x > u * WIDE_TOLERANCE_FACTOR);
            if too_wide {
                let reference = match usable {
                    Some(u) => format!(
                        "TorchCTS's default usable {name} for {category}:{} is {}",
                        dtype.canonical,
                        crate::value::float_repr(u)
                    ),
                    None => format!("TorchCTS has no default {name} for {category}:{}", dtype.canonical),
                };
                out.push(Finding::new(
                    v.span.clone(),
                    Severity::Warning,
                    format!(
                        "{name}={} is a very wide tolerance ({reference}); an override must not accept arbitrary drift",
                        v.repr()
                    ),
                    "wide-tolerance",
                    Origin::Lsp,
                ));
            }
        }
    }
}
