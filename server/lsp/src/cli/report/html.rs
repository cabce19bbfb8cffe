//! The support record as one self-contained HTML page: inline CSS and SVG, a few lines of
//! inline script for the filter box and the editor's "go to entry", no request of any kind
//! (the Content-Security-Policy says `default-src 'none'`). Every cell links to its tests in
//! the page (`#c{id}`); cells, dtype headers and entries carry `data-line`, the manifest line
//! an editor opens when it shows the page (VS Code: a `postMessage` from the page).

use super::model::{Cell, EntryRow, LevelRow, Outcome, SupportRecord, Tally};
use std::collections::{HashMap, HashSet};
use std::fmt::Write;
use torchcts_core::evidence::TestStatus;

const STYLE: &str = include_str!("record.css");
const SCRIPT: &str = include_str!("record.js");
const CSP: &str = "default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:";

/// Colours of the chart's segments: run, then the reasons by their total, largest first.
const RUN_COLOUR: &str = "#2e8540";
const UNSELECTED_RUN_COLOUR: &str = "#a6d5ae";
const REASON_COLOURS: [&str; 12] = [
    "#c0392b", "#e67e22", "#8e44ad", "#2c7fb8", "#d4ac0d", "#16a085", "#7f8c8d", "#b03a7a", "#5d6d7e", "#a04000",
    "#1f618d", "#6e2c00",
];
const OTHER_COLOUR: &str = "#bbbbbb";

/// `&`, `<`, `>`, `"` and `'` as entities.
pub(super) fn esc(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            _ => out.push(c),
        }
    }
    out
}

fn line_attr(line: Option<usize>) -> String {
    line.map(|l| format!(" data-line={l}")).unwrap_or_default()
}

fn head(out: &mut String, title: &str) {
    let _ = write!(
        out,
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta http-equiv=\"Content-Security-Policy\" content=\"{CSP}\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <title>{}</title>\n<style>\n{STYLE}</style>\n</head>\n",
        esc(title)
    );
}

pub fn render(r: &SupportRecord) -> String {
    let mut out = String::with_capacity(256 * 1024);
    head(&mut out, &format!("TorchCTS support record: {} on {}", r.manifest, r.device));
    out.push_str("<body>\n<header>\n");
    let _ = writeln!(out, "<h1>TorchCTS support record <code id=\"manifest\">{}</code></h1>", esc(&r.manifest));
    out.push_str("<dl class=\"meta\">");
    let meta = [
        ("device", format!("{}{}", r.device, if r.device_assumed { " (facts assumed: a custom backend)" } else { "" })),
        ("torch", r.torch.clone()),
        ("torchcts", r.torchcts.clone()),
        ("levels", r.selection.clone()),
    ];
    for (k, v) in meta {
        let _ = write!(out, "<dt>{k}</dt><dd id=\"meta-{k}\">{}</dd>", esc(&v));
    }
    if let Some(at) = &r.generated_at {
        let _ = write!(out, "<dt>generated</dt><dd>{}</dd>", esc(at));
    }
    out.push_str("</dl>\n");
    if let Some(note) = &r.inventory_note {
        let _ = writeln!(
            out,
            "<p class=\"note\">Counts for torchcts {} with torch {}: {}</p>",
            esc(&r.torchcts),
            esc(&r.torch),
            esc(note)
        );
    }
    out.push_str("</header>\n<main>\n");
    summary(&mut out, r);
    chart(&mut out, &r.levels);
    matrix(&mut out, r);
    entry_evidence(&mut out, r);
    entries(&mut out, "capabilities", "Capabilities", "declared", "filtered tests it is the cause of", &r.capabilities);
    entries(&mut out, "skip-ops", "skip_ops", "", "tests it removes (as its entry above)", &r.skip_ops);
    tolerances(&mut out, r);
    runs(&mut out, r);
    review(&mut out, r);
    test_lists(&mut out, r);
    for note in &r.notes {
        let _ = writeln!(out, "<p class=\"note\">Note: {}</p>", esc(note));
    }
    let _ = write!(out, "</main>\n<script>\n{SCRIPT}</script>\n</body>\n</html>\n");
    out
}

