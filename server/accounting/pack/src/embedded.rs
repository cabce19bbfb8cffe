//! The releases `tools/inventory/pack_versions.py` commits (a base inventory in line-JSON
//! and line deltas of the other releases) packed into one archive.

use std::collections::BTreeMap;

use serde::Deserialize;
use serde_json::Value;

use crate::{pack_json_with, ArchiveWriter, MetadataDonor, Names, ReleaseRows};

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

#[derive(Deserialize)]
struct MetadataFile {
    format: String,
    #[serde(default = "first_format")]
    format_version: u32,
    /// The release written in full (format 2).
    #[serde(default)]
    base: Option<String>,
    /// Per release, per item (aligned with its items): the match metadata, strings as text;
    /// in format 2 `{"rows_against_base": [...]}` for the releases other than the base, a
    /// null row meaning the base's row for the same node id.
    releases: BTreeMap<String, Value>,
}

fn first_format() -> u32 {
    1
}

/// The node ids of an inventory's items, in order (the rest of its JSON skipped).
fn node_ids(json: &[u8]) -> Result<Vec<String>, String> {
    #[derive(Deserialize)]
    struct Item {
        id: String,
    }
    #[derive(Deserialize)]
    struct Items {
        items: Vec<Item>,
    }
    let items: Items = serde_json::from_slice(json).map_err(|e| format!("inventory JSON: {e}"))?;
    Ok(items.items.into_iter().map(|it| it.id).collect())
}

/// The committed match metadata with every release's rows in full.
struct Metadata {
    releases: BTreeMap<String, Value>,
    /// The base release's rows by node id (format 2).
    base_by_id: BTreeMap<String, Value>,
}

impl Metadata {
    fn read(json: &[u8], base_json: &[u8]) -> Result<Metadata, String> {
        let file: MetadataFile = serde_json::from_slice(json).map_err(|e| format!("inventory match metadata: {e}"))?;
        if file.format != "torchcts-lsp-match-metadata" || !(1..=2).contains(&file.format_version) {
            return Err(format!("unexpected match metadata format {:?} v{}", file.format, file.format_version));
        }
        let mut base_by_id = BTreeMap::new();
        if file.format_version >= 2 {
            let base = file.base.as_deref().ok_or("match metadata format 2 without its base")?;
            let rows =
                file.releases.get(base).and_then(Value::as_array).ok_or("the base's match metadata is missing")?;
            base_by_id = node_ids(base_json)?.into_iter().zip(rows.iter().cloned()).collect();
        }
        Ok(Metadata { releases: file.releases, base_by_id })
    }

    /// A release's rows in full (`json`: its inventory, for the node ids of rows written
    /// against the base).
    fn of(&self, name: &str, json: &[u8]) -> Result<Option<Vec<Value>>, String> {
        let Some(stored) = self.releases.get(name) else { return Ok(None) };
        if let Some(rows) = stored.as_array() {
            return Ok(Some(rows.clone()));
        }
        let rows = stored
            .get("rows_against_base")
            .and_then(Value::as_array)
            .ok_or_else(|| format!("{name}: match metadata neither rows nor rows_against_base"))?;
        let ids = node_ids(json)?;
        if ids.len() != rows.len() {
            return Err(format!("{name}: match_metadata has {} rows for {} items", rows.len(), ids.len()));
        }
        ids.iter()
            .zip(rows)
            .map(|(id, row)| match row {
                Value::Null => self
                    .base_by_id
                    .get(id)
                    .cloned()
                    .ok_or_else(|| format!("{name}: {id} refers to the base's metadata, which has no such test")),
                row => Ok(row.clone()),
            })
            .collect::<Result<Vec<_>, _>>()
            .map(Some)
    }
}

/// Packs the base inventory (JSON text), the deltas file (JSON text) and the match metadata
/// file (JSON text; absent: no release has metadata) into an archive holding every release;
/// the base release (the newest) comes first. A release without match metadata of its own
/// takes the nearest one's that has some (`nearest_donor`), by node id.
pub fn pack_releases(base_json: &[u8], deltas_json: &[u8], metadata_json: Option<&[u8]>) -> Result<Vec<u8>, String> {
    let deltas: DeltaFile = serde_json::from_slice(deltas_json).map_err(|e| format!("inventory deltas: {e}"))?;
    if deltas.format != "torchcts-lsp-inventory-deltas" {
        return Err(format!("unexpected deltas format {:?}", deltas.format));
    }
    let metadata = match metadata_json {
        Some(json) => Some(Metadata::read(json, base_json)?),
        None => None,
    };
    let own = |name: &str, json: &[u8]| match &metadata {
        Some(metadata) => metadata.of(name, json),
        None => Ok(None),
    };
    let mut names = Names::default();
    let mut packed: Vec<(String, Option<ReleaseRows>, Option<String>)> = Vec::new();
    let base_metadata = own(&deltas.base, base_json)?;
    let base =
        pack_json_with(&mut names, base_json, base_metadata.as_deref()).map_err(|e| format!("{}: {e}", deltas.base))?;
    packed.push((deltas.base.clone(), Some(base), None));
    let base_text = std::str::from_utf8(base_json).map_err(|e| format!("base inventory: {e}"))?;
    let base_lines: Vec<&str> = base_text.lines().collect();
    for (name, delta) in &deltas.versions {
        match delta {
            Delta::Alias(of) => packed.push((name.clone(), None, Some(of.clone()))),
            Delta::Lines(ops) => {
                let text = apply_line_delta(&base_lines, ops);
                let metadata = own(name, text.as_bytes())?;
                let rows = pack_json_with(&mut names, text.as_bytes(), metadata.as_deref())
                    .map_err(|e| format!("{name}: {e}"))?;
                packed.push((name.clone(), Some(rows), None));
            }
        }
    }
    let donors: Vec<MetadataDonor> =
        packed.iter().filter_map(|(name, rows, _)| rows.as_ref().and_then(|r| MetadataDonor::new(name, r))).collect();
    let mut archive = ArchiveWriter::default();
    for (name, rows, alias) in packed {
        match (rows, alias) {
            (Some(mut rows), _) => {
                if let Some(donor) = nearest_donor(&name, &donors) {
                    rows.lend_metadata(donor);
                }
                archive.add(&name, rows);
            }
            (None, Some(of)) => archive.add_alias(&name, &of),
            (None, None) => {}
        }
    }
    Ok(archive.finish())
}

