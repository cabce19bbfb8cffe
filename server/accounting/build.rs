//! Packs the committed inventories (`tools/inventory/out/`, written by
//! `tools/inventory/pack_versions.py`) into the binary archive the crate embeds, so that no
//! command decodes JSON at run time. Format: `inventory_pack`.

use std::io::Read;
use std::path::{Path, PathBuf};

fn gunzip(path: &Path) -> Vec<u8> {
    let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut out = Vec::with_capacity(bytes.len() * 24);
    flate2::read::GzDecoder::new(&bytes[..])
        .read_to_end(&mut out)
        .unwrap_or_else(|e| panic!("{}: gzip: {e}", path.display()));
    out
}

fn main() {
    let manifest_dir = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR"));
    let source = manifest_dir.join("../../tools/inventory/out");
    let (base, deltas) = (source.join("inventory-base.json.gz"), source.join("inventory-deltas.json.gz"));
    let metadata = source.join("inventory-metadata.json.gz");
    for path in [&base, &deltas, &metadata] {
        println!("cargo:rerun-if-changed={}", path.display());
    }
    let metadata = metadata.exists().then(|| gunzip(&metadata));
    let archive = inventory_pack::embedded::pack_releases(&gunzip(&base), &gunzip(&deltas), metadata.as_deref())
        .unwrap_or_else(|e| panic!("packing the committed inventories: {e}"));
    let out = PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR")).join("inventory.pack");
    std::fs::write(&out, archive).unwrap_or_else(|e| panic!("{}: {e}", out.display()));
}
