//! The items' match metadata rows (`rows::metadata`): packed from the extraction's JSON or the
//! committed texts form, and lent by node id to a release without any.

use std::collections::HashMap;

use serde_json::Value;

use super::{Packer, RawItem, ReleaseRows};
use crate::rows::{metadata as mbit, RowWriter};
use crate::Section;

/// A release's match metadata by node id, lent to releases extracted without it (rows of
/// one archive share their interned names, so a row means the same in every release).
pub struct MetadataDonor {
    pub name: String,
    by_id: HashMap<String, Vec<u8>>,
}

impl ReleaseRows {
    /// A release without match metadata of its own takes `donor`'s, by node id: an item the
    /// donor lacks gets an empty row (no metadata), and the header names the donor.
    pub fn lend_metadata(&mut self, donor: &MetadataDonor) {
        if !self.sections[Section::Metadata as usize].is_empty() {
            return;
        }
        self.sections[Section::Metadata as usize] =
            self.node_ids.iter().map(|id| donor.by_id.get(id).cloned().unwrap_or_default()).collect();
        if let Some(header) = self.sections[Section::Header as usize].first_mut() {
            // The header ends with the donor's name, written empty by the packer.
            if header.pop() == Some(0) {
                let mut w = RowWriter::default();
                w.str(&donor.name);
                header.extend_from_slice(&w.buf);
            }
        }
    }
}

impl MetadataDonor {
    /// `rows`' metadata, or None when it has none.
    pub fn new(name: &str, rows: &ReleaseRows) -> Option<MetadataDonor> {
        let metadata = &rows.sections[Section::Metadata as usize];
        if metadata.is_empty() {
            return None;
        }
        let by_id = rows.node_ids.iter().cloned().zip(metadata.iter().cloned()).collect();
        Some(MetadataDonor { name: name.to_string(), by_id })
    }
}

impl Packer<'_> {
    /// One row per item (`metadata` aligned with `items`).
    pub(super) fn metadata_rows(&mut self, metadata: &[Value], items: &[RawItem]) -> Result<Vec<Vec<u8>>, String> {
        if metadata.len() != items.len() {
            return Err(format!("match_metadata has {} rows for {} items", metadata.len(), items.len()));
        }
        metadata
            .iter()
            .zip(items)
            .map(|(md, it)| self.metadata(md, it).map_err(|e| format!("match_metadata of {}: {e}", it.id)))
            .collect()
    }

    /// A string given by its text (the committed metadata file) or its index (an extraction).
    fn text_or_index(&mut self, v: &Value) -> Result<u32, String> {
        match v {
            Value::String(text) => Ok(self.intern(text)),
            _ => self.sidx(v),
        }
    }

    /// One item's metadata row: the JSON keeps only what is not derivable (`su` where the
    /// suite differs from the item's, `ck` where the coverage kind is not the default);
    /// the row holds suite and coverage kind always.
    fn metadata(&mut self, md: &Value, item: &RawItem) -> Result<Vec<u8>, String> {
        let empty = serde_json::Map::new();
        let md = match md {
            Value::Object(map) => map,
            Value::Number(n) if n.as_u64() == Some(0) => &empty,
            other => return Err(format!("expected an object, got {other}")),
        };
        let suite = match md.get("su") {
            Some(v) => self.text_or_index(v)?,
            None => self.intern(item.suite.as_deref().ok_or("no suite")?),
        };
        let opinfo = md.get("tk").is_some_and(|v| v.as_u64() == Some(1));
        let kind = match md.get("ck") {
            Some(v) => self.text_or_index(v)?,
            None => {
                let generated = self.names.strings[suite as usize] == "generated";
                self.intern(if opinfo {
                    "opinfo"
                } else if generated {
                    "generated"
                } else {
                    "handwritten"
                })
            }
        };
        let mut flags = 0;
        if opinfo {
            flags |= mbit::OPINFO_KIND;
        }
        if md.get("mf").is_some_and(|v| v.as_u64() == Some(1)) {
            flags |= mbit::MANIFEST_DTYPE;
        }
        let mut optional = Vec::new();
        for (key, bit) in mbit::OPTIONAL {
            if let Some(v) = md.get(key) {
                flags |= bit;
                optional.push(self.text_or_index(v)?);
            }
        }
        let mut w = RowWriter::default();
        w.var(u64::from(flags));
        w.var(u64::from(suite));
        w.var(u64::from(kind));
        for id in optional {
            w.var(u64::from(id));
        }
        Ok(w.buf)
    }
}
