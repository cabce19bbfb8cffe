//! Quick-fix fixtures: `$0` marks the cursor; the snapshot is each fix's title and the
//! text after applying its edits.

mod fixture;

use expect_test::{expect, Expect};
use fixture::parse_fixture;
use torchcts_core::actions::{apply_edits, quick_fixes};
use torchcts_core::{analyze, AnalysisInput};

fn check(fixture: &str, expected: Expect) {
    let f = parse_fixture(fixture);
    let analysis = analyze(&f.text, &AnalysisInput::default());
    let cursor = f.cursor.expect("fixture has a $0 cursor");
    let fixes = quick_fixes(&analysis, cursor..cursor);
    let mut out = String::new();
    for fix in fixes {
        let after = apply_edits(&f.text, &fix.edits);
        out.push_str(&format!(
            "== {}{} [fixes: {}]\n{}",
            fix.title,
            if fix.preferred { " (preferred)" } else { "" },
            analysis.findings[fix.finding].message,
            after
        ));
        // The fix must make its finding go away.
        let again = analyze(&after, &AnalysisInput::default());
        let message = &analysis.findings[fix.finding].message;
        assert!(!again.findings.iter().any(|x| &x.message == message), "fix `{}` leaves `{message}`", fix.title);
    }
    expected.assert_eq(&out);
}

