//! The manifest schema as data.
//!
//! `data/schema.json` is generated from the real torchcts and torch by
//! `tools/gen_schema.py`: key sets, capability order, container formats, the torch dtype
//! attributes (with aliases such as `half` and `int`), tolerance categories and defaults,
//! and semantic level descriptions. Validation, hover and completion all read it from here,
//! so they cannot disagree. Hand-written documentation for each key lives in
//! [`crate::key_docs`].

use serde::Deserialize;
use std::sync::OnceLock;

#[derive(Debug, Deserialize)]
pub struct Schema {
    pub torchcts_version: String,
    pub torch_version: String,
    pub top_level_keys: Vec<String>,
    pub required_top_level_keys: Vec<String>,
    /// In torchcts's `CAPABILITY_ORDER`.
    pub capabilities: Vec<String>,
    pub hardware_keys: Vec<String>,
    pub resource_limit_keys: Vec<String>,
    pub memory_models: Vec<String>,
    pub container_formats: Vec<String>,
    pub tolerance_categories: Vec<String>,
    pub tolerance_defaults: Vec<ToleranceDefault>,
    pub dtypes: Vec<DtypeInfo>,
    /// `dir(torch)` without dunders.
    pub torch_attributes: Vec<String>,
    pub semantic_levels: SemanticLevels,
}

/// One attribute of the `torch` module that is a dtype.
#[derive(Debug, Deserialize)]
pub struct DtypeInfo {
    /// Attribute name: `float32`, or an alias such as `half`.
    pub attr: String,
    /// `str(dtype)`: `torch.float16` for `torch.half` too.
    pub canonical: String,
    pub is_floating_point: bool,
    pub is_complex: bool,
}

#[derive(Debug, Deserialize)]
pub struct ToleranceDefault {
    pub category: String,
    /// Canonical dtype name, `torch.float16`.
    pub dtype: String,
    /// `[rtol, atol]`.
    pub golden: [f64; 2],
    pub usable: [f64; 2],
}

#[derive(Debug, Deserialize)]
pub struct SemanticLevels {
    pub min: i64,
    pub max: i64,
    pub default_requested: i64,
    pub descriptions: std::collections::BTreeMap<String, String>,
}

static SCHEMA: OnceLock<Schema> = OnceLock::new();

/// The schema of the torchcts version this build targets.
pub fn schema() -> &'static Schema {
    SCHEMA.get_or_init(|| {
        serde_json::from_str(include_str!("../data/schema.json"))
            .expect("data/schema.json is generated and checked by tests")
    })
}

impl Schema {
    /// The dtype that `torch.<attr>` names, if any.
    pub fn dtype_by_attr(&self, attr: &str) -> Option<&DtypeInfo> {
        self.dtypes.iter().find(|d| d.attr == attr)
    }

    /// Resolves a string key the way `dtype_from_manifest_key` does: strip whitespace,
    /// drop a `torch.` prefix, then look the name up on the torch module.
    pub fn dtype_from_string_key(&self, key: &str) -> Option<&DtypeInfo> {
        let name = python_strip(key);
        let name = name.strip_prefix("torch.").unwrap_or(name);
        self.dtype_by_attr(name)
    }

    /// Canonical dtype names, each once, in attribute order.
    pub fn canonical_dtypes(&self) -> Vec<&str> {
        let mut out: Vec<&str> = Vec::new();
        for d in &self.dtypes {
            if !out.contains(&d.canonical.as_str()) {
                out.push(&d.canonical);
            }
        }
        out
    }

    pub fn is_capability(&self, name: &str) -> bool {
        self.capabilities.iter().any(|c| c == name)
    }

    pub fn level_description(&self, level: i64) -> Option<&str> {
        self.semantic_levels.descriptions.get(&level.to_string()).map(String::as_str)
    }

    pub fn tolerance_default(&self, category: &str, canonical_dtype: &str) -> Option<&ToleranceDefault> {
        self.tolerance_defaults.iter().find(|t| t.category == category && t.dtype == canonical_dtype)
    }
}

/// Python's `str.strip()` with no argument: strips Unicode whitespace.
pub fn python_strip(text: &str) -> &str {
    text.trim_matches(is_python_whitespace)
}

/// Characters for which Python's `str.isspace()` is true.
pub fn is_python_whitespace(ch: char) -> bool {
    ch.is_whitespace() || matches!(ch, '\u{1c}'..='\u{1f}')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn schema_loads_and_knows_aliases() {
        let s = schema();
        assert_eq!(s.dtype_by_attr("half").unwrap().canonical, "torch.float16");
        assert_eq!(s.dtype_by_attr("int").unwrap().canonical, "torch.int32");
        assert_eq!(s.dtype_from_string_key(" torch.bfloat16 ").unwrap().canonical, "torch.bfloat16");
        assert!(s.dtype_from_string_key("torch.notadtype").is_none());
        assert_eq!(s.capabilities.first().map(String::as_str), Some("inference"));
        assert!(s.tolerance_categories.iter().any(|c| c == "matmul"));
    }
}
