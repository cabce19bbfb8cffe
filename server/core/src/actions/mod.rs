//! Quick fixes for findings, as minimal text edits that keep the user's formatting.

mod edits;
mod fix_all;
mod fix_check;
mod suppression;

pub use edits::{apply_edits, QuickFix, TextEdit};
pub use fix_all::{fix_all, Applied, FixAll, MAX_ROUNDS};
pub use fix_check::without_line_numbers;
pub use suppression::suppression_fixes;

use crate::analysis::Analysis;
use crate::cancel::{uncancelled, Cancel, Cancellable, CHECK_EVERY};
use crate::edit_distance::nearest;
use crate::fields::{Field, FieldChild};
use crate::findings::Finding;
use crate::fix_data::{FixData, KeySection, SyntaxRepair};
use crate::schema::schema;
use crate::syntax::node_text;
use crate::validate::{key_suggestions, STALE_CAPABILITIES};
use crate::value::Span;
use edits::pair_of_key;
use std::collections::HashSet;

/// Fixes for the findings that overlap `range`.
pub fn quick_fixes(analysis: &Analysis, range: Span) -> Vec<QuickFix> {
    uncancelled(|cancel| quick_fixes_until(analysis, range, cancel))
}

/// [`quick_fixes`], given up once `cancel` is set (checked per batch of findings and inside
/// the check that each fix leaves a better file).
pub fn quick_fixes_until(analysis: &Analysis, range: Span, cancel: &Cancel) -> Cancellable<Vec<QuickFix>> {
    let mut out = Vec::new();
    for (index, finding) in analysis.findings.iter().enumerate() {
        if index.is_multiple_of(CHECK_EVERY) {
            cancel.check()?;
        }
        let overlaps = finding.span.start <= range.end && range.start <= finding.span.end;
        if overlaps {
            out.extend(fixes_for(analysis, index, finding));
        }
    }
    // Two findings on one key (unknown and stale) can offer the same edit: offer it once.
    let mut seen: HashSet<(String, Vec<TextEdit>)> = HashSet::new();
    out.retain(|fix| seen.insert((fix.title.clone(), fix.edits.clone())));
    fix_check::keep_fixes_that_leave_a_better_file(analysis, &mut out, cancel)?;
    Ok(out)
}

/// The fixes of one finding: by the facts its rule attached, else by its code.
fn fixes_for(analysis: &Analysis, index: usize, finding: &Finding) -> Vec<QuickFix> {
    let target = Target { analysis, index, finding };
    match &finding.data {
        Some(FixData::UnknownKey { section, name }) => unknown_key_fixes(&target, *section, name),
        Some(FixData::Replacements { replacements, .. }) => match replacements.as_slice() {
            [only] if finding.code == "stale-capability" => safe_rename(&target, only).into_iter().collect(),
            _ => rename_fixes(&target, replacements),
        },
        Some(FixData::DtypeKeyIgnored { canonical, .. }) => dtype_key_fixes(&target, canonical),
        Some(FixData::InvalidDtypeKey { name }) => dtype_name_fixes(&target, name),
        Some(FixData::Category { category }) => tolerance_category_fixes(&target, category),
        Some(FixData::InvalidRegex { pattern }) => regex_fixes(&target, pattern),
        Some(FixData::MissingKey { key }) => missing_key_fixes(&target, key),
        Some(FixData::SyntaxRepairs { fixes }) => syntax_error_fixes(&target, fixes),
        Some(FixData::CheckCrash { .. }) => Vec::new(),
        Some(FixData::PassingSkipOp { skip_op }) => remove_list_item(target.analysis, &finding.span)
            .map(|edit| target.fix(format!("Remove '{skip_op}' from skip_ops"), vec![edit], true))
            .into_iter()
            .collect(),
        // Rules whose fixes need nothing beyond the finding's place.
        None => match finding.code {
            "enum-value" => memory_model_fixes(&target),
            "decoder-required" => decoder_required_fixes(&target),
            _ => Vec::new(),
        },
    }
}

/// The finding a fix is for, and the analysis its edits apply to.
struct Target<'a> {
    analysis: &'a Analysis,
    index: usize,
    finding: &'a Finding,
}