fn summary(out: &mut String, r: &SupportRecord) {
    let e = &r.evidence;
    let records: usize = r.reason_counts.iter().map(|(_, n)| n).sum();
    let _ = writeln!(
        out,
        "<section id=\"summary\"><p class=\"headline\"><span id=\"total-run\" data-count=\"{}\">{}</span> of {} collected tests run \
         ({} deselected; <span id=\"total-records\" data-count=\"{records}\">{records}</span> not-run records).</p>\n\
         <p>Runs showed, on <code>{}</code>: <span id=\"evidence-line\">{}</span>.{}</p></section>",
        r.executable,
        r.executable,
        r.collected,
        r.deselected,
        esc(&r.device),
        esc(&Tally::outcome_line(&e.tally)),
        if e.partial { " <span class=\"warn\">A run that did not complete counts for the tests it reached.</span>" } else { "" }
    );
}

/// Reasons in the order of their totals over the levels, largest first (ties by name).
fn reason_order(levels: &[LevelRow]) -> Vec<String> {
    let mut totals: Vec<(String, usize)> = Vec::new();
    for (reason, n) in levels.iter().flat_map(|l| l.by_reason.iter()) {
        match totals.iter_mut().find(|(r, _)| r == reason) {
            Some(t) => t.1 += n,
            None => totals.push((reason.clone(), *n)),
        }
    }
    totals.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    totals.into_iter().map(|(r, _)| r).collect()
}

fn colour(order: &[String], reason: &str) -> &'static str {
    order.iter().position(|r| r == reason).and_then(|i| REASON_COLOURS.get(i)).copied().unwrap_or(OTHER_COLOUR)
}

/// Per level a horizontal stacked bar: the tests that run, then those filtered per reason.
fn chart(out: &mut String, levels: &[LevelRow]) {
    let shown: Vec<&LevelRow> = levels.iter().filter(|l| l.collected > 0 || l.filtered > 0).collect();
    let order = reason_order(levels);
    let widest = shown.iter().map(|l| l.run + l.filtered).max().unwrap_or(1).max(1);
    let (left, bar_width, row) = (70.0, 600.0, 26.0);
    let height = row * shown.len() as f64 + 10.0;
    out.push_str("<section id=\"levels\"><h2>Tests per level</h2>\n");
    let _ = writeln!(
        out,
        "<svg id=\"chart\" role=\"img\" aria-label=\"tests per level, run and filtered by reason\" \
         viewBox=\"0 0 {} {height}\" width=\"{}\" height=\"{height}\">",
        left + bar_width + 90.0,
        left + bar_width + 90.0
    );
    for (i, l) in shown.iter().enumerate() {
        let y = 5.0 + row * i as f64;
        let _ = write!(
            out,
            "<g class=\"bar\" data-level=\"{}\" data-run=\"{}\" data-filtered=\"{}\"><text x=\"0\" y=\"{}\">level {}</text>",
            l.level,
            l.run,
            l.filtered,
            y + 15.0,
            l.level
        );
        let mut x = left;
        let mut segment = |label: &str, n: usize, fill: &str| {
            if n == 0 {
                return;
            }
            let w = bar_width * n as f64 / widest as f64;
            let _ = write!(
                out,
                "<rect x=\"{x:.1}\" y=\"{y}\" width=\"{w:.1}\" height=\"20\" fill=\"{fill}\"><title>level {}: {} {n}</title></rect>",
                l.level,
                esc(label)
            );
            x += w;
        };
        let (run_label, run_fill) =
            if l.selected { ("run", RUN_COLOUR) } else { ("would run (level not selected)", UNSELECTED_RUN_COLOUR) };
        segment(run_label, l.run, run_fill);
        for (reason, n) in &l.by_reason {
            segment(reason, *n, colour(&order, reason));
        }
        let _ = writeln!(
            out,
            "<text x=\"{:.1}\" y=\"{}\">{} run, {} filtered</text></g>",
            x + 6.0,
            y + 15.0,
            l.run,
            l.filtered
        );
    }
    out.push_str(
        "</svg>\n<p class=\"hint\">Per level: the tests that run and those filtered; filtered counts \
         OpInfo tests that are not collected (a dtype or operator left out) besides collected ones, so \
         a bar can be longer than the level's collected tests.</p>\n<ul class=\"legend\">",
    );
    let _ = write!(out, "<li><i style=\"background:{RUN_COLOUR}\"></i>run</li>");
    if levels.iter().any(|l| !l.selected && l.run > 0) {
        let _ =
            write!(out, "<li><i style=\"background:{UNSELECTED_RUN_COLOUR}\"></i>would run (level not selected)</li>");
    }
    for reason in &order {
        let _ = write!(out, "<li><i style=\"background:{}\"></i>{}</li>", colour(&order, reason), esc(reason));
    }
    out.push_str("</ul></section>\n");
}

