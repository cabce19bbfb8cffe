//! `custom_test_dirs`: a list of strings, each an existing directory.

use super::common::{known_value, Out, ValidationContext};
use crate::codes::Code;
use crate::value::{Dict, ValueKind};

pub(super) fn validate_custom_test_dirs(out: &mut Out, manifest: &Dict, ctx: &ValidationContext) {
    let Some(v) = known_value(manifest, "custom_test_dirs") else { return };
    let items = match &v.kind {
        ValueKind::List(items) if items.iter().all(|i| matches!(i.kind, ValueKind::Str(_) | ValueKind::Unknown(_))) => {
            items
        }
        _ => {
            out.error(v.span.clone(), "'custom_test_dirs' must be a list of strings".into(), Code::Type);
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
                    Code::MissingDir,
                );
            }
        }
    }
}
