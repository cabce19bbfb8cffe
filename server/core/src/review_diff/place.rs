//! The review placed on the new text's entries: lens and diagnostic positions, and the
//! findings of entries switched off.

use super::compute::{dtype_value, CauseChange, Review};
use super::render::printed;
use crate::accounting_view::{self as av, ManifestFacts, PyValue};
use crate::codes::Code;
use crate::findings::{Finding, Origin, Severity};
use crate::value::{Dict, Span, ValueKind};
use accounting::diff::Cause;

/// The effect of a review on one entry of the new manifest (for a lens or a diagnostic).
#[derive(Debug, Clone, PartialEq)]
pub struct EntryEffect {
    /// The entry's key..value in the new text, or the enclosing key when the entry was removed.
    pub span: Span,
    /// The entry's own span was found (false: removed, shown on the enclosing key).
    pub exact: bool,
    pub causes: Vec<CauseChange>,
    pub started: usize,
    pub stopped: usize,
}

/// Where a cause is written in the new manifest: (span, found the entry itself).
fn locate(manifest: &Dict, cause: &Cause) -> Option<(Span, bool)> {
    let top = manifest.get(cause.manifest_key()?)?;
    let whole = |e: &crate::value::Entry| e.key.span.start..e.value.span.end;
    let keyed = |name: &str| -> Option<Span> {
        let dict = top.value.as_dict()?;
        dict.entries.iter().rev().find(|e| e.key.as_str() == Some(name)).map(whole)
    };
    let found = match cause {
        Cause::Dtype(dt) => top.value.as_dict().and_then(|d| {
            d.entries
                .iter()
                .rev()
                .find(|e| match &e.key.kind {
                    ValueKind::Dtype { canonical, .. } => canonical == dt,
                    ValueKind::Str(s) => s == dt,
                    _ => false,
                })
                .map(whole)
        }),
        // Several missing capabilities: the first one written.
        Cause::Capability(names) => names.iter().find_map(|n| keyed(n)),
        Cause::SkipOp(op) => match &top.value.kind {
            ValueKind::List(items) | ValueKind::Tuple(items) => {
                items.iter().find(|v| v.as_str() == Some(op.as_str())).map(|v| v.span.clone())
            }
            _ => None,
        },
        Cause::Hardware(k) | Cause::ResourceLimit(k) | Cause::ContainerFormat(k) | Cause::ContainerDecoder(k) => {
            keyed(k)
        }
        Cause::SemanticLevel | Cause::DeviceCount => Some(whole(top)),
        Cause::GeneratedSet | Cause::Suite(_) => None,
    };
    Some(match found {
        Some(span) => (span, true),
        None => (top.key.span.clone(), false),
    })
}

/// The review's changes placed on the entries of the new manifest, in text order.
pub fn entry_effects(review: &Review, manifest: &Dict) -> Vec<EntryEffect> {
    let mut out: Vec<EntryEffect> = Vec::new();
    for change in &review.changes {
        let Some((span, exact)) = locate(manifest, &change.cause) else { continue };
        match out.iter_mut().find(|e| e.span == span) {
            Some(e) => {
                e.started += change.started;
                e.stopped += change.stopped;
                e.causes.push(change.clone());
            }
            None => out.push(EntryEffect {
                span,
                exact,
                causes: vec![change.clone()],
                started: change.started,
                stopped: change.stopped,
            }),
        }
    }
    out.sort_by_key(|e| e.span.start);
    out
}

/// An information note on each dtype or capability switched off since the old version (on
/// there, off or gone now) that stops tests running, naming what it removes.
pub fn switched_off_findings(review: &Review, old: &ManifestFacts, manifest: &Dict, against: &str) -> Vec<Finding> {
    let new = av::facts(manifest);
    let mut out = Vec::new();
    for change in review.changes.iter().filter(|c| c.stopped > 0) {
        let (was_on, is_off, what) = match &change.cause {
            Cause::Dtype(dt) => (
                dtype_value(old, dt).is_some_and(PyValue::truthy),
                dtype_value(&new, dt).is_none_or(|v| !v.truthy()),
                format!("`{dt}`"),
            ),
            Cause::Capability(names) if names.len() == 1 => (
                old.capability(&names[0]).is_some_and(PyValue::truthy),
                new.capability(&names[0]).is_none_or(|v| !v.truthy()),
                format!("capability `{}`", names[0]),
            ),
            _ => continue,
        };
        if !(was_on && is_off) {
            continue;
        }
        let Some((span, _)) = locate(manifest, &change.cause) else { continue };
        let mut per_level: Vec<String> = Vec::new();
        let mut examples: Vec<&str> = Vec::new();
        for level in &review.diff.levels {
            let n: usize = level.stopped.iter().filter(|g| g.cause == change.cause).map(|g| g.nodes.len()).sum();
            if n > 0 {
                per_level.push(format!("{n} at level {}", level.level));
            }
            for g in level.stopped.iter().filter(|g| g.cause == change.cause) {
                examples.extend(g.nodes.iter().take(3usize.saturating_sub(examples.len())).map(|id| printed(id)));
            }
        }
        out.push(Finding::new(
            span,
            Severity::Information,
            format!(
                "{what} is switched off since {against}: {} tests stop running ({}), e.g. {}",
                change.stopped,
                per_level.join(", "),
                examples.join(", ")
            ),
            Code::ReviewRemovesTests,
            Origin::Lsp,
        ));
    }
    out
}
