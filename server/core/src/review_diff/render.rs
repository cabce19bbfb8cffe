//! The review as a reviewer reads it: labels, the summary line, text, Markdown and JSON.

use super::compute::Review;
use crate::accounting_view::LevelSelection;
use accounting::diff::{Cause, Group};
use serde_json::json;

/// "+3 -412 tests", "-412 tests", "+36 tests".
pub fn signed_counts(started: usize, stopped: usize) -> String {
    match (started, stopped) {
        (0, 0) => "±0 tests".to_string(),
        (s, 0) => format!("+{s} tests"),
        (0, t) => format!("-{t} tests"),
        (s, t) => format!("+{s} -{t} tests"),
    }
}

/// " up to level 4" when both sides count the same cumulative levels.
fn at_level(review: &Review) -> String {
    match (review.old_selection, review.new_selection) {
        (LevelSelection::Cumulative(a), LevelSelection::Cumulative(b)) if a == b => format!(" up to level {a}"),
        _ => String::new(),
    }
}

/// The one-line summary ("float16 entry: -412 tests up to level 4; skip_ops += index_reduce: -36").
pub fn summary_line(review: &Review) -> String {
    if review.changes.is_empty() {
        return "no test starts or stops running".to_string();
    }
    let at = at_level(review);
    review
        .changes
        .iter()
        .enumerate()
        .map(|(i, c)| {
            let counts = signed_counts(c.started, c.stopped);
            // The first names the unit and the levels; the rest are read the same way.
            if i == 0 {
                format!("{}: {counts}{at}", c.label)
            } else {
                format!("{}: {}", c.label, counts.trim_end_matches(" tests"))
            }
        })
        .collect::<Vec<_>>()
        .join("; ")
}

pub(super) fn printed(id: &str) -> &str {
    id.rsplit('/').next().unwrap_or(id)
}

fn selection_text(review: &Review) -> String {
    if review.old_selection == review.new_selection {
        review.old_selection.label()
    } else {
        format!("{} -> {}", review.old_selection.label(), review.new_selection.label())
    }
}

fn change_label(review: &Review, cause: &Cause) -> String {
    review.changes.iter().find(|c| &c.cause == cause).map(|c| c.label.clone()).unwrap_or_else(|| cause.label())
}

/// Plain text: per level, the groups with their first `shown` node ids.
pub fn render_text(review: &Review, old_name: &str, new_name: &str, shown: usize) -> String {
    let d = &review.diff;
    let mut out = format!(
        "{old_name} -> {new_name} on {} ({})\n{}\ntests that run: {} -> {} ({:+})\n",
        review.device,
        selection_text(review),
        summary_line(review),
        d.old_running,
        d.new_running,
        d.new_running as i64 - d.old_running as i64
    );
    // Lowest level first, every level either side selects (a ±0 one too, so none is silently
    // left out); a level neither selects runs nothing, its records' shifts go to the total.
    let selected = |level: u8| review.old_selection.contains(level) || review.new_selection.contains(level);
    for level in d.levels.iter().filter(|l| selected(l.level) || l.started_count() + l.stopped_count() > 0) {
        out.push_str(&format!(
            "\nlevel {}: {}\n",
            level.level,
            signed_counts(level.started_count(), level.stopped_count())
        ));
        for (what, groups) in [("stop running", &level.stopped), ("start running", &level.started)] {
            for g in groups {
                out.push_str(&format!(
                    "  {what}: {} [{}]: {}\n",
                    change_label(review, &g.cause),
                    g.reason,
                    g.nodes.len()
                ));
                for id in g.nodes.iter().take(shown) {
                    out.push_str(&format!("      {}\n", printed(id)));
                }
                if g.nodes.len() > shown {
                    out.push_str(&format!("      ... {} more (--format json lists all)\n", g.nodes.len() - shown));
                }
            }
        }
        if !level.reason_deltas.is_empty() {
            out.push_str(&format!("  not-run records: {}\n", deltas_text(&level.reason_deltas)));
        }
    }
    if !d.reason_deltas.is_empty() {
        out.push_str(&format!("\nnot-run records per reason (new - old): {}\n", deltas_text(&d.reason_deltas)));
    }
    out
}

fn deltas_text(deltas: &[(String, i64)]) -> String {
    deltas.iter().map(|(r, n)| format!("{r} {n:+}")).collect::<Vec<_>>().join(", ")
}