fn cell_class(t: &Tally) -> &'static str {
    if t.failing() > 0 {
        "fail"
    } else if t.tests == 0 {
        "filt"
    } else if t.passed == t.tests {
        "pass"
    } else if t.passed > 0 {
        "part"
    } else {
        "none"
    }
}

fn matrix(out: &mut String, r: &SupportRecord) {
    out.push_str(
        "<section id=\"matrix\"><h2>Operators &times; dtypes</h2>\n\
         <p><label>Filter operators <input id=\"filter\" type=\"search\" placeholder=\"add, conv, ...\"></label> \
         <span id=\"shown\"></span></p>\n<ul class=\"legend\"><li><i class=\"pass\"></i>all that run passed</li>\
         <li><i class=\"part\"></i>some passed, others no record</li><li><i class=\"none\"></i>run, no record</li>\
         <li><i class=\"fail\"></i>failed, errored or crashed</li><li><i class=\"filt\"></i>filtered only</li></ul>\n\
         <p class=\"hint\">A cell reads: tests that run (failing ones in bold) / tests filtered. It links to its tests.</p>\n\
         <div class=\"scroll\"><table id=\"matrix-table\"><thead><tr><th>operator</th>",
    );
    for d in &r.dtypes {
        let _ = write!(
            out,
            "<th{} title=\"{}\">{}<br><small>{}</small></th>",
            line_attr(d.line),
            esc(&d.claim),
            esc(d.name.trim_start_matches("torch.")),
            esc(&short_claim(&d.claim))
        );
    }
    out.push_str("</tr></thead>\n<tbody>\n");
    let mut column_totals = vec![Tally::default(); r.dtypes.len()];
    for o in &r.operators {
        let _ = write!(
            out,
            "<tr><th{}>{}{}",
            line_attr(o.skip_line),
            esc(&o.name),
            if o.skip_line.is_some() { " <small>skip_ops</small>" } else { "" }
        );
        let mut empty = 0;
        for (i, cell) in o.cells.iter().enumerate() {
            let Some(c) = cell else {
                empty += 1;
                continue;
            };
            empty_cells(out, &mut empty);
            let t = &c.tally;
            column_totals[i].add_counts(t);
            let run = if t.failing() > 0 { format!("<b>{}</b>", t.tests) } else { t.tests.to_string() };
            // The entry's line is the column's (or the row's, for a skipped operator): the
            // page's script finds it, so that ten thousand cells do not repeat it.
            let _ = write!(out, "<td class={}><a href=#c{}>{run}/{}</a>", cell_class(t), c.id, t.filtered);
        }
        empty_cells(out, &mut empty);
        out.push_str("</tr>\n");
    }
    out.push_str("</tbody>\n<tfoot><tr><th>total</th>");
    for t in &column_totals {
        let _ = write!(out, "<td>{}/{}</td>", t.tests, t.filtered);
    }
    out.push_str("</tr></tfoot></table></div></section>\n");
}

/// `n` empty cells as one (a row has a few cells among a dozen columns).
fn empty_cells(out: &mut String, n: &mut usize) {
    match *n {
        0 => {}
        1 => out.push_str("<td>"),
        _ => {
            let _ = write!(out, "<td colspan={}>", n);
        }
    }
    *n = 0;
}

fn short_claim(claim: &str) -> String {
    if claim.starts_with("regex") {
        "regex".to_string()
    } else {
        claim.to_string()
    }
}

