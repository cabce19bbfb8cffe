//! Settings under `torchcts.*` (initializationOptions or workspace/didChangeConfiguration),
//! read into types once so handlers never compare strings. [`SCHEMA`] lists each setting
//! with its type and default: the one source the editors' settings (VS Code's
//! `package.json`, the Neovim plugin's defaults) and docs/configuration.md are checked
//! against (`tests/settings_schema.rs`).

/// The type of a setting's value, as the editors declare it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    String,
    Boolean,
    Integer {
        min: i64,
        max: i64,
    },
    /// One of these strings.
    OneOf(&'static [&'static str]),
    /// A list of strings.
    Strings,
}

/// One setting the server reads.
#[derive(Clone, Copy, Debug)]
pub struct SettingSchema {
    /// Its path under `torchcts`, dotted as the editors nest it (`python.interpreter`:
    /// VS Code's `torchcts.python.interpreter`, the Neovim plugin's `python = { interpreter }`).
    pub key: &'static str,
    /// VS Code's name where it differs (`files.include`, which also picks the documents).
    pub vscode_key: Option<&'static str>,
    pub kind: Kind,
    /// The default, as JSON.
    pub default: &'static str,
    /// What it does (docs/configuration.md's table says the same).
    pub meaning: &'static str,
}

/// Every setting [`Settings::from_json`] reads, with the value that applies without it.
pub const SCHEMA: &[SettingSchema] = &[
    SettingSchema {
        key: "python.interpreter",
        vscode_key: None,
        kind: Kind::String,
        default: "\"\"",
        meaning: "the Python with torchcts for runs and the torch version counted",
    },
    SettingSchema {
        key: "device",
        vscode_key: None,
        kind: Kind::String,
        default: "\"\"",
        meaning: "device for counts and runs (empty: the project's device, else the manifest's device_name)",
    },
    SettingSchema {
        key: "defaultLevel",
        vscode_key: None,
        kind: Kind::Integer { min: 1, max: 8 },
        default: "3",
        meaning:
            "level of lenses, on-save and run actions for a manifest without semantic_level and a project without level",
    },
    SettingSchema {
        key: "onSave",
        vscode_key: None,
        kind: Kind::OneOf(&["off", "affected", "level"]),
        default: "\"off\"",
        meaning: "opt-in runs on save",
    },
    SettingSchema {
        key: "run.workers",
        vscode_key: None,
        kind: Kind::Integer { min: 1, max: 256 },
        default: "1",
        meaning: "pytest-xdist worker processes per run",
    },
    SettingSchema {
        key: "run.timeoutSeconds",
        vscode_key: None,
        kind: Kind::Integer { min: 1, max: 604_800 },
        default: "1800",
        meaning: "time limit of one run, in seconds",
    },
    SettingSchema {
        key: "inlayHints.enabled",
        vscode_key: None,
        kind: Kind::Boolean,
        default: "true",
        meaning: "run/filtered counts beside entries",
    },
    SettingSchema {
        key: "inventory.path",
        vscode_key: None,
        kind: Kind::String,
        default: "\"\"",
        meaning:
            "an inventory written by `torchcts-lsp inventory` (empty: the project's choice, else the embedded one)",
    },
    SettingSchema {
        key: "manifests",
        vscode_key: Some("files.include"),
        kind: Kind::Strings,
        default: "[]",
        meaning: "globs of manifests besides every manifest.py",
    },
    SettingSchema {
        key: "logLevel",
        vscode_key: None,
        kind: Kind::OneOf(&["error", "warn", "info", "debug"]),
        default: "\"info\"",
        meaning: "the least severe log line written",
    },
    SettingSchema {
        key: "logFile",
        vscode_key: None,
        kind: Kind::String,
        default: "\"\"",
        meaning: "a file the log is appended to as well",
    },
    SettingSchema {
        key: "cpythonCompile",
        vscode_key: None,
        kind: Kind::Boolean,
        default: "true",
        meaning: "ask the environment's CPython to compile() a manifest with a syntax error (never exec), for its exact message",
    },
];

/// The level of [`SCHEMA`]'s `defaultLevel` default: torchcts' own for a manifest without
/// `semantic_level`, and the CLI's.
pub const DEFAULT_LEVEL: u8 = 3;

/// When a save starts a test run (opt-in: never by default, never on open).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum OnSave {
    #[default]
    Off,
    /// The tests of the entries changed since the previous save.
    Affected,
    /// The manifest's whole level.
    Level,
}

