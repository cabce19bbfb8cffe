//! Hover: Markdown for the manifest entry under the cursor.

use crate::accounting_view::{self as av, Inventory, ManifestFacts, PyValue, Summary};
use crate::analysis::Analysis;
use crate::key_docs;
use crate::locate::{locate, Role, Target};
use crate::schema::{python_strip, schema};
use crate::value::{float_repr, Dict, Span, Value, ValueKind};

#[derive(Clone, Debug, PartialEq)]
pub struct HoverResult {
    pub markdown: String,
    pub span: Span,
    /// The markdown carries counts from the inventory (the glue then names its versions).
    pub counted: bool,
}

/// The accounting a hover can use: the inventory and the current manifest's summary.
pub struct Counts<'a> {
    pub inventory: &'a Inventory,
    pub summary: &'a Summary,
}

pub fn hover(analysis: &Analysis, offset: usize, counts: Option<&Counts>) -> Option<HoverResult> {
    let target = locate(&analysis.tree, &analysis.text, offset)?;
    let manifest = analysis.model.manifest.as_ref().and_then(Value::as_dict);
    let mut markdown = match target.path_strs().as_slice() {
        [] => manifest_overview(manifest),
        [key] => top_level_hover(key, manifest),
        ["capabilities", cap] => section_key_hover("capabilities", cap, key_docs::capability(cap)),
        ["hardware", key] => section_key_hover("hardware", key, key_docs::hardware(key)),
        ["resource_limits", key] => section_key_hover("resource_limits", key, key_docs::resource_limit(key)),
        ["supported_dtypes", key] => dtype_hover(key, &target),
        ["tolerance_overrides", key] => tolerance_hover(key, &target, manifest),
        [section @ ("supported_container_formats" | "custom_container_decoders"), fmt] => {
            let known = schema().container_formats.iter().any(|f| f == fmt);
            format!(
                "**{section}.{fmt}**\n\n{}",
                if known {
                    "A quantized container format known to torchcts."
                } else {
                    "Not a container format known to torchcts 0.4.1."
                }
            )
        }
        _ => return None,
    };
    let mut counted = false;
    if let (Some(c), Some(manifest)) = (counts, manifest) {
        let section = count_section(c, manifest, &target);
        if !section.is_empty() {
            markdown = format!("{}\n{}", markdown.trim_end(), section);
            counted = true;
        }
    }
    Some(HoverResult { markdown, span: target.span.clone(), counted })
}

fn signed(n: i64) -> String {
    if n > 0 {
        format!("+{n}")
    } else {
        n.to_string()
    }
}

/// The part of a hover that needs the inventory: counts and what an entry changes.
fn count_section(c: &Counts, manifest: &Dict, target: &Target) -> String {
    let summary = c.summary;
    let level = av::selected_level(summary);
    match target.path_strs().as_slice() {
        [] | ["semantic_level"] => run_counts_per_level(summary, level),
        ["device_name"] => known_crashes(summary),
        ["supported_dtypes", _] => dtype_counts(c, manifest, target, level),
        ["capabilities", cap] => capability_counts(c, cap, level),
        ["skip_ops"] => skip_op_counts(c, manifest, target, level),
        _ => String::new(),
    }
}

/// On `semantic_level` (or nowhere in particular): the tests per level on the device.
fn run_counts_per_level(summary: &Summary, level: usize) -> String {
    let mut out = String::new();
    out.push_str(&format!("\n**On `{}`** ({}):\n\n", summary.device, summary.selection.label()));
    out.push_str("| level | run | filtered | run up to here |\n|---|---|---|---|\n");
    let mut cumulative = 0;
    for (i, (_, run, filtered)) in summary.levels.iter().enumerate() {
        cumulative += run;
        let mark = if i + 1 == level { " ◀" } else { "" };
        out.push_str(&format!("| {}{mark} | {run} | {filtered} | {cumulative} |\n", i + 1));
    }
    out.push_str(&format!(
        "\nshow-skips: {}/{} tests collected ({} deselected), {} not-run records.\n",
        summary.included, summary.collected, summary.deselected, summary.records
    ));
    out.push_str(&known_crashes(summary));
    out.push_str(&caveats(summary));
    out
}

