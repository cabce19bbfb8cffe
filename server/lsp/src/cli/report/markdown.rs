//! The support record as a pull-request comment: the headline counts, per level and per dtype
//! tables, the failing tests (first 20) in a collapsed list, the entries, and the review diff.

use super::model::{Outcome, SupportRecord, Tally};
use std::fmt::Write;
use torchcts_core::markdown::{code_span, escape_text};

/// Failing tests listed in the comment.
const FAILURES_SHOWN: usize = 20;

pub fn render(r: &SupportRecord) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "### TorchCTS support record: {} on {}\n", code_span(&r.manifest), code_span(&r.device));
    let _ = writeln!(
        out,
        "torchcts {} · torch {} · {}{}\n",
        r.torchcts,
        r.torch,
        r.selection,
        r.generated_at.as_deref().map(|t| format!(" · generated {t}")).unwrap_or_default()
    );
    let e = &r.evidence;
    let _ = writeln!(
        out,
        "**{} of {} collected tests run** ({} deselected, {} not-run records). Runs showed: {}{}.\n",
        r.executable,
        r.collected,
        r.deselected,
        r.reason_counts.iter().map(|(_, n)| n).sum::<usize>(),
        Tally::outcome_line(&e.tally),
        if e.partial { " (a run that did not complete counts for the tests it reached)" } else { "" }
    );
    out.push_str(
        "| level | run | filtered (OpInfo tests not collected included) | filtered by |\n|---:|---:|---:|---|\n",
    );
    for l in r.levels.iter().filter(|l| l.collected > 0) {
        let reasons: Vec<String> = l.by_reason.iter().take(3).map(|(k, n)| format!("{k} {n}")).collect();
        let _ = writeln!(
            out,
            "| {}{} | {} | {} | {} |",
            l.level,
            if l.selected { "" } else { " (not selected)" },
            l.run,
            l.filtered,
            reasons.join(", ")
        );
    }
    out.push_str("\n| dtype | claim | tests of this dtype that run | passed | failed | errored | crashed | no record | filtered |\n|---|---|---:|---:|---:|---:|---:|---:|---:|\n");
    for (i, d) in r.dtypes.iter().enumerate() {
        let mut t = Tally::default();
        for cell in r.operators.iter().filter_map(|o| o.cells[i].as_ref()) {
            t.add_counts(&cell.tally);
        }
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {} | {} | {} | {} | {} |",
            code_span(&d.name),
            if d.claim.is_empty() { "–".to_string() } else { code_span(&d.claim) },
            t.tests,
            t.passed,
            t.failed,
            t.errored,
            t.crashed,
            t.no_record,
            t.filtered
        );
    }
    failures(&mut out, r);
    let decided: Vec<_> = r.entries.iter().filter(|(_, e)| e.tally.tests > 0).collect();
    if !decided.is_empty() {
        out.push_str("\n| entry | tests it decides (parameter sets of generated tests included) | passed | failed | errored | crashed | no record |\n|---|---:|---:|---:|---:|---:|---:|\n");
        for (_, e) in decided {
            let t = &e.tally;
            let _ = writeln!(
                out,
                "| {} | {} | {} | {} | {} | {} | {} |",
                escape_text(&e.label),
                t.tests,
                t.passed,
                t.failed,
                t.errored,
                t.crashed,
                t.no_record
            );
        }
    }
    manifest_tables(&mut out, r);
    if let Some(review) = &r.review {
        let _ = write!(out, "\n#### Against {}\n\n{}", code_span(&review.against), review.markdown);
    }
    for note in &r.notes {
        let _ = writeln!(out, "\n> Note: {note}");
    }
    out
}

/// The manifest's capabilities, `skip_ops` and tolerance overrides, each a table (names and
/// values as code spans: they are the manifest's text).
fn manifest_tables(out: &mut String, r: &SupportRecord) {
    if !r.capabilities.is_empty() {
        out.push_str("\n| capability | declared | filtered tests it is the cause of |\n|---|---|---:|\n");
        for c in &r.capabilities {
            let _ = writeln!(out, "| {} | {} | {} |", code_span(&c.name), code_span(&c.value), c.removes);
        }
    }
    if !r.skip_ops.is_empty() {
        out.push_str("\n| skip_ops | tests it removes (as its entry above) | of them passed / failed in a run |\n|---|---:|---|\n");
        for s in &r.skip_ops {
            let _ = writeln!(
                out,
                "| {} | {} | {} / {} |",
                code_span(&s.name),
                s.removes,
                s.removed_passed,
                s.removed_failed
            );
        }
    }
    if !r.tolerances.is_empty() {
        out.push_str("\n| tolerance override | value | against torchcts' default |\n|---|---|---|\n");
        for t in &r.tolerances {
            let _ = writeln!(out, "| {} | {} | {} |", code_span(&t.key), code_span(&t.value), escape_text(&t.effect));
        }
    }
}

fn failures(out: &mut String, r: &SupportRecord) {
    let failing: Vec<(&str, &str, &str)> = r
        .operators
        .iter()
        .flat_map(|o| o.cells.iter().flatten())
        .flat_map(|c| c.tests.iter())
        .filter_map(|t| match &t.outcome {
            Outcome::Runs(Some(o)) if super::model::is_failure(o.status) => {
                Some((super::json::status_name(o.status), t.node_id.as_str(), o.message.as_deref().unwrap_or("")))
            }
            _ => None,
        })
        .collect();
    if failing.is_empty() {
        return;
    }
    let _ = writeln!(out, "\n<details><summary>{} failing tests</summary>\n", failing.len());
    for (status, id, message) in failing.iter().take(FAILURES_SHOWN) {
        let _ = writeln!(out, "- {status} {}: {}", code_span(id), escape_text(message));
    }
    if failing.len() > FAILURES_SHOWN {
        let _ = writeln!(out, "- … and {} more", failing.len() - FAILURES_SHOWN);
    }
    out.push_str("\n</details>\n");
}
