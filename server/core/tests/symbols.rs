//! Outline and folding fixtures.

mod fixture;

use expect_test::expect;
use torchcts_core::symbols::{document_symbols, folding_ranges, Symbol};
use torchcts_core::syntax::parse;

fn render(symbols: &[Symbol], depth: usize, out: &mut String) {
    for s in symbols {
        out.push_str(&format!("{}{} ({:?}): {}\n", "  ".repeat(depth), s.name, s.kind, s.detail));
        render(&s.children, depth + 1, out);
    }
}

#[test]
fn outline_of_sections_and_entries_even_when_half_typed() {
    let text = "import torch\nmanifest = {\n    \"manifest_version\": 1,\n    \"capabilities\": {\"inference\": True, \"rng\": False},\n    \"skip_ops\": [\"a\", \"b\"],\n    \"hardware\": {\"memory_model\": \n}\nmanifest[\"semantic_level\"] = 4\n";
    let tree = parse(text, None);
    let mut out = String::new();
    render(&document_symbols(&tree, text), 0, &mut out);
    expect![[r#"
        manifest (Manifest): incomplete
          manifest_version (Entry): 1
          capabilities (Section): 2 entries
            inference (Entry): True
            rng (Entry): False
          skip_ops (Entry): 2 items
          memory_model (Entry): incomplete
    "#]]
    .assert_eq(&out);
    let folds: Vec<(usize, usize)> = folding_ranges(&tree, text)
        .iter()
        .map(|s| (text[..s.start].matches('\n').count(), text[..s.end].matches('\n').count()))
        .collect();
    expect!["[(1, 7)]"].assert_eq(&format!("{folds:?}"));
}