/// What a `supported_dtypes` entry lets in: the operators its regex matches, and the tests
/// it accounts for at the manifest's level.
fn dtype_counts(c: &Counts, manifest: &Dict, target: &Target, level: usize) -> String {
    let (summary, base) = (c.summary, &c.summary.facts);
    let mut out = String::new();
    let Some(index) = entry_index(manifest, "supported_dtypes", target) else { return out };
    let Some(entry) =
        manifest.get("supported_dtypes").and_then(|e| e.value.as_dict()).and_then(|d| d.entries.get(index))
    else {
        return out;
    };
    let total = c.inventory.operator_count();
    match &entry.value.kind {
        ValueKind::Str(pattern) => {
            if let Some((matched, unmatched)) = av::regex_split(c.inventory, pattern, base.python) {
                out.push_str(&format!("\nThe regex lets in **{} of {total}** operators of the suite.", matched.len()));
                if !matched.is_empty() && matched.len() < total {
                    let shown: Vec<String> = matched.iter().take(8).map(|m| format!("`{m}`")).collect();
                    out.push_str(&format!(
                        "\n\nMatched: {}{}",
                        shown.join(", "),
                        if matched.len() > 8 { ", …" } else { "" }
                    ));
                    let near = av::nearby_unmatched(&matched, &unmatched, 6);
                    let near: Vec<String> = near.iter().map(|m| format!("`{m}`")).collect();
                    out.push_str(&format!("\n\nNearby, not matched: {}", near.join(", ")));
                }
                out.push('\n');
            }
        }
        ValueKind::Bool(true) => out.push_str(&format!("\nLets in all {total} operators of the suite.\n")),
        _ => {}
    }
    let mut without = base.clone();
    if index < without.supported_dtypes.len() {
        without.supported_dtypes.remove(index);
        let (run, filtered) = av::delta(c.inventory, summary, &without, Some(&summary.device));
        out.push_str(&format!(
            "\nAt level {level} on `{}`, this entry accounts for **{} run** and **{} filtered** tests (the difference with the entry removed).\n",
            summary.device,
            -run,
            -filtered
        ));
    }
    out
}

/// What flipping a capability changes, per level.
fn capability_counts(c: &Counts, cap: &str, level: usize) -> String {
    let (summary, base) = (c.summary, &c.summary.facts);
    let mut out = String::new();
    let current = base.capability(cap).map(PyValue::truthy).unwrap_or(false);
    let mut flipped = base.clone();
    flipped.capabilities.retain(|(k, _)| k != cap);
    flipped.capabilities.push((cap.to_string(), PyValue::Bool(!current)));
    let per_level = av::per_level_delta(c.inventory, summary, &flipped);
    let gated: i64 = per_level.iter().take(level).sum();
    let verb = if current { "False" } else { "True" };
    out.push_str(&format!(
        "\nSetting it to `{verb}` changes the tests that run on `{}`:\n\n| level | change |\n|---|---|\n",
        summary.device
    ));
    for (i, d) in per_level.iter().enumerate() {
        if *d != 0 {
            out.push_str(&format!("| {} | {} |\n", i + 1, signed(*d)));
        }
    }
    if per_level.iter().all(|d| *d == 0) {
        out.push_str("| — | no change |\n");
    }
    out.push_str(&format!("\nAt level {level}: {} tests.\n", signed(gated)));
    out
}

