//! Project configuration: `[tool.torchcts-lsp]` in the nearest `pyproject.toml` above a
//! manifest (the nearest file that has the table wins; nested files are not merged).
//! The keys, what each sets and its default are [`KEYS`] (schema as data: `config` and its
//! help, the docs and the settings tests are checked against it).
//!
//! The CLI reads it per manifest; the server calls [`load_for`] for each document and
//! [`load_file`] again when a `pyproject.toml` changes (`workspace/didChangeWatchedFiles`).
//! Editor settings and CLI flags override it. A bad value is a [`ConfigError`] naming the
//! file, the line, the key and the byte range of the value (for a diagnostic on the file),
//! never a panic. Parsing is TOML by the `toml` crate; this module is IO (the core reads no
//! files; `inventory` is checked to be a file).

use serde::Deserialize;
use std::path::{Path, PathBuf};
use toml::Spanned;

/// The file name searched for.
pub const FILE_NAME: &str = "pyproject.toml";
/// The table read.
pub const TABLE: &str = "tool.torchcts-lsp";
/// The values `on-save` takes (the editor's `torchcts.onSave`).
pub const ON_SAVE_VALUES: [&str; 3] = ["off", "affected", "level"];

/// One key of the table.
#[derive(Clone, Copy, Debug)]
pub struct Key {
    pub name: &'static str,
    /// A value, as TOML (the sample table of `config --help`).
    pub example: &'static str,
    /// What it sets.
    pub meaning: &'static str,
    /// What applies without it.
    pub default: &'static str,
}

/// Every key [`parse`] reads, in the order `config` prints them. A key added here without
/// its parsing, its `config` row, its line in docs/configuration.md or its rows in the
/// settings test matrix (`server/lsp/tests/settings_matrix.rs`) fails a test.
pub const KEYS: &[Key] = &[
    Key {
        name: "device",
        example: "\"cuda\"",
        meaning: "device for counts and runs",
        default: "the manifest's device_name",
    },
    Key { name: "level", example: "2", meaning: "level when the manifest has no semantic_level", default: "3" },
    Key {
        name: "python",
        example: "\".venv/bin/python\"",
        meaning: "the Python with torchcts (runs, its torch version, regexes)",
        default: "$VIRTUAL_ENV, a .venv beside the manifest, else python3",
    },
    Key {
        name: "manifests",
        example: "[\"**/manifests/*.py\"]",
        meaning: "globs of manifests besides every manifest.py",
        default: "files named manifest.py only",
    },
    Key {
        name: "results",
        example: "[\"ci-results\"]",
        meaning: "folders of earlier run results",
        default: ".torchcts-lsp/results beside the manifest",
    },
    Key {
        name: "inventory",
        example: "\"tools/inventory.json.gz\"",
        meaning: "an inventory written by `torchcts-lsp inventory`",
        default: "the embedded one for the environment's torch",
    },
    Key {
        name: "torch",
        example: "\"2.9.1\"",
        meaning: "count for this torch release, as --torch",
        default: "the environment's torch, else the newest",
    },
    Key {
        name: "torchcts",
        example: "\"0.4.1\"",
        meaning: "count for this torchcts release, as --torchcts",
        default: "the environment's torchcts, else the newest",
    },
    Key {
        name: "on-save",
        example: "\"off\"",
        meaning: "off | affected | level: the editor's on-save runs",
        default: "off",
    },
    Key {
        name: "ignore",
        example: "[\"dtype-key-ignored\"]",
        meaning: "torchcts-lsp's own finding codes to silence",
        default: "nothing silenced",
    },
    Key {
        name: "cpython-compile",
        example: "false",
        meaning: "false: never ask the environment's CPython to compile() a manifest our parsers find broken or find_spec() a module we say is missing",
        default: "true",
    },
];

/// A sample `[tool.torchcts-lsp]` table of every key of [`KEYS`], each with a comment saying
/// what it sets and its default (`config --help`; `inventory`, `torch` and `torchcts` are
/// one choice: a real table gives one of them).
pub fn sample_table() -> String {
    let width = KEYS.iter().map(|k| k.name.len() + k.example.len()).max().unwrap_or(0) + 3;
    let mut out = format!("[{TABLE}]\n");
    for key in KEYS {
        let assignment = format!("{} = {}", key.name, key.example);
        out.push_str(&format!("{assignment:<width$} # {} [default: {}]\n", key.meaning, key.default));
    }
    out
}

