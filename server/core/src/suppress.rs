//! Suppression comments: `# torchcts-lsp: ignore[CODE, ...]` silences torchcts-lsp's own
//! findings (origin `lsp`) with those codes that start on the comment's line, and
//! `# torchcts-lsp: ignore-file[CODE, ...]` those anywhere in the file.
//!
//! Honestly: a comment cannot silence check-manifest's findings (origin `torchcts`), since
//! `torchcts check-manifest` (and a CI that runs it) still reports them; such a code gets a
//! finding saying so, and the finding stays. A code that silences nothing is itself a
//! finding (`unused-suppression`), so stale comments do not pile up.
//!
//! Cost: nothing unless the text contains `torchcts-lsp:`; then one tree lookup per marker
//! and one pass over the findings.

use crate::codes::{self, Category, Code};
use crate::findings::{Finding, Origin, Severity};
use crate::line_index::LineIndex;
use crate::value::Span;
use tree_sitter::Tree;

/// What a suppression comment starts with.
pub const MARKER: &str = "torchcts-lsp:";

/// The codes of the findings about suppression comments themselves (never suppressible).
pub const UNUSED: Code = Code::UnusedSuppression;
pub const INEFFECTIVE: Code = Code::SuppressionIneffective;
pub const MALFORMED: Code = Code::InvalidSuppression;

/// One code named by a suppression comment.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Suppression {
    pub code: String,
    /// The code's text in the comment.
    pub span: Span,
    /// `Some(line)` (0-based) for `ignore[...]`, `None` for `ignore-file[...]`.
    pub line: Option<usize>,
}

/// The suppressions of the text's comments, and findings for comments that cannot be read.
pub fn suppressions(text: &str, tree: &Tree, line_index: &LineIndex) -> (Vec<Suppression>, Vec<Finding>) {
    let mut out = Vec::new();
    let mut problems = Vec::new();
    if !text.contains(MARKER) {
        return (out, problems);
    }
    for (at, _) in text.match_indices(MARKER) {
        let in_comment = tree.root_node().descendant_for_byte_range(at, at).is_some_and(|n| n.kind() == "comment");
        if !in_comment {
            continue;
        }
        let line_end = text[at..].find(['\n', '\r']).map_or(text.len(), |i| at + i);
        let after = at + MARKER.len();
        let rest = &text[after..line_end];
        let word_start = after + (rest.len() - rest.trim_start().len());
        let rest = &text[word_start..line_end];
        let (line, kind_len) = if rest.starts_with("ignore-file") {
            (None, "ignore-file".len())
        } else if rest.starts_with("ignore") {
            (Some(line_index.line_of(at)), "ignore".len())
        } else {
            let end = word_start + rest.find(char::is_whitespace).unwrap_or(rest.len());
            problems.push(malformed(word_start..end.max(word_start), "expected `ignore[CODE]` or `ignore-file[CODE]`"));
            continue;
        };
        let open = word_start + kind_len;
        let close = text[open..line_end].find(']').map(|i| open + i);
        let (Some(close), true) = (close, text[open..].starts_with('[')) else {
            problems.push(malformed(
                word_start..open,
                "name the codes to ignore in brackets, e.g. `ignore[duplicate-key]`",
            ));
            continue;
        };
        let mut start = open + 1;
        for part in text[open + 1..close].split(',') {
            let trimmed = part.trim();
            if !trimmed.is_empty() {
                let offset = start + (part.len() - part.trim_start().len());
                let span = offset..offset + trimmed.len();
                match codes::unknown_code(trimmed) {
                    // A misspelt code would silence nothing, and quietly: an error naming the closest.
                    Some(why) => problems.push(Finding::new(
                        span,
                        Severity::Error,
                        format!("torchcts-lsp suppression comment: {why}"),
                        MALFORMED,
                        Origin::Lsp,
                    )),
                    None => out.push(Suppression { code: trimmed.to_string(), span, line }),
                }
            }
            start += part.len() + 1;
        }
        if text[open + 1..close].trim().is_empty() {
            problems.push(malformed(word_start..close + 1, "names no code; name the codes to ignore"));
        }
    }
    (out, problems)
}

fn malformed(span: Span, why: &str) -> Finding {
    Finding::new(span, Severity::Warning, format!("torchcts-lsp suppression comment: {why}"), MALFORMED, Origin::Lsp)
}

