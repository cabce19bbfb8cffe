//! Every server setting is exposed, with the server's type and default, by each editor
//! (issue 31): the one source is the server's schema (`torchcts_lsp::server::SETTINGS`);
//! VS Code's `package.json` (`contributes.configuration`), the settings its extension sends,
//! the Neovim plugin's defaults (`lua/torchcts/init.lua` and the native `lsp/torchcts.lua`)
//! and the docs' settings tables are compared with it. A setting added to the server
//! without being exposed everywhere fails here; so does an editor setting the server does
//! not read (the client-only ones are named).

mod support;

use serde_json::{json, Value};
use std::collections::BTreeMap;
use torchcts_lsp::server::{SettingKind, SETTINGS};

/// VS Code settings that the extension uses itself and never sends to the server.
const VSCODE_CLIENT_ONLY: [&str; 2] = ["torchcts.server.path", "torchcts.trace.server"];

fn read(path: &str) -> String {
    std::fs::read_to_string(support::repo_root().join(path)).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn vscode_name(key: &str) -> String {
    let setting = SETTINGS.iter().find(|s| s.key == key).unwrap();
    format!("torchcts.{}", setting.vscode_key.unwrap_or(setting.key))
}

#[test]
fn vscode_package_json_declares_every_server_setting_with_its_type_and_default() {
    let package: Value = serde_json::from_str(&read("editors/vscode/package.json")).unwrap();
    let properties = package["contributes"]["configuration"]["properties"].as_object().unwrap();
    for setting in SETTINGS {
        let name = vscode_name(setting.key);
        let declared = properties.get(&name).unwrap_or_else(|| panic!("package.json does not declare {name}"));
        let default: Value = serde_json::from_str(setting.default).unwrap();
        assert_eq!(declared["default"], default, "{name}: package.json's default is not the server's");
        let (kind, extra) = match setting.kind {
            SettingKind::String => ("string", json!({})),
            SettingKind::Boolean => ("boolean", json!({})),
            SettingKind::Integer { min, max } => ("integer", json!({"minimum": min, "maximum": max})),
            SettingKind::OneOf(values) => ("string", json!({ "enum": values })),
            SettingKind::Strings => ("array", json!({"items": {"type": "string"}})),
        };
        assert_eq!(declared["type"], kind, "{name}: type");
        for (field, value) in extra.as_object().unwrap() {
            assert_eq!(&declared[field], value, "{name}: {field}");
        }
        assert!(declared["markdownDescription"].as_str().is_some_and(|d| !d.is_empty()), "{name}: no description");
    }
    let served: Vec<String> = SETTINGS.iter().map(|s| vscode_name(s.key)).collect();
    for name in properties.keys() {
        assert!(
            served.contains(name) || VSCODE_CLIENT_ONLY.contains(&name.as_str()),
            "package.json declares {name}, which the server does not read (add it to the server's schema, or to VSCODE_CLIENT_ONLY)"
        );
    }
}

#[test]
fn the_vscode_extension_sends_every_server_setting() {
    let source = read("editors/vscode/src/extension.ts");
    let start = source.find("function serverSettings(").expect("serverSettings in extension.ts");
    let sent = &source[start..start + source[start..].find("\n}\n").unwrap()];
    for setting in SETTINGS {
        let key = setting.vscode_key.unwrap_or(setting.key);
        let read = source.contains(&format!(">(\"{key}\"")) || source.contains(&format!("(cfg, \"{key}\")"));
        assert!(read, "extension.ts never reads torchcts.{key}");
        // Sent in the server's shape: `run: { ..., timeoutSeconds: ... }` for `run.timeoutSeconds`.
        let last = setting.key.rsplit('.').next().unwrap();
        let top = setting.key.split('.').next().unwrap();
        let said = |name: &str| sent.contains(&format!("{name}:")) || sent.contains(&format!("{name} }}"));
        assert!(said(top) && said(last), "serverSettings does not send {}", setting.key);
    }
}

#[test]
fn the_neovim_plugin_defaults_are_the_servers() {
    let expected: BTreeMap<String, Value> =
        SETTINGS.iter().map(|s| (s.key.to_string(), serde_json::from_str(s.default).unwrap())).collect();
    let plugin = read("editors/neovim/lua/torchcts/init.lua");
    let defaults = &plugin[plugin.find("local defaults = {").expect("the plugin's defaults")..];
    let native = read("editors/neovim/lsp/torchcts.lua");
    let tables = [
        ("lua/torchcts/init.lua settings", table_after(defaults, "settings = {")),
        ("lsp/torchcts.lua init_options", table_after(&native, "init_options = {")),
        ("lsp/torchcts.lua settings.torchcts", table_after(&native, "torchcts = {")),
    ];
    for (name, table) in tables {
        let mut flat = BTreeMap::new();
        flatten("", &table, &mut flat);
        assert_eq!(flat, expected, "{name}: the Neovim defaults differ from the server's schema");
    }
}

#[test]
fn the_docs_list_every_setting_with_its_default() {
    let configuration = read("docs/configuration.md");
    let editors = read("docs/editors.md");
    for setting in SETTINGS {
        let default = setting.default;
        let row = format!("| `{}` | `{default}` |", setting.key);
        assert!(configuration.contains(&row), "docs/configuration.md has no row {row}");
        let vscode_row = format!("| `{}` | `{default}` |", vscode_name(setting.key));
        assert!(editors.contains(&vscode_row), "docs/editors.md has no row {vscode_row}");
    }
}

/// The Lua table constructor that follows `marker` in `text`, as JSON (`{}` is an empty
/// list: the plugin's only empty table is a list of globs).
fn table_after(text: &str, marker: &str) -> Value {
    let start = text.find(marker).unwrap_or_else(|| panic!("{marker} not found")) + marker.len() - 1;
    let tokens = lua_tokens(&text[start..]);
    lua_value(&tokens, &mut 0)
}

fn flatten(prefix: &str, value: &Value, out: &mut BTreeMap<String, Value>) {
    match value {
        Value::Object(map) => {
            for (k, v) in map {
                let key = if prefix.is_empty() { k.clone() } else { format!("{prefix}.{k}") };
                flatten(&key, v, out);
            }
        }
        other => {
            out.insert(prefix.to_string(), other.clone());
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
enum Token {
    Open,
    Close,
    Equals,
    Comma,
    Name(String),
    Str(String),
    Number(i64),
    Bool(bool),
}

/// The tokens of a Lua table constructor, up to its closing brace (comments skipped).
fn lua_tokens(text: &str) -> Vec<Token> {
    let chars: Vec<char> = text.chars().collect();
    let (mut i, mut depth, mut out) = (0, 0, Vec::new());
    while i < chars.len() {
        let c = chars[i];
        match c {
            '-' if chars.get(i + 1) == Some(&'-') => {
                while i < chars.len() && chars[i] != '\n' {
                    i += 1;
                }
                continue;
            }
            '{' => {
                depth += 1;
                out.push(Token::Open);
            }
            '}' => {
                depth -= 1;
                out.push(Token::Close);
                if depth == 0 {
                    return out;
                }
            }
            '=' => out.push(Token::Equals),
            ',' | ';' => out.push(Token::Comma),
            '"' | '\'' => {
                let end = (i + 1..chars.len()).find(|&j| chars[j] == c).expect("closed string");
                out.push(Token::Str(chars[i + 1..end].iter().collect()));
                i = end;
            }
            c if c.is_ascii_digit() => {
                let end = (i..chars.len()).find(|&j| !chars[j].is_ascii_digit()).unwrap_or(chars.len());
                out.push(Token::Number(chars[i..end].iter().collect::<String>().parse().unwrap()));
                i = end;
                continue;
            }
            c if c.is_alphabetic() || c == '_' => {
                let end =
                    (i..chars.len()).find(|&j| !(chars[j].is_alphanumeric() || chars[j] == '_')).unwrap_or(chars.len());
                let word: String = chars[i..end].iter().collect();
                out.push(match word.as_str() {
                    "true" => Token::Bool(true),
                    "false" => Token::Bool(false),
                    _ => Token::Name(word),
                });
                i = end;
                continue;
            }
            c if c.is_whitespace() => {}
            other => panic!("unexpected {other:?} in a settings table"),
        }
        i += 1;
    }
    panic!("unclosed table")
}

fn lua_value(tokens: &[Token], at: &mut usize) -> Value {
    let token = tokens[*at].clone();
    *at += 1;
    match token {
        Token::Str(s) => json!(s),
        Token::Number(n) => json!(n),
        Token::Bool(b) => json!(b),
        Token::Open => {
            let (mut map, mut list) = (serde_json::Map::new(), Vec::new());
            loop {
                match &tokens[*at] {
                    Token::Close => {
                        *at += 1;
                        break;
                    }
                    Token::Comma => *at += 1,
                    Token::Name(name) if tokens.get(*at + 1) == Some(&Token::Equals) => {
                        let name = name.clone();
                        *at += 2;
                        map.insert(name, lua_value(tokens, at));
                    }
                    _ => list.push(lua_value(tokens, at)),
                }
            }
            if map.is_empty() {
                Value::Array(list)
            } else {
                Value::Object(map)
            }
        }
        other => panic!("unexpected {other:?} where a value belongs"),
    }
}

/// Every `[tool.torchcts-lsp]` sample in the docs (```toml blocks of README.md, docs/*.md and
/// the editors' READMEs) is a table the parser takes as it stands, in an empty folder: a user
/// who copies one gets no error (an `inventory` file that is not there would be one).
#[test]
fn every_sample_table_in_the_docs_parses() {
    let root = support::repo_root();
    let mut files = vec![root.join("README.md")];
    for folder in ["docs", "editors/vscode", "editors/neovim"] {
        let mut found: Vec<_> = std::fs::read_dir(root.join(folder))
            .unwrap()
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|e| e == "md"))
            .collect();
        found.sort();
        files.extend(found);
    }
    let empty = std::env::temp_dir().join(format!("torchcts-settings-samples-{}", std::process::id()));
    std::fs::create_dir_all(&empty).unwrap();
    let mut samples = 0;
    for file in &files {
        let text = std::fs::read_to_string(file).unwrap();
        for (i, block) in text.split("```toml\n").skip(1).enumerate() {
            let block = &block[..block.find("```").expect("a closed code block")];
            if !block.contains("[tool.torchcts-lsp]") {
                continue;
            }
            samples += 1;
            let parsed = torchcts_lsp::host::project_config::parse(block, &empty.join("pyproject.toml"));
            assert!(matches!(parsed, Ok(Some(_))), "{}: toml block {}: {parsed:?}\n{block}", file.display(), i + 1);
        }
    }
    assert!(samples >= 2, "the README's and docs/configuration.md's samples: found {samples}");
    std::fs::remove_dir_all(&empty).ok();
}
