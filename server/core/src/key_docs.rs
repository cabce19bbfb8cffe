//! Documentation of manifest keys, for hover and completion.
//!
//! Written from torchcts 0.4.1's `configure-backend` page and its validation and collection
//! code; the key *sets* themselves come from [`crate::schema`], and a test checks that every
//! key of the schema has a doc here.

/// (key, value shape, documentation)
pub const TOP_LEVEL: &[(&str, &str, &str)] = &[
    ("manifest_version", "int (1)", "Version of the manifest format. torchcts 0.4.1 expects `1` and warns otherwise. Required."),
    ("device_name", "str", "The backend's device name: `cuda`, `mps`, `xpu`, or the PrivateUse1 name your backend registers (e.g. `my_backend`). `auto` lets `torchcts run` detect the device; `show-skips` treats `auto` as `cpu`. `--device` on the command line replaces it. Required."),
    ("backend_import", "str | None", "Module imported before tests run, to register an out-of-tree backend (e.g. `my_backend_package`). `None` for in-tree backends."),
    ("supported_dtypes", "dict[dtype, bool | regex str]", "Which dtype cases enter the support surface. Key: `torch.<dtype>` (or the exact string `\"torch.float32\"`). Value: `True` (all operators), `False` (declared unsupported), or a Python regex that `re.search` applies to operator names. A dtype that is not listed is skipped silently (`dtype_not_listed`)."),
    ("device_count", "int >= 1", "Number of devices the backend exposes (default 1). Multi-device tests need 2 or more, and the `multi_device` capability."),
    ("ieee754_seed", "int >= 0", "Seed for IEEE-754 special-value sample generation."),
    ("max_samples", "int >= 0", "Cap on OpInfo samples per test."),
    ("max_samples_ieee754", "int >= 0", "Cap on samples for NaN/Inf (IEEE-754) test conditions."),
    ("semantic_level", "int 1..8", "Default test depth: tests up to this semantic level run (`--level` overrides it; default 3 when absent). It does not declare a backend feature."),
    ("hardware", "dict", "Memory model and memory sizes of the device, and whether out-of-memory errors are recoverable."),
    ("resource_limits", "dict", "Caps on device memory, system memory and tensor size for the run, and the cleanup threshold."),
    ("capabilities", "dict[str, bool]", "Feature families beyond basic tensor operations. Tests that `@requires` a capability run only when it is `True` (a missing capability counts as `False` there). Unknown names fail validation. Required."),
    ("skip_ops", "list[str]", "Operator names the backend explicitly does not claim. Matching is exact: OpInfo tests of these operators are not generated, other tests of them are deselected (`op_excluded`)."),
    ("tolerance_overrides", "dict[\"category:dtype\", {rtol, atol} | (rtol, atol)]", "Reviewed numerical tolerance differences, per category and dtype (`\"matmul:torch.float16\"`). Keep them narrow: an override must not accept arbitrary drift."),
    ("supported_container_formats", "dict[str, bool]", "Quantized container formats the backend supports (e.g. `nf4`, `fp8_e4m3fn`); tests of other formats are deselected."),
    ("custom_container_decoders", "dict[str, \"module:function\"]", "Decoder for each custom quantized container format, as an import path. Each format must also be `True` in `supported_container_formats`, and `capabilities.custom_quantized_decode` should be `True`."),
    ("custom_test_dirs", "list[str]", "Extra test directories collected with the suite, relative to the manifest's folder. Missing directories are reported by check-manifest."),
    ("show_traceback", "bool", "Show full Python tracebacks in test failure reports."),
];