fn entries(out: &mut String, id: &str, title: &str, value_head: &str, removes_head: &str, rows: &[EntryRow]) {
    let _ = writeln!(out, "<section id=\"{id}\"><h2>{title}</h2>");
    if rows.is_empty() {
        out.push_str("<p>None.</p></section>\n");
        return;
    }
    out.push_str("<table class=\"entries\"><thead><tr><th>entry</th>");
    if !value_head.is_empty() {
        let _ = write!(out, "<th>{value_head}</th>");
    }
    let _ = writeln!(
        out,
        "<th>{removes_head}</th><th>of those, in a run: passed / failed, errored or crashed</th></tr></thead><tbody>"
    );
    for e in rows {
        let _ = write!(out, "<tr{}><td><code>{}</code></td>", line_attr(e.line), esc(&e.name));
        if !value_head.is_empty() {
            let _ = write!(out, "<td><code>{}</code></td>", esc(&e.value));
        }
        let _ = writeln!(out, "<td>{}</td><td>{} / {}</td></tr>", e.removes, e.removed_passed, e.removed_failed);
    }
    out.push_str("</tbody></table></section>\n");
}

/// Per manifest entry, what the newest records say of the tests it decides.
fn entry_evidence(out: &mut String, r: &SupportRecord) {
    out.push_str(
        "<section id=\"entries\"><h2>Per entry: what the runs showed</h2>\n<p class=\"hint\">The tests an entry decides: \
         a dtype or capability, those it lets in; a skip_ops item, those it removes; a tolerance override, the OpInfo \
         tests comparing under it; semantic_level, all that run; parameter sets of generated tests included.</p>\n",
    );
    if r.entries.is_empty() {
        out.push_str("<p>No entry decides tests.</p></section>\n");
        return;
    }
    out.push_str(
        "<table class=\"entries\"><thead><tr><th>entry</th><th>tests it decides</th><th>passed</th><th>failed</th><th>errored</th>\
         <th>crashed</th><th>skipped</th><th>no record</th><th>newest record</th></tr></thead><tbody>\n",
    );
    for (line, e) in &r.entries {
        let t = &e.tally;
        let class = if t.failing() > 0 { " class=fail" } else { "" };
        let _ = writeln!(
            out,
            "<tr data-line={line}{class}><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}{}</td></tr>",
            esc(&e.label),
            t.tests,
            t.passed,
            t.failed,
            t.errored,
            t.crashed,
            t.skipped,
            t.no_record,
            esc(t.newest_tested_at.as_deref().unwrap_or("")),
            if t.partial { " <span class=\"warn\">(partial run)</span>" } else { "" }
        );
    }
    out.push_str("</tbody></table></section>\n");
}

fn tolerances(out: &mut String, r: &SupportRecord) {
    out.push_str("<section id=\"tolerances\"><h2>tolerance_overrides</h2>\n");
    if r.tolerances.is_empty() {
        out.push_str("<p>None: torchcts' default tolerances apply.</p></section>\n");
        return;
    }
    out.push_str(
        "<table class=\"entries\"><thead><tr><th>entry</th><th>value</th><th>against torchcts' golden default</th>\
         <th>tests of that dtype that run</th></tr></thead><tbody>\n",
    );
    for t in &r.tolerances {
        let _ = writeln!(
            out,
            "<tr{}><td><code>{}</code></td><td><code>{}</code></td><td>{}</td><td>{}</td></tr>",
            line_attr(t.line),
            esc(&t.key),
            esc(&t.value),
            esc(&t.effect),
            t.dtype_tests_run
        );
    }
    out.push_str("</tbody></table></section>\n");
}

