//! Findings: what the analysis reports about a manifest, in byte ranges and plain data.
//!
//! The LSP glue turns them into diagnostics and the CLI into text or JSON. `origin` says
//! whether the real `torchcts check-manifest` reports the same message (parity) or
//! whether it is one of ours (hints beyond the real tool, notes on what could not be
//! evaluated).

use crate::codes::Code;
use crate::fix_data::FixData;
use crate::value::Span;
use serde::Serialize;

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Error,
    Warning,
    Information,
    Hint,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Origin {
    /// Same text and severity as torchcts's `validate_manifest` / `check-manifest`.
    Torchcts,
    /// Reported by torchcts-lsp only.
    Lsp,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Finding {
    #[serde(skip)]
    pub span: Span,
    pub severity: Severity,
    pub message: String,
    /// Stable identifier of the rule ([`Code::name`]), used by quick fixes and for filtering.
    pub code: &'static str,
    pub origin: Origin,
    /// Other places that explain this finding (e.g. the overridden duplicate key).
    #[serde(skip)]
    pub related: Vec<(Span, String)>,
    /// Rule-specific facts for quick fixes (e.g. the unknown name and its section).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub data: Option<FixData>,
}

impl Finding {
    pub fn new(span: Span, severity: Severity, message: impl Into<String>, code: Code, origin: Origin) -> Finding {
        Finding { span, severity, message: message.into(), code: code.name(), origin, related: Vec::new(), data: None }
    }

    pub fn with_related(mut self, span: Span, message: impl Into<String>) -> Finding {
        self.related.push((span, message.into()));
        self
    }

    pub fn with_data(mut self, data: FixData) -> Finding {
        self.data = Some(data);
        self
    }
}
