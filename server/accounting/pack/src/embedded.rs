//! The releases `tools/inventory/pack_versions.py` commits (a base inventory in line-JSON
//! and line deltas of the other releases) packed into one archive.

use std::collections::BTreeMap;

use serde::Deserialize;
use serde_json::Value;

use crate::{pack_json, ArchiveWriter, Names};

#[derive(Deserialize)]
struct DeltaFile {
    format: String,
    base: String,
    versions: BTreeMap<String, Delta>,
}

#[derive(Deserialize)]
#[serde(rename_all = "lowercase")]
enum Delta {
    /// Same suite facts as another release.
    Alias(String),
    /// `[start, count]` copies base lines; a string is a line of its own.
    Lines(Vec<Value>),
}

/// Packs the base inventory (JSON text) and the deltas file (JSON text) into an archive
/// holding every release; the base release (the newest) comes first.
pub fn pack_releases(base_json: &[u8], deltas_json: &[u8]) -> Result<Vec<u8>, String> {
    let deltas: DeltaFile = serde_json::from_slice(deltas_json).map_err(|e| format!("inventory deltas: {e}"))?;
    if deltas.format != "torchcts-lsp-inventory-deltas" {
        return Err(format!("unexpected deltas format {:?}", deltas.format));
    }
    let mut archive = ArchiveWriter::default();
    let mut names = Names::default();
    archive.add(&deltas.base, pack_json(&mut names, base_json)?);
    let base_text = std::str::from_utf8(base_json).map_err(|e| format!("base inventory: {e}"))?;
    let base_lines: Vec<&str> = base_text.lines().collect();
    for (name, delta) in &deltas.versions {
        match delta {
            Delta::Alias(of) => archive.add_alias(name, of),
            Delta::Lines(ops) => {
                let text = apply_line_delta(&base_lines, ops);
                archive.add(name, pack_json(&mut names, text.as_bytes()).map_err(|e| format!("torch {name}: {e}"))?);
            }
        }
    }
    Ok(archive.finish())
}

/// A release's JSON text from the base lines and its delta.
fn apply_line_delta(base_lines: &[&str], ops: &[Value]) -> String {
    let mut text = String::new();
    for op in ops {
        match op {
            Value::String(line) => {
                text.push_str(line);
                text.push('\n');
            }
            Value::Array(range) => {
                let start = range.first().and_then(Value::as_u64).unwrap_or(0) as usize;
                let count = range.get(1).and_then(Value::as_u64).unwrap_or(0) as usize;
                for line in base_lines.iter().skip(start).take(count) {
                    text.push_str(line);
                    text.push('\n');
                }
            }
            _ => {}
        }
    }
    text
}