/// The release whose metadata a release without its own takes: of the same torchcts the
/// nearest torch release (the newer on a tie), else the newest torchcts's nearest.
fn nearest_donor<'d>(name: &str, donors: &'d [MetadataDonor]) -> Option<&'d MetadataDonor> {
    let key = |n: &str| -> (Vec<u64>, i64) {
        let (torchcts, torch) = n.split_once('/').unwrap_or((n, ""));
        let torch: Vec<i64> = torch.split('.').map(|p| p.parse().unwrap_or(0)).collect();
        let flat = torch.first().copied().unwrap_or(0) * 10_000
            + torch.get(1).copied().unwrap_or(0) * 100
            + torch.get(2).copied().unwrap_or(0);
        (torchcts.split('.').map(|p| p.parse().unwrap_or(0)).collect(), flat)
    };
    let (torchcts, torch) = key(name);
    donors.iter().filter(|d| d.name != name).min_by_key(|d| {
        let (d_torchcts, d_torch) = key(&d.name);
        let other_release = d_torchcts != torchcts;
        (other_release, std::cmp::Reverse(d_torchcts), (d_torch - torch).abs(), std::cmp::Reverse(d_torch))
    })
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Section;

    fn donor(name: &str) -> MetadataDonor {
        let mut rows = ReleaseRows::default();
        rows.sections[Section::Metadata as usize].push(vec![0, 1, 2]);
        rows.node_ids.push("t.py::t".into());
        MetadataDonor::new(name, &rows).unwrap()
    }

    #[test]
    fn a_release_borrows_the_nearest_metadata_of_its_torchcts_first() {
        let donors = [donor("0.4.1/2.12.1"), donor("0.4.1/2.7.1"), donor("0.4.0/2.9.1")];
        let pick = |name: &str| nearest_donor(name, &donors).map(|d| d.name.as_str());
        assert_eq!(pick("0.4.1/2.11.0"), Some("0.4.1/2.12.1"));
        assert_eq!(pick("0.4.1/2.8.0"), Some("0.4.1/2.7.1"));
        assert_eq!(pick("0.4.0/2.12.1"), Some("0.4.0/2.9.1"));
        // A torchcts without metadata of its own: the newest torchcts's nearest torch.
        assert_eq!(pick("0.3.9/2.8.0"), Some("0.4.1/2.7.1"));
        assert_eq!(pick("0.4.1/2.12.1"), Some("0.4.1/2.7.1"), "never itself");
    }

    #[test]
    fn rows_written_against_the_base_take_its_row_for_the_same_node_id() {
        let base = br#"{"items": [{"id": "a", "lvl": 1}, {"id": "b"}]}"#;
        let file = br#"{"format": "torchcts-lsp-match-metadata", "format_version": 2, "base": "B",
            "releases": {"B": [{"dn": "aten::a"}, 0], "R": {"rows_against_base": [null, {"dn": "new"}, null]}}}"#;
        let metadata = Metadata::read(file, base).unwrap();
        let release = br#"{"items": [{"id": "b"}, {"id": "c"}, {"id": "a"}]}"#;
        let rows = metadata.of("R", release).unwrap().unwrap();
        assert_eq!(
            rows,
            [serde_json::json!(0), serde_json::json!({"dn": "new"}), serde_json::json!({"dn": "aten::a"})]
        );
        assert_eq!(metadata.of("B", base).unwrap().unwrap().len(), 2);
        assert_eq!(metadata.of("other", release).unwrap(), None);
        // A null row for a test the base lacks, or rows not aligned with the items: an error.
        let lacking = br#"{"items": [{"id": "z"}, {"id": "c"}, {"id": "a"}]}"#;
        assert!(metadata.of("R", lacking).unwrap_err().contains("z refers to the base's metadata"));
        assert!(metadata.of("R", base).unwrap_err().contains("3 rows for 2 items"));
    }

    #[test]
    fn format_1_files_are_read_as_they_are() {
        let file = br#"{"format": "torchcts-lsp-match-metadata", "format_version": 1, "releases": {"R": [0]}}"#;
        let metadata = Metadata::read(file, b"{}").unwrap();
        assert_eq!(metadata.of("R", b"{}").unwrap().unwrap(), [serde_json::json!(0)]);
        let unknown = br#"{"format": "torchcts-lsp-match-metadata", "format_version": 3, "releases": {}}"#;
        assert!(Metadata::read(unknown, b"{}").is_err());
    }

    #[test]
    fn lending_fills_the_rows_by_node_id_and_names_the_donor_in_the_header() {
        let mut rows = ReleaseRows::default();
        rows.sections[Section::Header as usize].push(vec![7, 0]);
        rows.node_ids = vec!["other.py::x".into(), "t.py::t".into()];
        rows.lend_metadata(&donor("0.4.1/2.12.1"));
        assert_eq!(rows.sections[Section::Metadata as usize], [vec![], vec![0, 1, 2]]);
        let header = &rows.sections[Section::Header as usize][0];
        assert_eq!(header[0], 7);
        assert_eq!(&header[2..], b"0.4.1/2.12.1");
    }
}