impl Target<'_> {
    fn fix(&self, title: String, edits: Vec<TextEdit>, preferred: bool) -> QuickFix {
        QuickFix { title, finding: self.index, edits, preferred, safe: false }
    }

    /// A fix safe to apply without asking (see [`QuickFix::safe`]).
    fn safe_fix(&self, title: String, edits: Vec<TextEdit>) -> QuickFix {
        QuickFix { safe: true, ..self.fix(title, edits, true) }
    }

    /// Replaces the finding's whole span with `new_text`.
    fn replace_finding(&self, title: String, new_text: String, preferred: bool) -> QuickFix {
        self.fix(title, vec![TextEdit { span: self.finding.span.clone(), new_text }], preferred)
    }

    /// The finding's key and the earlier writes of the same key, by position: a fix edits
    /// every write, or an earlier one takes over the finding.
    fn key_writes(&self) -> Vec<Span> {
        let mut keys = vec![self.finding.span.clone()];
        keys.extend(earlier_writes_of_key(self.analysis, &self.finding.span));
        keys.sort_by_key(|k| k.start);
        keys.dedup();
        keys
    }
}

/// The names the key probably stands for ([`key_suggestions`]: a stale capability's
/// replacements first), else removing the entry.
fn unknown_key_fixes(target: &Target, section: KeySection, name: &str) -> Vec<QuickFix> {
    if section == KeySection::Capabilities {
        if let Some((_, [only])) = STALE_CAPABILITIES.iter().find(|(old, _)| *old == name) {
            // A capability torchcts renamed to one name: that name alone, and safe.
            return safe_rename(target, only).into_iter().collect();
        }
    }
    let names = key_suggestions(section, name);
    if names.is_empty() {
        return remove_entry_fix(target, name).into_iter().collect();
    }
    rename_fixes(target, &names)
}

/// "Remove the 'name' entry": every write of the key.
fn remove_entry_fix(target: &Target, name: &str) -> Option<QuickFix> {
    let edits: Option<Vec<TextEdit>> = target.key_writes().iter().map(|k| remove_entry(target.analysis, k)).collect();
    let mut edits = edits?;
    edits.sort_by_key(|e| e.span.start);
    edits.dedup();
    Some(target.fix(format!("Remove the '{name}' entry"), edits, false))
}

/// "Replace with 'name'", safe: the one name torchcts renamed a capability to.
fn safe_rename(target: &Target, name: &str) -> Option<QuickFix> {
    let edits: Option<Vec<_>> =
        target.key_writes().iter().map(|k| replace_string_literal(target.analysis, k, name)).collect();
    Some(target.safe_fix(format!("Replace with '{name}'"), edits?))
}

/// "Replace with 'name'" for each candidate, the first preferred.
fn rename_fixes(target: &Target, names: &[String]) -> Vec<QuickFix> {
    let keys = target.key_writes();
    // A value that is part of a literal (`skip_ops += "mul"` adds "m", "u", "l"): replacing
    // the literal's text would not replace the value.
    let old = match &target.finding.data {
        Some(FixData::Replacements { name, .. }) => Some(name.as_str()),
        _ => None,
    };
    if old.is_some_and(|old| keys.iter().any(|k| literal_holds_other_text(target.analysis, k, old))) {
        return Vec::new();
    }
    names
        .iter()
        .enumerate()
        .filter_map(|(i, name)| {
            let edits: Option<Vec<_>> = keys.iter().map(|k| replace_string_literal(target.analysis, k, name)).collect();
            Some(target.fix(format!("Replace with '{name}'"), edits?, i == 0))
        })
        .collect()
}

/// A dtype key that test selection ignores, written as selection matches it, by its
/// canonical name (`"half"` and `"torch.half"` mean `torch.float16`): the dtype object
/// when the file imports torch, else torchcts's string for it.
fn dtype_key_fixes(target: &Target, canonical: &str) -> Vec<QuickFix> {
    let replacement =
        if target.analysis.model.imports_torch { canonical.to_string() } else { format!("\"{canonical}\"") };
    let edits = target.key_writes().into_iter().map(|span| TextEdit { span, new_text: replacement.clone() }).collect();
    vec![target.safe_fix(format!("Write the key as {replacement}"), edits)]
}

