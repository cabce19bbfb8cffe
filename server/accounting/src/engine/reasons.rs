//! The reason ids the rule chain records, looked up once when the engine is built.

use crate::inventory::{Reason, Tables};

/// The reason ids the rule chain records, looked up once per inventory.
#[derive(Clone, Copy)]
pub(crate) struct ChainReasons {
    pub(crate) not_listed: Reason,
    pub(crate) not_supported: Reason,
    pub(crate) regex: Reason,
    pub(crate) contract_unsupported: Reason,
    pub(crate) capability: Reason,
    pub(crate) device_count: Reason,
    pub(crate) op_excluded: Reason,
    pub(crate) container: Reason,
    pub(crate) decoder: Reason,
    pub(crate) resource: Reason,
    pub(crate) gen_no_dtypes: Reason,
    pub(crate) strategy_pending: Reason,
    pub(crate) oom: Reason,
    pub(crate) path_shape: Reason,
    pub(crate) opinfo_empty: Reason,
    pub(crate) level_gt: Reason,
    pub(crate) level_out: Reason,
    pub(crate) known_crash: Reason,
    pub(crate) backend_not_available: Option<Reason>,
}

impl ChainReasons {
    pub(crate) fn of(inv: &Tables) -> ChainReasons {
        let rid = |s: &str| inv.reason_id(s);
        ChainReasons {
            not_listed: rid("dtype_not_listed"),
            not_supported: rid("dtype_not_supported"),
            regex: rid("dtype_regex_filtered"),
            contract_unsupported: rid("cpu_contract_unsupported"),
            capability: rid("capability_not_declared"),
            device_count: rid("device_count"),
            op_excluded: rid("op_excluded"),
            container: rid("container_format_not_supported"),
            decoder: rid("custom_container_decoder_not_declared"),
            resource: rid("resource_limit"),
            gen_no_dtypes: rid("generated_no_manifest_enabled_dtypes"),
            strategy_pending: rid("coverage_strategy_pending"),
            oom: rid("oom_not_recoverable"),
            path_shape: rid("path_shape_no_selected_cases"),
            opinfo_empty: rid("opinfo_no_selected_cases"),
            level_gt: rid("semantic_level_gt_requested"),
            level_out: rid("semantic_level_out_of_range"),
            known_crash: rid("known_backend_crash"),
            backend_not_available: inv.reason_index.get("backend_not_available").copied(),
        }
    }
}
