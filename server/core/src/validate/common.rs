//! What every rule uses: the findings collected (`Out`), what the validator needs from
//! outside (`ValidationContext`), reading a section the way torchcts reads it, regex
//! errors, and the boolean maps (capabilities, container formats).

use crate::codes::Code;
use crate::findings::{Finding, Origin, Severity};
use crate::fix_data::{FixData, KeySection};
use crate::regex_check::{check_regex, RegexVerdict};
use crate::value::{Dict, Span, Value, ValueKind};

/// What the validator needs from the outside world.
pub struct ValidationContext<'a> {
    /// Whether a `custom_test_dirs` entry names an existing directory (relative entries are
    /// relative to the manifest's folder). `None`: the manifest has no folder (an unsaved
    /// buffer), and the existence check is skipped as torchcts skips it without `base_dir`.
    pub dir_exists: Option<&'a dyn Fn(&str) -> bool>,
    /// The Python whose `re` compiles the manifest's regexes.
    pub python: crate::regex_check::PythonVersion,
}

pub(super) struct Out {
    pub(super) findings: Vec<Finding>,
    /// The Python whose `re` compiles the regexes.
    pub(super) python: crate::regex_check::PythonVersion,
}

impl Out {
    /// An exception escaping `validate_manifest`: check-manifest prints a traceback.
    pub(super) fn crash(&mut self, span: Span, exception: &str, message: &str) {
        let line = format!("{exception}: {message}");
        self.findings.push(
            Finding::new(
                span,
                Severity::Error,
                format!("check-manifest crashes: {line}"),
                Code::CheckCrash,
                Origin::Torchcts,
            )
            .with_data(FixData::CheckCrash { exception_line: line }),
        );
    }

    pub(super) fn error(&mut self, span: Span, message: String, code: Code) -> &mut Finding {
        self.findings.push(Finding::new(span, Severity::Error, message, code, Origin::Torchcts));
        self.findings.last_mut().expect("just pushed")
    }

    /// A note where check-manifest's line is not known statically (not claimed).
    pub(super) fn not_evaluated(&mut self, span: Span, message: String) {
        self.findings.push(Finding::new(span, Severity::Information, message, Code::NotEvaluated, Origin::Lsp));
    }

    pub(super) fn warning(&mut self, span: Span, message: String, code: Code) -> &mut Finding {
        self.findings.push(Finding::new(span, Severity::Warning, message, code, Origin::Torchcts));
        self.findings.last_mut().expect("just pushed")
    }
}

/// A copy of `manifest` where each value (not key) known only by its type stands in as an
/// object of that type (`Value::schema_stand_in`); None where it has none.
pub(super) fn with_stand_ins(manifest: &Dict) -> Option<Dict> {
    fn has(value: &Value) -> bool {
        match &value.kind {
            ValueKind::List(items) | ValueKind::Tuple(items) => items.iter().any(has),
            ValueKind::Dict(d) => d.entries.iter().any(|e| has(&e.value)),
            _ => value.schema_stand_in().is_some(),
        }
    }
    fn stand_in(value: &mut Value) {
        match &mut value.kind {
            ValueKind::List(items) | ValueKind::Tuple(items) => items.iter_mut().for_each(stand_in),
            ValueKind::Dict(d) => d.entries.iter_mut().for_each(|e| stand_in(&mut e.value)),
            _ => {
                if let Some(object) = value.schema_stand_in() {
                    *value = object;
                }
            }
        }
    }
    if !manifest.entries.iter().any(|e| has(&e.value)) {
        return None;
    }
    let mut copy = manifest.clone();
    copy.entries.iter_mut().for_each(|e| stand_in(&mut e.value));
    Some(copy)
}

/// The value of a top-level key when it is present and known.
pub(super) fn known_value<'d>(dict: &'d Dict, key: &str) -> Option<&'d Value> {
    dict.get(key).map(|e| &e.value).filter(|v| !v.is_unknown())
}

pub(super) enum Section<'d> {
    Known(&'d Value),
    /// Absent: `manifest.get(key, {})` gives an empty dict.
    Missing,
    Unknown,
}

pub(super) fn section<'d>(dict: &'d Dict, key: &str) -> Section<'d> {
    match dict.get(key) {
        // Known by a type other than `dict` (`not d.keys()`, `sys.argv`): no dict, whatever it holds.
        Some(e) if e.value.is_unknown() && e.value.known_type().is_none_or(|t| t == "dict") => Section::Unknown,
        Some(e) => Section::Known(&e.value),
        None if dict.open => Section::Unknown,
        None => Section::Missing,
    }
}

pub(super) fn validate_bool_map(
    out: &mut Out,
    section: KeySection,
    mapping: &Value,
    known_keys: Option<&[String]>,
    allow_ieee754_patterns: bool,
) {
    let section_name = section.name();
    let ValueKind::Dict(dict) = &mapping.kind else {
        out.error(mapping.span.clone(), format!("'{section_name}' must be a dictionary"), Code::Type);
        return;
    };
    for entry in &dict.entries {
        let key = &entry.key;
        let value = &entry.value;
        if let Some(known) = known_keys {
            let is_known = matches!(&key.kind, ValueKind::Str(k) if known.contains(k));
            if !is_known {
                out.error(
                    key.span.clone(),
                    format!("Unknown {section_name} key '{}'", key.py_str()),
                    Code::UnknownKey,
                )
                .data = Some(FixData::UnknownKey { section, name: key.py_str() });
                continue;
            }
        }
        let ieee754 = allow_ieee754_patterns && key.as_str() == Some("ieee754");
        // Known by its type only (`len(sys.argv)`): a type but `bool` is refused whatever the
        // value (`ieee754` takes a str or a list of them too, which need the value).
        let refused_type =
            value.known_type().is_some_and(|t| t != "bool" && !(ieee754 && matches!(t, "str" | "list" | "tuple")));
        if value.is_unknown() && !refused_type {
            continue;
        }
        if ieee754 {
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
            out.error(value.span.clone(), format!("'{section_name}.{}' must be a boolean", key.py_str()), Code::Type);
        }
    }
}

/// Reports `re.compile(pattern)` failing, with CPython's `str(re.error)`.
pub(super) fn regex_finding(out: &mut Out, at: &Value, pattern: &str, message: impl Fn(&str) -> String) {
    match check_regex(pattern, out.python) {
        RegexVerdict::Valid { .. } => {}
        RegexVerdict::Invalid { message: exc, .. } => {
            out.error(at.span.clone(), message(&exc), Code::InvalidRegex).data =
                Some(FixData::InvalidRegex { pattern: pattern.to_string() });
        }
        RegexVerdict::Crash { exception, message: text } => {
            // torchcts only catches re.error: this one stops check-manifest with a traceback.
            out.crash(at.span.clone(), &exception, &text);
        }
    }
}

pub(super) fn is_positive_number(v: &Value) -> bool {
    match v.kind {
        ValueKind::Int(_) | ValueKind::BigInt(_) => v.int_clamped().is_some_and(|i| i > 0),
        ValueKind::Float(f) => f > 0.0,
        _ => false,
    }
}
