//! The release catalogue: the embedded inventories, one per (torchcts release, torch
//! release) extracted, the names of those releases and the torch range each torchcts
//! release supports (the choice among them for a user's environment is `versions.rs`).
//!
//! `tools/inventory/pack_versions.py` commits the newest release's inventory in full
//! (`inventory-base.json.gz`: the newest torch of the newest torchcts) and every other
//! release, of any torchcts, as a line delta against it (`inventory-deltas.json.gz`), each
//! named `TORCHCTS/TORCH` (`0.4.0/2.12.1`). The build (`build.rs`) packs them into one
//! binary archive (`inventory_pack`) where releases share their equal rows; a release is
//! loaded from it on first use and kept for the life of the process
//! (`Inventory::for_release`, in `loaded.rs`). Releases whose extraction is identical are
//! aliases of one loaded inventory.

use std::sync::OnceLock;

use inventory_pack::{Archive, Release};

static ARCHIVE: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/inventory.pack"));

/// The newest torchcts release with embedded inventories: the one assumed when the
/// environment has no torchcts, or one no inventory is embedded for.
pub const EMBEDDED_TORCHCTS: &str = "0.4.1";
/// The torch releases torchcts 0.4.1 supports (its documentation).
pub const SUPPORTED_TORCH: (&str, &str) = ("2.7.0", "2.12.1");
/// The torch range of every torchcts release with embedded inventories (their
/// documentation: 0.4.0 and 0.4.1 both support 2.7.0 to 2.12.1).
const SUPPORTED: &[(&str, (&str, &str))] = &[("0.4.1", ("2.7.0", "2.12.1")), ("0.4.0", ("2.7.0", "2.12.1"))];

/// The torch range a torchcts release supports (`SUPPORTED_TORCH` for one not listed).
pub fn supported_torch(torchcts: &str) -> (&'static str, &'static str) {
    SUPPORTED.iter().find(|(v, _)| *v == release(torchcts)).map_or(SUPPORTED_TORCH, |(_, range)| *range)
}

struct Catalogue {
    archive: Archive<'static>,
    /// `(torchcts, torch)` of every release, newest torchcts first, within it newest torch
    /// first.
    releases: Vec<(&'static str, &'static str)>,
}

/// `0.4.0/2.12.1` -> `("0.4.0", "2.12.1")`; a name without a torchcts part (an archive of
/// one user extraction) is the default torchcts's.
fn split_name(name: &str) -> (&str, &str) {
    name.split_once('/').unwrap_or((EMBEDDED_TORCHCTS, name))
}

fn catalogue() -> &'static Catalogue {
    static CATALOGUE: OnceLock<Catalogue> = OnceLock::new();
    CATALOGUE.get_or_init(|| {
        let archive = Archive::read(ARCHIVE).expect("the build writes a valid inventory archive");
        let mut releases: Vec<(&'static str, &'static str)> =
            archive.releases().iter().map(|r| split_name(r.name)).collect();
        releases.sort_by_key(|(cts, torch)| std::cmp::Reverse((release_key(cts), release_key(torch))));
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

/// The torch releases the embedded inventories of the default torchcts
/// ([`EMBEDDED_TORCHCTS`]) cover, newest first.
pub fn embedded_torch_releases() -> Vec<&'static str> {
    embedded_torch_releases_of(EMBEDDED_TORCHCTS)
}

/// The torch releases with an embedded inventory of torchcts `torchcts`, newest first
/// (empty for a torchcts release without any).
pub fn embedded_torch_releases_of(torchcts: &str) -> Vec<&'static str> {
    let torchcts = release(torchcts);
    catalogue().releases.iter().filter(|(cts, _)| *cts == torchcts).map(|(_, torch)| *torch).collect()
}

/// The torchcts releases with embedded inventories, newest first.
pub fn embedded_torchcts_releases() -> Vec<&'static str> {
    let mut out: Vec<&'static str> = Vec::new();
    for (cts, _) in &catalogue().releases {
        if !out.contains(cts) {
            out.push(cts);
        }
    }
    out
}

/// Why `--torch VERSION` has no inventory (of the default torchcts).
pub fn no_inventory_message(version: &str) -> String {
    no_inventory_message_of(EMBEDDED_TORCHCTS, version)
}

/// Why torchcts `torchcts` with torch `version` has no inventory: which releases are
/// embedded, and the range that torchcts supports (a supported release may simply not be
/// extracted yet).
pub fn no_inventory_message_of(torchcts: &str, version: &str) -> String {
    let (min, max) = supported_torch(torchcts);
    let torchcts = release(torchcts);
    format!(
        "no inventory of torchcts {torchcts} with torch {version} is embedded (embedded for torchcts {torchcts}: {}; torchcts {torchcts} supports torch {min} to {max})",
        embedded_torch_releases_of(torchcts).into_iter().rev().collect::<Vec<_>>().join(", ")
    )
}

/// The newest torch release with an embedded inventory of the default torchcts.
pub fn newest_torch_release() -> &'static str {
    embedded_torch_releases().first().copied().unwrap_or("")
}

/// The embedded release of torchcts `torchcts` for a torch version (`2.9.1`, local
/// suffixes like `+cu128` ignored), aliases followed; `None` when none is embedded.
pub(crate) fn embedded_release(torchcts: &str, version: &str) -> Option<&'static Release<'static>> {
    let archive = &catalogue().archive;
    let name = format!("{}/{}", release(torchcts), release(version));
    let mut wanted = archive.release(&name)?;
    // An alias chain is short (written by the packer); the bound only guards bad data.
    for _ in 0..archive.releases().len() {
        match wanted.alias_of {
            Some(other) => wanted = archive.release(other)?,
            None => break,
        }
    }
    Some(wanted)
}