/// An invalid dtype key replaced with the nearest dtypes, written the same two ways.
fn dtype_name_fixes(target: &Target, name: &str) -> Vec<QuickFix> {
    let s = schema();
    let attrs: Vec<&str> = s.dtypes.iter().map(|d| d.attr.as_str()).collect();
    let bare = name.trim().trim_start_matches("torch.");
    nearest(bare, &attrs, 3)
        .into_iter()
        .enumerate()
        .map(|(i, attr)| {
            let replacement = if target.analysis.model.imports_torch {
                format!("torch.{attr}")
            } else {
                format!("\"{}\"", s.dtype_by_attr(&attr).map(|d| d.canonical.as_str()).unwrap_or(""))
            };
            target.replace_finding(format!("Replace with {replacement}"), replacement, i == 0)
        })
        .collect()
}

/// The nearest tolerance categories, replacing the category inside the key.
fn tolerance_category_fixes(target: &Target, category: &str) -> Vec<QuickFix> {
    let categories: Vec<&str> = schema().tolerance_categories.iter().map(String::as_str).collect();
    let key = &target.finding.span;
    let Some(pos) = target.analysis.text[key.clone()].find(category) else { return Vec::new() };
    let start = key.start + pos;
    nearest(category, &categories, 3)
        .into_iter()
        .enumerate()
        .map(|(i, c)| {
            let title = format!("Replace with '{c}'");
            target.fix(title, vec![TextEdit { span: start..start + category.len(), new_text: c }], i == 0)
        })
        .collect()
}

/// The repaired pattern, when the finding is on a plain string literal (not a constant or
/// an expression, which would need rewriting elsewhere).
fn regex_fixes(target: &Target, pattern: &str) -> Vec<QuickFix> {
    let literal = &target.analysis.text[target.finding.span.clone()];
    if !literal.starts_with(['"', '\'', 'r', 'R']) {
        return Vec::new();
    }
    let Some(fixed) = crate::regex_check::repair_regex(pattern, target.analysis.python) else { return Vec::new() };
    let new_literal = regex_literal(&fixed);
    vec![target.replace_finding(format!("Change the regex to {new_literal}"), new_literal, true)]
}

/// A misspelt top-level key renamed to the required key it stands for (keeping its value;
/// the same fix as its unknown-key finding's), else the key inserted as the manifest's
/// first entry, with a value that passes.
fn missing_key_fixes(target: &Target, key: &str) -> Vec<QuickFix> {
    let mut out: Vec<QuickFix> = misspelling_of(target.analysis, key)
        .and_then(|misspelt| {
            let writes = Target { finding: misspelt, ..*target }.key_writes();
            let edits: Option<Vec<_>> =
                writes.iter().map(|k| replace_string_literal(target.analysis, k, key)).collect();
            Some(target.fix(format!("Replace with '{key}'"), edits?, true))
        })
        .into_iter()
        .collect();
    let value = match key {
        "manifest_version" => "1",
        "device_name" => "\"cpu\"",
        "capabilities" => "{}",
        _ => "None",
    };
    let edit = insert_top_level_entry(target.analysis, key, value);
    let preferred = out.is_empty();
    out.extend(edit.map(|edit| target.fix(format!("Add \"{key}\": {value}"), vec![edit], preferred)));
    out
}

/// The unknown top-level key whose likeliest meaning is `key` (`"capabilites"` for a missing
/// `"capabilities"`), when there is exactly one.
fn misspelling_of<'a>(analysis: &'a Analysis, key: &str) -> Option<&'a Finding> {
    let mut misspelt = analysis.findings.iter().filter(|f| match &f.data {
        Some(FixData::UnknownKey { section: KeySection::TopLevel, name }) => {
            key_suggestions(KeySection::TopLevel, name).first().map(String::as_str) == Some(key)
        }
        _ => false,
    });
    let first = misspelt.next()?;
    misspelt.next().is_none().then_some(first)
}