/// The settings of one `[tool.torchcts-lsp]` table, paths resolved against its folder.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ProjectConfig {
    /// The `pyproject.toml` read.
    pub file: PathBuf,
    pub device: Option<Setting<String>>,
    /// 1..=8.
    pub level: Option<Setting<u8>>,
    /// Absolute (joined to the file's folder).
    pub python: Option<Setting<PathBuf>>,
    /// Glob patterns, relative to the file's folder (`**/manifests/*.py`).
    pub manifests: Option<Setting<Vec<String>>>,
    /// Absolute folders.
    pub results: Option<Setting<Vec<PathBuf>>>,
    /// Absolute; an existing file.
    pub inventory: Option<Setting<PathBuf>>,
    /// A torch release with an embedded inventory (`--torch`).
    pub torch: Option<Setting<String>>,
    /// A torchcts release with embedded inventories (`--torchcts`).
    pub torchcts: Option<Setting<String>>,
    /// One of [`ON_SAVE_VALUES`].
    pub on_save: Option<Setting<String>>,
    /// Finding codes; only torchcts-lsp's own findings (origin `lsp`) are silenced.
    pub ignore: Option<Setting<Vec<String>>>,
    /// `false`: never ask a CPython to `compile()` a manifest (the emulation answers).
    pub cpython_compile: Option<Setting<bool>>,
}

/// A value and where it is written (1-based line in [`ProjectConfig::file`]).
#[derive(Clone, Debug, PartialEq)]
pub struct Setting<T> {
    pub value: T,
    pub line: usize,
}

impl ProjectConfig {
    /// The folder of the `pyproject.toml` (relative paths and globs are against it).
    pub fn root(&self) -> &Path {
        self.file.parent().unwrap_or(Path::new("."))
    }

    /// `manifests` compiled, matched against paths relative to [`Self::root`].
    pub fn manifest_globs(&self) -> Option<globset::GlobSet> {
        let patterns = &self.manifests.as_ref()?.value;
        let mut builder = globset::GlobSetBuilder::new();
        for p in patterns {
            builder.add(globset::GlobBuilder::new(p).literal_separator(true).build().ok()?);
        }
        builder.build().ok()
    }

    /// Whether `path` is a manifest by the `manifests` globs.
    pub fn matches_manifest_glob(&self, path: &Path) -> bool {
        let Some(globs) = self.manifest_globs() else { return false };
        let absolute = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
        let root = std::path::absolute(self.root()).unwrap_or_else(|_| self.root().to_path_buf());
        absolute.strip_prefix(&root).is_ok_and(|relative| globs.is_match(relative))
    }

    /// Whether a CPython may be asked to `compile()` a manifest (`cpython-compile`, default true).
    pub fn cpython_compile_allowed(&self) -> bool {
        self.cpython_compile.as_ref().is_none_or(|s| s.value)
    }

    /// The codes of `ignore` (empty without it).
    pub fn ignored_codes(&self) -> &[String] {
        self.ignore.as_ref().map_or(&[], |s| &s.value)
    }
}

/// Why a `pyproject.toml` cannot be used: a clear message naming the file and key, with
/// the byte range of what is wrong for a diagnostic on the file.
#[derive(Clone, Debug, PartialEq)]
pub struct ConfigError {
    pub file: PathBuf,
    /// `device`, `level`, ...; `None` for a TOML syntax error or an unreadable file.
    pub key: Option<String>,
    pub message: String,
    /// Byte range in the file, when known.
    pub span: Option<std::ops::Range<usize>>,
    /// 1-based line of `span`'s start, when known.
    pub line: Option<usize>,
}

impl std::fmt::Display for ConfigError {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        write!(f, "{}", self.file.display())?;
        if let Some(line) = self.line {
            write!(f, ":{line}")?;
        }
        match &self.key {
            Some(key) => write!(f, ": [{TABLE}] {key}: {}", self.message),
            None => write!(f, ": {}", self.message),
        }
    }
}

/// The configuration for `path` (a manifest or a folder): the nearest `pyproject.toml` at
/// or above it that has a `[tool.torchcts-lsp]` table. `Ok(None)`: none. A `pyproject.toml`
/// that mentions `torchcts-lsp` but cannot be read or parsed is an error (it may hold the
/// table); one that does not is passed over.
pub fn load_for(path: &Path) -> Result<Option<ProjectConfig>, ConfigError> {
    let absolute = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
    let start = if absolute.is_dir() { Some(absolute.as_path()) } else { absolute.parent() };
    for dir in start.into_iter().flat_map(Path::ancestors) {
        let candidate = dir.join(FILE_NAME);
        if candidate.is_file() {
            if let Some(config) = load_file(&candidate)? {
                return Ok(Some(config));
            }
        }
    }
    Ok(None)
}