/// Applies the text's suppression comments to `findings`: takes out the torchcts-lsp
/// findings they silence (returned: `check --fix` says why it left them) and adds a finding
/// for each code that silences nothing or names a check-manifest finding.
pub fn apply(text: &str, tree: &Tree, line_index: &LineIndex, findings: &mut Vec<Finding>) -> Vec<Finding> {
    let (suppressions, problems) = suppressions(text, tree, line_index);
    if suppressions.is_empty() && problems.is_empty() {
        return Vec::new();
    }
    let mut used = vec![false; suppressions.len()];
    let mut blocked: Vec<Option<&'static str>> = vec![None; suppressions.len()];
    let own = |code: &str| codes::in_category(code, Category::Suppression);
    let mut silenced = Vec::new();
    let mut kept = Vec::with_capacity(findings.len());
    for f in std::mem::take(findings) {
        if own(f.code) {
            kept.push(f);
            continue;
        }
        let line = line_index.line_of(f.span.start);
        let mut keep = true;
        for (i, s) in suppressions.iter().enumerate() {
            if s.code != f.code || s.line.is_some_and(|l| l != line) {
                continue;
            }
            match f.origin {
                Origin::Lsp => {
                    used[i] = true;
                    keep = false;
                }
                Origin::Torchcts => blocked[i] = Some(f.code),
            }
        }
        if keep {
            kept.push(f);
        } else {
            silenced.push(f);
        }
    }
    *findings = kept;
    findings.extend(problems);
    for (i, s) in suppressions.iter().enumerate() {
        // An evidence code silences nothing while no run has given the finding (no results
        // folder, a check without `--results`): not a stale comment.
        if used[i] || codes::in_category(&s.code, Category::Evidence) {
            continue;
        }
        let scope = if s.line.is_some() { "ignore" } else { "ignore-file" };
        let finding = match blocked[i] {
            Some(code) => Finding::new(
                s.span.clone(),
                Severity::Warning,
                format!(
                    "`{scope}[{code}]` does nothing: `{code}` is check-manifest's own finding, the real tool's verdict; \
                     `torchcts check-manifest` (and CI) still fails on it. Fix the manifest instead"
                ),
                INEFFECTIVE,
                Origin::Lsp,
            ),
            None => Finding::new(
                s.span.clone(),
                Severity::Warning,
                match s.line {
                    Some(_) => format!("unused suppression: no torchcts-lsp finding `{}` starts on this line", s.code),
                    None => format!("unused suppression: no torchcts-lsp finding `{}` in this file", s.code),
                },
                UNUSED,
                Origin::Lsp,
            ),
        };
        findings.push(finding);
    }
    silenced
}

#[cfg(test)]
mod tests {
    use crate::{analyze, AnalysisInput, Origin};

    fn codes(text: &str) -> Vec<(&'static str, Origin, String)> {
        let a = analyze(text, &AnalysisInput::default());
        a.findings.iter().map(|f| (f.code, f.origin, a.text[f.span.clone()].to_string())).collect()
    }

    /// The duplicate-key finding is on the overridden (first) write: `{C}` marks its line's end.
    const DUPLICATE: &str = "manifest = {\n    \"manifest_version\": 1,\n    \"device_name\": \"cpu\",{C}\n    \"capabilities\": {},\n    \"device_name\": \"cpu\",";

    #[test]
    fn a_line_comment_silences_our_finding_on_its_line_only() {
        let plain = codes(&format!("{}\n}}\n", DUPLICATE.replace("{C}", "")));
        assert!(plain.iter().any(|(c, _, _)| *c == "duplicate-key"), "{plain:?}");
        let silenced = codes(&format!("{}\n}}\n", DUPLICATE.replace("{C}", "  # torchcts-lsp: ignore[duplicate-key]")));
        assert!(!silenced.iter().any(|(c, _, _)| *c == "duplicate-key" || *c == super::UNUSED.name()), "{silenced:?}");
        // On another line it silences nothing and says so.
        let elsewhere =
            codes(&format!("# torchcts-lsp: ignore[duplicate-key]\n{}\n}}\n", DUPLICATE.replace("{C}", "")));
        assert!(elsewhere.iter().any(|(c, _, _)| *c == "duplicate-key"), "{elsewhere:?}");
        assert!(elsewhere.iter().any(|(c, _, t)| *c == super::UNUSED.name() && t == "duplicate-key"), "{elsewhere:?}");
    }

    #[test]
    fn a_file_comment_silences_everywhere_and_check_manifest_findings_stay() {
        let text =
            format!("# torchcts-lsp: ignore-file[duplicate-key, missing-key]\n{}\n}}\n", DUPLICATE.replace("{C}", ""));
        let text = text.replace("    \"manifest_version\": 1,\n", "");
        let found = codes(&text);
        assert!(!found.iter().any(|(c, _, _)| *c == "duplicate-key"), "{found:?}");
        let missing: Vec<_> = found.iter().filter(|(c, _, _)| *c == "missing-key").collect();
        assert!(!missing.is_empty() && missing.iter().all(|(_, o, _)| *o == Origin::Torchcts), "{found:?}");
        assert!(found.iter().any(|(c, _, t)| *c == super::INEFFECTIVE.name() && t == "missing-key"), "{found:?}");
    }

    #[test]
    fn markers_in_strings_and_malformed_comments() {
        let found = codes("x = '# torchcts-lsp: ignore[a]'\nmanifest = {}  # torchcts-lsp: ignore\n");
        assert!(!found.iter().any(|(c, _, _)| *c == super::UNUSED.name()), "{found:?}");
        assert!(found.iter().any(|(c, _, _)| *c == super::MALFORMED.name()), "{found:?}");
    }

    #[test]
    fn an_unknown_code_is_an_error_naming_the_closest() {
        let a = analyze("manifest = {}  # torchcts-lsp: ignore[duplicate-kye]\n", &AnalysisInput::default());
        let f = a.findings.iter().find(|f| f.code == super::MALFORMED.name()).expect("a finding");
        assert_eq!(f.severity, crate::Severity::Error);
        assert_eq!(&a.text[f.span.clone()], "duplicate-kye");
        assert!(f.message.ends_with("did you mean `duplicate-key`?"), "{}", f.message);
        assert!(!a.findings.iter().any(|f| f.code == super::UNUSED.name()), "{:?}", a.findings);
    }
}
