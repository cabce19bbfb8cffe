//! Project configuration: `[tool.torchcts-lsp]` in the nearest `pyproject.toml` above a
//! manifest (the nearest file that has the table wins; nested files are not merged).
//!
//! ```toml
//! [tool.torchcts-lsp]
//! device = "cuda"                   # device for counts and runs
//! level = 2                         # default level when the manifest has no semantic_level
//! python = ".venv/bin/python"       # relative to this pyproject.toml's folder
//! manifests = ["**/manifests/*.py"] # globs of manifests besides every manifest.py
//! results = ["ci-results"]          # folders of earlier run results (relative)
//! inventory = "tools/inventory.bin" # an inventory written by `torchcts-lsp inventory`
//! on-save = "affected"              # off | affected | level
//! ignore = ["dtype-key-ignored"]    # torchcts-lsp's own finding codes to silence
//! cpython-compile = false           # never ask a CPython to compile() a broken manifest
//! ```
//!
//! The CLI reads it per manifest; the server calls [`load_for`] for each document and
//! [`load_file`] again when a `pyproject.toml` changes (`workspace/didChangeWatchedFiles`).
//! Editor settings and CLI flags override it. A bad value is a [`ConfigError`] naming the
//! file, the key and the byte range of the value (for a diagnostic on the file), never a
//! panic. Parsing is TOML by the `toml` crate; this module is IO (the core reads no files).

use serde::Deserialize;
use std::path::{Path, PathBuf};
use toml::Spanned;

/// The file name searched for.
pub const FILE_NAME: &str = "pyproject.toml";
/// The table read.
pub const TABLE: &str = "tool.torchcts-lsp";
/// The values `on-save` takes (the editor's `torchcts.onSave`).
pub const ON_SAVE_VALUES: [&str; 3] = ["off", "affected", "level"];

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
    /// Absolute.
    pub inventory: Option<Setting<PathBuf>>,
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
    ours: Option<toml::Table>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct Raw {
    device: Option<Spanned<String>>,
    level: Option<Spanned<i64>>,
    python: Option<Spanned<String>>,
    manifests: Option<Spanned<Vec<String>>>,
    results: Option<Spanned<Vec<String>>>,
    inventory: Option<Spanned<String>>,
    on_save: Option<Spanned<String>>,
    ignore: Option<Spanned<Vec<String>>>,
    cpython_compile: Option<Spanned<bool>>,
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
    // Again with spans: the table's own text, found through the document's spans.
    let raw: Raw = match toml::from_str::<SpannedPyproject>(text) {
        Ok(SpannedPyproject { tool: Some(SpannedTools { ours: Some(raw) }) }) => raw,
        Ok(_) => return Ok(None),
        Err(e) => {
            let key = table.keys().find(|k| e.message().contains(&format!("`{k}`"))).cloned().or_else(|| {
                // serde names an unknown field as `field`; a wrong type names no key: the span's line does.
                let span = e.span()?;
                let line_start = text[..span.start].rfind('\n').map_or(0, |i| i + 1);
                let key = text[line_start..].split('=').next()?.trim().trim_matches('"');
                table.contains_key(key).then(|| key.to_string())
            });
            return Err(error(key.as_deref(), toml_message(&e), e.span()));
        }
    };
    let root = std::path::absolute(file).ok().and_then(|f| f.parent().map(Path::to_path_buf)).unwrap_or_default();
    let at = |s: std::ops::Range<usize>| line_of(s.start);
    let mut config = ProjectConfig { file: file.to_path_buf(), ..ProjectConfig::default() };
    if let Some(d) = raw.device {
        let span = d.span();
        let value = d.into_inner();
        if value.trim().is_empty() {
            return Err(error(
                Some("device"),
                "must name a device (\"cpu\", \"cuda\", ...), not be empty".into(),
                Some(span),
            ));
        }
        config.device = Some(Setting { value, line: at(span) });
    }
    if let Some(l) = raw.level {
        let span = l.span();
        let value = *l.get_ref();
        if !(1..=8).contains(&value) {
            return Err(error(Some("level"), format!("must be an integer from 1 to 8, not {value}"), Some(span)));
        }
        config.level = Some(Setting { value: value as u8, line: at(span) });
    }
    let path_setting = |s: Spanned<String>, key: &str| -> Result<Setting<PathBuf>, ConfigError> {
        let span = s.span();
        let value = s.into_inner();
        if value.trim().is_empty() {
            return Err(error(Some(key), "must be a path, not empty".into(), Some(span)));
        }
        Ok(Setting { value: root.join(value), line: at(span) })
    };
    config.python = raw.python.map(|p| path_setting(p, "python")).transpose()?;
    config.inventory = raw.inventory.map(|p| path_setting(p, "inventory")).transpose()?;
    if let Some(m) = raw.manifests {
        let span = m.span();
        let globs = m.into_inner();
        for g in &globs {
            if let Err(e) = globset::GlobBuilder::new(g).literal_separator(true).build() {
                return Err(error(Some("manifests"), format!("`{g}` is not a glob pattern: {}", e.kind()), Some(span)));
            }
        }
        config.manifests = Some(Setting { value: globs, line: at(span) });
    }
    if let Some(r) = raw.results {
        let span = r.span();
        let folders = r.into_inner().into_iter().map(|f| root.join(f)).collect();
        config.results = Some(Setting { value: folders, line: at(span) });
    }
    if let Some(o) = raw.on_save {
        let span = o.span();
        let value = o.into_inner();
        if !ON_SAVE_VALUES.contains(&value.as_str()) {
            let expected = ON_SAVE_VALUES.map(|v| format!("\"{v}\"")).join(", ");
            return Err(error(Some("on-save"), format!("must be one of {expected}, not {value:?}"), Some(span)));
        }
        config.on_save = Some(Setting { value, line: at(span) });
    }
    config.cpython_compile = raw.cpython_compile.map(|c| Setting { line: at(c.span()), value: c.into_inner() });
    if let Some(i) = raw.ignore {
        let span = i.span();
        let codes = i.into_inner();
        // A misspelt code would silence nothing, and quietly.
        if let Some(why) = codes.iter().find_map(|c| torchcts_core::codes::unknown_code(c)) {
            return Err(error(Some("ignore"), why, Some(span)));
        }
        config.ignore = Some(Setting { value: codes, line: at(span) });
    }
    Ok(Some(config))
}

#[derive(Deserialize)]
struct SpannedPyproject {
    tool: Option<SpannedTools>,
}

#[derive(Deserialize)]
struct SpannedTools {
    #[serde(rename = "torchcts-lsp")]
    ours: Option<Raw>,
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
        let text = "[project]\nname = 'x'\n[tool.torchcts-lsp]\ndevice = 'cuda'\nlevel = 2\npython = '.venv/bin/python'\nmanifests = ['m/*.py']\nresults = ['r']\ninventory = 'inv.bin'\non-save = 'affected'\nignore = ['duplicate-key']\n";
        let c = parse_text(text).unwrap().unwrap();
        assert_eq!(c.device.unwrap(), Setting { value: "cuda".into(), line: 4 });
        assert_eq!(c.level.unwrap().value, 2);
        assert_eq!(c.python.unwrap().value, PathBuf::from("/p/.venv/bin/python"));
        assert_eq!(c.results.unwrap().value, vec![PathBuf::from("/p/r")]);
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
}