/// The `[tool.torchcts-lsp]` table of one `pyproject.toml`; `Ok(None)` when it has none.
pub fn load_file(file: &Path) -> Result<Option<ProjectConfig>, ConfigError> {
    let error = |message: String| ConfigError { file: file.to_path_buf(), key: None, message, span: None, line: None };
    let bytes = std::fs::read(file).map_err(|e| error(format!("cannot read: {e}")))?;
    let text = String::from_utf8(bytes)
        .map_err(|e| error(format!("not valid UTF-8 (byte {}); TOML files are UTF-8", e.utf8_error().valid_up_to())))?;
    parse(&text, file)
}

#[derive(Deserialize)]
struct Pyproject {
    tool: Option<Tools>,
}

#[derive(Deserialize)]
struct Tools {
    #[serde(rename = "torchcts-lsp")]
    ours: Option<std::collections::BTreeMap<String, Spanned<toml::Value>>>,
}

/// [`load_file`] of a text (the server passes an unsaved buffer); `file` names it and
/// anchors relative paths.
pub fn parse(text: &str, file: &Path) -> Result<Option<ProjectConfig>, ConfigError> {
    let line_of = |offset: usize| text[..offset.min(text.len())].matches('\n').count() + 1;
    let error = |key: Option<&str>, message: String, span: Option<std::ops::Range<usize>>| ConfigError {
        file: file.to_path_buf(),
        key: key.map(str::to_string),
        line: span.as_ref().map(|s| line_of(s.start)),
        message,
        span,
    };
    let doc: Pyproject = match toml::from_str(text) {
        Ok(doc) => doc,
        // A broken pyproject.toml that cannot hold our table is someone else's problem.
        Err(_) if !text.contains("torchcts-lsp") => return Ok(None),
        Err(e) => return Err(error(None, toml_message(&e), e.span())),
    };
    let Some(table) = doc.tool.and_then(|t| t.ours) else { return Ok(None) };
    // In file order: the first wrong line is the one reported.
    let mut entries: Vec<(String, Spanned<toml::Value>)> = table.into_iter().collect();
    entries.sort_by_key(|(_, v)| v.span().start);
    let root = std::path::absolute(file).ok().and_then(|f| f.parent().map(Path::to_path_buf)).unwrap_or_default();
    let mut config = ProjectConfig { file: file.to_path_buf(), ..ProjectConfig::default() };
    for (key, value) in entries {
        let span = value.span();
        let line = line_of(span.start);
        read_key(&mut config, &key, value.into_inner(), line, &root)
            .map_err(|message| error(Some(&key), message, Some(span)))?;
    }
    check_inventory_choice(&config)?;
    Ok(Some(config))
}

/// Sets `key` of `config` to `value` (written on `line`; paths against `root`); `Err` says
/// what is wrong with it.
fn read_key(config: &mut ProjectConfig, key: &str, value: toml::Value, line: usize, root: &Path) -> Result<(), String> {
    match key {
        "device" => config.device = at(device(&value)?, line),
        "level" => config.level = at(level(&value)?, line),
        "python" => config.python = at(path(&value, root)?, line),
        "inventory" => config.inventory = at(inventory_file(&value, root)?, line),
        "torch" => {
            let version = string(&value)
                .map_err(|got| format!("must be a torch release such as \"2.9.1\" (a string), not {got}"))?;
            config.torch = at(crate::host::torch_env::torch_release_option(&version)?, line);
        }
        "torchcts" => {
            let version = string(&value)
                .map_err(|got| format!("must be a torchcts release such as \"0.4.1\" (a string), not {got}"))?;
            config.torchcts = at(crate::host::torch_env::torchcts_release_option(&version)?, line);
        }
        "manifests" => config.manifests = at(globs(&value)?, line),
        "results" => {
            let folders = strings(&value)
                .map_err(|got| format!("must be a list of folders such as [\"ci-results\"], not {got}"))?;
            config.results = at(folders.into_iter().map(|f| root.join(f)).collect(), line);
        }
        "on-save" => config.on_save = at(on_save(&value)?, line),
        "ignore" => config.ignore = at(codes(&value)?, line),
        "cpython-compile" => {
            let on = value.as_bool().ok_or_else(|| format!("must be true or false, not {}", describe(&value)))?;
            config.cpython_compile = at(on, line);
        }
        unknown => {
            let names: Vec<&str> = KEYS.iter().map(|k| k.name).collect();
            let hint = match torchcts_core::edit_distance::nearest(unknown, &names, 1).first() {
                Some(near) => format!("did you mean `{near}`? "),
                None => String::new(),
            };
            return Err(format!("unknown key; {hint}the keys are {}", names.join(", ")));
        }
    }
    Ok(())
}