pub const CAPABILITIES: &[(&str, &str)] = &[
    ("inference", "Forward-pass (inference) feature tests."),
    ("training", "Training workflows: backward passes and optimizer steps."),
    ("serialization", "Saving and loading tensors and modules on the device."),
    ("rng", "Random number generation on the device. Generated manual-RNG cases are skipped only when this is explicitly `False`."),
    ("device_generator", "Device-side `torch.Generator` objects. Generated cases that take a generator are skipped only when this is explicitly `False`. (Formerly `generator`.)"),
    ("rng_distributions", "Random distributions (normal, uniform, bernoulli, ...) on the device."),
    ("double_backward", "Second-order gradients (backward of backward)."),
    ("gradcheck", "Numerical gradient checks (gradcheck); they also need float64 in `supported_dtypes`."),
    ("gradient_checkpointing", "Activation checkpointing during training."),
    ("autocast", "Automatic mixed precision (`torch.autocast`) for the device."),
    ("fused_optimizer", "Fused optimizer implementations."),
    ("dataloader", "DataLoader integration (e.g. pinned transfers to the device)."),
    ("module_hooks", "nn.Module forward/backward hooks on the device."),
    ("channels_last", "channels_last memory format."),
    ("sparse", "Sparse tensors. OpInfo operators that support sparse layouts are generated only when this is `True`."),
    ("nested", "Nested (jagged) tensors."),
    ("named_tensor", "Named tensors."),
    ("foreach", "`torch._foreach_*` multi-tensor operators."),
    ("fp8", "float8 dtypes and scaled matmul."),
    ("quantized_container_plumbing", "Moving quantized containers through the device (storage, copies, views). (Formerly part of `quantized`.)"),
    ("native_quantization", "Native quantized operators (quantize/dequantize, quantized kernels). (Formerly part of `quantized`.)"),
    ("custom_quantized_decode", "Decoding custom quantized container formats; requires at least one `custom_container_decoders` entry."),
    ("compile", "`torch.compile` integration."),
    ("pinned_memory", "Pinned host memory and asynchronous copies."),
    ("streams", "Device streams."),
    ("events", "Device events and timing."),
    ("deterministic", "Deterministic algorithms mode."),
    ("guard_alloc", "Allocator guards (out-of-bounds and use-after-free checks)."),
    ("device_api", "The `torch.<device>` module API (device queries, memory statistics, synchronisation)."),
    ("multi_device", "Tests across several devices; they also need `device_count` of 2 or more."),
    ("ieee754", "NaN/Inf (IEEE-754) test conditions for OpInfo operators: `True` (default), `False`, a regex matched with `re.search` against operator names, or a list of such regexes."),
];

pub const HARDWARE: &[(&str, &str)] = &[
    ("memory_model", "`\"discrete\"` or `\"unified\"` (device memory shared with the host, as on MPS)."),
    ("device_memory_gb", "`\"auto\"` or a non-empty list of positive numbers, one per device. `show-skips` counts `\"auto\"` as 4 GB per device; large-allocation tests need at least 6."),
    ("system_memory_gb", "`\"auto\"` or a positive number."),
    ("oom_recoverable", "Whether the backend can catch an out-of-memory error and continue without corrupting device state. If `False`, OOM-recovery tests are deselected (`oom_not_recoverable`)."),
];

pub const RESOURCE_LIMITS: &[(&str, &str)] = &[
    ("max_device_memory_mb", "Cap on device memory for the run, in MB (`None` or a positive number)."),
    ("max_system_memory_mb", "Cap on system memory for the run, in MB (`None` or a positive number)."),
    ("max_tensor_size_mb", "Largest tensor tests may allocate, in MB (`None` or a positive number). Large-allocation tests need at least 2048."),
    ("cleanup_threshold_pct", "Memory usage percentage (integer 1..100) at which TorchCTS runs garbage collection and cache clearing between tests."),
];

pub fn top_level(key: &str) -> Option<(&'static str, &'static str)> {
    TOP_LEVEL.iter().find(|(k, _, _)| *k == key).map(|(_, shape, doc)| (*shape, *doc))
}

pub fn capability(key: &str) -> Option<&'static str> {
    CAPABILITIES.iter().find(|(k, _)| *k == key).map(|(_, d)| *d)
}

pub fn hardware(key: &str) -> Option<&'static str> {
    HARDWARE.iter().find(|(k, _)| *k == key).map(|(_, d)| *d)
}

pub fn resource_limit(key: &str) -> Option<&'static str> {
    RESOURCE_LIMITS.iter().find(|(k, _)| *k == key).map(|(_, d)| *d)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema::schema;

    #[test]
    fn every_schema_key_is_documented() {
        let s = schema();
        for k in &s.top_level_keys {
            assert!(top_level(k).is_some(), "no doc for top-level key {k}");
        }
        for k in &s.capabilities {
            assert!(capability(k).is_some(), "no doc for capability {k}");
        }
        for k in &s.hardware_keys {
            assert!(hardware(k).is_some(), "no doc for hardware key {k}");
        }
        for k in &s.resource_limit_keys {
            assert!(resource_limit(k).is_some(), "no doc for resource limit {k}");
        }
    }
}
