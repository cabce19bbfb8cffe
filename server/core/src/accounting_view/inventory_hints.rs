//! Findings only the inventory can give: a regex that lets in every operator of the
//! suite or none, a `skip_ops` name that is no operator of the suite.

use super::operators::{matched_count, nearest_operators};
use crate::codes::Code;
use crate::findings::{Finding, Origin, Severity};
use crate::fix_data::FixData;
use crate::value::{Dict, Value, ValueKind};
use accounting::Inventory;

/// Hints only the inventory can give: a regex that lets in every operator of the suite or
/// none, and a `skip_ops` name that is no operator of the suite.
pub fn inventory_hints(manifest: &Dict, inventory: &Inventory, python: pyregex::PythonVersion) -> Vec<Finding> {
    let mut out = Vec::new();
    let total = inventory.operator_count();
    let check_regex = |value: &Value, what: &str, out: &mut Vec<Finding>| {
        let Some(pattern) = value.as_str() else { return };
        let Some(matched) = matched_count(inventory, pattern, python) else { return };
        if matched == total {
            out.push(Finding::new(
                value.span.clone(),
                Severity::Warning,
                format!("{what} regex lets in every operator of the suite ({total}): it filters nothing"),
                Code::RegexMatchesAll,
                Origin::Lsp,
            ));
        } else if matched == 0 {
            out.push(Finding::new(
                value.span.clone(),
                Severity::Warning,
                format!("{what} regex matches no operator of the suite"),
                Code::RegexMatchesNone,
                Origin::Lsp,
            ));
        }
    };
    if let Some(dtypes) = manifest.get("supported_dtypes").and_then(|e| e.value.as_dict()) {
        for entry in &dtypes.entries {
            check_regex(&entry.value, &format!("This {}", entry.key.py_str()), &mut out);
        }
    }
    if let Some(ieee) = manifest.get("capabilities").and_then(|e| e.value.as_dict()).and_then(|c| c.get("ieee754")) {
        match &ieee.value.kind {
            ValueKind::Str(_) => check_regex(&ieee.value, "The ieee754", &mut out),
            ValueKind::List(items) | ValueKind::Tuple(items) => {
                for item in items {
                    check_regex(item, "This ieee754", &mut out);
                }
            }
            _ => {}
        }
    }
    if let Some(ValueKind::List(items)) = manifest.get("skip_ops").map(|e| &e.value.kind) {
        // Nearest names cost a pass over every operator: only for the first few unknown
        // entries, so that a huge skip_ops list cannot stall the server.
        let mut suggestions_left = 20;
        for item in items {
            let Some(name) = item.as_str() else { continue };
            if inventory.is_operator(name) {
                continue;
            }
            let nearest = if suggestions_left > 0 {
                suggestions_left -= 1;
                nearest_operators(inventory, name)
            } else {
                Vec::new()
            };
            // skip_ops compares the operator name exactly; the suggestions are names it matches.
            let hint = if nearest.is_empty() {
                String::new()
            } else {
                format!("; nearest operator names skip_ops accepts: {}", nearest.join(", "))
            };
            out.push(
                Finding::new(
                    item.span.clone(),
                    Severity::Warning,
                    format!("'{name}' is not an operator of the TorchCTS suite, so skipping it changes nothing{hint}"),
                    Code::UnknownOperator,
                    Origin::Lsp,
                )
                .with_data(FixData::Replacements { name: name.to_string(), replacements: nearest }),
            );
        }
    }
    out
}
