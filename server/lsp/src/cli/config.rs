//! `torchcts-lsp config [FILE]`: the effective project settings for a manifest (or folder)
//! and where each comes from: `[tool.torchcts-lsp]` in the nearest pyproject.toml, or the
//! default. CLI flags and editor settings override them.

use super::output::{errln, outln};
use super::OutputArgs;
use crate::host::project_config::{self, ProjectConfig, Setting};
use serde_json::{json, Value};
use std::path::PathBuf;
use std::process::ExitCode;

/// `config --help`: the keys, from [`project_config::KEYS`].
fn config_help() -> String {
    format!(
        "The settings, in the nearest pyproject.toml at or above FILE that has the table
(the nearest wins; nested files are not merged); paths relative to its folder:

{}
`inventory`, `torch` and `torchcts` choose the inventory, as the flags do: give `inventory`
or `torch`/`torchcts`, not both. CLI flags (--device, --level, --inventory, --torch,
--torchcts, --python, --results) and editor settings override them. A value that cannot be
used is an error naming the file, line and key (exit 2), for every command.

Exit code: 0; 2 for a usage error or a configuration that cannot be used.",
        project_config::sample_table()
    )
}

#[derive(clap::Args, Debug)]
#[command(
    about = "Print the effective project settings (pyproject.toml [tool.torchcts-lsp]) and where each comes from",
    after_help = config_help()
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

/// `(key, value as TOML, where from)` for every key of [`project_config::KEYS`].
fn rows(config: Option<&ProjectConfig>) -> Vec<(&'static str, Value, String)> {
    let c = config.cloned().unwrap_or_default();
    let file = c.file.display().to_string();
    project_config::KEYS
        .iter()
        .map(|key| match value_of(&c, key.name) {
            Some((value, line)) => (key.name, value, format!("{file}:{line}")),
            None => (key.name, default_of(key.name), format!("default: {}", key.default)),
        })
        .collect()
}

/// The value of `key` in `config` as JSON, and its line; `None` where it is not set.
fn value_of(c: &ProjectConfig, key: &str) -> Option<(Value, usize)> {
    fn of<T>(setting: &Option<Setting<T>>, value: impl Fn(&T) -> Value) -> Option<(Value, usize)> {
        setting.as_ref().map(|s| (value(&s.value), s.line))
    }
    let path = |p: &PathBuf| json!(p.display().to_string());
    match key {
        "device" => of(&c.device, |v| json!(v)),
        "level" => of(&c.level, |v| json!(v)),
        "python" => of(&c.python, path),
        "manifests" => of(&c.manifests, |v| json!(v)),
        "results" => of(&c.results, |v| json!(v.iter().map(|p| p.display().to_string()).collect::<Vec<_>>())),
        "inventory" => of(&c.inventory, path),
        "torch" => of(&c.torch, |v| json!(v)),
        "torchcts" => of(&c.torchcts, |v| json!(v)),
        "on-save" => of(&c.on_save, |v| json!(v)),
        "ignore" => of(&c.ignore, |v| json!(v)),
        "cpython-compile" => of(&c.cpython_compile, |v| json!(v)),
        _ => None,
    }
}

/// The value a key has when it is not set, as JSON (`""` or `[]` where the default is
/// decided later, by the manifest or the environment).
fn default_of(key: &str) -> Value {
    match key {
        "level" => json!(3),
        "cpython-compile" => json!(true),
        "on-save" => json!("off"),
        "manifests" | "results" | "ignore" => json!([]),
        _ => json!(""),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_key_has_a_row_read_from_the_file() {
        let dir = std::env::temp_dir().join(format!("torchcts-config-rows-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("inv.bin"), b"").unwrap();
        let file = dir.join("pyproject.toml");
        // Every key but the inventory choice's other half (`inventory` or `torch`/`torchcts`).
        let table = |choice: &str| {
            format!("[tool.torchcts-lsp]\ndevice = \"cuda\"\nlevel = 2\npython = \"py\"\nmanifests = [\"m/*.py\"]\nresults = [\"r\"]\non-save = \"level\"\nignore = [\"duplicate-key\"]\ncpython-compile = false\n{choice}")
        };
        let mut from_file = std::collections::BTreeSet::new();
        for choice in ["inventory = \"inv.bin\"\n", "torch = \"2.9.1\"\ntorchcts = \"0.4.1\"\n"] {
            let config = project_config::parse(&table(choice), &file).unwrap().unwrap();
            for (key, _, from) in rows(Some(&config)) {
                if from.starts_with(&file.display().to_string()) {
                    from_file.insert(key);
                }
            }
        }
        let keys: std::collections::BTreeSet<&str> = project_config::KEYS.iter().map(|k| k.name).collect();
        assert_eq!(from_file, keys, "a key of KEYS that `config` does not show from the file");
        std::fs::remove_dir_all(&dir).ok();
    }
}
