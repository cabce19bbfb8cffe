//! Diagnostic ranges and messages on fixtures (see `fixture.rs` for the annotation format).
//! Messages tagged like the real tool were checked against torchcts 0.4.1's source and the
//! parity corpus; the others are ours.

mod fixture;
use fixture::check_diagnostics;

#[test]
fn unknown_and_stale_capability_on_the_key() {
    check_diagnostics(
        r#"
import torch
manifest = {
    "manifest_version": 1,
    "device_name": "cpu",
    "capabilities": {"inference": True, "generator": True},
#                                       ^^^^^^^^^^^ error: Unknown capabilities key 'generator'
#                                       ^^^^^^^^^^^ warning: 'generator' is a stale capability name; torchcts 0.4.1 uses 'device_generator'
}
"#,
    );
}

#[test]
fn type_errors_sit_on_the_value() {
    check_diagnostics(
        r#"
manifest = {
    "manifest_version": 1,
    "device_name": 5,
#                  ^ error: 'device_name' must be a string
    "semantic_level": True,
#                     ^^^^ error: semantic_level must be an integer from 1 to 8
    "capabilities": {"training": "yes"},
#                                ^^^^^ error: 'capabilities.training' must be a boolean
}
"#,
    );
}

#[test]
fn missing_required_keys_sit_on_the_manifest_name() {
    check_diagnostics(
        r#"
manifest = {"device_name": "cpu"}
#^^^^^^^ error: Missing required key 'manifest_version'
#^^^^^^^ error: Missing required key 'capabilities'
#^^^^^^^ warning: Unexpected manifest_version None; expected 1
"#,
    );
}

#[test]
fn duplicate_keys_and_ignored_dtype_string_keys() {
    check_diagnostics(
        r#"
import torch
manifest = {
    "manifest_version": 1,
    "device_name": "cpu",
    "capabilities": {},
    "supported_dtypes": {"float32": True, torch.half: False, torch.float16: True},
#                        ^^^^^^^^^ warning: 'float32' passes check-manifest but test selection ignores it: selection matches only the dtype torch.float32 (unquoted) or the exact string 'torch.float32'
#                                         ^^^^^^^^^^ warning: Duplicate key torch.float16 in supported_dtypes: this value is overridden by the one on line 7 (the last one wins)
}
"#,
    );
}

#[test]
fn what_cannot_be_evaluated_is_a_note_not_an_error() {
    check_diagnostics(
        r#"
import os
manifest = {
    "manifest_version": 1,
    "device_name": os.environ["DEVICE"],
#                  ^^^^^^^^^^^^^^^^^^^^ info: Not evaluated statically: `os.environ["DEVICE"]` is not evaluated statically
    "capabilities": {},
}
"#,
    );
}

#[test]
fn undefined_name_fails_loading_like_python() {
    check_diagnostics(
        r#"
manifest = {"manifest_version": 1, "device_name": DEVICE, "capabilities": {}}
#                                                 ^^^^^^ error: Failed to parse manifest: name 'DEVICE' is not defined
"#,
    );
}

#[test]
fn syntax_error_is_located_and_the_rest_still_validated() {
    check_diagnostics(
        r#"
manifest = {
    "manifest_version": 1
#   ^^^^^^^^^^^^^^^^^^^^^ error: Failed to parse manifest: invalid syntax. Perhaps you forgot a comma? (manifest.py, line 3)
    "device_name": "cpu",
    "capabilities": {"warp": True},
#                    ^^^^^^ error: Unknown capabilities key 'warp'
}
"#,
    );
}

#[test]
fn later_assignments_are_validated_where_they_are_written() {
    check_diagnostics(
        r#"
manifest = {"manifest_version": 1, "device_name": "cpu", "capabilities": {}}
manifest["hardware"] = {"memory_model": "shared"}
#                                       ^^^^^^^^ error: 'hardware.memory_model' must be 'discrete' or 'unified'
"#,
    );
}

#[test]
fn non_ascii_ranges_are_byte_exact() {
    check_diagnostics(
        r#"
manifest = {"manifest_version": 1, "device_name": "cpu", "capabilities": {}, "größe": "漢字"}
#                                                                            ^^^^^^^ error: Unknown top-level manifest key 'größe'
"#,
    );
}

#[test]
fn overly_wide_tolerance_overrides() {
    check_diagnostics(
        r#"
manifest = {
    "manifest_version": 1, "device_name": "cpu", "capabilities": {},
    "tolerance_overrides": {"matmul:torch.float16": {"rtol": 0.6, "atol": 1e-2}, "conv:torch.float32": (1e-3, 2)},
#                                                            ^^^ warning: rtol=0.6 is a very wide tolerance (TorchCTS's default usable rtol for matmul:torch.float16 is 0.05); an override must not accept arbitrary drift
#                                                                                                             ^ warning: atol=2 is a very wide tolerance (TorchCTS's default usable atol for conv:torch.float32 is 0.001); an override must not accept arbitrary drift
}
"#,
    );
}
