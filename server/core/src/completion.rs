//! Completion, context-aware and tolerant of half-typed text.
//!
//! The context comes from the tokens ([`crate::lexer`]) from the `manifest = ` (or
//! `manifest["key"] = `) assignment before the cursor up to the cursor, tracking open
//! brackets, the current key of each dict, and whether the cursor is at a key, a value or a
//! list item, and inside a string. This works where the syntax tree is broken by the very
//! text being typed.

use crate::analysis::Analysis;
use crate::key_docs;
use crate::lexer::{lex, Token, TokenKind};
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

/// The items for the cursor at `offset`, by where it is (see [`context`]).
pub fn complete(analysis: &Analysis, offset: usize, operators: Option<&dyn OperatorSource>) -> Vec<CompletionItem> {
    let text = analysis.text.as_str();
    let Some(ctx) = context(text, offset) else { return Vec::new() };
    // Between the opening quotes of `"""...`: not inside the string yet, and no word.
    if ctx.in_string.is_some_and(|(_, content_start)| offset < content_start) {
        return Vec::new();
    }
    let replace = match ctx.in_string {
        Some((_, content_start)) => content_start..offset,
        None => ctx.word_start..offset,
    };
    let path: Vec<&str> = ctx.path.iter().map(String::as_str).collect();
    if is_regex_string(&ctx, &path) {
        let word = regex_word_start(text, replace.start, offset);
        return regex_operators(operators, word..offset);
    }
    let items = Items { ctx: &ctx, replace };
    match (&ctx.position, path.as_slice()) {
        (Position::Key, []) => items.top_level_keys(),
        (Position::Key, ["capabilities"]) => items.capability_keys(),
        (Position::Key, ["hardware"]) => items.documented_keys(key_docs::HARDWARE),
        (Position::Key, ["resource_limits"]) => items.documented_keys(key_docs::RESOURCE_LIMITS),
        (Position::Key, ["supported_container_formats" | "custom_container_decoders"]) => items.container_formats(),
        (Position::Key, ["supported_dtypes"]) => items.dtype_keys(),
        (Position::Key, ["tolerance_overrides"]) => items.tolerance_keys(),
        (Position::Value(key), ["capabilities"]) => items.capability_values(key),
        (Position::Value(key), ["hardware"]) => items.hardware_values(key),
        (Position::Value(_), ["supported_dtypes" | "supported_container_formats"]) => items.booleans(),
        (Position::Value(key), []) => items.top_level_values(key),
        (Position::ListItem(key), []) if key == "skip_ops" => items.skip_ops(operators),
        _ => Vec::new(),
    }
}

/// Inside a regex string value (a dtype's operator regex, `ieee754`): operator names only.
fn is_regex_string(ctx: &Context, path: &[&str]) -> bool {
    let Position::Value(key) = &ctx.position else { return false };
    ctx.in_string.is_some() && (path == ["supported_dtypes"] || path == ["capabilities"] && key == "ieee754")
}

/// Operator names escaped for a regex, replacing the name being typed (`word`).
fn regex_operators(operators: Option<&dyn OperatorSource>, word: Span) -> Vec<CompletionItem> {
    let Some(ops) = operators else { return Vec::new() };
    let names = ops.operator_names();
    let item = |(i, op): (usize, &String)| CompletionItem {
        label: op.clone(),
        detail: Some("operator".into()),
        documentation: None,
        insert_text: op.replace('.', "\\."),
        replace: word.clone(),
        kind: ItemKind::Operator,
        sort: format!("{i:05}"),
    };
    names.iter().enumerate().map(item).collect()
}

/// Start of the operator name being typed inside a regex (after `|`, `(`, `^`).
/// A cursor inside the opening quotes (before the content) has no word: it starts there.
fn regex_word_start(text: &str, content_start: usize, offset: usize) -> usize {
    let Some(before) = text.get(content_start..offset) else { return offset };
    before
        .rfind(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '.' || c == '\\'))
        .map(|i| content_start + i + 1)
        .unwrap_or(content_start)
}

