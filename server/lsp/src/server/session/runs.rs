//! Per-document state of the test runs started from the editor (`server/runs.rs`): what
//! the last finished run left on the manifest.

use torchcts_core::Severity;

/// Diagnostics a finished run left on a manifest, until the entry changes or a run passes.
#[derive(Clone, Debug)]
pub struct RunResults {
    /// Key path of the entry (e.g. `["supported_dtypes", "torch.float16"]`).
    pub anchor: Vec<String>,
    /// The entry's source text when the run started; results go when it changes.
    pub anchor_text: Option<String>,
    pub findings: Vec<(Severity, String)>,
    /// Failed node ids, for `torchcts.rerunFailed`.
    pub failed: Vec<String>,
}
