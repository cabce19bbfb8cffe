//! Completion, context-aware and tolerant of half-typed text.
//!
//! The context comes from the tokens ([`crate::lex`]) from the `manifest = ` (or
//! `manifest["key"] = `) assignment before the cursor up to the cursor, tracking open
//! brackets, the current key of each dict, and whether the cursor is at a key, a value or a
//! list item, and inside a string. This works where the syntax tree is broken by the very
//! text being typed.

use crate::analysis::Analysis;
use crate::key_docs;
use crate::lex::{lex, Token, TokenKind};
use crate::schema::schema;
use crate::value::Span;

#[derive(Clone, Debug, PartialEq)]
pub struct CompletionItem {
    pub label: String,
    pub detail: Option<String>,
    pub documentation: Option<String>,
    /// Replaces `replace` with this text.
    pub insert_text: String,
    pub replace: Span,
    pub kind: ItemKind,
    /// Orders items; lower first.
    pub sort: String,
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ItemKind {
    Key,
    Value,
    Dtype,
    Operator,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Position {
    Key,
    Value(String),
    ListItem(String),
}

#[derive(Clone, Debug, PartialEq)]
pub struct Context {
    /// Keys from the manifest root to the dict (or list) the cursor is in.
    pub path: Vec<String>,
    pub position: Position,
    /// When the cursor is inside a string literal: its quote and where its content starts.
    pub in_string: Option<(char, usize)>,
    /// Keys already written in the innermost dict.
    pub existing_keys: Vec<String>,
    /// The quote character the file uses for keys.
    pub quote: char,
    /// Start of the word being typed outside a string.
    pub word_start: usize,
}

#[derive(Clone, Debug)]
struct Frame {
    is_dict: bool,
    key: Option<String>,
    at_value: bool,
    keys: Vec<String>,
}

/// Whether `offset` starts a line.
fn at_line_start(text: &str, offset: usize) -> bool {
    offset == 0 || matches!(text.as_bytes().get(offset - 1), Some(b'\n' | b'\r'))
}

/// The last assignment to `manifest` at the start of a line among `tokens`: the index of
/// the token its value starts at, with the key path of a `manifest["a"]["b"] = ` target.
/// Only statements count (depth 0), so each target's scan stays within its own statement.
fn assignment_start(text: &str, tokens: &[Token]) -> Option<(usize, Vec<String>)> {
    let mut targets = tokens.iter().enumerate().rev().filter(|(_, t)| {
        t.kind == TokenKind::Name && t.depth == 0 && t.text(text) == "manifest" && at_line_start(text, t.span.start)
    });
    targets.find_map(|(k, _)| assigned_value(text, tokens, k))
}

/// For `manifest` at token `k`: where the value of `manifest = `, `manifest: T = ` or
/// `manifest["a"]["b"] = ` starts, and the keys of the subscripts.
fn assigned_value(text: &str, tokens: &[Token], k: usize) -> Option<(usize, Vec<String>)> {
    let next = tokens.get(k + 1)?;
    if next.is_op(text, "=") {
        return Some((k + 2, Vec::new()));
    }
    if next.is_op(text, ":") {
        let mut statement = tokens[k + 2..].iter().take_while(|t| t.kind != TokenKind::Newline);
        let eq = statement.position(|t| t.is_op(text, "="))?;
        return Some((k + 2 + eq + 1, Vec::new()));
    }
    let mut keys = Vec::new();
    let mut j = k + 1;
    while tokens.get(j).is_some_and(|t| t.is_op(text, "[")) {
        let open = &tokens[j];
        let close = j + tokens[j..].iter().position(|t| t.is_op(text, "]") && t.depth == open.depth)?;
        let key = text[open.span.end..tokens[close].span.start].trim().trim_matches(['"', '\'']);
        if !key.is_empty() {
            keys.push(key.to_string());
        }
        j = close + 1;
    }
    (j > k + 1 && tokens.get(j)?.is_op(text, "=")).then_some((j + 1, keys))
}

/// Where the cursor is in the manifest: from the tokens of the last `manifest = ` (or
/// `manifest["key"] = `) before it up to it, the open brackets, the current key of each
/// dict, and whether the cursor is at a key, a value or a list item, and inside a string.
pub fn context(text: &str, offset: usize) -> Option<Context> {
    let offset = offset.min(text.len());
    if !text.is_char_boundary(offset) {
        return None;
    }
    let tokens: Vec<Token> = lex(text).take_while(|t| t.span.start < offset).collect();
    let (start, prefix_path) = assignment_start(text, &tokens)?;
    let mut stack: Vec<Frame> = Vec::new();
    let mut quote_char: Option<char> = None;
    let mut last_token: Option<String> = None;
    // A dotted word (`torch.float16`) is several tokens side by side.
    let mut word: Option<std::ops::Range<usize>> = None;
    for token in &tokens[start..] {
        let in_word = matches!(token.kind, TokenKind::Name | TokenKind::Number)
            || token.is_op(text, ".")
            || token.is_op(text, "...");
        if !in_word {
            word = None;
        }
        match token.kind {
            _ if in_word => {
                let word_start =
                    word.as_ref().filter(|w| w.end == token.span.start).map_or(token.span.start, |w| w.start);
                let end = token.span.end.min(offset);
                last_token = Some(text[word_start..end].to_string());
                word = Some(word_start..token.span.end);
            }
            TokenKind::String(string) => {
                let (Some(quote_at), Some(body)) = (token.quote_offset(), token.string_body()) else { continue };
                if quote_at >= offset {
                    // The cursor is in the prefix.
                    break;
                }
                let innermost_is_key = stack.last().is_some_and(|f| f.is_dict && !f.at_value);
                if quote_char.is_none() && innermost_is_key {
                    quote_char = Some(string.quote as char);
                }
                let content_end = if string.terminated { body.end } else { token.span.end };
                if offset <= content_end {
                    let in_string = Some((string.quote as char, body.start));
                    return Some(finish(text, offset, &prefix_path, &stack, in_string, quote_char));
                }
                last_token = Some(text[body].to_string());
                if let Some(f) = stack.last_mut().filter(|f| f.is_dict && !f.at_value) {
                    f.key = last_token.clone();
                }
            }
            TokenKind::Op => match token.text(text) {
                open @ ("{" | "[" | "(") => {
                    stack.push(Frame { is_dict: open == "{", key: None, at_value: false, keys: Vec::new() });
                    last_token = None;
                }
                "}" | "]" | ")" => {
                    stack.pop();
                    if stack.is_empty() && prefix_path.is_empty() {
                        // The manifest literal closed before the cursor.
                        return None;
                    }
                    last_token = None;
                }
                ":" => {
                    if let Some(f) = stack.last_mut().filter(|f| f.is_dict && !f.at_value) {
                        if f.key.is_none() {
                            f.key = last_token.clone();
                        }
                        if let Some(k) = f.key.clone() {
                            f.keys.push(k);
                        }
                        f.at_value = true;
                    }
                }
                "," => {
                    if let Some(f) = stack.last_mut().filter(|f| f.is_dict) {
                        f.at_value = false;
                        f.key = None;
                    }
                    last_token = None;
                }
                _ => {}
            },
            _ => {}
        }
    }
    Some(finish(text, offset, &prefix_path, &stack, None, quote_char))
}

fn finish(
    text: &str,
    offset: usize,
    prefix_path: &[String],
    stack: &[Frame],
    in_string: Option<(char, usize)>,
    quote: Option<char>,
) -> Context {
    let mut path: Vec<String> = prefix_path.to_vec();
    for frame in stack.iter().take(stack.len().saturating_sub(1)) {
        if frame.is_dict {
            if let Some(k) = &frame.key {
                path.push(k.clone());
            }
        }
    }
    let innermost = stack.last();
    let position = match innermost {
        Some(f) if f.is_dict && f.at_value => Position::Value(f.key.clone().unwrap_or_default()),
        Some(f) if f.is_dict => Position::Key,
        Some(_) => {
            // A list: its key is the key of the enclosing dict.
            let key = path.pop().unwrap_or_default();
            Position::ListItem(key)
        }
        None => Position::Value(String::new()),
    };
    let word_start = text[..offset]
        .rfind(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '.'))
        .map(|i| i + 1)
        .unwrap_or(0);
    Context {
        path,
        position,
        in_string,
        existing_keys: innermost.map(|f| f.keys.clone()).unwrap_or_default(),
        quote: quote.unwrap_or('"'),
        word_start,
    }
}

/// Operator names for completion inside skip_ops and regex strings (from the inventory).
pub trait OperatorSource {
    fn operator_names(&self) -> Vec<String>;
}

pub fn complete(analysis: &Analysis, offset: usize, operators: Option<&dyn OperatorSource>) -> Vec<CompletionItem> {
    let text = analysis.text.as_str();
    let Some(ctx) = context(text, offset) else { return Vec::new() };
    let s = schema();
    let replace = match ctx.in_string {
        Some((_, content_start)) => content_start..offset,
        None => ctx.word_start..offset,
    };
    let mut items = Vec::new();
    let key_item = |name: &str, detail: Option<&str>, doc: Option<&str>, sort: usize| -> CompletionItem {
        let insert_text = match ctx.in_string {
            Some(_) => name.to_string(),
            None => format!("{q}{name}{q}: ", q = ctx.quote),
        };
        CompletionItem {
            label: name.to_string(),
            detail: detail.map(str::to_string),
            documentation: doc.map(str::to_string),
            insert_text,
            replace: replace.clone(),
            kind: ItemKind::Key,
            sort: format!("{sort:03}"),
        }
    };
    let value_item = |label: &str, insert: &str, doc: Option<String>, sort: usize| CompletionItem {
        label: label.to_string(),
        detail: None,
        documentation: doc,
        insert_text: insert.to_string(),
        replace: replace.clone(),
        kind: ItemKind::Value,
        sort: format!("{sort:03}"),
    };
    let path: Vec<&str> = ctx.path.iter().map(String::as_str).collect();
    let fresh = |name: &str| !ctx.existing_keys.iter().any(|k| k == name);
    match (&ctx.position, path.as_slice()) {
        (Position::Key, []) => {
            for (i, (key, shape, doc)) in key_docs::TOP_LEVEL.iter().enumerate() {
                if fresh(key) {
                    let required = s.required_top_level_keys.iter().any(|r| r == key);
                    items.push(key_item(key, Some(shape), Some(doc), if required { i } else { 100 + i }));
                }
            }
        }
        (Position::Key, ["capabilities"]) => {
            for (i, (cap, doc)) in key_docs::CAPABILITIES.iter().enumerate() {
                if fresh(cap) {
                    items.push(key_item(
                        cap,
                        Some(if *cap == "ieee754" { "bool | regex | list[regex]" } else { "bool" }),
                        Some(doc),
                        i,
                    ));
                }
            }
        }
        (Position::Key, ["hardware"]) => {
            for (i, (k, doc)) in key_docs::HARDWARE.iter().enumerate() {
                if fresh(k) {
                    items.push(key_item(k, None, Some(doc), i));
                }
            }
        }
        (Position::Key, ["resource_limits"]) => {
            for (i, (k, doc)) in key_docs::RESOURCE_LIMITS.iter().enumerate() {
                if fresh(k) {
                    items.push(key_item(k, None, Some(doc), i));
                }
            }
        }
        (Position::Key, ["supported_container_formats" | "custom_container_decoders"]) => {
            for (i, f) in s.container_formats.iter().enumerate() {
                if fresh(f) {
                    items.push(key_item(f, Some("container format"), None, i));
                }
            }
        }
        (Position::Key, ["supported_dtypes"]) => {
            // Dtype keys: `torch.float16`, or the exact canonical string inside a string.
            let mut seen = Vec::new();
            for d in &s.dtypes {
                if seen.contains(&d.canonical) {
                    continue;
                }
                seen.push(d.canonical.clone());
                let attr = d.canonical.trim_start_matches("torch.");
                let present = ctx.existing_keys.iter().any(|k| k == &d.canonical);
                if present {
                    continue;
                }
                let (label, insert) = match ctx.in_string {
                    Some(_) => (d.canonical.clone(), d.canonical.clone()),
                    None => (format!("torch.{attr}"), format!("torch.{attr}: ")),
                };
                let common = ["float32", "float16", "bfloat16", "float64", "int64", "int32", "bool"];
                let sort = common.iter().position(|c| *c == attr).unwrap_or(50 + seen.len());
                items.push(CompletionItem {
                    label,
                    detail: Some("dtype".into()),
                    documentation: None,
                    insert_text: insert,
                    replace: replace.clone(),
                    kind: ItemKind::Dtype,
                    sort: format!("{sort:03}"),
                });
            }
        }
        (Position::Key, ["tolerance_overrides"]) => {
            for (i, t) in s.tolerance_defaults.iter().enumerate() {
                let key = format!("{}:{}", t.category, t.dtype);
                if !fresh(&key) {
                    continue;
                }
                let doc = format!(
                    "Default golden rtol/atol {}/{}, usable {}/{}",
                    crate::value::float_repr(t.golden[0]),
                    crate::value::float_repr(t.golden[1]),
                    crate::value::float_repr(t.usable[0]),
                    crate::value::float_repr(t.usable[1])
                );
                let mut item = key_item(&key, Some("tolerance category:dtype"), Some(&doc), i);
                if ctx.in_string.is_none() {
                    item.insert_text = format!("{q}{key}{q}: {{\"rtol\": , \"atol\": }}", q = ctx.quote);
                }
                items.push(item);
            }
        }
        (Position::Value(key), ["capabilities"]) => {
            items.push(value_item("True", "True", None, 0));
            items.push(value_item("False", "False", None, 1));
            if key == "ieee754" {
                items.push(value_item("r\"^(...)$\"", "r\"^()$\"", Some("A regex of operator names".into()), 2));
            }
        }
        (Position::Value(key), ["hardware"]) => match key.as_str() {
            "memory_model" => {
                for (i, m) in s.memory_models.iter().enumerate() {
                    items.push(string_value(&ctx, m, i, &replace));
                }
            }
            "device_memory_gb" | "system_memory_gb" => items.push(string_value(&ctx, "auto", 0, &replace)),
            "oom_recoverable" => {
                items.push(value_item("True", "True", None, 0));
                items.push(value_item("False", "False", None, 1));
            }
            _ => {}
        },
        (Position::Value(_), ["supported_dtypes" | "supported_container_formats"]) => {
            items.push(value_item("True", "True", None, 0));
            items.push(value_item("False", "False", None, 1));
        }
        (Position::Value(key), []) => match key.as_str() {
            "semantic_level" => {
                for level in s.semantic_levels.min..=s.semantic_levels.max {
                    items.push(value_item(
                        &level.to_string(),
                        &level.to_string(),
                        s.level_description(level).map(str::to_string),
                        level as usize,
                    ));
                }
            }
            "device_name" => {
                for (i, d) in ["cpu", "cuda", "mps", "xpu", "auto"].iter().enumerate() {
                    items.push(string_value(&ctx, d, i, &replace));
                }
            }
            "manifest_version" => items.push(value_item("1", "1", None, 0)),
            "show_traceback" => {
                items.push(value_item("True", "True", None, 0));
                items.push(value_item("False", "False", None, 1));
            }
            "backend_import" => items.push(value_item("None", "None", None, 0)),
            _ => {}
        },
        (Position::ListItem(key), []) if key == "skip_ops" => {
            if let Some(ops) = operators {
                for (i, op) in ops.operator_names().iter().enumerate() {
                    items.push(CompletionItem {
                        label: op.clone(),
                        detail: Some("operator".into()),
                        documentation: None,
                        insert_text: match ctx.in_string {
                            Some(_) => op.clone(),
                            None => format!("{q}{op}{q}", q = ctx.quote),
                        },
                        replace: replace.clone(),
                        kind: ItemKind::Operator,
                        sort: format!("{i:05}"),
                    });
                }
            }
        }
        _ => {}
    }
    // Inside a regex string value: operator names too.
    if let (Some(_), Position::Value(_), ["supported_dtypes"] | ["capabilities"]) =
        (&ctx.in_string, &ctx.position, path.as_slice())
    {
        let is_regex_slot =
            path == ["supported_dtypes"] || matches!(&ctx.position, Position::Value(k) if k == "ieee754");
        if is_regex_slot {
            items.clear();
            if let Some(ops) = operators {
                let word = regex_word_start(text, replace.start, offset);
                for (i, op) in ops.operator_names().iter().enumerate() {
                    items.push(CompletionItem {
                        label: op.clone(),
                        detail: Some("operator".into()),
                        documentation: None,
                        insert_text: op.replace('.', "\\."),
                        replace: word..offset,
                        kind: ItemKind::Operator,
                        sort: format!("{i:05}"),
                    });
                }
            }
        }
    }
    items
}

/// Start of the operator name being typed inside a regex (after `|`, `(`, `^`).
fn regex_word_start(text: &str, content_start: usize, offset: usize) -> usize {
    text[content_start..offset]
        .rfind(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '.' || c == '\\'))
        .map(|i| content_start + i + 1)
        .unwrap_or(content_start)
}

fn string_value(ctx: &Context, value: &str, sort: usize, replace: &Span) -> CompletionItem {
    CompletionItem {
        label: format!("\"{value}\""),
        detail: None,
        documentation: None,
        insert_text: match ctx.in_string {
            Some(_) => value.to_string(),
            None => format!("{q}{value}{q}", q = ctx.quote),
        },
        replace: replace.clone(),
        kind: ItemKind::Value,
        sort: format!("{sort:03}"),
    }
}