impl OnSave {
    /// `off` | `affected` | `level`; anything else is `off`, so a typo never starts Python.
    pub fn parse(value: &str) -> OnSave {
        match value {
            "affected" => OnSave::Affected,
            "level" => OnSave::Level,
            _ => OnSave::Off,
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct Settings {
    pub python: Option<String>,
    pub device: Option<String>,
    /// The level for a manifest without `semantic_level` whose project names no `level`
    /// (`defaultLevel`): lenses, the status, on-save and run actions.
    pub default_level: u8,
    pub on_save: OnSave,
    /// The editor said `onSave` (else the project configuration's `on-save` may).
    pub on_save_set: bool,
    pub timeout_seconds: u64,
    /// pytest-xdist worker processes per run (`workers`, `run.workers`); 0 or 1: one process.
    pub workers: u16,
    pub inlay_hints: bool,
    /// Another inventory file (from `torchcts-lsp inventory`); the embedded one otherwise.
    pub inventory_path: Option<String>,
    /// Globs of files that are manifests besides every `manifest.py` (`manifests`, or VS
    /// Code's `files.include`), relative to a workspace folder unless absolute.
    pub manifests: Vec<String>,
    /// The least severe log line written (`logLevel`: error, warn, info, debug).
    pub log_level: Option<crate::server::log::Level>,
    /// A file every log line is appended to as well (`logFile`).
    pub log_file: Option<String>,
    /// Whether the environment's CPython may `compile()` a manifest our parsers find broken
    /// (`cpythonCompile`, default true; VS Code sends false in an untrusted workspace).
    pub cpython_compile: bool,
}

impl Default for Settings {
    fn default() -> Settings {
        Settings {
            python: None,
            device: None,
            default_level: DEFAULT_LEVEL,
            on_save: OnSave::Off,
            on_save_set: false,
            timeout_seconds: 1800,
            workers: 1,
            inlay_hints: true,
            inventory_path: None,
            manifests: Vec::new(),
            log_level: None,
            log_file: None,
            cpython_compile: true,
        }
    }
}

impl Settings {
    /// Reads each setting on its own, so one value of an unexpected shape cannot reset the
    /// others. Accepts `{torchcts: {...}}` or `{...}`, flat keys (`python`, `inlayHints`,
    /// `timeoutSeconds`) and the nested VS Code shapes (`python.interpreter`,
    /// `inlayHints.enabled`, `run.timeoutSeconds`, `inventory.path`).
    pub fn from_json(value: &serde_json::Value) -> Settings {
        let v = value.get("torchcts").unwrap_or(value);
        let text = |paths: &[&str]| -> Option<String> {
            paths
                .iter()
                .find_map(|p| v.pointer(p).and_then(|x| x.as_str()))
                .filter(|s| !s.is_empty())
                .map(str::to_string)
        };
        let default = Settings::default();
        Settings {
            python: text(&["/python", "/python/interpreter"]),
            device: text(&["/device"]),
            // A level out of range is the default, as a typo never changes what runs.
            default_level: v
                .pointer("/defaultLevel")
                .and_then(|x| x.as_u64())
                .and_then(|n| u8::try_from(n).ok())
                .filter(|n| (1..=8).contains(n))
                .unwrap_or(default.default_level),
            on_save: text(&["/onSave"]).map(|s| OnSave::parse(&s)).unwrap_or(default.on_save),
            on_save_set: text(&["/onSave"]).is_some(),
            timeout_seconds: ["/timeoutSeconds", "/run/timeoutSeconds"]
                .iter()
                .find_map(|p| v.pointer(p).and_then(|x| x.as_u64()))
                .unwrap_or(default.timeout_seconds),
            // A number out of range is one process, not a wrapped count.
            workers: ["/workers", "/run/workers"]
                .iter()
                .find_map(|p| v.pointer(p).and_then(|x| x.as_u64()))
                .map(|n| u16::try_from(n).unwrap_or(1))
                .unwrap_or(default.workers),
            inlay_hints: ["/inlayHints", "/inlayHints/enabled"]
                .iter()
                .find_map(|p| v.pointer(p).and_then(|x| x.as_bool()))
                .unwrap_or(default.inlay_hints),
            inventory_path: text(&["/inventoryPath", "/inventory/path"]),
            manifests: ["/manifests", "/files/include", "/include"]
                .iter()
                .filter_map(|p| v.pointer(p).and_then(|x| x.as_array()))
                .flatten()
                .filter_map(|x| x.as_str())
                .map(str::trim)
                .filter(|g| !g.is_empty())
                .map(str::to_string)
                .collect(),
            log_level: text(&["/logLevel", "/log/level"]).and_then(|l| crate::server::log::Level::parse(&l)),
            log_file: text(&["/logFile", "/log/file"]),
            cpython_compile: ["/cpythonCompile", "/cpython/compile"]
                .iter()
                .find_map(|p| v.pointer(p).and_then(|x| x.as_bool()))
                .unwrap_or(default.cpython_compile),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{OnSave, Settings};
    use serde_json::json;

    #[test]
    fn vscode_nested_shape_keeps_every_setting() {
        let s = Settings::from_json(&json!({"torchcts": {
            "python": {"interpreter": "/venv/bin/python"}, "device": "cuda", "onSave": "level",
            "inlayHints": {"enabled": false}, "defaultLevel": 2}}));
        assert_eq!(s.python.as_deref(), Some("/venv/bin/python"));
        assert_eq!(s.device.as_deref(), Some("cuda"));
        assert_eq!(s.on_save, OnSave::Level);
        assert!(!s.inlay_hints);
        assert_eq!(s.timeout_seconds, 1800);
    }

    #[test]
    fn flat_shape_and_empty_strings() {
        let s = Settings::from_json(
            &json!({"python": "python3.11", "device": "", "timeoutSeconds": 60, "inlayHints": true}),
        );
        assert_eq!(s.python.as_deref(), Some("python3.11"));
        assert_eq!(s.device, None);
        assert_eq!(s.timeout_seconds, 60);
        assert_eq!(s.on_save, OnSave::Off);
        assert_eq!(s.workers, 1);
        assert_eq!(Settings::from_json(&json!({"workers": 4})).workers, 4);
        assert_eq!(Settings::from_json(&json!({"torchcts": {"run": {"workers": 2}}})).workers, 2);
        assert_eq!(Settings::from_json(&json!({"workers": 100000})).workers, 1);
        assert_eq!(Settings::from_json(&json!({"workers": "auto"})).workers, 1);
    }

    #[test]
    fn manifest_globs_and_log_settings() {
        let s = Settings::from_json(&json!({"torchcts": {
            "manifests": ["devices/*.py", " "], "files": {"include": ["**/m/*.py"]},
            "logLevel": "debug", "logFile": "/tmp/x.log"}}));
        assert_eq!(s.manifests, vec!["devices/*.py".to_string(), "**/m/*.py".to_string()]);
        assert_eq!(s.log_level, Some(crate::server::log::Level::Debug));
        assert_eq!(s.log_file.as_deref(), Some("/tmp/x.log"));
        assert_eq!(Settings::from_json(&json!({"logLevel": "loud"})).log_level, None);
    }

    /// `{"a": {"b": value}}` for the dotted key `a.b`.
    fn nested(key: &str, value: serde_json::Value) -> serde_json::Value {
        key.rsplit('.').fold(value, |inner, part| json!({ part: inner }))
    }

    #[test]
    fn the_schema_defaults_are_the_servers_and_each_key_is_read() {
        // Without `logLevel` the server takes --log-level or the environment, else info;
        // `onSave` said at all (even "off") wins over the project's `on-save`.
        let effective = |mut s: Settings| {
            s.log_level = s.log_level.or(Some(crate::server::log::Level::Info));
            s.on_save_set = false;
            s
        };
        let none = effective(Settings::from_json(&json!({})));
        for setting in super::SCHEMA {
            let default: serde_json::Value = serde_json::from_str(setting.default).unwrap();
            let read = effective(Settings::from_json(&json!({"torchcts": nested(setting.key, default.clone())})));
            assert_eq!(read, none, "{}: the schema's default {default} is not the server's", setting.key);
            let other = match setting.kind {
                super::Kind::String => json!("x"),
                super::Kind::Boolean => json!(!default.as_bool().unwrap()),
                super::Kind::Integer { min, max } => json!(if default == json!(min) { max } else { min }),
                super::Kind::OneOf(values) => json!(values.iter().find(|v| json!(v) != default).unwrap()),
                super::Kind::Strings => json!(["x/*.py"]),
            };
            let read = effective(Settings::from_json(&json!({"torchcts": nested(setting.key, other.clone())})));
            assert_ne!(read, none, "{}: {other} is not read", setting.key);
        }
    }

    #[test]
    fn default_level_out_of_range_is_the_default() {
        assert_eq!(Settings::from_json(&json!({"defaultLevel": 5})).default_level, 5);
        assert_eq!(Settings::from_json(&json!({"defaultLevel": 9})).default_level, super::DEFAULT_LEVEL);
        assert_eq!(Settings::from_json(&json!({"defaultLevel": "2"})).default_level, super::DEFAULT_LEVEL);
    }

    #[test]
    fn on_save_values() {
        let on_save = |v: &str| Settings::from_json(&json!({"onSave": v})).on_save;
        assert_eq!(on_save("affected"), OnSave::Affected);
        assert_eq!(on_save("level"), OnSave::Level);
        assert_eq!(on_save("off"), OnSave::Off);
        assert_eq!(on_save("sometimes"), OnSave::Off);
    }
}
