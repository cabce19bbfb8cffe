//! The binary form of the TorchCTS suite inventory.
//!
//! The extraction writes JSON (`tools/inventory/extract_inventory.py`, format in
//! docs/inventory.md) and `tools/inventory/pack_versions.py` commits it as a base release
//! plus line deltas. Decoding that JSON took 60-80 ms, paid by every CLI call. This crate
//! turns it into an *archive* once, at build time (`server/accounting/build.rs`): every
//! JSON decision (field names, defaults, string and reason interning, device classes) is
//! made here, and what remains are rows of varints that the accounting crate reads in
//! place from `include_bytes!` into its tables.
//!
//! Layout (all integers LEB128 varints unless said otherwise):
//!
//! ```text
//! "TCINVPK1"
//! per section (header, strings, generated, forward, backward, items, metadata):
//!     row count n, n + 1 row offsets (u32 little endian, fixed width), data length, data
//! release count, per release: name, kind (0 rows, 1 alias), then
//!     alias: the release it equals; rows: per section, run count, runs of (first row, count)
//! ```
//!
//! Rows are shared between releases: a release is a list of runs over each section's rows,
//! so a release that differs from another in 80 of 28,000 lines adds about 80 rows.
//! Row encodings are in [`rows`].

pub mod archive;
pub mod embedded;
mod json;
pub mod rows;

pub use archive::{Archive, ArchiveWriter, Release};
pub use json::{intern, pack_json, pack_json_with, MetadataDonor, Names, ReleaseRows};

/// The sections of a release, in archive order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(usize)]
pub enum Section {
    Header = 0,
    Strings = 1,
    Generated = 2,
    Forward = 3,
    Backward = 4,
    Items = 5,
    /// Per item, aligned with `Items`, what torchcts' known-segfault matchers read of its
    /// metadata ([`rows::metadata`]); empty for a release extracted without it.
    Metadata = 6,
}

pub const SECTION_COUNT: usize = 7;

/// Pack one inventory (JSON text, as the extraction writes it) into an archive with one release.
pub fn pack_single(json: &[u8], name: &str) -> Result<Vec<u8>, String> {
    let mut archive = ArchiveWriter::default();
    archive.add(name, pack_json(&mut Names::default(), json)?);
    Ok(archive.finish())
}
