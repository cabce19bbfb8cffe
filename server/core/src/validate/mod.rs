//! Validation with the rules of torchcts 0.4.1's `validate_manifest`, message for message.
//!
//! Each function mirrors one helper of `torchcts/core/manifest_schema.py` (and what it
//! calls in `tolerances.py`, `quantized_decoders.py`, `semantic_levels.py`) in the same
//! order, so the findings come out in the order the real tool prints them. Every finding
//! is placed on the key or value it is about. A value that could not be evaluated
//! statically is skipped by every rule: we never report an error we cannot prove.
//!
//! One file per manifest section ([`top_level`] holds the top-level keys and scalar
//! settings); [`common`] is what they share. After the parity rules, [`lsp_hints`] adds
//! what the real tool does not say but users need: duplicate keys, stale capability names,
//! dtype keys that selection ignores, and Python's own regex warnings.

mod capabilities;
mod common;
mod custom_test_dirs;
mod dtypes;
mod hardware;
mod lsp_hints;
mod quantized;
mod suggestions;
mod tolerances;
mod top_level;

pub use common::ValidationContext;
pub use dtypes::dtype_from_manifest_key;
pub use lsp_hints::{lsp_hints, STALE_CAPABILITIES};
pub use suggestions::{key_suggestions, with_suggestion};

use crate::findings::Finding;
use crate::value::{Dict, Span};
use common::Out;

/// Runs `validate_manifest(manifest, base_dir)` on an evaluated manifest dict.
/// `manifest_span` is where module-level findings go (the `manifest` name).
pub fn validate_manifest(manifest: &Dict, manifest_span: Span, ctx: &ValidationContext) -> Vec<Finding> {
    let mut out = Out { findings: Vec::new(), python: ctx.python };
    // Values known only by a type the schema does not take are judged by it.
    let stood_in = common::with_stand_ins(manifest);
    let manifest = stood_in.as_ref().unwrap_or(manifest);
    top_level::keys(&mut out, manifest, &manifest_span);
    top_level::manifest_version(&mut out, manifest, &manifest_span);
    top_level::settings(&mut out, manifest);
    top_level::semantic_level(&mut out, manifest);
    top_level::show_traceback(&mut out, manifest);
    if let common::Section::Known(e) = common::section(manifest, "supported_dtypes") {
        dtypes::validate_supported_dtypes(&mut out, e);
    }
    capabilities::validate_capabilities(&mut out, manifest);
    top_level::skip_ops(&mut out, manifest);
    hardware::validate_hardware(&mut out, manifest);
    hardware::validate_resource_limits(&mut out, manifest);
    tolerances::validate_tolerance_overrides(&mut out, manifest);
    quantized::validate_quantized_sections(&mut out, manifest);
    custom_test_dirs::validate_custom_test_dirs(&mut out, manifest, ctx);
    out.findings
}