/// A pull-request comment: summary line, a table per level, collapsed node-id lists.
pub fn render_markdown(review: &Review, old_name: &str, new_name: &str, shown: usize) -> String {
    use crate::markdown::{code_span, escape_text};
    let d = &review.diff;
    let mut out = format!(
        "### torchcts manifest review: {} vs {}\n\n**{}**\n\nTests that run on {} ({}): {} → {} (**{:+}**)\n",
        code_span(new_name),
        code_span(old_name),
        escape_text(&summary_line(review)),
        code_span(&review.device),
        selection_text(review),
        d.old_running,
        d.new_running,
        d.new_running as i64 - d.old_running as i64
    );
    for level in d.levels.iter().filter(|l| !l.started.is_empty() || !l.stopped.is_empty()) {
        out.push_str(&format!(
            "\n#### Level {}: {}\n\n| | manifest entry | reason | tests |\n|---|---|---|---:|\n",
            level.level,
            signed_counts(level.started_count(), level.stopped_count())
        ));
        let rows =
            level.stopped.iter().map(|g| ("stop", "−", g)).chain(level.started.iter().map(|g| ("start", "+", g)));
        for (what, sign, g) in rows.clone() {
            out.push_str(&format!(
                "| {what} | {} | {} | {sign}{} |\n",
                escape_text(&change_label(review, &g.cause)),
                code_span(&g.reason),
                g.nodes.len()
            ));
        }
        for (what, _, g) in rows {
            out.push_str(&format!(
                "\n<details><summary>level {}, {} {}: {} tests {what} running</summary>\n\n",
                level.level,
                escape_text(&change_label(review, &g.cause)),
                code_span(&g.reason),
                g.nodes.len()
            ));
            for id in g.nodes.iter().take(shown) {
                out.push_str(&format!("- {}\n", code_span(printed(id))));
            }
            if g.nodes.len() > shown {
                out.push_str(&format!(
                    "- … {} more (`torchcts-lsp diff --format json` lists all)\n",
                    g.nodes.len() - shown
                ));
            }
            out.push_str("\n</details>\n");
        }
    }
    if !d.reason_deltas.is_empty() {
        out.push_str(
            "\n<details><summary>Not-run records per reason (new − old)</summary>\n\n| reason | change |\n|---|---:|\n",
        );
        for (r, n) in &d.reason_deltas {
            out.push_str(&format!("| {} | {n:+} |\n", code_span(r)));
        }
        out.push_str("\n</details>\n");
    }
    out
}

fn cause_json(cause: &Cause) -> serde_json::Value {
    let joined;
    let (kind, name) = match cause {
        Cause::Dtype(n) => ("dtype", Some(n.as_str())),
        Cause::Capability(names) => {
            joined = names.join(", ");
            ("capability", Some(joined.as_str()))
        }
        Cause::SkipOp(n) => ("skip_op", Some(n.as_str())),
        Cause::SemanticLevel => ("semantic_level", None),
        Cause::DeviceCount => ("device_count", None),
        Cause::Hardware(n) => ("hardware", Some(n.as_str())),
        Cause::ResourceLimit(n) => ("resource_limit", Some(n.as_str())),
        Cause::ContainerFormat(n) => ("container_format", Some(n.as_str())),
        Cause::ContainerDecoder(n) => ("container_decoder", Some(n.as_str())),
        Cause::GeneratedSet => ("generated_set", None),
        Cause::Suite(n) => ("suite", Some(n.as_str())),
    };
    json!({"kind": kind, "name": name})
}

/// Everything, every node id included.
pub fn to_json(review: &Review) -> serde_json::Value {
    let d = &review.diff;
    let group = |what: &str, g: &Group| {
        json!({
            "change": what,
            "cause": cause_json(&g.cause),
            "label": change_label(review, &g.cause),
            "reason": g.reason,
            "count": g.nodes.len(),
            "nodes": g.nodes,
        })
    };
    let deltas = |v: &[(String, i64)]| -> Vec<serde_json::Value> {
        v.iter().map(|(r, n)| json!({"reason": r, "delta": n})).collect()
    };
    json!({
        "device": review.device,
        "old_selection": review.old_selection.label(),
        "new_selection": review.new_selection.label(),
        "summary": summary_line(review),
        "old_running": d.old_running,
        "new_running": d.new_running,
        "started": d.started_count(),
        "stopped": d.stopped_count(),
        "changes": review.changes.iter().map(|c| json!({
            "cause": cause_json(&c.cause), "label": c.label, "started": c.started, "stopped": c.stopped,
        })).collect::<Vec<_>>(),
        "levels": d.levels.iter().map(|l| json!({
            "level": l.level,
            "started": l.started_count(),
            "stopped": l.stopped_count(),
            "groups": l.stopped.iter().map(|g| group("stopped", g)).chain(l.started.iter().map(|g| group("started", g))).collect::<Vec<_>>(),
            "reason_deltas": deltas(&l.reason_deltas),
        })).collect::<Vec<_>>(),
        "reason_deltas": deltas(&d.reason_deltas),
    })
}

/// Markdown listing the groups of the given causes (a lens tooltip, a hover).
pub fn groups_markdown(review: &Review, causes: &[Cause], against: &str, shown: usize) -> String {
    let mut out = format!("**vs {against}** ({} on `{}`)\n\n", selection_text(review), review.device);
    for level in review.diff.levels.iter() {
        let rows = level.stopped.iter().map(|g| ("stop", g)).chain(level.started.iter().map(|g| ("start", g)));
        for (what, g) in rows.filter(|(_, g)| causes.contains(&g.cause)) {
            out.push_str(&format!(
                "- level {}: {} tests {what} running, {} `{}`",
                level.level,
                g.nodes.len(),
                change_label(review, &g.cause),
                g.reason
            ));
            let ids: Vec<String> = g.nodes.iter().take(shown).map(|id| format!("`{}`", printed(id))).collect();
            if !ids.is_empty() {
                let more = if g.nodes.len() > shown { ", …" } else { "" };
                out.push_str(&format!(": {}{more}", ids.join(", ")));
            }
            out.push('\n');
        }
    }
    out
}
