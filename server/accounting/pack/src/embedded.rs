//! The releases `tools/inventory/pack_versions.py` commits (a base inventory in line-JSON
//! and line deltas of the other releases) packed into one archive.

use std::collections::BTreeMap;

use serde::Deserialize;
use serde_json::Value;

use crate::{pack_json, pack_json_with, ArchiveWriter, MetadataDonor, Names};

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
/// holding every release; the base release (the newest) comes first. A release extracted
/// without match metadata takes the base's (by node id; its header says so).
pub fn pack_releases(base_json: &[u8], deltas_json: &[u8]) -> Result<Vec<u8>, String> {
    let deltas: DeltaFile = serde_json::from_slice(deltas_json).map_err(|e| format!("inventory deltas: {e}"))?;
    if deltas.format != "torchcts-lsp-inventory-deltas" {
        return Err(format!("unexpected deltas format {:?}", deltas.format));
    }
    let mut archive = ArchiveWriter::default();
    let mut names = Names::default();
    let base = pack_json(&mut names, base_json)?;
    let donor = MetadataDonor::new(&deltas.base, &base);
    archive.add(&deltas.base, base);
    let base_text = std::str::from_utf8(base_json).map_err(|e| format!("base inventory: {e}"))?;
    let base_lines: Vec<&str> = base_text.lines().collect();
    for (name, delta) in &deltas.versions {
        match delta {
            Delta::Alias(of) => archive.add_alias(name, of),
            Delta::Lines(ops) => {
                let text = apply_line_delta(&base_lines, ops);
                let rows = pack_json_with(&mut names, text.as_bytes(), donor.as_ref())
                    .map_err(|e| format!("torch {name}: {e}"))?;
                archive.add(name, rows);
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
