//! `torchcts-lsp skips FILE [--level N | --level-exact N | --level-range A:B] [--device D]
//! [--format text|json] [--inventory PATH]`: what `torchcts show-skips` reports, without
//! Python, from the embedded inventory (or another one).

use super::read_manifest;
use serde_json::json;
use std::path::PathBuf;
use std::process::ExitCode;
use torchcts_core::accounting_view::{self as av, Inventory, LevelSelection};
use torchcts_core::{analyze, AnalysisInput};

pub fn run(args: &[String]) -> ExitCode {
    let mut file = None;
    let mut selection: Option<LevelSelection> = None;
    let mut device: Option<String> = None;
    let mut json_format = false;
    let mut inventory_path: Option<PathBuf> = None;
    let mut i = 0;
    let level = |v: Option<&String>| -> Result<u8, String> {
        let v = v.ok_or("missing level")?;
        let n: u8 = v.trim().parse().map_err(|_| format!("--level must be an integer from 1 to 8, got {v:?}"))?;
        if (1..=8).contains(&n) {
            Ok(n)
        } else {
            Err("--level must be from 1 to 8".into())
        }
    };
    while i < args.len() {
        let arg = args[i].as_str();
        let value = args.get(i + 1);
        let result: Result<(), String> = match arg {
            "--level" => level(value).map(|n| selection = Some(LevelSelection::Cumulative(n))),
            "--level-exact" => level(value).map(|n| selection = Some(LevelSelection::Exact(n))),
            "--level-range" => match value.and_then(|v| v.split_once(':').or_else(|| v.split_once('-'))) {
                Some((a, b)) => level(Some(&a.to_string()))
                    .and_then(|a| level(Some(&b.to_string())).map(|b| (a, b)))
                    .and_then(|(a, b)| {
                        if a <= b {
                            selection = Some(LevelSelection::Range(a, b));
                            Ok(())
                        } else {
                            Err("--level-range MIN must not exceed MAX".into())
                        }
                    }),
                None => Err("--level-range must be formatted as MIN:MAX with integer levels".into()),
            },
            "--device" => {
                device = value.cloned();
                Ok(())
            }
            "--format" => {
                json_format = value.map(String::as_str) == Some("json");
                Ok(())
            }
            "--inventory" => {
                inventory_path = value.map(PathBuf::from);
                Ok(())
            }
            other if other.starts_with('-') => Err(format!("unknown option `{other}`")),
            other => {
                file = Some(PathBuf::from(other));
                i += 1;
                continue;
            }
        };
        if let Err(e) = result {
            eprintln!("torchcts-lsp skips: {e}");
            return ExitCode::from(2);
        }
        i += 2;
    }
    let path = file.unwrap_or_else(|| PathBuf::from("manifest.py"));
    let text = match read_manifest(&path) {
        Ok(t) => t,
        Err(message) => {
            eprintln!("{message}");
            return ExitCode::from(1);
        }
    };
    let loaded;
    let inventory: &Inventory = match &inventory_path {
        Some(p) => match Inventory::from_path(p) {
            Ok(inv) => {
                loaded = inv;
                &loaded
            }
            Err(e) => {
                eprintln!("torchcts-lsp skips: cannot load inventory {}: {e}", p.display());
                return ExitCode::from(1);
            }
        },
        None => Inventory::embedded(),
    };
    let analysis = analyze(&text, &AnalysisInput::default());
    let Some(manifest) = analysis.model.manifest.as_ref().and_then(|m| m.as_dict()) else {
        for (_, line) in analysis.check.lines() {
            eprintln!("{line}");
        }
        return ExitCode::from(1);
    };
    let facts = av::facts(manifest);
    let selection = match selection {
        Some(s) => s,
        None => match LevelSelection::from_manifest(&facts) {
            Ok(s) => s,
            Err(e) => {
                eprintln!("ERROR: {e}");
                return ExitCode::from(4);
            }
        },
    };
    let device = facts.resolve_device(device.as_deref());
    let acc = accounting::account(inventory, &facts, &device, selection);
    let unknown = av::unknown_inputs(manifest);
    if json_format {
        let records: Vec<serde_json::Value> = acc
            .records()
            .iter()
            .map(|r| json!({"node_id": acc.node_id(r), "printed_id": acc.printed_id(r), "reason": acc.reason_name(r.reason), "detail": acc.detail(r), "level": r.level, "deselected": r.deselected, "live_device_dependent": r.live_device_dependent}))
            .collect();
        let mut cumulative = 0;
        let levels: Vec<serde_json::Value> = acc
            .levels
            .iter()
            .map(|l| {
                cumulative += l.runnable;
                json!({"level": l.level, "collected": l.collected, "run": l.runnable, "filtered": l.filtered, "run_cumulative": cumulative})
            })
            .collect();
        let reason_counts: Vec<serde_json::Value> =
            acc.reason_counts.iter().map(|(r, n)| json!({"reason": acc.reason_name(*r), "count": n})).collect();
        let report = json!({
            "file": path.display().to_string(),
            "inventory": {"torchcts": inventory.meta.torchcts_version, "torch": inventory.meta.torch_version, "extracted_at": inventory.meta.extracted_at},
            "device": {"name": acc.device.device, "class": acc.device.class, "assumed": acc.device.assumed},
            "selection": selection.label(),
            "collected": acc.collected,
            "deselected": acc.deselected,
            "included": acc.included,
            "executable": acc.executable,
            "reason_counts": reason_counts,
            "levels": levels,
            "records": records,
            "not_modelled": acc.not_modelled,
            "live_device_dependent": acc.live_device_dependent,
            "not_static": unknown,
            "problems": acc.problems.iter().map(|p| p.message.clone()).collect::<Vec<_>>(),
        });
        super::print_stdout(&format!("{}\n", serde_json::to_string_pretty(&report).unwrap_or_default()));
    } else {
        super::print_stdout(&accounting::render_show_skips(&acc));
        for n in acc.not_modelled.iter().chain(unknown.iter()) {
            eprintln!("Note: {n}");
        }
        for p in &acc.problems {
            eprintln!("Note: {}", p.message);
        }
        if acc.live_device_dependent > 0 {
            eprintln!(
                "Note: {} records depend on the live device (availability, detected memory); counted as show-skips counts them without it",
                acc.live_device_dependent
            );
        }
        if acc.device.assumed {
            eprintln!("Note: `{}` is not a device the inventory recorded facts for; counted as a PrivateUse1 (custom) backend", acc.device.device);
        }
    }
    ExitCode::SUCCESS
}