/// What a `skip_ops` item removes.
fn skip_op_counts(c: &Counts, manifest: &Dict, target: &Target, level: usize) -> String {
    let (summary, base) = (c.summary, &c.summary.facts);
    let mut out = String::new();
    if let Role::ListItem(_) = target.role {
        let Some(name) = manifest
            .get("skip_ops")
            .and_then(|e| match &e.value.kind {
                ValueKind::List(items) => items.iter().find(|i| i.span == target.span).and_then(Value::as_str),
                _ => None,
            })
            .map(str::to_string)
        else {
            return out;
        };
        let mut without: ManifestFacts = base.clone();
        if let Some(p) = without.skip_ops.iter().position(|s| *s == name) {
            without.skip_ops.remove(p);
        }
        let (run, _) = av::delta(c.inventory, summary, &without, Some(&summary.device));
        let known = c.inventory.is_operator(&name);
        if known {
            out.push_str(&format!(
                "\nSkipping `{name}` removes **{run}** tests at level {level} on `{}`.\n",
                summary.device
            ));
        } else {
            out.push_str(&format!("\n`{name}` is not an operator of the suite: this entry removes nothing.\n"));
        }
    }
    out
}

/// The tests torchcts' known-segfault ledger keeps from running on this device and torch.
fn known_crashes(summary: &Summary) -> String {
    if summary.known_crashes.is_empty() {
        return String::new();
    }
    let mut out = format!(
        "\n**{} known backend crashes** on `{}`: torchcts' known-segfault ledger records them as `known_backend_crash` without running them:\n\n",
        summary.known_crashes.len(),
        summary.device
    );
    for id in summary.known_crashes.iter().take(20) {
        out.push_str(&format!("- `{id}`\n"));
    }
    if summary.known_crashes.len() > 20 {
        out.push_str(&format!("- … and {} more\n", summary.known_crashes.len() - 20));
    }
    out
}

fn caveats(summary: &Summary) -> String {
    let mut out = String::new();
    if summary.device_assumed {
        out.push_str(&format!(
            "\n`{}` is not a device the inventory recorded; counted as a PrivateUse1 (custom) backend.\n",
            summary.device
        ));
    }
    if summary.live_device_dependent > 0 {
        out.push_str(&format!(
            "\n{} results depend on the live device (availability, detected memory) and are counted as show-skips counts them without it.\n",
            summary.live_device_dependent
        ));
    }
    for n in &summary.not_modelled {
        out.push_str(&format!("\nNot counted: {n}.\n"));
    }
    out
}

/// Index of the entry under the cursor in a top-level section dict.
fn entry_index(manifest: &Dict, section: &str, target: &Target) -> Option<usize> {
    let dict = manifest.get(section)?.value.as_dict()?;
    let key_span = target.key_span.as_ref()?;
    dict.entries.iter().position(|e| e.key.span == *key_span)
}

fn manifest_overview(manifest: Option<&Dict>) -> String {
    let s = schema();
    let mut out = format!(
        "**TorchCTS manifest** (torchcts {}, torch {})\n\nDeclares what this backend supports; `torchcts run` selects tests from it.\n\n",
        s.torchcts_version, s.torch_version
    );
    out.push_str(&levels_table(manifest_level(manifest)));
    out
}

fn manifest_level(manifest: Option<&Dict>) -> Option<i128> {
    match manifest?.get("semantic_level")?.value.kind {
        ValueKind::Int(i) => Some(i),
        _ => None,
    }
}

/// Semantic levels 1..8 with their meaning, the manifest's level marked.
pub fn levels_table(current: Option<i128>) -> String {
    let s = schema();
    let mut out = String::from("| level | meaning |\n|---|---|\n");
    for level in s.semantic_levels.min..=s.semantic_levels.max {
        let mark = if current == Some(level as i128) { " ◀" } else { "" };
        let meaning = s.level_description(level).unwrap_or("");
        out.push_str(&format!("| **{level}**{mark} | {meaning} |\n"));
    }
    out
}

fn top_level_hover(key: &str, manifest: Option<&Dict>) -> String {
    let Some((shape, doc)) = key_docs::top_level(key) else {
        return format!("**{key}**\n\nNot a top-level key of torchcts {} manifests.", schema().torchcts_version);
    };
    let mut out = format!("**{key}**: `{shape}`\n\n{doc}\n");
    if key == "semantic_level" {
        out.push('\n');
        out.push_str(&levels_table(manifest_level(manifest)));
    }
    out
}