/// `value`, written on `line`.
fn at<T>(value: T, line: usize) -> Option<Setting<T>> {
    Some(Setting { value, line })
}

fn device(value: &toml::Value) -> Result<String, String> {
    let device = string(value).map_err(|got| format!("must be a device name such as \"cuda\", not {got}"))?;
    if device.trim().is_empty() {
        return Err("must name a device (\"cpu\", \"cuda\", ...), not be empty".into());
    }
    Ok(device)
}

fn level(value: &toml::Value) -> Result<u8, String> {
    match value {
        toml::Value::Integer(n) if (1..=8).contains(n) => Ok(*n as u8),
        toml::Value::Integer(n) => Err(format!("must be an integer from 1 to 8, not {n}")),
        toml::Value::String(s) if s.trim().parse::<i64>().is_ok() => Err(format!(
            "must be an integer from 1 to 8, not the string {s:?}: write `level = {}` (no quotes)",
            s.trim()
        )),
        other => Err(format!("must be an integer from 1 to 8, not {}", describe(other))),
    }
}

/// A path, joined to `root`.
fn path(value: &toml::Value, root: &Path) -> Result<PathBuf, String> {
    let path = string(value).map_err(|got| format!("must be a path (a string), not {got}"))?;
    if path.trim().is_empty() {
        return Err("must be a path, not empty".into());
    }
    Ok(root.join(path))
}

/// An inventory file: a path to a file that is there.
fn inventory_file(value: &toml::Value, root: &Path) -> Result<PathBuf, String> {
    let file = path(value, root)?;
    if !file.is_file() {
        let why = if file.exists() { "is not a file" } else { "does not exist" };
        return Err(format!(
            "{} {why} (a relative path is from this pyproject.toml's folder); `torchcts-lsp inventory --python PY --out FILE` writes one",
            file.display()
        ));
    }
    Ok(file)
}

fn globs(value: &toml::Value) -> Result<Vec<String>, String> {
    let globs = strings(value)
        .map_err(|got| format!("must be a list of glob patterns such as [\"**/manifests/*.py\"], not {got}"))?;
    for g in &globs {
        if let Err(e) = globset::GlobBuilder::new(g).literal_separator(true).build() {
            return Err(format!("`{g}` is not a glob pattern: {}", e.kind()));
        }
    }
    Ok(globs)
}

fn on_save(value: &toml::Value) -> Result<String, String> {
    let expected = ON_SAVE_VALUES.map(|v| format!("\"{v}\"")).join(", ");
    let on_save = string(value).map_err(|got| format!("must be one of {expected}, not {got}"))?;
    if !ON_SAVE_VALUES.contains(&on_save.as_str()) {
        return Err(format!("must be one of {expected}, not {on_save:?}"));
    }
    Ok(on_save)
}

fn codes(value: &toml::Value) -> Result<Vec<String>, String> {
    let codes = strings(value)
        .map_err(|got| format!("must be a list of finding codes such as [\"dtype-key-ignored\"], not {got}"))?;
    // A misspelt code would silence nothing, and quietly.
    match codes.iter().find_map(|c| torchcts_core::codes::unknown_code(c)) {
        Some(why) => Err(why),
        None => Ok(codes),
    }
}

/// `inventory` against `torch`/`torchcts` (one choice of inventory, as the CLI's flags),
/// and `torch` against `torchcts` (a pair with an embedded inventory).
fn check_inventory_choice(config: &ProjectConfig) -> Result<(), ConfigError> {
    let error = |key: &str, line: usize, message: String| ConfigError {
        file: config.file.clone(),
        key: Some(key.to_string()),
        message,
        span: None,
        line: Some(line),
    };
    let pinned = [("torch", &config.torch), ("torchcts", &config.torchcts)];
    if let (Some(inventory), Some((key, Some(version)))) =
        (&config.inventory, pinned.iter().find(|(_, setting)| setting.is_some()))
    {
        return Err(error(
            key,
            version.line,
            format!(
                "`{key} = {:?}` chooses an embedded inventory and `inventory` (line {}) names a file: give one of them",
                version.value, inventory.line
            ),
        ));
    }
    if let (Some(torch), Some(torchcts)) = (&config.torch, &config.torchcts) {
        let wanted = accounting::versions::release(&torch.value);
        if !accounting::versions::embedded_torch_releases_of(&torchcts.value).contains(&wanted) {
            let message = accounting::versions::no_inventory_message_of(&torchcts.value, &torch.value);
            return Err(error("torch", torch.line, message));
        }
    }
    Ok(())
}