fn runs(out: &mut String, r: &SupportRecord) {
    let e = &r.evidence;
    out.push_str("<section id=\"runs\"><h2>Runs read</h2>\n");
    let _ = writeln!(
        out,
        "<p>Result folders: {}.</p>",
        e.folders.iter().map(|f| format!("<code>{}</code>", esc(f))).collect::<Vec<_>>().join(", ")
    );
    if e.runs.is_empty() {
        let _ = writeln!(out, "<p>No run on <code>{}</code> in them.</p>", esc(&r.device));
    } else {
        out.push_str(
            "<table class=\"entries\"><thead><tr><th>artifact</th><th>time (UTC)</th><th>torch</th><th>hardware</th>\
             <th>levels</th><th>records</th><th>newest for their test</th><th>completed</th></tr></thead><tbody>\n",
        );
        for run in &e.runs {
            let cell = |v: &Option<String>| esc(v.as_deref().unwrap_or("?"));
            let _ = writeln!(
                out,
                "<tr><td><code>{}</code></td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
                esc(&run.artifact),
                cell(&run.timestamp),
                cell(&run.torch),
                cell(&run.hardware),
                cell(&run.level),
                run.tests,
                run.newest_records,
                if run.partial { "<span class=\"warn\">no: partial</span>" } else { "yes" }
            );
        }
        out.push_str("</tbody></table>\n");
    }
    if e.records_not_run_now > 0 {
        let _ = writeln!(
            out,
            "<p>{} tests with records are not run by the manifest now (filtered, or not in the inventory).</p>",
            e.records_not_run_now
        );
    }
    if e.omitted > 0 {
        let _ = writeln!(out, "<p>{} older history files were not read (the newest are).</p>", e.omitted);
    }
    for (file, message) in &e.problems {
        let _ = writeln!(out, "<p class=\"warn\">Not used: <code>{}</code>: {}</p>", esc(file), esc(message));
    }
    out.push_str("</section>\n");
}

fn review(out: &mut String, r: &SupportRecord) {
    let Some(review) = &r.review else { return };
    let _ = writeln!(
        out,
        "<section id=\"review\"><h2>Against <code>{}</code></h2>\n<p>{}</p>",
        esc(&review.against),
        esc(&review.summary)
    );
    if !review.changes.is_empty() {
        out.push_str("<table class=\"entries\"><thead><tr><th>change</th><th>tests that start running</th><th>tests that stop running</th></tr></thead><tbody>\n");
        for (label, started, stopped) in &review.changes {
            let _ = writeln!(out, "<tr><td>{}</td><td>{started}</td><td>{stopped}</td></tr>", esc(label));
        }
        out.push_str("</tbody></table>\n");
    }
    out.push_str("</section>\n");
}

/// Every cell's tests: those that run with their newest record, those filtered per reason.
fn test_lists(out: &mut String, r: &SupportRecord) {
    out.push_str("<section id=\"tests\"><h2>Tests per cell</h2>\n");
    let shared = shared_function_names(r);
    for o in &r.operators {
        for (cell, dtype) in o.cells.iter().zip(&r.dtypes) {
            if let Some(c) = cell {
                cell_tests(out, r, &o.name, &dtype.name, c, &shared);
            }
        }
    }
    out.push_str("</section>\n");
}

