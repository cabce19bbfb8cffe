//! The README's table of finding codes and `docs/codes.md` are the registry's
//! (`torchcts_core::codes`), word for word. `UPDATE_DOCS=1` writes them from it.

use std::path::{Path, PathBuf};
use torchcts_core::codes;

const START: &str = "<!-- codes:start (generated from server/core/src/codes.rs) -->\n";
const END: &str = "<!-- codes:end -->";

fn repo(path: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").join(path)
}

/// Compares `path` with `expected`, or writes it under `UPDATE_DOCS=1`.
fn check(path: &Path, actual: &str, expected: &str) {
    if actual == expected {
        return;
    }
    if std::env::var_os("UPDATE_DOCS").is_some() {
        std::fs::write(path, expected).unwrap();
        return;
    }
    panic!("{} is not the registry's; run UPDATE_DOCS=1 cargo test -p torchcts-core --test codes_docs", path.display());
}

#[test]
fn codes_docs_match_the_registry() {
    let page = repo("docs/codes.md");
    check(&page, &std::fs::read_to_string(&page).unwrap_or_default(), &codes::docs_page());
}

#[test]
fn the_readme_table_is_the_registry() {
    let path = repo("README.md");
    let readme = std::fs::read_to_string(&path).unwrap();
    let start = readme.find(START).expect("the README's codes:start marker") + START.len();
    let end = readme[start..].find(END).expect("the README's codes:end marker") + start;
    let expected = format!("{}{}{}", &readme[..start], codes::markdown_table(), &readme[end..]);
    check(&path, &readme, &expected);
}

#[test]
fn every_code_has_a_heading_in_the_page() {
    let page = codes::docs_page();
    for c in codes::CODES {
        assert!(page.contains(&format!("\n## {}\n", c.name)), "{}", c.name);
    }
}
