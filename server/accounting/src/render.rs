//! Rendering of the `show-skips` text from an [`Accounting`].

use crate::account::Accounting;

/// The `NOT-RUN AUDIT` block exactly as torchcts prints it (starting with its
/// leading empty line), followed by pytest's `collected ...` line and the
/// summary line without the timing and `=` padding (see [`summary_line`]).
pub fn render_show_skips(acc: &Accounting) -> String {
    let mut out = String::new();
    // Lines average ~130 bytes: reserved once rather than regrown through ~800 KB.
    out.reserve(acc.record_count * 140 + 2048);
    // Writing to a String cannot fail.
    let _ = write_show_skips(acc, &mut out);
    out
}

/// [`render_show_skips`] written as it is made: a record's detail can hold a whole regex
/// (show-skips prints it in every record it filters), so the text can be far larger than
/// the accounting and is better not held at once.
pub fn write_show_skips(acc: &Accounting, out: &mut (impl std::fmt::Write + ?Sized)) -> std::fmt::Result {
    render_audit(acc, out)?;
    writeln!(out, "{}", collected_line(acc))?;
    writeln!(out, "{}", summary_line(acc))
}

/// Only the block torchcts prints (`NOT-RUN AUDIT`, counts, full list).
pub fn render_audit(acc: &Accounting, out: &mut (impl std::fmt::Write + ?Sized)) -> std::fmt::Result {
    let records = acc.records();
    write!(out, "\n  NOT-RUN AUDIT ({} records)\n", acc.record_count)?;
    writeln!(out, "  {}", "─".repeat(32))?;
    for (reason, count) in &acc.reason_counts {
        writeln!(out, "    {:<25}: {}", acc.reason_name(*reason), count)?;
    }
    out.write_str("\n  Full not-run list:\n")?;
    writeln!(out, "  {}", "─".repeat(19))?;
    for rec in &records {
        writeln!(out, "  {:<60} {:<25} {}", acc.printed_id(rec), acc.reason_name(rec.reason), acc.detail(rec))?;
    }
    Ok(())
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

/// A dtype regex or manifest value longer than this is not repeated inside every record's
/// JSON `detail`; the record refers to one shared copy instead.
pub const INLINE_DETAIL_PART: usize = 120;

/// The not-run records as JSON values, and the long texts they share.
///
/// show-skips prints a filtering regex (or an unsupported manifest value) in full on every
/// record it filters, so a 20 KB regex that filters a few thousand tests made 48 MB of JSON.
/// Here a regex or value longer than [`INLINE_DETAIL_PART`] is listed once in `patterns` /
/// `values`; the record's `detail` names it (`patterns[0]`) and carries its index
/// (`"pattern": 0`). Every other record's `detail` is the text show-skips prints.
pub struct RecordsJson {
    pub records: Vec<serde_json::Value>,
    pub patterns: Vec<String>,
    pub values: Vec<String>,
}

pub fn records_json(acc: &Accounting) -> RecordsJson {
    use crate::account::Detail;
    use std::collections::HashMap;
    let mut shared = RecordsJson { records: Vec::new(), patterns: Vec::new(), values: Vec::new() };
    // Position in `patterns` / `values` by the engine's own index of the text.
    let mut pattern_at: HashMap<u32, usize> = HashMap::new();
    let mut value_at: HashMap<u32, usize> = HashMap::new();
    for rec in &acc.records() {
        let mut detail = acc.detail(rec);
        let mut reference = None;
        // The pattern or value ends the printed detail, after a fixed phrase.
        let long_part = match rec.detail {
            Detail::RegexFiltered { pattern, .. } => Some(("patterns", pattern, " regex: ")),
            Detail::UnsupportedValue { value, .. } => Some(("values", value, " filter value ")),
            _ => None,
        };
        if let Some((list, index, phrase)) = long_part {
            if let Some(at) = detail.find(phrase).map(|i| i + phrase.len()) {
                if detail.len() - at > INLINE_DETAIL_PART {
                    let (texts, positions) = if list == "patterns" {
                        (&mut shared.patterns, &mut pattern_at)
                    } else {
                        (&mut shared.values, &mut value_at)
                    };
                    let position = *positions.entry(index).or_insert_with(|| {
                        texts.push(detail[at..].to_string());
                        texts.len() - 1
                    });
                    detail.replace_range(at.., &format!("{list}[{position}]"));
                    reference = Some((if list == "patterns" { "pattern" } else { "value" }, position));
                }
            }
        }
        let mut record = serde_json::json!({
            "node_id": acc.node_id(rec),
            "printed_id": acc.printed_id(rec),
            "reason": acc.reason_name(rec.reason),
            "detail": detail,
            "level": rec.level,
            "deselected": rec.deselected,
            "live_device_dependent": rec.live_device_dependent,
        });
        if let Some((field, position)) = reference {
            record[field] = serde_json::json!(position);
        }
        shared.records.push(record);
    }
    shared
}
