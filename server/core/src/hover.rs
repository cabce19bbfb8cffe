//! Hover: Markdown for the manifest entry under the cursor.

use crate::analysis::Analysis;
use crate::key_docs;
use crate::locate::{locate, Role, Target};
use crate::schema::{python_strip, schema};
use crate::value::{float_repr, Dict, Span, Value, ValueKind};

#[derive(Clone, Debug, PartialEq)]
pub struct HoverResult {
    pub markdown: String,
    pub span: Span,
}

pub fn hover(analysis: &Analysis, offset: usize) -> Option<HoverResult> {
    let target = locate(&analysis.tree, &analysis.text, offset)?;
    let manifest = analysis.model.manifest.as_ref().and_then(Value::as_dict);
    let markdown = match target.path_strs().as_slice() {
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
    Some(HoverResult { markdown, span: target.span.clone() })
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