/// The repairs CPython's specialised syntax errors name (a comma, a ':'), likeliest first;
/// one whose span does not fit the text is dropped, as applying it would panic.
fn syntax_error_fixes(target: &Target, repairs: &[SyntaxRepair]) -> Vec<QuickFix> {
    let text = &target.analysis.text;
    let fits = |r: &SyntaxRepair| {
        r.start <= r.end && r.end <= text.len() && text.is_char_boundary(r.start) && text.is_char_boundary(r.end)
    };
    repairs
        .iter()
        .enumerate()
        .filter(|(_, r)| fits(r))
        .map(|(n, r)| {
            let edits = vec![TextEdit { span: r.start..r.end, new_text: r.text.clone() }];
            // One repair: what CPython's message evidently meant (a comma, a ':'); several: a guess.
            match repairs.len() {
                1 => target.safe_fix(r.title.clone(), edits),
                _ => target.fix(r.title.clone(), edits, n == 0),
            }
        })
        .collect()
}

/// Each memory model the schema knows, the first preferred.
fn memory_model_fixes(target: &Target) -> Vec<QuickFix> {
    let models = schema().memory_models.iter().enumerate();
    models.map(|(i, m)| target.replace_finding(format!("Set to '{m}'"), format!("\"{m}\""), i == 0)).collect()
}

/// `custom_quantized_decode` turned off (the finding sits on its key), or a decoder
/// declared: a stub entry (and its format) to fill in, inside the existing sections when
/// there are some (a later key would override a new one).
fn decoder_required_fixes(target: &Target) -> Vec<QuickFix> {
    let mut out = Vec::new();
    let value = pair_of_key(target.analysis, &target.finding.span).and_then(|pair| pair.field(Field::Value));
    if let Some(value) = value {
        let edit = TextEdit { span: value.start_byte()..value.end_byte(), new_text: "False".into() };
        out.push(target.fix("Set custom_quantized_decode to False".into(), vec![edit], true));
    }
    if let Some(edits) = decoder_stub(target.analysis) {
        out.push(target.fix("Add a custom_container_decoders entry stub (nf4)".into(), edits, false));
    }
    out
}

/// Whether the text at `span` is not `value`'s own: a plain quoted string literal (no
/// prefix, no escape) with other text, or no expression of its own.
fn literal_holds_other_text(analysis: &Analysis, span: &Span, value: &str) -> bool {
    let literal = &analysis.text[span.clone()];
    // Nor is a value one item of what is written there (a tuple, a half-parsed group).
    let node = analysis.tree.root_node().descendant_for_byte_range(span.start, span.end);
    let container = ["parenthesized_expression", "tuple", "list", "set", "dictionary", "ERROR"];
    if node.is_none_or(|n| n.byte_range() != *span || container.contains(&n.kind())) {
        return true;
    }
    let quoted = literal.len() >= 2
        && literal.starts_with(['"', '\''])
        && literal.ends_with(&literal[..1])
        && !literal.contains('\\');
    quoted && &literal[1..literal.len() - 1] != value
}

/// Replaces the content of a string literal, keeping its prefix and quotes; None for a value
/// a call made (`",".join(ops).split(",")`: no text of its own to replace); a string the
/// evaluator computed from another expression (`name[0]`, `"ab"[1:]`) is replaced whole.
fn replace_string_literal(analysis: &Analysis, span: &Span, new_content: &str) -> Option<TextEdit> {
    let literal = &analysis.text[span.clone()];
    let node = analysis.tree.root_node().descendant_for_byte_range(span.start, span.end);
    if node.is_some_and(|n| n.kind() == "call" && n.byte_range() == *span) {
        return None;
    }
    let quote_start = literal
        .find(['"', '\''])
        .filter(|&q| literal[..q].chars().all(|c| c.is_ascii_alphabetic()) && literal.ends_with(&literal[q..q + 1]));
    Some(match quote_start {
        Some(q) => {
            let quote = &literal[q..q + 1];
            let triple = literal[q..].starts_with(&quote.repeat(3));
            let qlen = if triple { 3 } else { 1 };
            let inner_start = span.start + q + qlen;
            let inner_end = span.end.saturating_sub(qlen).max(inner_start);
            TextEdit { span: inner_start..inner_end, new_text: new_content.to_string() }
        }
        None => TextEdit { span: span.clone(), new_text: format!("\"{new_content}\"") },
    })
}

