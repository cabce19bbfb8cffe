//! show-skips in the editor beside the real `torchcts show-skips`, same manifest, same flags,
//! same run.
//!
//!     TORCHCTS_PYTHON=/path/to/venv/bin/python BENCH_CASES=smoke_cpu_l2,regex_dtypes \
//!         cargo bench -p torchcts-core --bench show_skips
//!
//! Cases are those of `tests/parity/skips/cases.json` (default: `smoke_cpu_l2`, the
//! quickest real run, ~100 s). For each case it times, after the embedded inventory is
//! loaded: the accounting of the case's flags (`account`, what show-skips computes), the
//! server's per-manifest summary (all levels), hover on `semantic_level` with the per-level
//! table, hover on a capability (one what-if accounting), and the whole `torchcts-lsp skips`
//! process when `target/release/torchcts-lsp` exists. With `TORCHCTS_PYTHON` it then runs
//! the real show-skips once in a scratch folder and prints the ratios. Without it, only our
//! side is timed (template cases need the installed package for their manifest).

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use accounting::{account, Inventory, LevelSelection};
use torchcts_core::{accounting_view, analyze, hover, AnalysisInput};

fn median(mut samples: Vec<Duration>) -> Duration {
    samples.sort();
    samples[samples.len() / 2]
}

fn time<T>(iterations: usize, mut f: impl FnMut() -> T) -> Duration {
    let samples = (0..iterations)
        .map(|_| {
            let start = Instant::now();
            std::hint::black_box(f());
            start.elapsed()
        })
        .collect();
    median(samples)
}

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The flags of a case as show-skips takes them.
struct Flags {
    device: Option<String>,
    level: Option<i64>,
    level_exact: Option<i64>,
    level_range: Option<String>,
}

fn flags(args: &[String]) -> Flags {
    let value = |name: &str| args.iter().position(|a| a == name).and_then(|i| args.get(i + 1)).cloned();
    Flags {
        device: value("--device"),
        level: value("--level").and_then(|v| v.parse().ok()),
        level_exact: value("--level-exact").and_then(|v| v.parse().ok()),
        level_range: value("--level-range"),
    }
}

fn manifest_path(case: &serde_json::Value, python: Option<&str>) -> Option<PathBuf> {
    let name = case["name"].as_str()?;
    match case["template"].as_str() {
        None => Some(repo().join("tests/parity/skips/cases").join(name).join("manifest.py")),
        Some(template) => {
            let out = Command::new(python?)
                .args(["-c", "import os, torchcts; print(os.path.dirname(torchcts.__file__))"])
                .output()
                .ok()?;
            let pkg = String::from_utf8_lossy(&out.stdout).trim().to_string();
            Some(Path::new(&pkg).join("templates").join(format!("manifest.{template}.py")))
        }
    }
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

fn main() {
    let python = std::env::var("TORCHCTS_PYTHON").ok();
    let wanted = std::env::var("BENCH_CASES").unwrap_or_else(|_| "smoke_cpu_l2".into());
    let wanted: Vec<&str> = wanted.split(',').map(str::trim).collect();
    let cases: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(repo().join("tests/parity/skips/cases.json")).expect("cases.json"),
    )
    .expect("cases.json is JSON");
    let started = Instant::now();
    let inventory = Inventory::embedded();
    println!("embedded inventory decoded in {:.1} ms ({} items)", ms(started.elapsed()), inventory.item_count());
    let binary = repo().join("target/release/torchcts-lsp");

    for case in cases["cases"].as_array().into_iter().flatten() {
        let name = case["name"].as_str().unwrap_or_default();
        if !wanted.iter().any(|w| *w == name || *w == "all") {
            continue;
        }
        let Some(path) = manifest_path(case, python.as_deref()).filter(|p| p.exists()) else {
            println!("{name}: manifest not available (template cases need TORCHCTS_PYTHON)");
            continue;
        };
        let text = std::fs::read_to_string(&path).expect("manifest text");
        let args: Vec<String> =
            case["args"].as_array().into_iter().flatten().filter_map(|a| a.as_str().map(String::from)).collect();
        let f = flags(&args);
        let analysis = analyze(&text, &AnalysisInput::default());
        let Some(manifest) = analysis.model.manifest.as_ref().and_then(|m| m.as_dict()) else {
            println!("{name}: no manifest dict");
            continue;
        };
        let facts = accounting_view::facts(manifest);
        let selection = LevelSelection::from_cli(f.level, f.level_exact, f.level_range.as_deref(), &facts)
            .expect("the case's flags are valid");
        let device = facts.resolve_device(f.device.as_deref());

        let accounting = time(200, || account(inventory, &facts, &device, selection).collected);
        let summary_time = time(200, || accounting_view::summarize(inventory, &facts, f.device.as_deref()));
        let summary = accounting_view::summarize(inventory, &facts, f.device.as_deref());
        let counts = hover::Counts { inventory, summary: &summary };
        let at_level = text.find("\"semantic_level\"").map(|i| i + 2);
        let hover_level = at_level.map(|at| time(200, || hover::hover(&analysis, at, Some(&counts))));
        let at_cap = ["\"inference\"", "\"training\"", "\"autograd\""].iter().find_map(|k| text.find(k)).map(|i| i + 2);
        let hover_cap = at_cap.map(|at| time(50, || hover::hover(&analysis, at, Some(&counts))));
        let process = binary.exists().then(|| {
            time(5, || {
                Command::new(&binary).arg("skips").arg(&path).args(&args).output().expect("run torchcts-lsp skips")
            })
        });

        println!("\n{name}: show-skips {}", args.join(" "));
        println!("  accounting (what show-skips computes):        {:>9.3} ms", ms(accounting));
        println!("  server summary, all levels:                   {:>9.3} ms", ms(summary_time));
        if let Some(d) = hover_level {
            println!("  hover on semantic_level (per-level table):    {:>9.3} ms", ms(d));
        }
        if let Some(d) = hover_cap {
            println!("  hover on a capability (what-if accounting):   {:>9.3} ms", ms(d));
        }
        if let Some(d) = process {
            println!("  `torchcts-lsp skips` process (incl. decode):  {:>9.3} ms", ms(d));
        }
        let Some(python) = python.as_deref() else {
            println!("  (set TORCHCTS_PYTHON to time the real show-skips beside it)");
            continue;
        };
        let work = std::env::temp_dir().join(format!("torchcts-lsp-bench-{name}"));
        let _ = std::fs::create_dir_all(&work);
        std::fs::copy(&path, work.join("manifest.py")).expect("copy manifest");
        let exe = Path::new(python).with_file_name("torchcts");
        let started = Instant::now();
        let real = Command::new(&exe).arg("show-skips").args(&args).current_dir(&work).output().expect("run torchcts");
        let real_time = started.elapsed();
        let stdout = String::from_utf8_lossy(&real.stdout);
        let tail = stdout.lines().find(|l| l.contains("tests collected")).unwrap_or_default().trim().to_string();
        println!("  real `torchcts show-skips`:                   {:>9.1} s  ({tail})", real_time.as_secs_f64());
        println!(
            "  ratio real / accounting:                      {:>9.0}x",
            real_time.as_secs_f64() / accounting.as_secs_f64()
        );
        if let Some(d) = hover_level {
            println!(
                "  ratio real / hover on semantic_level:         {:>9.0}x",
                real_time.as_secs_f64() / d.as_secs_f64()
            );
        }
        if let Some(d) = process {
            println!(
                "  ratio real / `torchcts-lsp skips` process:    {:>9.0}x",
                real_time.as_secs_f64() / d.as_secs_f64()
            );
        }
    }
}
