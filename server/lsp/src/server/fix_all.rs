//! `source.fixAll.torchcts`: the core's fix-all engine (`torchcts_core::actions::fix_all`,
//! the one `check --fix` runs too) on the document's text, the safe fixes only, offered as
//! one edit: the changed middle of the text. Which fixes are safe, the rounds, the overlap
//! rule and what counts as a better file are the engine's; the document is analysed in the
//! host's surroundings of it, as its diagnostics are.

use crate::server::pool::OnPool;
use crate::server::session::Session;
use torchcts_core::actions::{QuickFix, TextEdit};
use torchcts_core::{Analysis, Cancellable};
use tower_lsp_server::ls_types::Uri;

/// Whether `fixes` (the quick fixes of a range) has a safe one: cheap, no analysis; the
/// lightbulb offers "fix all" only then.
pub fn has_safe(fixes: &[QuickFix]) -> bool {
    fixes.iter().any(|f| f.safe)
}

/// The text of `uri` with every safe fix applied, as one edit of `analysis.text`, and how
/// many fixes it applies; `None` when none applies.
pub fn fix_all(
    session: &Session,
    uri: &Uri,
    analysis: &Analysis,
    on_pool: &OnPool,
) -> Cancellable<Option<(TextEdit, usize)>> {
    // Without the evidence notes, as `check --fix` runs: they have no safe fix.
    let surroundings = crate::server::analysis::surroundings(session, uri, on_pool).with_evidence(Default::default());
    let fixed = surroundings.fix_all(&analysis.text, Some(session.inventory(uri)), false, on_pool)?;
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
