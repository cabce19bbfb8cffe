//! `torchcts-lsp inventory --python PY [--out PATH]`: re-extracts the suite inventory from
//! the user's own torchcts/torch environment and caches it by version.
//!
//! This explicitly runs the user's Python (the extraction script ships inside the binary),
//! with the script's progress on stderr. The result lands in
//! `$XDG_CACHE_HOME/torchcts-lsp/` (or `~/.cache/torchcts-lsp/`) as
//! `inventory-torchcts-<v>-torch-<v>.json.gz`; point the server's `torchcts.inventory.path`
//! setting or `skips --inventory` at it.

use super::output::{errln, outln};
use std::path::PathBuf;
use std::process::{Command, ExitCode, Stdio};

const EXTRACT_SCRIPT: &str = include_str!("../../../../tools/inventory/extract_inventory.py");

pub fn cache_dir() -> PathBuf {
    if let Some(x) = std::env::var_os("XDG_CACHE_HOME").filter(|x| !x.is_empty()) {
        return PathBuf::from(x).join("torchcts-lsp");
    }
    let home = std::env::var_os("HOME").map(PathBuf::from).unwrap_or_else(std::env::temp_dir);
    home.join(".cache").join("torchcts-lsp")
}

const INVENTORY_HELP: &str = "\
Output: the path of the written inventory (stdout); the extraction's progress on stderr.
The inventory lists every test the suite collects with the facts show-skips decides on;
the embedded one is torchcts 0.4.1 + torch 2.12.1. Use another with `skips --inventory
PATH`, `analyze --inventory PATH` or the server's `torchcts.inventory.path` setting.

Exit code: 0; 1 if PY cannot import torch and torchcts or the extraction fails; 2 for a
usage error.";

#[derive(clap::Args, Debug)]
#[command(
    about = "Re-extract the suite inventory from your torchcts/torch environment (runs PY)",
    long_about = "Re-extract the suite inventory from your own torchcts/torch environment: runs\n\
        PY on the extraction script shipped in this binary (it collects the whole suite:\n\
        15-25 minutes on 2 cores). Cached by version.",
    after_help = INVENTORY_HELP
)]
pub struct InventoryArgs {
    /// Python interpreter with torch and torchcts installed
    #[arg(long, value_name = "PY")]
    pub python: String,
    /// Where to write it [default: the cache folder, inventory-torchcts-<v>-torch-<v>.json.gz]
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
    #[command(flatten)]
    pub output: super::OutputArgs,
}

pub fn run(args: &InventoryArgs) -> ExitCode {
    let python = args.python.clone();
    let out = args.out.clone();
    let versions = Command::new(&python)
        .args(["-c", "import torch, torchcts; print(getattr(torchcts, '__version__', '?')); print(torch.__version__.split('+')[0])"])
        .stdin(Stdio::null())
        .output();
    let (torchcts_version, torch_version) = match versions {
        Ok(o) if o.status.success() => {
            let text = String::from_utf8_lossy(&o.stdout).to_string();
            let mut lines = text.lines();
            (lines.next().unwrap_or("?").to_string(), lines.next().unwrap_or("?").to_string())
        }
        Ok(o) => {
            errln!(
                "torchcts-lsp inventory: {python} cannot import torch and torchcts:\n{}",
                String::from_utf8_lossy(&o.stderr)
            );
            return ExitCode::from(1);
        }
        Err(e) => {
            errln!("torchcts-lsp inventory: cannot run {python}: {e}");
            return ExitCode::from(1);
        }
    };
    let out = out.unwrap_or_else(|| {
        cache_dir().join(format!("inventory-torchcts-{torchcts_version}-torch-{torch_version}.json.gz"))
    });
    if let Some(parent) = out.parent() {
        let _ = std::fs::create_dir_all(parent);
    }
    let script = std::env::temp_dir().join(format!("torchcts-lsp-extract-{}.py", std::process::id()));
    if let Err(e) = std::fs::write(&script, EXTRACT_SCRIPT) {
        errln!("torchcts-lsp inventory: cannot write the extraction script: {e}");
        return ExitCode::from(1);
    }
    errln!("Extracting the inventory of torchcts {torchcts_version} + torch {torch_version} (this collects the whole suite: 15-25 minutes on 2 cores)...");
    let status = Command::new(&python).arg(&script).arg("--out").arg(&out).stdin(Stdio::null()).status();
    let _ = std::fs::remove_file(&script);
    match status {
        Ok(s) if s.success() => {
            outln!("{}", out.display());
            ExitCode::SUCCESS
        }
        Ok(s) => {
            errln!("torchcts-lsp inventory: extraction failed ({s})");
            ExitCode::from(1)
        }
        Err(e) => {
            errln!("torchcts-lsp inventory: cannot run {python}: {e}");
            ExitCode::from(1)
        }
    }
}
