//! `torchcts-lsp config [FILE]`: the effective project settings for a manifest (or folder)
//! and where each comes from: `[tool.torchcts-lsp]` in the nearest pyproject.toml, or the
//! default. CLI flags and editor settings override them.

use super::output::{errln, outln};
use super::OutputArgs;
use crate::host::project_config::{self, ProjectConfig, Setting};
use serde_json::{json, Value};
use std::path::PathBuf;
use std::process::ExitCode;

const CONFIG_HELP: &str = "\
The settings, in the nearest pyproject.toml at or above FILE that has the table
(the nearest wins; nested files are not merged); paths relative to its folder:

  [tool.torchcts-lsp]
  device = \"cuda\"                   # device for counts and runs [default: the manifest's device_name]
  level = 2                         # level when the manifest has no semantic_level [default: 3]
  python = \".venv/bin/python\"       # the Python with torchcts (runs, the torch version)
  manifests = [\"**/manifests/*.py\"] # manifests besides every manifest.py (folders, the editor)
  results = [\"ci-results\"]          # folders of earlier run results
  inventory = \"inventory.bin\"       # an inventory written by `torchcts-lsp inventory`
  on-save = \"off\"                   # off | affected | level (the editor's on-save runs)
  ignore = [\"dtype-key-ignored\"]    # torchcts-lsp's own finding codes to silence
  cpython-compile = false           # never ask the environment's CPython to compile() a manifest

CLI flags (--device, --level, --inventory, --torch) and editor settings override them.
A value that cannot be used is an error naming the file, line and key (exit 2).

Exit code: 0; 2 for a usage error or a configuration that cannot be used.";

#[derive(clap::Args, Debug)]
#[command(
    about = "Print the effective project settings (pyproject.toml [tool.torchcts-lsp]) and where each comes from",
    after_help = CONFIG_HELP
)]
pub struct ConfigArgs {
    /// A manifest or folder [default: the working folder]
    #[arg(value_name = "FILE")]
    pub file: Option<PathBuf>,
    /// Output format
    #[arg(long, value_enum, default_value_t = super::ReportFormat::Text)]
    pub format: super::ReportFormat,
    #[command(flatten)]
    pub output: OutputArgs,
}

pub fn run(args: &ConfigArgs) -> ExitCode {
    let target = args.file.clone().unwrap_or_else(|| PathBuf::from("."));
    let config = match project_config::load_for(&target) {
        Ok(config) => config,
        Err(e) => {
            errln!("torchcts-lsp config: {e}");
            return ExitCode::from(2);
        }
    };
    let rows = rows(config.as_ref());
    if args.format == super::ReportFormat::Json {
        let settings: serde_json::Map<String, Value> =
            rows.iter().map(|(key, value, from)| (key.to_string(), json!({"value": value, "from": from}))).collect();
        let file = config.as_ref().map(|c| c.file.display().to_string());
        super::output::write_json_stdout(&json!({"file": file, "settings": settings}));
        return ExitCode::SUCCESS;
    }
    match &config {
        Some(c) => outln!("# {}: [{}]", c.file.display(), project_config::TABLE),
        None => {
            outln!("# no pyproject.toml with [{}] at or above {}: defaults", project_config::TABLE, target.display())
        }
    }
    for (key, value, from) in rows {
        outln!("{key} = {value}  # {from}");
    }
    ExitCode::SUCCESS
}

/// `(key, value as TOML, where from)` for every setting.
fn rows(config: Option<&ProjectConfig>) -> Vec<(&'static str, Value, String)> {
    fn row<T>(
        key: &'static str,
        setting: Option<&Setting<T>>,
        file: &str,
        value: impl Fn(&T) -> Value,
        default: (Value, &str),
    ) -> (&'static str, Value, String) {
        match setting {
            Some(s) => (key, value(&s.value), format!("{file}:{}", s.line)),
            None => (key, default.0, format!("default: {}", default.1)),
        }
    }
    let file = config.map(|c| c.file.display().to_string()).unwrap_or_default();
    let c = config.cloned().unwrap_or_default();
    let path = |p: &PathBuf| json!(p.display().to_string());
    let paths = |v: &Vec<PathBuf>| json!(v.iter().map(|p| p.display().to_string()).collect::<Vec<_>>());
    vec![
        row("device", c.device.as_ref(), &file, |v| json!(v), (json!(""), "the manifest's device_name")),
        row("level", c.level.as_ref(), &file, |v| json!(v), (json!(3), "the manifest's semantic_level, else 3")),
        row(
            "python",
            c.python.as_ref(),
            &file,
            path,
            (json!(""), "$VIRTUAL_ENV, a .venv beside the manifest, else python3"),
        ),
        row("manifests", c.manifests.as_ref(), &file, |v| json!(v), (json!([]), "files named manifest.py only")),
        row("results", c.results.as_ref(), &file, paths, (json!([]), ".torchcts-lsp/results beside the manifest")),
        row(
            "inventory",
            c.inventory.as_ref(),
            &file,
            path,
            (json!(""), "the embedded one for the environment's torch"),
        ),
        row("on-save", c.on_save.as_ref(), &file, |v| json!(v), (json!("off"), "no runs on save")),
        row("ignore", c.ignore.as_ref(), &file, |v| json!(v), (json!([]), "nothing silenced")),
        row(
            "cpython-compile",
            c.cpython_compile.as_ref(),
            &file,
            |v| json!(v),
            (json!(true), "the environment's CPython compile()s a manifest our parsers find broken"),
        ),
    ]
}