fn section_key_hover(section: &str, key: &str, doc: Option<&str>) -> String {
    match doc {
        Some(doc) => format!("**{section}.{key}**\n\n{doc}"),
        None => {
            format!("**{section}.{key}**\n\nNot a known `{section}` key of torchcts {}.", schema().torchcts_version)
        }
    }
}

fn dtype_hover(key: &str, target: &Target) -> String {
    let s = schema();
    let (canonical, selection_sees_it) =
        if let Some(attr) = key.strip_prefix("torch.").filter(|_| target.role != Role::Value) {
            match s.dtype_by_attr(attr) {
                Some(d) => (Some(d.canonical.as_str()), true),
                None => (None, false),
            }
        } else {
            match s.dtype_from_string_key(key) {
                Some(d) => (Some(d.canonical.as_str()), key == d.canonical),
                None => (None, false),
            }
        };
    let mut out = match canonical {
        Some(c) => format!("**{c}** in `supported_dtypes`\n\n"),
        None => format!("**{}** is not a torch dtype\n\n", python_strip(key)),
    };
    if canonical.is_some() && !selection_sees_it {
        out.push_str("⚠ check-manifest accepts this key, but test selection only matches the dtype object or its exact canonical string, so this entry has no effect on what runs.\n\n");
    }
    out.push_str("`True`: every operator · `False`: declared unsupported · regex string: operators whose name `re.search` matches.");
    out
}

fn tolerance_hover(key: &str, target: &Target, manifest: Option<&Dict>) -> String {
    let s = schema();
    let split = key.split_once(':').or_else(|| key.split_once('/'));
    let Some((category, dtype_key)) = split else {
        return "**tolerance_overrides**\n\nKeys are `\"category:dtype\"`, e.g. `\"matmul:torch.float16\"`.".into();
    };
    let category = python_strip(category);
    let Some(dtype) = s.dtype_from_string_key(dtype_key) else {
        return format!("**{category}** tolerance override: `{}` is not a torch dtype.", python_strip(dtype_key));
    };
    let mut out = format!("**{category}:{}** tolerance override\n\n", dtype.canonical);
    out.push_str("| | rtol | atol |\n|---|---|---|\n");
    let default =
        s.tolerance_default(category, &dtype.canonical).or_else(|| s.tolerance_default("default", &dtype.canonical));
    match default {
        Some(d) => {
            out.push_str(&format!("| default golden | {} | {} |\n", float_repr(d.golden[0]), float_repr(d.golden[1])));
            out.push_str(&format!("| default usable | {} | {} |\n", float_repr(d.usable[0]), float_repr(d.usable[1])));
        }
        None if is_exact_dtype(&dtype.canonical) => out.push_str("| default | 0.0 | 0.0 |\n"),
        None => out.push_str("| default | — | — |\n"),
    }
    if let Some((rtol, atol)) = override_values(target, manifest) {
        out.push_str(&format!("| **override** | {rtol} | {atol} |\n"));
    }
    if !s.tolerance_categories.iter().any(|c| c == category) {
        out.push_str(&format!("\n`{category}` is not a tolerance category of torchcts {}.", s.torchcts_version));
    }
    out
}

fn is_exact_dtype(canonical: &str) -> bool {
    canonical.contains("int") || canonical == "torch.bool"
}

fn override_values(target: &Target, manifest: Option<&Dict>) -> Option<(String, String)> {
    let overrides = manifest?.get("tolerance_overrides")?.value.as_dict()?;
    let key_span = target.key_span.as_ref()?;
    let entry = overrides.entries.iter().find(|e| e.key.span == *key_span)?;
    let show = |v: Option<&Value>| v.map(Value::repr).unwrap_or_else(|| "default".into());
    match &entry.value.kind {
        ValueKind::Dict(d) => Some((show(d.get("rtol").map(|e| &e.value)), show(d.get("atol").map(|e| &e.value)))),
        ValueKind::List(items) | ValueKind::Tuple(items) if items.len() == 2 => {
            Some((items[0].repr(), items[1].repr()))
        }
        _ => None,
    }
}
