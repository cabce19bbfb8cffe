//! The release catalogue: the embedded inventories, one per torch release torchcts
//! supports, the names of those releases and the range torchcts supports (the choice among
//! them for a user's environment is `versions.rs`).
//!
//! `tools/inventory/pack_versions.py` commits the newest release's inventory in full
//! (`inventory-base.json.gz`) and every other release as a line delta against it
//! (`inventory-deltas.json.gz`). The build (`build.rs`) packs them into one binary archive
//! (`inventory_pack`) where releases share their equal rows; a release is loaded from it on
//! first use and kept for the life of the process (`Inventory::for_torch`, in `loaded.rs`). Releases whose extraction is identical
//! are aliases of one loaded inventory.

use std::sync::OnceLock;

use inventory_pack::{Archive, Release};

static ARCHIVE: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/inventory.pack"));

/// The torchcts release every embedded inventory was extracted from.
pub const EMBEDDED_TORCHCTS: &str = "0.4.1";
/// The torch releases torchcts 0.4.1 supports (its documentation).
pub const SUPPORTED_TORCH: (&str, &str) = ("2.7.0", "2.12.1");

struct Catalogue {
    archive: Archive<'static>,
    /// Newest first.
    releases: Vec<&'static str>,
}

fn catalogue() -> &'static Catalogue {
    static CATALOGUE: OnceLock<Catalogue> = OnceLock::new();
    CATALOGUE.get_or_init(|| {
        let archive = Archive::read(ARCHIVE).expect("the build writes a valid inventory archive");
        let mut releases: Vec<&'static str> = archive.releases().iter().map(|r| r.name).collect();
        releases.sort_by_key(|v| std::cmp::Reverse(release_key(v)));
        Catalogue { archive, releases }
    })
}

/// `2.9.1+cu128` -> `(2, 9, 1)`; anything unparsable sorts first.
pub(crate) fn release_key(version: &str) -> (u32, u32, u32) {
    let mut parts = release(version).split('.').map(|p| p.parse::<u32>().unwrap_or(0));
    (parts.next().unwrap_or(0), parts.next().unwrap_or(0), parts.next().unwrap_or(0))
}

/// The release part of a version string: `2.9.1+cu128` -> `2.9.1`, `2.10.0a0` stays as is.
pub fn release(version: &str) -> &str {
    version.split('+').next().unwrap_or(version).trim()
}

/// The embedded archive's bytes. Loading a release reads its rows; afterwards only the
/// release names are read, so a long-lived process may hand the pages back to the OS (a
/// later read faults them in again).
pub fn embedded_archive() -> &'static [u8] {
    ARCHIVE
}

/// The torch releases the embedded inventories cover, newest first.
pub fn embedded_torch_releases() -> Vec<&'static str> {
    catalogue().releases.clone()
}

/// Why `--torch VERSION` has no inventory: which releases are embedded, and the range
/// torchcts supports (a supported release may simply not be extracted yet).
pub fn no_inventory_message(version: &str) -> String {
    let (min, max) = SUPPORTED_TORCH;
    format!(
        "no inventory of torch {version} is embedded (embedded: {}; torchcts {EMBEDDED_TORCHCTS} supports torch {min} to {max})",
        embedded_torch_releases().into_iter().rev().collect::<Vec<_>>().join(", ")
    )
}

/// The newest torch release with an embedded inventory.
pub fn newest_torch_release() -> &'static str {
    catalogue().archive.releases().first().map_or("", |r| r.name)
}

/// The embedded release a torch version names (`2.9.1`, local suffixes like `+cu128`
/// ignored), aliases followed; `None` for a release torchcts 0.4.1 does not support.
pub(crate) fn embedded_release(version: &str) -> Option<&'static Release<'static>> {
    let archive = &catalogue().archive;
    let mut wanted = archive.release(release(version))?;
    // An alias chain is short (written by the packer); the bound only guards bad data.
    for _ in 0..archive.releases().len() {
        match wanted.alias_of {
            Some(other) => wanted = archive.release(other)?,
            None => break,
        }
    }
    Some(wanted)
}
