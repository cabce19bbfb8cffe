//! Which embedded inventory answers for the torch and torchcts a user has. The embedded
//! releases themselves (the archive, their names, the supported range) are the catalogue
//! (`inventory/catalogue.rs`), re-exported here.

use crate::inventory::catalogue::release_key;
pub use crate::inventory::catalogue::{
    embedded_archive, embedded_torch_releases, embedded_torch_releases_of, embedded_torchcts_releases,
    newest_torch_release, no_inventory_message, no_inventory_message_of, release, supported_torch, EMBEDDED_TORCHCTS,
    SUPPORTED_TORCH,
};
use crate::Inventory;

/// Which embedded inventory answers for an environment, and what to tell the user about it.
#[derive(Clone)]
pub struct InventoryChoice {
    pub inventory: &'static Inventory,
    /// The torch release the counts are for.
    pub torch: String,
    /// Said once to the user when the environment's versions are not the ones the counts
    /// are for (no environment, torch outside the range, another torchcts).
    pub note: Option<String>,
}

impl InventoryChoice {
    /// "torchcts 0.4.1 with torch 2.9.1": what the counts are for (the torchcts release
    /// the inventory was extracted from).
    pub fn label(&self) -> String {
        format!("torchcts {} with torch {}", self.inventory.meta.torchcts_version, self.torch)
    }

    /// The torchcts release the counts are for.
    pub fn torchcts(&self) -> &str {
        release(&self.inventory.meta.torchcts_version)
    }
}

/// The torchcts release whose inventories answer for an environment's torchcts: itself
/// when inventories of it are embedded, else `None`.
pub fn embedded_torchcts(torchcts: &str) -> Option<&'static str> {
    embedded_torchcts_releases().into_iter().find(|v| *v == release(torchcts))
}