/// A string value, else how the value is described.
fn string(value: &toml::Value) -> Result<String, String> {
    match value {
        toml::Value::String(s) => Ok(s.clone()),
        other => Err(describe(other)),
    }
}

/// A list of strings, else how the value is described.
fn strings(value: &toml::Value) -> Result<Vec<String>, String> {
    let toml::Value::Array(items) = value else { return Err(describe(value)) };
    items.iter().map(|item| string(item).map_err(|got| format!("a list holding {got}"))).collect()
}

/// What a value is, in words: `the string "2"`, `the integer 9`, `a table`.
fn describe(value: &toml::Value) -> String {
    match value {
        toml::Value::String(s) => format!("the string {s:?}"),
        toml::Value::Integer(n) => format!("the integer {n}"),
        toml::Value::Float(x) => format!("the number {x}"),
        toml::Value::Boolean(b) => format!("the boolean {b}"),
        toml::Value::Datetime(d) => format!("the date {d}"),
        toml::Value::Array(_) => "a list".into(),
        toml::Value::Table(_) => "a table".into(),
    }
}

/// toml's message without its own rendering of the file (we name file and line ourselves).
fn toml_message(e: &toml::de::Error) -> String {
    e.message().trim().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse_text(text: &str) -> Result<Option<ProjectConfig>, ConfigError> {
        parse(text, Path::new("/p/pyproject.toml"))
    }

    #[test]
    fn reads_every_key_and_resolves_paths() {
        let dir = std::env::temp_dir().join(format!("torchcts-project-config-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("inv.bin"), b"").unwrap();
        let text = "[project]\nname = 'x'\n[tool.torchcts-lsp]\ndevice = 'cuda'\nlevel = 2\npython = '.venv/bin/python'\nmanifests = ['m/*.py']\nresults = ['r']\ninventory = 'inv.bin'\non-save = 'affected'\nignore = ['duplicate-key']\n";
        let c = parse(text, &dir.join("pyproject.toml")).unwrap().unwrap();
        assert_eq!(c.device.unwrap(), Setting { value: "cuda".into(), line: 4 });
        assert_eq!(c.level.unwrap().value, 2);
        assert_eq!(c.python.unwrap().value, dir.join(".venv/bin/python"));
        assert_eq!(c.results.unwrap().value, vec![dir.join("r")]);
        assert_eq!(c.inventory.unwrap(), Setting { value: dir.join("inv.bin"), line: 9 });
        std::fs::remove_dir_all(&dir).ok();
        assert_eq!(c.on_save.unwrap().value, "affected");
        assert_eq!(c.ignore.unwrap().value, vec!["duplicate-key".to_string()]);
        let typo = parse_text("[tool.torchcts-lsp]\nignore = ['duplicate-key', 'unknwon-operator']\n").unwrap_err();
        assert!(typo.to_string().contains("did you mean `unknown-operator`?"), "{typo}");
    }

    #[test]
    fn no_table_is_none_and_bad_values_name_their_key() {
        assert_eq!(parse_text("[tool.ruff]\nline-length = 3\n").unwrap(), None);
        let e = parse_text("[tool.torchcts-lsp]\nlevel = 9\n").unwrap_err();
        assert_eq!((e.key.as_deref(), e.line), (Some("level"), Some(2)), "{e}");
        let e = parse_text("[tool.torchcts-lsp]\ndevice = 3\n").unwrap_err();
        assert_eq!(e.key.as_deref(), Some("device"), "{e}");
        let e = parse_text("[tool.torchcts-lsp]\ndevcie = 'cpu'\n").unwrap_err();
        assert!(e.to_string().contains("devcie"), "{e}");
        let e = parse_text("[tool.torchcts-lsp\n").unwrap_err();
        assert_eq!(e.line, Some(1), "{e}");
        let e = parse_text("[tool.torchcts-lsp]\non-save = 'always'\n").unwrap_err();
        assert!(e.to_string().contains("on-save"), "{e}");
        let e = parse_text("[tool.torchcts-lsp]\nmanifests = ['a/[b']\n").unwrap_err();
        assert!(e.to_string().contains("manifests"), "{e}");
    }

    #[test]
    fn a_wrong_type_says_what_was_written_and_what_is_expected() {
        let e = parse_text("[tool.torchcts-lsp]\ndevice = 'cpu'\nlevel = \"2\"\n").unwrap_err();
        assert_eq!(
            e.to_string(),
            "/p/pyproject.toml:3: [tool.torchcts-lsp] level: must be an integer from 1 to 8, not the string \"2\": write `level = 2` (no quotes)"
        );
        let e = parse_text("[tool.torchcts-lsp]\nignore = 'duplicate-key'\n").unwrap_err();
        assert!(e.to_string().contains(":2: [tool.torchcts-lsp] ignore: must be a list of finding codes"), "{e}");
        let e = parse_text("[tool.torchcts-lsp]\nresults = ['a', 3]\n").unwrap_err();
        assert!(e.to_string().contains("not a list holding the integer 3"), "{e}");
        let e = parse_text("[tool.torchcts-lsp]\non_save = 'off'\n").unwrap_err();
        assert!(e.to_string().contains("on_save: unknown key; did you mean `on-save`?"), "{e}");
        // The first wrong line in the file is the one said, whatever the key's name.
        let e = parse_text("[tool.torchcts-lsp]\nzzz = 1\naaa = 2\n").unwrap_err();
        assert_eq!(e.line, Some(2), "{e}");
    }

    #[test]
    fn torch_and_torchcts_pin_an_embedded_inventory() {
        let c = parse_text("[tool.torchcts-lsp]\ntorch = '2.9.1'\ntorchcts = '0.4.1'\n").unwrap().unwrap();
        assert_eq!((c.torch.unwrap().value, c.torchcts.unwrap().value), ("2.9.1".into(), "0.4.1".into()));
        let e = parse_text("[tool.torchcts-lsp]\ntorch = '1.0.0'\n").unwrap_err();
        assert_eq!((e.key.as_deref(), e.line), (Some("torch"), Some(2)), "{e}");
        let e = parse_text("[tool.torchcts-lsp]\ntorchcts = '9.9'\n").unwrap_err();
        assert!(e.to_string().contains("no inventory of torchcts 9.9 is embedded"), "{e}");
        let e = parse_text("[tool.torchcts-lsp]\ntorch = 2.9\n").unwrap_err();
        assert!(e.to_string().contains("not the number 2.9"), "{e}");
        let e = parse_text("[tool.torchcts-lsp]\ntorch = '2.8.1'\ntorchcts = '0.4.0'\n").unwrap_err();
        assert_eq!((e.key.as_deref(), e.line), (Some("torch"), Some(2)), "{e}");
        // An inventory file beside a pinned release: one choice only, as the flags.
        let dir = std::env::temp_dir().join(format!("torchcts-project-config-choice-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("inv.bin"), b"").unwrap();
        let text = "[tool.torchcts-lsp]\ninventory = 'inv.bin'\ntorch = '2.9.1'\n";
        let e = parse(text, &dir.join("pyproject.toml")).unwrap_err();
        assert!(e.to_string().contains(":3: [tool.torchcts-lsp] torch: `torch = \"2.9.1\"` chooses an embedded inventory and `inventory` (line 2) names a file: give one of them"), "{e}");
        std::fs::remove_dir_all(&dir).ok();
        let e = parse_text("[tool.torchcts-lsp]\ninventory = '/'\n").unwrap_err();
        assert!(e.to_string().contains("/ is not a file"), "{e}");
        let e = parse_text("[tool.torchcts-lsp]\ninventory = 'missing.bin'\n").unwrap_err();
        assert!(e.to_string().contains(":2: [tool.torchcts-lsp] inventory: /p/missing.bin does not exist"), "{e}");
    }

    #[test]
    fn the_sample_table_parses_and_has_every_key() {
        // `inventory` and `torch`/`torchcts` are one choice: the sample without `inventory`.
        let sample: String =
            sample_table().lines().filter(|l| !l.starts_with("inventory")).map(|l| format!("{l}\n")).collect();
        let c = parse_text(&sample).unwrap().unwrap();
        assert!(c.device.is_some() && c.level.is_some() && c.torch.is_some() && c.torchcts.is_some(), "{sample}");
        for key in KEYS {
            assert!(sample_table().contains(&format!("\n{} = ", key.name)), "{} not in the sample", key.name);
        }
    }
}
