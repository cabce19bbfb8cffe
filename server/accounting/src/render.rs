//! Rendering of the `show-skips` text from an [`Accounting`].

use crate::account::Accounting;

/// The `NOT-RUN AUDIT` block exactly as torchcts prints it (starting with its
/// leading empty line), followed by pytest's `collected ...` line and the
/// summary line without the timing and `=` padding (see [`summary_line`]).
pub fn render_show_skips(acc: &Accounting) -> String {
    let mut out = String::new();
    render_audit(acc, &mut out);
    out.push_str(&collected_line(acc));
    out.push('\n');
    out.push_str(&summary_line(acc));
    out.push('\n');
    out
}

/// Only the block torchcts prints (`NOT-RUN AUDIT`, counts, full list).
pub fn render_audit(acc: &Accounting, out: &mut String) {
    out.push_str(&format!("\n  NOT-RUN AUDIT ({} records)\n", acc.record_count));
    out.push_str(&format!("  {}\n", "─".repeat(32)));
    for (reason, count) in &acc.reason_counts {
        out.push_str(&format!("    {:<25}: {}\n", acc.reason_name(*reason), count));
    }
    out.push_str("\n  Full not-run list:\n");
    out.push_str(&format!("  {}\n", "─".repeat(19)));
    for rec in &acc.records() {
        out.push_str(&format!(
            "  {:<60} {:<25} {}\n",
            acc.printed_id(rec),
            acc.reason_name(rec.reason),
            acc.detail(rec)
        ));
    }
}

/// pytest's `collected M items / D deselected / K selected` line.
pub fn collected_line(acc: &Accounting) -> String {
    let items = if acc.collected == 1 { "item" } else { "items" };
    if acc.deselected > 0 {
        format!("collected {} {items} / {} deselected / {} selected", acc.collected, acc.deselected, acc.included)
    } else {
        format!("collected {} {items}", acc.collected)
    }
}

/// pytest's summary: `K/M tests collected (D deselected)` (or `M tests collected`).
pub fn summary_line(acc: &Accounting) -> String {
    let tests = |n: usize| if n == 1 { "test" } else { "tests" };
    if acc.deselected > 0 {
        format!("{}/{} {} collected ({} deselected)", acc.included, acc.collected, tests(acc.collected), acc.deselected)
    } else {
        format!("{} {} collected", acc.collected, tests(acc.collected))
    }
}
