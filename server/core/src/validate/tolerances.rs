//! `tolerance_overrides`, as `normalize_tolerance_overrides` and
//! `validate_tolerance_overrides` (`tolerances.py`) read them.

use super::common::{section, Out, Section};
use super::dtypes::dtype_from_manifest_key;
use crate::codes::Code;
use crate::fix_data::FixData;
use crate::schema::{python_strip, schema};
use crate::value::{Dict, Span, Value, ValueKind};
use std::ops::ControlFlow;

/// One override after `normalize_tolerance_overrides`.
struct NormalizedOverride<'d> {
    category: String,
    canonical_dtype: String,
    key_span: Span,
    value: &'d Value,
}

pub(super) fn validate_tolerance_overrides(out: &mut Out, manifest: &Dict) {
    let overrides = match section(manifest, "tolerance_overrides") {
        Section::Known(v) => v,
        _ => return,
    };
    let ValueKind::Dict(dict) = &overrides.kind else {
        out.error(overrides.span.clone(), "'tolerance_overrides' must be a dictionary".into(), Code::Type);
        return;
    };
    let Some(normalized) = normalize(out, dict) else { return };
    for n in &normalized {
        if check_override(out, n).is_break() {
            return;
        }
    }
}

/// `normalize_tolerance_overrides`: one override per (category, dtype), a repeated one
/// keeping its first position and taking the last value; `None` where it raises (the
/// error is reported).
fn normalize<'d>(out: &mut Out, dict: &'d Dict) -> Option<Vec<NormalizedOverride<'d>>> {
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
                        Code::ToleranceKey,
                    );
                    return None;
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
                    Code::ToleranceKey,
                );
                return None;
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
                Code::ToleranceKey,
            );
            return None;
        }
        let Some(canonical) = dtype_from_manifest_key(&dtype_key) else {
            out.error(
                key.span.clone(),
                format!("Invalid tolerance_overrides: Invalid tolerance override dtype: {}", dtype_key.repr()),
                Code::ToleranceKey,
            );
            return None;
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
    Some(normalized)
}

/// One normalized override: its category known, its value numbers; `Break` where the
/// check raises (the crash is reported).
fn check_override(out: &mut Out, n: &NormalizedOverride) -> ControlFlow<()> {
    let s = schema();
    let (category, dtype) = (&n.category, &n.canonical_dtype);
    if !s.tolerance_categories.contains(category) {
        out.error(
            n.key_span.clone(),
            format!("Invalid tolerance_overrides category '{category}'"),
            Code::ToleranceCategory,
        )
        .data = Some(FixData::Category { category: category.clone() });
    }
    let value = n.value;
    match &value.kind {
        ValueKind::Unknown(_) => {}
        ValueKind::Dict(d) => return check_override_dict(out, category, dtype, value, d),
        ValueKind::List(items) | ValueKind::Tuple(items) if items.len() == 2 => {
            if !items.iter().all(|i| i.is_unknown() || i.as_number().is_some()) {
                out.error(
                    value.span.clone(),
                    format!("tolerance_overrides {category}:{dtype} tuple values must be numeric"),
                    Code::ToleranceValue,
                );
            }
        }
        _ => {
            out.error(
                value.span.clone(),
                format!("Invalid tolerance override value for '{category}:{dtype}'"),
                Code::ToleranceValue,
            );
        }
    }
    ControlFlow::Continue(())
}

/// An override given as `{"rtol": ..., "atol": ...}`.
fn check_override_dict(out: &mut Out, category: &str, dtype: &str, value: &Value, d: &Dict) -> ControlFlow<()> {
    let mut unknown: Vec<&Value> =
        d.entries.iter().map(|e| &e.key).filter(|k| !matches!(k.as_str(), Some("rtol") | Some("atol"))).collect();
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
        return ControlFlow::Break(());
    }
    if !unknown.is_empty() {
        unknown
            .sort_by(|a, b| python_sort_key(a).partial_cmp(&python_sort_key(b)).unwrap_or(std::cmp::Ordering::Equal));
        let list = Value::new(ValueKind::List(unknown.into_iter().cloned().collect()), 0..0);
        out.error(
            value.span.clone(),
            format!("Invalid tolerance override keys for '{category}:{dtype}': {}", list.repr()),
            Code::ToleranceValue,
        );
    }
    for tol_key in ["rtol", "atol"] {
        if let Some(e) = d.get(tol_key) {
            if !e.value.is_unknown() && e.value.as_number().is_none() {
                out.error(
                    e.value.span.clone(),
                    format!("tolerance_overrides {category}:{dtype} {tol_key} must be numeric"),
                    Code::ToleranceValue,
                );
            }
        }
    }
    ControlFlow::Continue(())
}

/// Orders values as Python's `sorted()` does for the homogeneous lists we meet (strings,
/// then numbers); mixed types would raise TypeError in Python, which we do not model.
fn python_sort_key(v: &Value) -> (u8, String, f64) {
    match &v.kind {
        ValueKind::Str(s) => (0, s.clone(), 0.0),
        _ => (1, String::new(), v.as_number().unwrap_or(0.0)),
    }
}
