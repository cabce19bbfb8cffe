//! The items' match metadata (what torchcts' known-segfault matchers read of a test), kept
//! packed as the archive holds it and decoded per item by a project ledger's matcher.

use inventory_pack::rows::{metadata as mbit, RowReader};
use inventory_pack::{Release, Section};

use super::StrId;

/// What torchcts' known-segfault matchers read of an item's metadata
/// (`conftest._extract_result_metadata`, `MATCH_METADATA_KEYS`); the semantic level is the
/// item's own.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct MatchMetadata {
    pub suite: StrId,
    pub coverage_kind: StrId,
    /// `test_kind` is `opinfo` (else `handwritten`).
    pub opinfo_kind: bool,
    /// The dtype is the manifest's `dtype_filter[0]` when that has one entry.
    pub manifest_dtype: bool,
    /// `dispatcher_name`, `coverage_id`, `surface_kind`, `variant_kind`, `coverage_status`,
    /// `strategy`, `strategy_family`, `dtype` (`inventory_pack::rows::metadata::OPTIONAL`).
    pub optional: [Option<StrId>; 8],
}

/// The metadata rows of a release, kept packed (decoded per item by a project ledger's
/// matcher): empty when the release has none.
#[derive(Debug, Clone, Default)]
pub(crate) struct MetadataRows {
    pub bytes: Vec<u8>,
    /// Per item, where its row ends in `bytes` (an empty row: no metadata for that item).
    pub ends: Vec<u32>,
    /// The release whose metadata this is, when not the release's own (`0.4.1/2.12.1`).
    pub from: String,
}

impl MetadataRows {
    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    /// Item `i`'s metadata (None: not extracted for it).
    pub fn get(&self, i: usize) -> Option<MatchMetadata> {
        let end = *self.ends.get(i)? as usize;
        let start = if i == 0 { 0 } else { self.ends[i - 1] as usize };
        let row = self.bytes.get(start..end)?;
        if row.is_empty() {
            return None;
        }
        read_metadata(row)
    }
}

impl MetadataRows {
    /// A release's metadata rows (none, or one per item), copied as they are: false where
    /// their number is not the items'.
    pub(crate) fn read(&mut self, release: &Release, items: usize) -> bool {
        let rows = release.len(Section::Metadata);
        if rows == 0 {
            return true;
        }
        self.ends.reserve(rows);
        for row in release.rows(Section::Metadata) {
            self.bytes.extend_from_slice(row);
            self.ends.push(self.bytes.len() as u32);
        }
        rows == items
    }
}

/// One metadata row (`inventory_pack::rows::metadata`); None where it does not decode.
fn read_metadata(row: &[u8]) -> Option<MatchMetadata> {
    let mut r = RowReader::new(row);
    let flags = r.var32();
    let mut md = MatchMetadata {
        suite: r.var32(),
        coverage_kind: r.var32(),
        opinfo_kind: flags & mbit::OPINFO_KIND != 0,
        manifest_dtype: flags & mbit::MANIFEST_DTYPE != 0,
        optional: [None; 8],
    };
    for (slot, (_, bit)) in md.optional.iter_mut().zip(mbit::OPTIONAL) {
        if flags & bit != 0 {
            *slot = Some(r.var32());
        }
    }
    (!r.truncated && r.at_end()).then_some(md)
}
