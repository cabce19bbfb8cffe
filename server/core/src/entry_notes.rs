//! Notes placed on a manifest's entries by key path: the runs' evidence as the analysis
//! takes it ([`crate::AnalysisInput::evidence`]). A leaf under both: the analysis places the
//! notes, the evidence feature ([`crate::evidence`]) makes them from an analysis.

use crate::codes::Code;
use crate::eval::ManifestModel;
use crate::findings::{Finding, Origin, Severity};
use crate::fix_data::FixData;
use crate::value::{Span, ValueKind};

/// A finding about an entry, placed by its key path.
#[derive(Debug, Clone, PartialEq)]
pub struct EvidenceNote {
    /// As [`crate::evidence::EntryRef::key_path`].
    pub key_path: Vec<String>,
    pub severity: Severity,
    pub code: Code,
    pub message: String,
    pub data: Option<FixData>,
}

/// The span a note on `key_path` is shown on (a dict entry's key, a `skip_ops` item).
pub fn anchor_span(model: &ManifestModel, text: &str, key_path: &[String]) -> Option<Span> {
    entry_spans(model, text, key_path).map(|(shown, _)| shown)
}

/// (the span shown, the whole entry) of the entry at `key_path`.
pub(crate) fn entry_spans(model: &ManifestModel, text: &str, key_path: &[String]) -> Option<(Span, Span)> {
    let manifest = model.manifest.as_ref()?.as_dict()?;
    if let [section, name] = key_path {
        if section == "skip_ops" {
            let (ValueKind::List(items) | ValueKind::Tuple(items)) = &manifest.get(section)?.value.kind else {
                return None;
            };
            let item = items.iter().find(|v| v.as_str() == Some(name.as_str()))?;
            return Some((item.span.clone(), item.span.clone()));
        }
    }
    let mut dict = manifest;
    for (i, key) in key_path.iter().enumerate() {
        let entry = dict.entries.iter().find(|e| key_name(e, text) == *key)?;
        if i + 1 == key_path.len() {
            return Some((entry.key.span.clone(), entry.key.span.start..entry.value.span.end.max(entry.key.span.end)));
        }
        dict = entry.value.as_dict()?;
    }
    None
}

/// The notes as findings on the text the model was evaluated from; notes whose entry is
/// gone are dropped.
pub(crate) fn findings(model: &ManifestModel, text: &str, notes: &[EvidenceNote]) -> Vec<Finding> {
    notes
        .iter()
        .filter_map(|n| {
            let span = anchor_span(model, text, &n.key_path)?;
            let mut f = Finding::new(span, n.severity, n.message.clone(), n.code, Origin::Lsp);
            f.data = n.data.clone();
            Some(f)
        })
        .collect()
}

/// A key as Python sees it when it is a string, else its source text (`torch.float16`), as
/// `locate` names path segments.
pub(crate) fn key_name(entry: &crate::value::Entry, text: &str) -> String {
    match &entry.key.kind {
        ValueKind::Str(s) => s.clone(),
        _ => text.get(entry.key.span.clone()).unwrap_or_default().to_string(),
    }
}