/// Deletes a dict entry with its comma, and its whole line when it stands alone on it.
fn remove_entry(analysis: &Analysis, key_span: &Span) -> Option<TextEdit> {
    let pair = pair_of_key(analysis, key_span)?;
    let text = analysis.text.as_str();
    let mut start = pair.start_byte();
    let mut end = pair.end_byte();
    // Take the following comma (and spaces) when present.
    if let Some(next) = pair.next_sibling() {
        if next.kind() == "," {
            end = next.end_byte();
        }
    }
    let line_start = text[..start].rfind('\n').map(|i| i + 1).unwrap_or(0);
    let line_end = text[end..].find('\n').map(|i| end + i).unwrap_or(text.len());
    let before = &text[line_start..start];
    let after = &text[end..line_end];
    if before.trim().is_empty() && (after.trim().is_empty() || after.trim_start().starts_with('#')) {
        start = line_start;
        end = (line_end + 1).min(text.len());
    } else {
        while end < text.len() && text.as_bytes()[end] == b' ' {
            end += 1;
        }
    }
    Some(TextEdit { span: start..end, new_text: String::new() })
}

/// Deletes a list item with its comma (the one after it, else the one before it), and its
/// whole line when it stands alone on it.
fn remove_list_item(analysis: &Analysis, item_span: &Span) -> Option<TextEdit> {
    let text = analysis.text.as_str();
    let node = analysis.tree.root_node().named_descendant_for_byte_range(item_span.start, item_span.end)?;
    let item = std::iter::successors(Some(node), |n| n.parent())
        .find(|n| n.parent().is_some_and(|p| matches!(p.kind(), "list" | "tuple")))?;
    let (mut start, mut end) = (item.start_byte(), item.end_byte());
    match (item.next_sibling(), item.prev_sibling()) {
        (Some(next), _) if next.kind() == "," => end = next.end_byte(),
        (_, Some(prev)) if prev.kind() == "," => start = prev.start_byte(),
        _ => {}
    }
    let line_start = text[..start].rfind('\n').map_or(0, |i| i + 1);
    let line_end = text[end..].find('\n').map_or(text.len(), |i| end + i);
    let (before, after) = (&text[line_start..start], &text[end..line_end]);
    if before.trim().is_empty() && (after.trim().is_empty() || after.trim_start().starts_with('#')) {
        return Some(TextEdit { span: line_start..(line_end + 1).min(text.len()), new_text: String::new() });
    }
    while end < text.len() && text.as_bytes()[end] == b' ' {
        end += 1;
    }
    Some(TextEdit { span: start..end, new_text: String::new() })
}

/// Inserts raw entry text (`"k": v` or several lines of them) as the manifest's first entry.
fn insert_top_level_raw(analysis: &Analysis, entry: &str) -> Option<TextEdit> {
    let placeholder = insert_top_level_entry(analysis, "\u{0}", "\u{0}")?;
    let new_text = placeholder.new_text.replace("\"\u{0}\": \u{0}", entry).replace("'\u{0}': \u{0}", entry);
    Some(TextEdit { span: placeholder.span, new_text })
}

/// Inserts `"key": value,` as the first entry of the manifest dict, in its style.
fn insert_top_level_entry(analysis: &Analysis, key: &str, value: &str) -> Option<TextEdit> {
    let manifest = analysis.model.manifest.as_ref()?;
    let dict_node =
        analysis.tree.root_node().named_descendant_for_byte_range(manifest.span.start, manifest.span.start + 1)?;
    let dict_node = if dict_node.kind() == "dictionary" { dict_node } else { dict_node.parent()? };
    if dict_node.kind() != "dictionary" {
        return None;
    }
    let text = analysis.text.as_str();
    let open = dict_node.start_byte() + 1;
    let mut cursor = dict_node.walk();
    let first = dict_node.named_children(&mut cursor).find(|c| c.kind() != "comment");
    let quote = first
        .and_then(|f| f.field(Field::Key))
        .map(|k| node_text(k, text))
        .filter(|k| k.starts_with('\''))
        .map(|_| "'")
        .unwrap_or("\"");
    let entry = format!("{quote}{key}{quote}: {value},");
    match first {
        Some(first) if text[open..first.start_byte()].contains('\n') => {
            let line_start = text[..first.start_byte()].rfind('\n').map(|i| i + 1).unwrap_or(0);
            let indent = &text[line_start..first.start_byte()];
            Some(TextEdit { span: line_start..line_start, new_text: format!("{indent}{entry}\n") })
        }
        Some(first) => Some(TextEdit { span: first.start_byte()..first.start_byte(), new_text: format!("{entry} ") }),
        None => Some(TextEdit { span: open..open, new_text: entry.trim_end_matches(',').to_string() }),
    }
}

