// Shared by the cargo-fuzz target (`fuzz_targets/analyze.rs`) and the libFuzzer-free driver
// (`server/core/examples/fuzz_analyze.rs`), both through `include!`.

/// Everything an editor can ask of one text: the analysis with the inventory hints, the
/// accounting of whatever the manifest evaluates to, and hover, completion and quick fixes
/// at the given byte offsets (moved back to a character boundary), each fix applied and the
/// result analysed again. Panics are the bugs the fuzzers look for.
pub fn exercise(text: &str, offsets: &[usize], inventory: &torchcts_core::accounting_view::Inventory) {
    use torchcts_core::accounting_view as av;
    use torchcts_core::{analyze, AnalysisInput};
    let input = AnalysisInput { inventory: Some(inventory), ..AnalysisInput::default() };
    let analysis = analyze(text, &input);
    let mut summary = None;
    if let Some(manifest) = analysis.model.manifest.as_ref().and_then(|m| m.as_dict()) {
        let facts = av::facts(manifest);
        let s = av::summarize(inventory, &facts, None);
        std::hint::black_box(av::entry_counts(inventory, manifest, &s));
        summary = Some(s);
    }
    let counts = summary.as_ref().map(|s| torchcts_core::hover::Counts { inventory, summary: s });
    let _ = torchcts_core::symbols::document_symbols(&analysis.tree, &analysis.text);
    for &raw in offsets {
        let mut at = raw % (text.len() + 1);
        while !text.is_char_boundary(at) {
            at -= 1;
        }
        std::hint::black_box(torchcts_core::hover::hover(&analysis, at, counts.as_ref()));
        std::hint::black_box(torchcts_core::completion::complete(&analysis, at, None));
        let end = (at + raw % 17).min(text.len());
        let end = (end..=text.len()).find(|&e| text.is_char_boundary(e)).unwrap_or(text.len());
        for fix in torchcts_core::actions::quick_fixes(&analysis, at..end) {
            let fixed = torchcts_core::actions::apply_edits(text, &fix.edits);
            std::hint::black_box(analyze(&fixed, &AnalysisInput::default()).findings.len());
        }
    }
}

/// A few offsets drawn from the input itself, so the fuzzer controls them too.
pub fn offsets_of(data: &[u8]) -> Vec<usize> {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    let mut out = Vec::new();
    for (i, b) in data.iter().enumerate() {
        h = (h ^ *b as u64).wrapping_mul(0x100_0000_01b3);
        if i % 97 == 0 {
            out.push((h >> 11) as usize);
        }
    }
    out.push(data.len());
    out.truncate(8);
    out
}
