//! `source.fixAll.torchcts`: the core's fix-all engine (`torchcts_core::actions::fix_all`,
//! the one `check --fix` runs too) on the document's text, the safe fixes only, offered as
//! one edit: the changed middle of the text. Which fixes are safe, the rounds, the overlap
//! rule and what counts as a better file are the engine's; this file only builds the input
//! the document is analysed with and turns the fixed text into an edit.

use crate::server::session::Session;
use torchcts_core::actions::TextEdit;
use torchcts_core::{Analysis, AnalysisInput, Cancel, Cancellable};
use tower_lsp_server::ls_types::Uri;

/// Whether `fixes` (the quick fixes of a range) has a safe one: cheap, no analysis; the
/// lightbulb offers "fix all" only then.
pub fn has_safe(fixes: &[torchcts_core::actions::QuickFix]) -> bool {
    fixes.iter().any(|f| f.safe)
}

/// The text of `uri` with every safe fix applied, as one edit of `analysis.text`, and how
/// many fixes it applies; `None` when none applies.
pub fn fix_all(
    session: &Session,
    uri: &Uri,
    analysis: &Analysis,
    cancel: &Cancel,
) -> Cancellable<Option<(TextEdit, usize)>> {
    // The document's input as its snapshot is analysed with (the host layer will build it
    // once for both): the folder's directories, its Python's modules, the inventory. No
    // evidence: its notes have no safe fix, and the CLI's `--fix` runs without them.
    let folder = uri.to_file_path().and_then(|p| p.parent().map(|d| d.to_path_buf()));
    let dir_exists = folder.as_deref().map(runner::environment::dir_exists_relative_to);
    let importable = session.importable(uri);
    let input = AnalysisInput {
        old_tree: None,
        dir_exists: dir_exists.as_ref().map(|f| f as &dyn Fn(&str) -> bool),
        inventory: Some(session.inventory()),
        file_name: Some(&analysis.file_name),
        python: analysis.python,
        importable: importable.as_ref(),
        evidence: None,
    };
    let fixed = torchcts_core::actions::fix_all(&analysis.text, &input, false, cancel)?;
    if fixed.applied.is_empty() || fixed.text == analysis.text {
        return Ok(None);
    }
    Ok(Some((one_edit(&analysis.text, &fixed.text), fixed.applied.len())))
}

/// One edit turning `old` into `new`: the middle between their common prefix and suffix.
fn one_edit(old: &str, new: &str) -> TextEdit {
    let mut prefix = old.bytes().zip(new.bytes()).take_while(|(a, b)| a == b).count();
    while !old.is_char_boundary(prefix) || !new.is_char_boundary(prefix) {
        prefix -= 1;
    }
    let max_suffix = old.len().min(new.len()) - prefix;
    let mut suffix = old.bytes().rev().zip(new.bytes().rev()).take(max_suffix).take_while(|(a, b)| a == b).count();
    while !old.is_char_boundary(old.len() - suffix) || !new.is_char_boundary(new.len() - suffix) {
        suffix -= 1;
    }
    TextEdit { span: prefix..old.len() - suffix, new_text: new[prefix..new.len() - suffix].to_string() }
}

#[cfg(test)]
mod tests {
    use super::*;
    use torchcts_core::actions::apply_edits;

    #[test]
    fn one_edit_is_the_changed_middle() {
        let e = one_edit("abcXdef", "abcYYdef");
        assert_eq!((e.span, e.new_text.as_str()), (3..4, "YY"));
        let e = one_edit("aé", "aè");
        assert_eq!(apply_edits("aé", &[e]), "aè");
        let e = one_edit("aaa", "aaaa");
        assert_eq!(apply_edits("aaa", &[e]), "aaaa");
    }
}