/// A Python literal whose value is exactly `pattern`: raw when it can be (the way regexes
/// are written), else with escapes (a line break, a quote of each kind, a final backslash).
fn regex_literal(pattern: &str) -> String {
    let quote = if pattern.contains('"') { '\'' } else { '"' };
    let raw_ok = !pattern.contains(quote) && !pattern.ends_with('\\') && pattern.chars().all(|c| !c.is_control());
    if raw_ok {
        format!("r{quote}{pattern}{quote}")
    } else {
        crate::value::str_repr(pattern)
    }
}

/// Key spans of the earlier writes of the manifest entry whose (winning) key is at `key_span`.
fn earlier_writes_of_key(analysis: &Analysis, key_span: &Span) -> Vec<Span> {
    fn search(dict: &crate::value::Dict, key_span: &Span, out: &mut Vec<Span>) {
        for entry in &dict.entries {
            if entry.key.span == *key_span {
                out.extend(entry.overridden.iter().map(|o| o.key_span.clone()));
                return;
            }
            if let Some(inner) = entry.value.as_dict() {
                search(inner, key_span, out);
            }
        }
    }
    let mut out = Vec::new();
    if let Some(manifest) = analysis.model.manifest.as_ref().and_then(|m| m.as_dict()) {
        search(manifest, key_span, &mut out);
    }
    out
}

/// Edits that declare an `nf4` decoder stub and enable its format: inside the manifest's
/// `custom_container_decoders` / `supported_container_formats` dicts when they are written
/// as literals, else as new top-level entries.
fn decoder_stub(analysis: &Analysis) -> Option<Vec<TextEdit>> {
    let manifest = analysis.model.manifest.as_ref()?.as_dict()?;
    let mut edits = Vec::new();
    let mut top_level = Vec::new();
    let sections = [
        ("supported_container_formats", "\"nf4\"", "True"),
        ("custom_container_decoders", "\"nf4\"", "\"my_backend.decoders:decode_nf4\""),
    ];
    for (section, key, value) in sections {
        match manifest.get(section) {
            Some(entry) => {
                let dict = entry.value.as_dict()?;
                if section == "supported_container_formats"
                    && dict.get("nf4").is_some_and(|e| e.value.truthy() == Some(true))
                {
                    continue;
                }
                if dict.contains("nf4") {
                    // An `nf4` entry that is off or invalid: leave it to its own finding.
                    return None;
                }
                edits.push(insert_entry(analysis, entry.value.span.start, &format!("{key}: {value}"))?);
            }
            None => top_level.push(format!("\"{section}\": {{{key}: {value}}}")),
        }
    }
    if !top_level.is_empty() {
        edits.push(insert_top_level_raw(analysis, &top_level.join(", "))?);
    }
    Some(edits)
}

/// Inserts raw entry text as the first entry of the dict literal starting at `dict_start`.
fn insert_entry(analysis: &Analysis, dict_start: usize, entry: &str) -> Option<TextEdit> {
    let node = analysis.tree.root_node().descendant_for_byte_range(dict_start, dict_start + 1)?;
    let dict_node = if node.kind() == "dictionary" { node } else { node.parent()? };
    if dict_node.kind() != "dictionary" || dict_node.start_byte() != dict_start {
        return None;
    }
    let open = dict_start + 1;
    let mut cursor = dict_node.walk();
    let first = dict_node.named_children(&mut cursor).find(|c| c.kind() != "comment");
    Some(match first {
        Some(first) => TextEdit { span: first.start_byte()..first.start_byte(), new_text: format!("{entry}, ") },
        None => TextEdit { span: open..open, new_text: entry.to_string() },
    })
}