#[test]
fn stale_capability_is_renamed_keeping_quotes_and_comments() {
    check(
        r#"
manifest = {
    'manifest_version': 1, 'device_name': 'cpu',
    'capabilities': {'gene$0rator': True},  # keep me
}
"#,
        expect![[r#"
            == Replace with 'device_generator' (preferred) [fixes: Unknown capabilities key 'generator']

            manifest = {
                'manifest_version': 1, 'device_name': 'cpu',
                'capabilities': {'device_generator': True},  # keep me
            }
        "#]],
    );
}

#[test]
fn unknown_capability_typo_gets_the_nearest_names() {
    check(
        r#"
manifest = {"manifest_version": 1, "device_name": "cpu", "capabilities": {"infrence$0": True}}
"#,
        expect![[r#"
            == Replace with 'inference' (preferred) [fixes: Unknown capabilities key 'infrence' (did you mean 'inference'?)]

            manifest = {"manifest_version": 1, "device_name": "cpu", "capabilities": {"inference": True}}
        "#]],
    );
}

#[test]
fn unknown_key_without_near_miss_is_removed_with_its_line() {
    check(
        r#"
manifest = {
    "manifest_version": 1,
    "device_name": "cpu",
    "capabilities": {},
    "frobnicate$0": 3,
}
"#,
        expect![[r#"
            == Remove the 'frobnicate' entry [fixes: Unknown top-level manifest key 'frobnicate']

            manifest = {
                "manifest_version": 1,
                "device_name": "cpu",
                "capabilities": {},
            }
        "#]],
    );
}

#[test]
fn missing_required_key_is_inserted_in_the_dict_style() {
    check(
        r#"
manifest$0 = {
    "manifest_version": 1,
    "capabilities": {},
}
"#,
        expect![[r#"
            == Add "device_name": "cpu" (preferred) [fixes: Missing required key 'device_name']

            manifest = {
                "device_name": "cpu",
                "manifest_version": 1,
                "capabilities": {},
            }
        "#]],
    );
}

#[test]
fn a_misspelt_required_key_is_renamed_keeping_its_value() {
    // On the missing key's finding (the `manifest` name) and on the misspelt key alike:
    // the rename, which keeps the entries, before an empty `capabilities`.
    let text = r#"
manif$0est = {
    "manifest_version": 1,
    "device_name": "cpu",
    "capabilites": {"inference": True},
}
"#;
    check(
        text,
        expect![[r#"
            == Replace with 'capabilities' (preferred) [fixes: Missing required key 'capabilities']

            manifest = {
                "manifest_version": 1,
                "device_name": "cpu",
                "capabilities": {"inference": True},
            }
            == Add "capabilities": {} [fixes: Missing required key 'capabilities']

            manifest = {
                "capabilities": {},
                "manifest_version": 1,
                "device_name": "cpu",
                "capabilites": {"inference": True},
            }
        "#]],
    );
    check(
        &text.replace("manif$0est", "manifest").replace("capabilites", "capab$0ilites"),
        expect![[r#"
            == Replace with 'capabilities' (preferred) [fixes: Unknown top-level manifest key 'capabilites' (did you mean 'capabilities'?)]

            manifest = {
                "manifest_version": 1,
                "device_name": "cpu",
                "capabilities": {"inference": True},
            }
        "#]],
    );
}

#[test]
fn a_misspelt_section_key_says_what_it_probably_means() {
    check(
        r#"
manifest = {"manifest_version": 1, "device_name": "cpu", "capabilities": {}, "hardware": {"memory_modle$0": "unified"}}
"#,
        expect![[r#"
            == Replace with 'memory_model' (preferred) [fixes: Unknown hardware key 'memory_modle' (did you mean 'memory_model'?)]

            manifest = {"manifest_version": 1, "device_name": "cpu", "capabilities": {}, "hardware": {"memory_model": "unified"}}
        "#]],
    );
}

#[test]
fn dtype_string_key_becomes_the_canonical_torch_attribute() {
    check(
        r#"
import torch
manifest = {"manifest_version": 1, "device_name": "cpu", "capabilities": {}, "supported_dtypes": {"ha$0lf": True}}
"#,
        expect![[r#"
            == Write the key as torch.float16 (preferred) [fixes: 'half' passes check-manifest but test selection ignores it: selection matches only the dtype torch.float16 (unquoted) or the exact string 'torch.float16']

            import torch
            manifest = {"manifest_version": 1, "device_name": "cpu", "capabilities": {}, "supported_dtypes": {torch.float16: True}}
        "#]],
    );
}

#[test]
fn dtype_alias_written_torch_dot_is_written_as_the_dtype_object() {
    check(
        r#"
import torch
manifest = {"manifest_version": 1, "device_name": "cpu", "capabilities": {}, "supported_dtypes": {"torch.h$0alf": True}}
"#,
        expect![[r#"
            == Write the key as torch.float16 (preferred) [fixes: 'torch.half' passes check-manifest but test selection ignores it: selection matches only the dtype torch.float16 (unquoted) or the exact string 'torch.float16']

            import torch
            manifest = {"manifest_version": 1, "device_name": "cpu", "capabilities": {}, "supported_dtypes": {torch.float16: True}}
        "#]],
    );
}

#[test]
fn dtype_alias_without_import_torch_is_written_as_the_canonical_string() {
    check(
        r#"
manifest = {"manifest_version": 1, "device_name": "cpu", "capabilities": {}, "supported_dtypes": {"ha$0lf": True}}
"#,
        expect![[r#"
            == Write the key as "torch.float16" (preferred) [fixes: 'half' passes check-manifest but test selection ignores it: selection matches only the dtype torch.float16 (unquoted) or the exact string 'torch.float16']

            manifest = {"manifest_version": 1, "device_name": "cpu", "capabilities": {}, "supported_dtypes": {"torch.float16": True}}
        "#]],
    );
}

#[test]
fn custom_quantized_decode_without_decoders_is_set_false() {
    check(
        r#"
manifest = {"manifest_version": 1, "device_name": "cpu", "capabilities": {"custom_quantized_decode$0": True}}
"#,
        expect![[r#"
            == Set custom_quantized_decode to False (preferred) [fixes: 'capabilities.custom_quantized_decode' requires at least one custom_container_decoders entry]

            manifest = {"manifest_version": 1, "device_name": "cpu", "capabilities": {"custom_quantized_decode": False}}
            == Add a custom_container_decoders entry stub (nf4) [fixes: 'capabilities.custom_quantized_decode' requires at least one custom_container_decoders entry]

            manifest = {"supported_container_formats": {"nf4": True}, "custom_container_decoders": {"nf4": "my_backend.decoders:decode_nf4"}, "manifest_version": 1, "device_name": "cpu", "capabilities": {"custom_quantized_decode": True}}
        "#]],
    );
}

#[test]
fn invalid_regex_gets_the_nearest_form_python_accepts() {
    check(
        r#"
import torch
manifest = {"manifest_version": 1, "device_name": "cpu", "capabilities": {}, "supported_dtypes": {torch.float16: "*ma$0tmul|add"}}
"#,
        expect![[r#"
            == Change the regex to r".*matmul|add" (preferred) [fixes: supported_dtypes[torch.float16] regex is invalid: nothing to repeat at position 0]

            import torch
            manifest = {"manifest_version": 1, "device_name": "cpu", "capabilities": {}, "supported_dtypes": {torch.float16: r".*matmul|add"}}
        "#]],
    );
}

#[test]
fn forgotten_comma_is_inserted() {
    check(
        r#"
manifest = {
    "manifest_version": 1$0
    "device_name": "cpu",
}
"#,
        expect![[r#"
            == Insert the missing ',' (preferred) [fixes: Failed to parse manifest: invalid syntax. Perhaps you forgot a comma? (manifest.py, line 3)]

            manifest = {
                "manifest_version": 1,
                "device_name": "cpu",
            }
        "#]],
    );
}

#[test]
fn key_and_value_joined_without_colon_get_it_back() {
    check(
        r#"
manifest = {
    "manifest_version": 1,
    "device_name" $0"cpu",
}
"#,
        expect![[r#"
            == Insert ':' after the key (preferred) [fixes: Failed to parse manifest: ':' expected after dictionary key (manifest.py, line 4)]

            manifest = {
                "manifest_version": 1,
                "device_name": "cpu",
            }
        "#]],
    );
}

#[test]
fn equals_instead_of_colon_in_a_dict_becomes_a_colon() {
    check(
        r#"
import torch
manifest = {
    "manifest_version": 1,
    "supported_dtypes": {torch.float32 $0= True, torch.float16: False},
}
"#,
        expect![[r#"
            == Replace '=' with ':' (preferred) [fixes: Failed to parse manifest: cannot assign to attribute here. Maybe you meant '==' instead of '='? (manifest.py, line 5)]

            import torch
            manifest = {
                "manifest_version": 1,
                "supported_dtypes": {torch.float32 : True, torch.float16: False},
            }
        "#]],
    );
}

#[test]
fn a_header_without_its_colon_gets_it() {
    check(
        r#"
def caps(*names)$0
    return {name: True for name in names}
manifest = {"manifest_version": 1, "device_name": "cpu", "capabilities": caps("inference")}
"#,
        expect![[r#"
            == Insert the missing ':' (preferred) [fixes: Failed to parse manifest: expected ':' (manifest.py, line 2)]

            def caps(*names):
                return {name: True for name in names}
            manifest = {"manifest_version": 1, "device_name": "cpu", "capabilities": caps("inference")}
        "#]],
    );
}

#[test]
fn a_first_key_without_colon_offers_the_colon_not_a_comma_that_cpython_rejects() {
    check(
        r#"
manifest = {
    "manifest_version": 1,
    "capabilities": {"inference" $0True, "training": False},
}
"#,
        expect![[r#"
            == Insert ':' after the key (preferred) [fixes: Failed to parse manifest: invalid syntax. Perhaps you forgot a comma? (manifest.py, line 4)]

            manifest = {
                "manifest_version": 1,
                "capabilities": {"inference": True, "training": False},
            }
        "#]],
    );
}

#[test]
fn a_first_entry_that_lost_its_colon_gets_it_back() {
    check(
        r#"
manifest = {
    "manifest_version": 1,
    "device_name": "cpu",
    "hardware": {
        "memory_model" "discrete",
        "oom_recoverable"$0: True,
    },
}
"#,
        expect![[r#"
            == Insert ':' after the key (preferred) [fixes: Failed to parse manifest: invalid syntax (manifest.py, line 7)]

            manifest = {
                "manifest_version": 1,
                "device_name": "cpu",
                "hardware": {
                    "memory_model": "discrete",
                    "oom_recoverable": True,
                },
            }
        "#]],
    );
}
