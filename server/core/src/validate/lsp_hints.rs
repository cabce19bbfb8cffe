//! Findings the real tool does not report but users need (origin `torchcts-lsp`):
//! duplicate keys, stale capability names, dtype keys that test selection ignores,
//! tolerances wide enough to accept any drift, and Python's own regex warnings.

use crate::codes::Code;
use crate::findings::{Finding, Origin, Severity};
use crate::fix_data::FixData;
use crate::regex_check::{check_regex, PythonVersion, RegexVerdict};
use crate::schema::{python_strip, schema};
use crate::value::{Dict, Value, ValueKind};

/// Capability names from older torchcts versions, and what replaced them.
pub const STALE_CAPABILITIES: &[(&str, &[&str])] =
    &[("generator", &["device_generator"]), ("quantized", &["quantized_container_plumbing", "native_quantization"])];

/// Findings the real tool does not report: duplicate keys, stale capability names, dtype
/// keys that selection ignores, Python's warnings for regexes.
pub fn lsp_hints(manifest: &Dict, line_of: &dyn Fn(usize) -> usize, python: PythonVersion) -> Vec<Finding> {
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
                        Code::StaleCapability,
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
                python_regex_warnings(p, python, &mut out);
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
                        // Selection looks the dtype up as the dtype object or as torchcts's
                        // one string for it (`opinfo_adapter.DTYPE_TO_STR`): the canonical name.
                        out.push(
                            Finding::new(
                                entry.key.span.clone(),
                                Severity::Warning,
                                format!(
                                    "{} passes check-manifest but test selection ignores it: selection matches only the dtype {} (unquoted) or the exact string '{}'",
                                    entry.key.repr(),
                                    d.canonical,
                                    d.canonical
                                ),
                                Code::DtypeKeyIgnored,
                                Origin::Lsp,
                            )
                            .with_data(FixData::DtypeKeyIgnored { canonical: d.canonical.clone(), attr: attr.to_string() }),
                        );
                    }
                }
            }
            python_regex_warnings(&entry.value, python, &mut out);
        }
    }
    out
}

fn python_regex_warnings(value: &Value, python: PythonVersion, out: &mut Vec<Finding>) {
    let ValueKind::Str(pattern) = &value.kind else { return };
    let warnings = match check_regex(pattern, python) {
        RegexVerdict::Valid { warnings } | RegexVerdict::Invalid { warnings, .. } => warnings,
        RegexVerdict::Crash { .. } => return,
    };
    for w in warnings {
        out.push(Finding::new(
            value.span.clone(),
            Severity::Warning,
            format!("Python warns when compiling this regex: {w}"),
            Code::RegexWarning,
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
                    Code::DuplicateKey,
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
                    Code::WideTolerance,
                    Origin::Lsp,
                ));
            }
        }
    }
}