/// The items of one context; each replaces `replace`, quoted as the file quotes keys
/// unless the cursor is already inside a string.
struct Items<'c> {
    ctx: &'c Context,
    replace: Span,
}

impl Items<'_> {
    fn item(&self, label: &str, insert_text: String, kind: ItemKind, sort: String) -> CompletionItem {
        CompletionItem {
            label: label.to_string(),
            detail: None,
            documentation: None,
            insert_text,
            replace: self.replace.clone(),
            kind,
            sort,
        }
    }

    /// `text` as written at the cursor: as is inside a string, else quoted.
    fn quoted(&self, text: &str) -> String {
        match self.ctx.in_string {
            Some(_) => text.to_string(),
            None => format!("{q}{text}{q}", q = self.ctx.quote),
        }
    }

    /// Not yet a key of the innermost dict.
    fn fresh(&self, key: &str) -> bool {
        !self.ctx.existing_keys.iter().any(|k| k == key)
    }

    fn key(&self, name: &str, detail: Option<&str>, doc: Option<&str>, sort: usize) -> CompletionItem {
        let insert_text = match self.ctx.in_string {
            Some(_) => name.to_string(),
            None => format!("{}: ", self.quoted(name)),
        };
        let mut item = self.item(name, insert_text, ItemKind::Key, format!("{sort:03}"));
        item.detail = detail.map(str::to_string);
        item.documentation = doc.map(str::to_string);
        item
    }

    fn value(&self, label: &str, doc: Option<String>, sort: usize) -> CompletionItem {
        let mut item = self.item(label, label.to_string(), ItemKind::Value, format!("{sort:03}"));
        item.documentation = doc;
        item
    }

    fn string_value(&self, value: &str, sort: usize) -> CompletionItem {
        self.item(&format!("\"{value}\""), self.quoted(value), ItemKind::Value, format!("{sort:03}"))
    }

    fn booleans(&self) -> Vec<CompletionItem> {
        vec![self.value("True", None, 0), self.value("False", None, 1)]
    }

    /// Top-level keys, the required ones first.
    fn top_level_keys(&self) -> Vec<CompletionItem> {
        let required = &schema().required_top_level_keys;
        let keys = key_docs::TOP_LEVEL.iter().enumerate().filter(|(_, (key, _, _))| self.fresh(key));
        keys.map(|(i, (key, shape, doc))| {
            let sort = if required.iter().any(|r| r == key) { i } else { 100 + i };
            self.key(key, Some(shape), Some(doc), sort)
        })
        .collect()
    }

    fn capability_keys(&self) -> Vec<CompletionItem> {
        let caps = key_docs::CAPABILITIES.iter().enumerate().filter(|(_, (cap, _))| self.fresh(cap));
        caps.map(|(i, (cap, doc))| {
            let detail = if *cap == "ieee754" { "bool | regex | list[regex]" } else { "bool" };
            self.key(cap, Some(detail), Some(doc), i)
        })
        .collect()
    }

    /// Keys of a section documented in `key_docs` (`hardware`, `resource_limits`).
    fn documented_keys(&self, docs: &[(&str, &str)]) -> Vec<CompletionItem> {
        let keys = docs.iter().enumerate().filter(|(_, (key, _))| self.fresh(key));
        keys.map(|(i, (key, doc))| self.key(key, None, Some(doc), i)).collect()
    }

    fn container_formats(&self) -> Vec<CompletionItem> {
        let formats = schema().container_formats.iter().enumerate().filter(|(_, f)| self.fresh(f));
        formats.map(|(i, f)| self.key(f, Some("container format"), None, i)).collect()
    }

    /// Dtype keys: `torch.float16`, or the exact canonical string inside a string; the
    /// common dtypes first.
    fn dtype_keys(&self) -> Vec<CompletionItem> {
        let common = ["float32", "float16", "bfloat16", "float64", "int64", "int32", "bool"];
        let mut seen = Vec::new();
        let mut items = Vec::new();
        for d in &schema().dtypes {
            if seen.contains(&d.canonical) {
                continue;
            }
            seen.push(d.canonical.clone());
            if !self.fresh(&d.canonical) {
                continue;
            }
            let attr = d.canonical.trim_start_matches("torch.");
            let (label, insert) = match self.ctx.in_string {
                Some(_) => (d.canonical.clone(), d.canonical.clone()),
                None => (format!("torch.{attr}"), format!("torch.{attr}: ")),
            };
            let sort = common.iter().position(|c| *c == attr).unwrap_or(50 + seen.len());
            let mut item = self.item(&label, insert, ItemKind::Dtype, format!("{sort:03}"));
            item.detail = Some("dtype".into());
            items.push(item);
        }
        items
    }

    /// `category:dtype` keys with their default tolerances; outside a string the item
    /// inserts the `rtol`/`atol` dict too.
    fn tolerance_keys(&self) -> Vec<CompletionItem> {
        let mut items = Vec::new();
        for (i, t) in schema().tolerance_defaults.iter().enumerate() {
            let key = format!("{}:{}", t.category, t.dtype);
            if !self.fresh(&key) {
                continue;
            }
            let repr = crate::value::float_repr;
            let doc = format!(
                "Default golden rtol/atol {}/{}, usable {}/{}",
                repr(t.golden[0]),
                repr(t.golden[1]),
                repr(t.usable[0]),
                repr(t.usable[1])
            );
            let mut item = self.key(&key, Some("tolerance category:dtype"), Some(&doc), i);
            if self.ctx.in_string.is_none() {
                item.insert_text = format!("{}: {{\"rtol\": , \"atol\": }}", self.quoted(&key));
            }
            items.push(item);
        }
        items
    }

    fn capability_values(&self, key: &str) -> Vec<CompletionItem> {
        let mut items = self.booleans();
        if key == "ieee754" {
            let mut regex = self.value("r\"^(...)$\"", Some("A regex of operator names".into()), 2);
            regex.insert_text = "r\"^()$\"".into();
            items.push(regex);
        }
        items
    }

    fn hardware_values(&self, key: &str) -> Vec<CompletionItem> {
        match key {
            "memory_model" => schema().memory_models.iter().enumerate().map(|(i, m)| self.string_value(m, i)).collect(),
            "device_memory_gb" | "system_memory_gb" => vec![self.string_value("auto", 0)],
            "oom_recoverable" => self.booleans(),
            _ => Vec::new(),
        }
    }

    fn top_level_values(&self, key: &str) -> Vec<CompletionItem> {
        let s = schema();
        match key {
            "semantic_level" => (s.semantic_levels.min..=s.semantic_levels.max)
                .map(|level| {
                    let doc = s.level_description(level).map(str::to_string);
                    self.value(&level.to_string(), doc, level as usize)
                })
                .collect(),
            "device_name" => {
                let devices = ["cpu", "cuda", "mps", "xpu", "auto"];
                devices.iter().enumerate().map(|(i, d)| self.string_value(d, i)).collect()
            }
            "manifest_version" => vec![self.value("1", None, 0)],
            "show_traceback" => self.booleans(),
            "backend_import" => vec![self.value("None", None, 0)],
            _ => Vec::new(),
        }
    }

    /// Operator names from the inventory, as `skip_ops` items.
    fn skip_ops(&self, operators: Option<&dyn OperatorSource>) -> Vec<CompletionItem> {
        let Some(ops) = operators else { return Vec::new() };
        let names = ops.operator_names();
        let item = |(i, op): (usize, &String)| {
            let mut item = self.item(op, self.quoted(op), ItemKind::Operator, format!("{i:05}"));
            item.detail = Some("operator".into());
            item
        };
        names.iter().enumerate().map(item).collect()
    }
}
