//! Fix data: the facts a rule hands to its quick fixes (and to the `check-manifest`
//! emulation), typed so that a rule and the fix that reads it cannot disagree on a name.
//!
//! The serde form is what the CLI's JSON and the LSP diagnostic `data` carry: a plain
//! object with the variant's fields and no tag (`{"name": "x", "section": "hardware"}`),
//! as before the payloads were typed. Fields are declared in alphabetical order, the order
//! a `serde_json::Value` prints them in, so that the CLI's reports, which write the data
//! directly, print what they printed through a `Value`. Reading it back tries the
//! variants in declaration order and ignores unknown fields, so a variant whose fields
//! include another's comes first (`UnknownKey` and `Replacements` before
//! `InvalidDtypeKey`).

use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum FixData {
    /// `unknown-key`: a key its section does not know.
    UnknownKey { name: String, section: KeySection },
    /// `stale-capability`, `unknown-operator`: the names to offer instead, closest first.
    Replacements { name: String, replacements: Vec<String> },
    /// `dtype-key-ignored`: the dtype a key means, as test selection matches it.
    DtypeKeyIgnored { attr: String, canonical: String },
    /// `syntax-error`: CPython's hint names its repair (a comma, a ':'), likeliest first.
    SyntaxRepairs { fixes: Vec<SyntaxRepair> },
    /// `check-crash`: the exception line check-manifest ends with.
    CheckCrash { exception_line: String },
    /// `missing-key`: the required top-level key.
    MissingKey { key: String },
    /// `invalid-dtype-key`: the key as Python's `str` writes it.
    InvalidDtypeKey { name: String },
    /// `invalid-regex`: the pattern `re.compile` rejects.
    InvalidRegex { pattern: String },
    /// `tolerance-category`: the category no tolerance table has.
    Category { category: String },
    /// `skip-op-passes`: the `skip_ops` item whose operator's tests pass now.
    PassingSkipOp { skip_op: String },
}

/// The dict an unknown key was found in; serialized as its manifest name (`""` for the
/// manifest itself).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum KeySection {
    #[serde(rename = "")]
    TopLevel,
    Capabilities,
    SupportedContainerFormats,
    Hardware,
    ResourceLimits,
    CustomContainerDecoders,
}

impl KeySection {
    /// The section's key in the manifest, as messages name it.
    pub fn name(self) -> &'static str {
        match self {
            KeySection::TopLevel => "",
            KeySection::Capabilities => "capabilities",
            KeySection::SupportedContainerFormats => "supported_container_formats",
            KeySection::Hardware => "hardware",
            KeySection::ResourceLimits => "resource_limits",
            KeySection::CustomContainerDecoders => "custom_container_decoders",
        }
    }
}

/// Replace the bytes `start..end` with `text`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SyntaxRepair {
    pub end: usize,
    pub start: usize,
    pub text: String,
    pub title: String,
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// Every variant, next to the JSON the rules wrote by hand before the payloads were
    /// typed (`json!` sites in validate.rs, analysis.rs, accounting_view.rs).
    fn every_variant() -> Vec<(FixData, serde_json::Value)> {
        let s = |t: &str| t.to_string();
        vec![
            (FixData::UnknownKey { section: KeySection::TopLevel, name: s("x") }, json!({"section": "", "name": "x"})),
            (
                FixData::UnknownKey { section: KeySection::CustomContainerDecoders, name: s("nf5") },
                json!({"section": "custom_container_decoders", "name": "nf5"}),
            ),
            (
                FixData::Replacements { name: s("generator"), replacements: vec![s("device_generator")] },
                json!({"name": "generator", "replacements": ["device_generator"]}),
            ),
            (
                FixData::Replacements { name: s("abz"), replacements: Vec::new() },
                json!({"name": "abz", "replacements": []}),
            ),
            (
                FixData::DtypeKeyIgnored { canonical: s("float32"), attr: s("float") },
                json!({"canonical": "float32", "attr": "float"}),
            ),
            (
                FixData::SyntaxRepairs {
                    fixes: vec![SyntaxRepair { start: 3, end: 3, text: s(","), title: s("Insert ','") }],
                },
                json!({"fixes": [{"start": 3, "end": 3, "text": ",", "title": "Insert ','"}]}),
            ),
            (FixData::CheckCrash { exception_line: s("KeyError: 'a'") }, json!({"exception_line": "KeyError: 'a'"})),
            (FixData::MissingKey { key: s("device_name") }, json!({"key": "device_name"})),
            (FixData::InvalidDtypeKey { name: s("torch.flaot") }, json!({"name": "torch.flaot"})),
            (FixData::InvalidRegex { pattern: s("(") }, json!({"pattern": "("})),
            (FixData::Category { category: s("matmull") }, json!({"category": "matmull"})),
            (FixData::PassingSkipOp { skip_op: s("add") }, json!({"skip_op": "add"})),
        ]
    }

    #[test]
    fn serializes_as_the_untyped_objects_did_and_reads_back() {
        for (data, expected) in every_variant() {
            let value = serde_json::to_value(&data).unwrap();
            assert_eq!(value, expected, "{data:?}");
            // Written directly, as the CLI's reports do, the keys come in the same order.
            assert_eq!(serde_json::to_string(&data).unwrap(), expected.to_string(), "{data:?}");
            assert_eq!(serde_json::from_value::<FixData>(value).unwrap(), data);
        }
    }

    #[test]
    fn every_section_name_is_its_serialized_form() {
        use KeySection::*;
        for section in
            [TopLevel, Capabilities, SupportedContainerFormats, Hardware, ResourceLimits, CustomContainerDecoders]
        {
            assert_eq!(serde_json::to_value(section).unwrap(), section.name());
        }
    }
}
