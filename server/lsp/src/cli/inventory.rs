//! `torchcts-lsp inventory --python PY [--out PATH]`: re-extracts the suite inventory from
//! the user's own torchcts/torch environment and caches it by version.
//!
//! This explicitly runs the user's Python (the extraction script ships inside the binary),
//! with the script's progress on stderr. The result lands in
//! `$XDG_CACHE_HOME/torchcts-lsp/` (or `~/.cache/torchcts-lsp/`) as
//! `inventory-torchcts-<v>-torch-<v>.json.gz`; point the server's `torchcts.inventory.path`
//! setting or `skips --inventory` at it.

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

pub fn run(args: &[String]) -> ExitCode {
    let mut python: Option<String> = None;
    let mut out: Option<PathBuf> = None;
    let mut i = 0;
    while i < args.len() {
        match args[i].as_str() {
            "--python" => python = args.get(i + 1).cloned(),
            "--out" => out = args.get(i + 1).map(PathBuf::from),
            other => {
                eprintln!("torchcts-lsp inventory: unknown argument `{other}`");
                return ExitCode::from(2);
            }
        }
        i += 2;
    }
    let Some(python) = python else {
        eprintln!("usage: torchcts-lsp inventory --python PATH_TO_PYTHON [--out FILE.json.gz]");
        return ExitCode::from(2);
    };
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
            eprintln!("torchcts-lsp inventory: {python} cannot import torch and torchcts:\n{}", String::from_utf8_lossy(&o.stderr));
            return ExitCode::from(1);
        }
        Err(e) => {
            eprintln!("torchcts-lsp inventory: cannot run {python}: {e}");
            return ExitCode::from(1);
        }
    };
    let out = out.unwrap_or_else(|| cache_dir().join(format!("inventory-torchcts-{torchcts_version}-torch-{torch_version}.json.gz")));
    if let Some(parent) = out.parent() {
        let _ = std::fs::create_dir_all(parent);
    }
    let script = std::env::temp_dir().join(format!("torchcts-lsp-extract-{}.py", std::process::id()));
    if let Err(e) = std::fs::write(&script, EXTRACT_SCRIPT) {
        eprintln!("torchcts-lsp inventory: cannot write the extraction script: {e}");
        return ExitCode::from(1);
    }
    eprintln!("Extracting the inventory of torchcts {torchcts_version} + torch {torch_version} (this collects the whole suite: 15-25 minutes on 2 cores)...");
    let status = Command::new(&python).arg(&script).arg("--out").arg(&out).stdin(Stdio::null()).status();
    let _ = std::fs::remove_file(&script);
    match status {
        Ok(s) if s.success() => {
            println!("{}", out.display());
            ExitCode::SUCCESS
        }
        Ok(s) => {
            eprintln!("torchcts-lsp inventory: extraction failed ({s})");
            ExitCode::from(1)
        }
        Err(e) => {
            eprintln!("torchcts-lsp inventory: cannot run {python}: {e}");
            ExitCode::from(1)
        }
    }
}

/// Versions of torchcts and torch installed in a Python environment, read from the
/// `*.dist-info` folders of its site-packages — without running any Python.
pub fn installed_versions(python: &std::path::Path) -> Option<(String, String)> {
    // <venv>/bin/python -> <venv>/lib/python3.*/site-packages
    let venv = python.parent()?.parent()?;
    let lib = std::fs::read_dir(venv.join("lib")).ok()?;
    for entry in lib.flatten() {
        let site = entry.path().join("site-packages");
        let Ok(dir) = std::fs::read_dir(&site) else { continue };
        let mut torchcts = None;
        let mut torch = None;
        for e in dir.flatten() {
            let name = e.file_name().to_string_lossy().to_string();
            if let Some(rest) = name.strip_suffix(".dist-info") {
                if let Some(v) = rest.strip_prefix("torchcts-") {
                    torchcts = Some(v.to_string());
                } else if let Some(v) = rest.strip_prefix("torch-") {
                    torch = Some(v.split('+').next().unwrap_or(v).to_string());
                }
            }
        }
        if let (Some(a), Some(b)) = (torchcts, torch) {
            return Some((a, b));
        }
    }
    None
}