fn cell_tests<'a>(out: &mut String, r: &SupportRecord, op: &str, dtype: &str, c: &'a Cell, shared: &HashSet<&str>) {
    let _ = write!(out, "<div id=c{}><h3>{} × {}</h3>", c.id, esc(op), esc(dtype.trim_start_matches("torch.")));
    // Failing and skipped tests one by one with their message; the others grouped by outcome
    // (passed, no record, filtered per reason) and by test function, parameters side by side.
    let mut groups: Vec<(String, &'static str, Vec<&str>)> = Vec::new();
    let mut add = |label: String, class: &'static str, id: &'a str| match groups
        .iter_mut()
        .find(|g| g.0 == label && g.1 == class)
    {
        Some(g) => g.2.push(id),
        None => groups.push((label, class, vec![id])),
    };
    let mut single = String::new();
    for t in &c.tests {
        let id = printed(&t.node_id);
        match &t.outcome {
            // The words of these two come from the style sheet: ten thousand cells repeat them.
            Outcome::Runs(None) => add(String::new(), "none", id),
            Outcome::Runs(Some(o)) if o.status == TestStatus::Passed && o.message.is_none() => {
                add(String::new(), "pass", id)
            }
            Outcome::Runs(Some(o)) => {
                let time = r.evidence.runs.get(o.run).and_then(|run| run.timestamp.as_deref()).unwrap_or("");
                let _ = write!(
                    single,
                    "<li class={}>{} <em>{}</em>: {} <small>{}</small>",
                    status_class(o.status),
                    esc(id),
                    super::json::status_name(o.status),
                    esc(o.message.as_deref().unwrap_or("")),
                    esc(time)
                );
            }
            Outcome::Filtered { reason, cause } => {
                // A suite rule's cause says no more than its reason.
                let label =
                    if cause.ends_with(reason.as_str()) { reason.clone() } else { format!("{reason} ({cause})") };
                add(label, "filt", id);
            }
        }
    }
    if !single.is_empty() {
        let _ = write!(out, "<ul>{single}</ul>");
    }
    for (label, class, ids) in groups {
        let _ =
            write!(out, "<p class={class}>{}{}{}:", esc(&label), if label.is_empty() { "" } else { " " }, ids.len());
        by_function(out, &ids, shared);
        out.push_str("</p>");
    }
    out.push_str("</div>\n");
}

/// Per test function (in bold; `file::function` only where two files have a function of that
/// name, see [`shared_function_names`]) the parameters of its tests side by side.
fn by_function(out: &mut String, ids: &[&str], shared: &HashSet<&str>) {
    let mut current: Option<&str> = None;
    for id in ids {
        let (function, params) = match id.find('[') {
            Some(i) => id.split_at(i),
            None => (*id, ""),
        };
        if current != Some(function) || params.is_empty() {
            let name = function_name(function);
            let shown = if shared.contains(name) { function } else { name };
            let _ = write!(out, " <b>{}</b>", esc(shown));
            current = Some(function);
        }
        if !params.is_empty() {
            let _ = write!(out, " {}", esc(params));
        }
    }
}

/// `test_x` of `opinfo/test_a.py::test_x`.
fn function_name(file_and_function: &str) -> &str {
    file_and_function.rsplit_once("::").map_or(file_and_function, |(_, f)| f)
}

/// Test function names that two files of the record share: the page names those with their
/// file (the others by name alone; the JSON has every full node id).
fn shared_function_names(r: &SupportRecord) -> HashSet<&str> {
    let mut file_of: HashMap<&str, &str> = HashMap::new();
    let mut shared = HashSet::new();
    for t in r.operators.iter().flat_map(|o| o.cells.iter().flatten()).flat_map(|c| c.tests.iter()) {
        let function = t.node_id.split('[').next().unwrap_or("");
        let Some((file, name)) = function.rsplit_once("::") else { continue };
        if *file_of.entry(name).or_insert(file) != file {
            shared.insert(name);
        }
    }
    shared
}

/// The node id as show-skips prints it (from the last `/`).
fn printed(node_id: &str) -> &str {
    let file_end = node_id.find("::").unwrap_or(node_id.len());
    match node_id[..file_end].rfind('/') {
        Some(i) => &node_id[i + 1..],
        None => node_id,
    }
}

fn status_class(status: TestStatus) -> &'static str {
    match status {
        TestStatus::Passed => "pass",
        TestStatus::Failed | TestStatus::Errored | TestStatus::Crashed => "fail",
        TestStatus::Skipped | TestStatus::KnownCrash => "skip",
    }
}

/// The page listing the records of several manifests.
pub fn index(records: &[(String, String, usize, usize, Tally)]) -> String {
    let mut out = String::new();
    head(&mut out, "TorchCTS support records");
    out.push_str("<body>\n<header><h1>TorchCTS support records</h1></header>\n<main><table class=\"entries\"><thead><tr><th>manifest</th><th>tests that run</th><th>not-run records</th><th>runs showed</th></tr></thead><tbody>\n");
    for (manifest, file, run, records, tally) in records {
        let _ = writeln!(
            out,
            "<tr><td><a href=\"{}\">{}</a></td><td>{run}</td><td>{records}</td><td>{}</td></tr>",
            esc(file),
            esc(manifest),
            esc(&Tally::outcome_line(tally))
        );
    }
    out.push_str("</tbody></table></main>\n</body>\n</html>\n");
    out
}