/// Chooses the embedded inventory for the torch and torchcts versions found in the user's
/// environment (`None`: not found). The torchcts release picks the inventories (an unknown
/// one, or none: the newest torchcts's, [`EMBEDDED_TORCHCTS`]), the torch release one of
/// them (exact, else the nearest in the range that torchcts supports). Never fails: the
/// newest torch release is the fallback.
pub fn choose_for_environment(torch: Option<&str>, torchcts: Option<&str>) -> InventoryChoice {
    let cts = torchcts.and_then(embedded_torchcts).unwrap_or(EMBEDDED_TORCHCTS);
    let releases = embedded_torch_releases_of(cts);
    let newest = releases.first().copied().unwrap_or_else(newest_torch_release);
    let fallback = |note: String| InventoryChoice {
        inventory: Inventory::for_release(cts, newest).expect("the newest release is embedded"),
        torch: newest.to_string(),
        note: Some(note),
    };
    let Some(torch) = torch else {
        return fallback(format!(
            "no Python environment with torch was found; counts are for torch {newest} (the newest torchcts {cts} supports)"
        ));
    };
    if let Some(tc) = torchcts {
        if embedded_torchcts(tc).is_none() {
            return fallback(format!(
                "the environment has torchcts {tc}, the counts are for torchcts {EMBEDDED_TORCHCTS} with torch {newest}"
            ));
        }
    }
    match Inventory::for_release(cts, torch) {
        Some(inventory) => {
            let note = torchcts.is_none().then(|| {
                format!(
                    "torchcts is not installed in the environment; counts are for torchcts {cts} with torch {}",
                    release(torch)
                )
            });
            InventoryChoice { inventory, torch: release(torch).to_string(), note }
        }
        None => {
            let (min, max) = supported_torch(cts);
            let key = release_key(torch);
            if key < release_key(min) || key > release_key(max) {
                return fallback(format!(
                    "torch {torch} is outside the range torchcts {cts} supports ({min} to {max}); counts are for torch {newest}"
                ));
            }
            // Supported but not extracted: the nearest extracted release, said so.
            let distance = |r: &str| {
                let (a, b) = (release_key(r), key);
                let flat = |(x, y, z): (u32, u32, u32)| i64::from(x) * 1_000_000 + i64::from(y) * 1_000 + i64::from(z);
                (flat(a) - flat(b)).abs()
            };
            let nearest = releases.iter().copied().min_by_key(|r| distance(r)).unwrap_or(newest);
            InventoryChoice {
                inventory: Inventory::for_release(cts, nearest).expect("listed releases are embedded"),
                torch: nearest.to_string(),
                note: Some(format!(
                    "{}; counts are for torchcts {cts} with torch {nearest}, the nearest: they may differ slightly",
                    no_inventory_message_of(cts, torch)
                )),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_embedded_release_decodes_and_names_its_torch() {
        let releases = embedded_torch_releases();
        assert_eq!(releases.first().copied(), Some(newest_torch_release()));
        assert_eq!(embedded_torchcts_releases().first().copied(), Some(EMBEDDED_TORCHCTS));
        for cts in embedded_torchcts_releases() {
            for r in embedded_torch_releases_of(cts) {
                let inv =
                    Inventory::for_release(cts, r).unwrap_or_else(|| panic!("{cts}/{r} is listed but not embedded"));
                assert!(inv.item_count() > 10_000, "{cts}/{r}: {} items", inv.item_count());
                assert_eq!(inv.meta.torchcts_version, cts);
            }
        }
    }

    /// The committed base inventory loaded from its JSON (packed alone, as `--inventory`
    /// files are) and the embedded release (packed with the others, strings shared) give
    /// the same items and the same show-skips output.
    #[test]
    fn embedded_base_release_equals_its_json() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tools/inventory/out");
        let bytes = std::fs::read(dir.join("inventory-base.json.gz")).expect("base JSON file");
        let from_json = Inventory::from_bytes(&bytes).expect("base JSON loads");
        let embedded = Inventory::for_torch(newest_torch_release()).unwrap();
        assert_eq!(from_json.meta, embedded.meta);
        assert_eq!(from_json.item_count(), embedded.item_count());
        assert!(from_json
            .items
            .iter()
            .zip(&embedded.items)
            .all(|(a, b)| from_json.item_id(a) == embedded.item_id(b) && a.level == b.level));
        assert_eq!(from_json.operator_names(), embedded.operator_names());
        let text = std::fs::read_to_string(
            std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("../../tests/parity/skips/cases/regex_dtypes/manifest.json"),
        )
        .expect("corpus manifest");
        let facts = crate::ManifestFacts::from_tagged_json(&serde_json::from_str(&text).unwrap()).unwrap();
        for device in ["cpu", "mps"] {
            let show = |inv: &Inventory| {
                crate::render_show_skips(&crate::account(inv, &facts, device, crate::LevelSelection::Cumulative(8)))
            };
            assert_eq!(show(&from_json), show(embedded), "{device}");
        }
    }

    #[test]
    fn an_environment_with_torchcts_040_gets_its_own_inventories() {
        assert!(embedded_torchcts_releases().contains(&"0.4.0"), "{:?}", embedded_torchcts_releases());
        let exact = choose_for_environment(Some("2.12.1+cu130"), Some("0.4.0"));
        assert_eq!(exact.label(), "torchcts 0.4.0 with torch 2.12.1");
        assert_eq!(exact.torchcts(), "0.4.0");
        assert!(exact.note.is_none());
        assert!(!std::ptr::eq(exact.inventory, Inventory::for_torch("2.12.1").unwrap()), "not 0.4.1's");
        // Every torch release 0.4.0 supports has its own inventory.
        for torch in ["2.12.1", "2.12.0", "2.11.0", "2.10.0", "2.9.1", "2.9.0", "2.8.0", "2.7.1", "2.7.0"] {
            let own = choose_for_environment(Some(torch), Some("0.4.0"));
            assert_eq!(own.label(), format!("torchcts 0.4.0 with torch {torch}"));
            assert!(own.note.is_none(), "{torch}: {:?}", own.note);
        }
        // A torch version without an inventory (a build between releases): the nearest of
        // 0.4.0's, said so.
        let near = choose_for_environment(Some("2.8.1"), Some("0.4.0"));
        assert_eq!(near.inventory.meta.torchcts_version, "0.4.0");
        assert!(embedded_torch_releases_of("0.4.0").contains(&near.torch.as_str()));
        let note = near.note.unwrap();
        assert!(
            note.contains(&format!("counts are for torchcts 0.4.0 with torch {}, the nearest", near.torch)),
            "{note}"
        );
        let outside = choose_for_environment(Some("2.6.0"), Some("0.4.0"));
        assert_eq!(outside.label(), "torchcts 0.4.0 with torch 2.12.1");
        assert!(outside.note.unwrap().contains("outside the range torchcts 0.4.0 supports"));
        // A torchcts release without inventories: the newest's, with a note.
        let unknown = choose_for_environment(Some("2.12.1"), Some("0.3.9"));
        assert_eq!(unknown.label(), format!("torchcts {EMBEDDED_TORCHCTS} with torch 2.12.1"));
        assert!(unknown.note.unwrap().contains("the environment has torchcts 0.3.9"));
    }

    #[test]
    fn local_build_suffixes_select_the_release() {
        let newest = newest_torch_release();
        let with_suffix = format!("{newest}+cu130");
        let a = Inventory::for_torch(&with_suffix).expect("suffix ignored") as *const Inventory;
        let b = Inventory::for_torch(newest).unwrap() as *const Inventory;
        assert_eq!(a, b, "one decoded inventory per release");
    }

    #[test]
    fn unsupported_environments_fall_back_to_the_newest_with_a_note() {
        let newest = newest_torch_release();
        let no_env = choose_for_environment(None, None);
        assert_eq!(no_env.torch, newest);
        assert!(no_env.note.unwrap().contains("no Python environment"));
        // 2.10.5 is no torch release: inside the range, never extracted, nearest 2.10.0.
        let within = choose_for_environment(Some("2.10.5"), Some("0.4.1"));
        let note = within.note.unwrap();
        assert!(
            note.contains(
                "no inventory of torchcts 0.4.1 with torch 2.10.5 is embedded (embedded for torchcts 0.4.1: "
            ),
            "{note}"
        );
        assert!(note.contains("counts are for torchcts 0.4.1 with torch 2.10.0, the nearest"), "{note}");
        assert_eq!(within.torch, "2.10.0");
        let old = choose_for_environment(Some("2.6.0"), Some("0.4.1"));
        assert_eq!(old.torch, newest);
        assert!(old.note.unwrap().contains("outside the range"));
        let other_cts = choose_for_environment(Some(newest), Some("0.5.0"));
        assert!(other_cts.note.unwrap().contains("torchcts 0.5.0"));
        let exact = choose_for_environment(Some(&format!("{newest}+cpu")), Some("0.4.1"));
        assert_eq!(exact.torch, newest);
        assert!(exact.note.is_none());
        assert_eq!(exact.label(), format!("torchcts 0.4.1 with torch {newest}"));
    }
}
