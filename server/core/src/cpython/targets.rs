//! CPython 3.11's messages for an `=` whose left side cannot be assigned to: `a+b = 1`
//! (`cannot assign to expression here. Maybe you meant '==' instead of '='?`), `x = f() = 1`
//! (`cannot assign to function call`), `[x = 1]` (`invalid syntax. Maybe you meant '==' or
//! ':=' instead of '='?`).
//!
//! They mirror the grammar's `invalid_named_expression` (an element `bitwise_or '='
//! bitwise_or` not followed by another `=`) and `invalid_assignment` (`(star_targets '=')*
//! star_expressions '='`, whose first invalid target `_PyPegen_get_invalid_target` names),
//! which CPython's second parser pass tries only where an assignment statement failed. A
//! small expression reader over the parser's tokens ([`Token`]) finds the
//! extents and the AST kind `_PyPegen_get_expr_name` names.

use super::tokens::{is_keyword, matching_openers, tokenize, Kind, Token};

/// The message for a target that is not a name in `[... = ...]` / `target = value`.
const HERE: &str = " here. Maybe you meant '==' instead of '='?";
pub(crate) const NAME_EQUALS: &str = "invalid syntax. Maybe you meant '==' or ':=' instead of '='?";

/// Deeper bracket nesting than this is not read (no message): keeps the reader's recursion
/// shallow on any input.
const MAX_NESTING: usize = 64;

/// A message, and the token whose line CPython reports.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct TargetError {
    pub message: String,
    pub at: usize,
}

/// What the reader found: where the expression ends (token index), its kind as
/// `_PyPegen_get_expr_name` names it, the token its node starts at, and for a tuple or list
/// display the token range of its elements.
#[derive(Clone, Copy, Debug)]
struct Expr {
    end: usize,
    name: &'static str,
    at: usize,
    elements: Option<(usize, usize)>,
}

impl Expr {
    fn is_target(&self) -> bool {
        matches!(self.name, "name" | "attribute" | "subscript")
    }
}

struct Reader<'a, 't> {
    tokens: &'a [Token<'t>],
    /// For each opening bracket, its closer.
    closers: &'a [Option<usize>],
    /// Tokens at and after this index are not read (the statement's end).
    limit: usize,
}

const COMPARISONS: &[&str] = &["==", "!=", "<", ">", "<=", ">="];
const BINARY: &[&str] = &["+", "-", "*", "/", "//", "%", "@", "<<", ">>", "&", "|", "^"];

impl<'t> Reader<'_, 't> {
    fn tok(&self, i: usize) -> Option<&Token<'t>> {
        self.tokens.get(i).filter(|_| i < self.limit)
    }

    fn is(&self, i: usize, op: &str) -> bool {
        self.tok(i).is_some_and(|t| t.is(op))
    }

    fn word(&self, i: usize, word: &str) -> bool {
        self.tok(i).is_some_and(|t| t.kind == Kind::Name && t.text == word)
    }

    /// Whether the bracket group `open..=close` has `word` or `op` at its own level.
    fn at_top(&self, open: usize, close: usize, text: &str) -> bool {
        let depth = self.tokens[open].depth + 1;
        self.tokens[open + 1..close].iter().any(|t| t.depth == depth && t.text == text && t.kind != Kind::String)
    }

    fn atom(&self, i: usize, nesting: usize) -> Option<Expr> {
        let t = self.tok(i)?;
        let simple = |name| Some(Expr { end: i + 1, name, at: i, elements: None });
        match t.kind {
            Kind::Name => match t.text {
                "True" | "False" | "None" => simple(match t.text {
                    "True" => "True",
                    "False" => "False",
                    _ => "None",
                }),
                text if is_keyword(text) => None,
                _ => simple("name"),
            },
            Kind::Number => simple("literal"),
            Kind::String => {
                let mut end = i;
                let mut f_string = false;
                while let Some(s) = self.tok(end).filter(|s| s.kind == Kind::String) {
                    let prefix = &s.text[..s.text.find(['\'', '"']).unwrap_or(0)];
                    f_string |= prefix.contains(['f', 'F']);
                    end += 1;
                }
                Some(Expr {
                    end,
                    name: if f_string { "f-string expression" } else { "literal" },
                    at: i,
                    elements: None,
                })
            }
            Kind::Op if t.text == "..." => simple("ellipsis"),
            Kind::Op if matches!(t.text, "(" | "[" | "{") => self.display(i, nesting),
            Kind::Op => None,
        }
    }

    /// A bracket group: a tuple, list, dict, set, comprehension, or a parenthesized
    /// expression (whose node is the expression inside).
    fn display(&self, open: usize, nesting: usize) -> Option<Expr> {
        let close = self.closers.get(open).copied().flatten().filter(|&c| c < self.limit)?;
        let end = close + 1;
        let empty = close == open + 1;
        let comprehension = !empty && self.at_top(open, close, "for");
        let comma = self.at_top(open, close, ",");
        let expr = |name, elements| Some(Expr { end, name, at: open, elements });
        match self.tokens[open].text {
            "(" if empty || comma => expr("tuple", Some((open + 1, close))),
            "(" if comprehension => expr("generator expression", None),
            "(" => {
                if nesting >= MAX_NESTING {
                    return None;
                }
                let inner = if self.word(open + 1, "yield") {
                    Expr { end: close, name: "yield expression", at: open + 1, elements: None }
                } else {
                    self.star_named_expression(open + 1, nesting + 1)?
                };
                (inner.end == close).then_some(Expr { end, ..inner })
            }
            "[" if comprehension => expr("list comprehension", None),
            "[" => expr("list", Some((open + 1, close))),
            _ => {
                let dict = empty || self.is(open + 1, "**") || self.at_top(open, close, ":");
                match (dict, comprehension) {
                    (true, true) => expr("dict comprehension", None),
                    (true, false) => expr("dict literal", None),
                    (false, true) => expr("set comprehension", None),
                    (false, false) => expr("set display", None),
                }
            }
        }
    }

    /// `primary`: an atom and its trailers (`.name`, calls, subscripts), or `await` one.
    fn primary(&self, i: usize, nesting: usize) -> Option<Expr> {
        if self.word(i, "await") {
            let inner = self.primary(i + 1, nesting)?;
            return Some(Expr { name: "await expression", at: i, elements: None, ..inner });
        }
        let mut e = self.atom(i, nesting)?;
        loop {
            let k = e.end;
            if self.is(k, ".") && self.tok(k + 1).is_some_and(|t| t.kind == Kind::Name && !is_keyword(t.text)) {
                e = Expr { end: k + 2, name: "attribute", at: e.at, elements: None };
            } else if self.is(k, "(") || self.is(k, "[") {
                let close = self.closers.get(k).copied().flatten().filter(|&c| c < self.limit)?;
                let name = if self.is(k, "(") { "function call" } else { "subscript" };
                e = Expr { end: close + 1, name, at: e.at, elements: None };
            } else {
                return Some(e);
            }
        }
    }

    /// `bitwise_or` and everything that binds tighter: unary `-`, `+`, `~`, `**` and the
    /// binary operators.
    fn bitwise_or(&self, i: usize, nesting: usize) -> Option<Expr> {
        let mut e = self.unary(i, nesting)?;
        while self.tok(e.end).is_some_and(|t| t.kind == Kind::Op && (BINARY.contains(&t.text) || t.text == "**")) {
            let right = self.unary(e.end + 1, nesting)?;
            e = Expr { end: right.end, name: "expression", at: e.at, elements: None };
        }
        Some(e)
    }

    fn unary(&self, i: usize, nesting: usize) -> Option<Expr> {
        if self.is(i, "-") || self.is(i, "+") || self.is(i, "~") {
            let inner = self.unary(i + 1, nesting)?;
            return Some(Expr { end: inner.end, name: "expression", at: i, elements: None });
        }
        self.primary(i, nesting)
    }

    fn comparison(&self, i: usize, nesting: usize) -> Option<Expr> {
        let mut e = self.bitwise_or(i, nesting)?;
        loop {
            let k = e.end;
            let op_len = if self.tok(k).is_some_and(|t| t.kind == Kind::Op && COMPARISONS.contains(&t.text))
                || self.word(k, "in")
            {
                1
            } else if self.word(k, "is") {
                1 + usize::from(self.word(k + 1, "not"))
            } else if self.word(k, "not") && self.word(k + 1, "in") {
                2
            } else {
                return Some(e);
            };
            let right = self.bitwise_or(k + op_len, nesting)?;
            e = Expr { end: right.end, name: "comparison", at: e.at, elements: None };
        }
    }

    fn inversion(&self, i: usize, nesting: usize) -> Option<Expr> {
        if self.word(i, "not") {
            let inner = self.inversion(i + 1, nesting)?;
            return Some(Expr { end: inner.end, name: "expression", at: i, elements: None });
        }
        self.comparison(i, nesting)
    }

    fn disjunction(&self, i: usize, nesting: usize) -> Option<Expr> {
        let mut e = self.inversion(i, nesting)?;
        while self.word(e.end, "and") || self.word(e.end, "or") {
            let right = self.inversion(e.end + 1, nesting)?;
            e = Expr { end: right.end, name: "expression", at: e.at, elements: None };
        }
        Some(e)
    }

    fn expression(&self, i: usize, nesting: usize) -> Option<Expr> {
        if self.word(i, "lambda") {
            // Parameters up to the ':' at the lambda's own level, then the body.
            let depth = self.tok(i)?.depth;
            let colon = (i + 1..self.limit).find(|&k| self.tokens[k].depth == depth && self.tokens[k].is(":"))?;
            let body = self.expression(colon + 1, nesting)?;
            return Some(Expr { end: body.end, name: "lambda", at: i, elements: None });
        }
        let e = self.disjunction(i, nesting)?;
        if !self.word(e.end, "if") {
            return Some(e);
        }
        let condition = self.disjunction(e.end + 1, nesting)?;
        if !self.word(condition.end, "else") {
            return None;
        }
        let other = self.expression(condition.end + 1, nesting)?;
        Some(Expr { end: other.end, name: "conditional expression", at: e.at, elements: None })
    }

    fn star_named_expression(&self, i: usize, nesting: usize) -> Option<Expr> {
        if self.is(i, "*") {
            let inner = self.bitwise_or(i + 1, nesting)?;
            return Some(Expr { end: inner.end, name: "starred", at: i, elements: None });
        }
        if self.tok(i).is_some_and(|t| t.kind == Kind::Name && !is_keyword(t.text)) && self.is(i + 1, ":=") {
            let value = self.expression(i + 2, nesting)?;
            return Some(Expr { end: value.end, name: "named expression", at: i, elements: None });
        }
        self.expression(i, nesting)
    }

    /// `star_expressions` from `i`: one expression, or a tuple of them when commas follow.
    fn star_expressions(&self, i: usize) -> Option<Expr> {
        let first = self.star_named_expression(i, 0)?;
        let mut end = first.end;
        let mut tuple = false;
        while self.is(end, ",") {
            tuple = true;
            match self.star_named_expression(end + 1, 0) {
                Some(next) => end = next.end,
                None => {
                    end += 1;
                    break;
                }
            }
        }
        Some(if tuple { Expr { end, name: "tuple", at: i, elements: Some((i, end)) } } else { first })
    }

    /// The elements of `start..end` split at commas of its own level.
    fn elements(&self, start: usize, end: usize) -> Vec<(usize, usize)> {
        let Some(depth) = self.tokens.get(start).map(|t| t.depth) else { return Vec::new() };
        let mut out = Vec::new();
        let mut from = start;
        for k in start..end {
            if self.tokens[k].depth == depth && self.tokens[k].is(",") {
                out.push((from, k));
                from = k + 1;
            }
        }
        if from < end {
            out.push((from, end));
        }
        out
    }

    /// `_PyPegen_get_invalid_target` for the assignment targets `start..end`: the first
    /// part that is not a name, attribute or subscript (inside tuples, lists and `*`), as
    /// (token, kind). `Err` where the reader cannot tell.
    fn invalid_target(&self, start: usize, end: usize, nesting: usize) -> Result<Option<(usize, &'static str)>, ()> {
        self.invalid_targets(start, end, nesting, false)
    }

    /// [`Reader::invalid_target`] for assignment targets, or for `del` targets
    /// (`DEL_TARGETS`, where a starred expression is itself invalid).
    fn invalid_targets(
        &self,
        start: usize,
        end: usize,
        nesting: usize,
        delete: bool,
    ) -> Result<Option<(usize, &'static str)>, ()> {
        if nesting >= MAX_NESTING {
            return Err(());
        }
        for (from, to) in self.elements(start, end) {
            if delete && self.is(from, "*") {
                return Ok(Some((from, "starred")));
            }
            let from = if self.is(from, "*") { from + 1 } else { from };
            let e = self.star_named_expression(from, nesting).filter(|e| e.end == to).ok_or(())?;
            if e.is_target() {
                continue;
            }
            if let Some((a, b)) = e.elements {
                match self.invalid_targets(a, b, nesting + 1, delete)? {
                    Some(found) => return Ok(Some(found)),
                    None => continue,
                }
            }
            let e = if e.name == "starred" { self.bitwise_or(e.at + 1, nesting).ok_or(())? } else { e };
            return Ok(Some((e.at, e.name)));
        }
        Ok(None)
    }

    /// Whether `start..end` are valid assignment targets (`star_targets`).
    fn valid_targets(&self, start: usize, end: usize) -> bool {
        start < end && self.invalid_target(start, end, 0) == Ok(None)
    }

    /// `invalid_named_expression` for the element `start..eq` followed by `=` at `eq`:
    /// the message and where the parser has read to when it raises it.
    fn named_expression_error(&self, start: usize, eq: usize) -> Option<(TargetError, usize)> {
        let value = self.bitwise_or(eq + 1, 0)?;
        if self.is(value.end, "=") || self.is(value.end, ":=") {
            return None;
        }
        let t = self.tok(start)?;
        if eq == start + 1 && t.kind == Kind::Name && !is_keyword(t.text) {
            return Some((TargetError { message: NAME_EQUALS.into(), at: start }, value.end));
        }
        // `!(list|tuple|genexp|'True'|'None'|'False')` before the target.
        let excluded = t.kind == Kind::Name && matches!(t.text, "True" | "None" | "False")
            || matches!(t.text, "(" | "[")
                && t.kind == Kind::Op
                && self.display(start, 0).is_some_and(|d| {
                    d.elements.is_some() && (d.name == "tuple" || d.name == "list") || d.name == "generator expression"
                });
        let target = self.bitwise_or(start, 0).filter(|e| e.end == eq && !excluded)?;
        let message = format!("cannot assign to {}{HERE}", target.name);
        Some((TargetError { message, at: target.at }, value.end))
    }
}

/// For each opening bracket, the index of its closer.
fn closers(tokens: &[Token], openers: &[Option<usize>]) -> Vec<Option<usize>> {
    let mut out = vec![None; tokens.len()];
    for (close, open) in openers.iter().enumerate() {
        if let Some(open) = *open {
            out[open] = Some(close);
        }
    }
    out
}

/// A precomputed view for many questions about one token list.
pub(crate) struct Targets<'a, 't> {
    tokens: &'a [Token<'t>],
    closers: Vec<Option<usize>>,
}

impl<'a, 't> Targets<'a, 't> {
    pub(crate) fn new(tokens: &'a [Token<'t>], openers: &[Option<usize>]) -> Self {
        Targets { tokens, closers: closers(tokens, openers) }
    }

    fn reader(&self, limit: usize) -> Reader<'_, 't> {
        Reader { tokens: self.tokens, closers: &self.closers, limit }
    }

    /// The element `start..eq` of a list, set, tuple or dict, followed by `=` at `eq`
    /// (`invalid_named_expression`), read to `limit`; `None` where CPython says plain
    /// `invalid syntax`.
    pub(crate) fn element_error(&self, start: usize, eq: usize, limit: usize) -> Option<TargetError> {
        self.reader(limit).named_expression_error(start, eq).map(|(error, _)| error)
    }

    /// Whether the tokens `start..end` are one `expression`.
    pub(crate) fn is_expression(&self, start: usize, end: usize) -> bool {
        self.reader(end).expression(start, 0).is_some_and(|e| e.end == end)
    }

    /// `invalid_named_expression`'s first rule for the element `start..walrus` before a
    /// `:=` (`{"a":= 1}`): `cannot use assignment expressions with literal`, unless a name.
    pub(crate) fn walrus_error(&self, start: usize, walrus: usize, limit: usize) -> Option<TargetError> {
        let e = self.reader(limit).expression(start, 0).filter(|e| e.end == walrus && e.name != "name")?;
        Some(TargetError { message: format!("cannot use assignment expressions with {}", e.name), at: e.at })
    }

    /// `invalid_del_stmt` for the targets `start..limit` of a `del` statement: `cannot delete
    /// expression` (and the like) at its first invalid target, and the token CPython's parser
    /// has read to (the statement's end). `None` where the targets are valid or not read.
    pub(crate) fn del_error(&self, start: usize, limit: usize) -> Option<(TargetError, usize)> {
        let r = self.reader(limit);
        if r.star_expressions(start).is_none_or(|e| e.end != limit) {
            return None;
        }
        let (at, name) = r.invalid_targets(start, limit, 0, true).ok()??;
        Some((TargetError { message: format!("cannot delete {name}"), at }, limit))
    }

    /// The statement `start..limit`, whose first `=` at its own level is `eq`, as the
    /// second pass reads it (`assignment` failing, then `invalid_assignment`): the error
    /// and the token CPython's parser has read to when it raises it.
    pub(crate) fn statement_error(&self, start: usize, limit: usize) -> Option<(TargetError, usize)> {
        let r = self.reader(limit);
        let first = r.tok(start)?;
        let expression_start = !(first.kind == Kind::Name
            && is_keyword(first.text)
            && !matches!(first.text, "True" | "False" | "None" | "not" | "lambda" | "await"));
        let depth = first.depth;
        let own_level = |k: usize| self.tokens[k].depth == depth;
        // An annotation or augmented assignment is another rule's.
        let other_rule = (start..limit).find(|&k| {
            own_level(k)
                && self.tokens[k].kind == Kind::Op
                && (self.tokens[k].text.ends_with('=') || self.tokens[k].is(":"))
        });
        let eq = other_rule.filter(|&k| self.tokens[k].is("="))?;
        if first.is("@") {
            // A decorator: `'@' named_expression NEWLINE`.
            return r.named_expression_error(start + 1, eq);
        }
        if !expression_start {
            return None;
        }
        let equals: Vec<usize> = (eq..limit).filter(|&k| own_level(k) && self.tokens[k].is("=")).collect();
        let mut segments = Vec::with_capacity(equals.len());
        let mut from = start;
        for &k in &equals {
            segments.push((from, k));
            from = k + 1;
        }
        // `(star_targets '=')+ star_expressions !'='`: targets as long as they are valid, then
        // a value that must not run into another '='.
        let targets = segments.iter().take_while(|&&(a, b)| r.valid_targets(a, b)).count();
        if targets > 0 {
            let value_start = segments.get(targets).map(|s| s.0).unwrap_or(from);
            if r.star_expressions(value_start).is_some_and(|v| !r.is(v.end, "=")) {
                return None;
            }
        }
        // `invalid_assignment`, first: its elements as `star_named_expression`s, the one
        // before '=' through `invalid_named_expression`.
        let (s0, e0) = segments[0];
        let elements = r.elements(s0, e0);
        let leading_parse = elements[..elements.len().saturating_sub(1)]
            .iter()
            .all(|&(a, b)| r.star_named_expression(a, 0).is_some_and(|e| e.end == b));
        let mut read_to = eq;
        if let Some(&(last, _)) = elements.last().filter(|&&(last, _)| leading_parse && !r.is(last, "*")) {
            if let Some((error, read)) = r.named_expression_error(last, e0) {
                return Some((error, read));
            }
            read_to = r.bitwise_or(eq + 1, 0).map(|v| v.end).unwrap_or(eq);
        }
        // Then `(star_targets '=')* star_expressions '='`: the first invalid target.
        let &(a, b) = segments.get(targets)?;
        if r.star_expressions(a).is_none_or(|v| v.end != b) {
            return None;
        }
        let (at, name) = r.invalid_target(a, b, 0).ok()??;
        Some((TargetError { message: format!("cannot assign to {name}"), at }, read_to.max(b)))
    }
}

/// Stars that CPython's grammar reads as a starred expression on a statement's own level
/// (`x = *a`, `*a`, `x += *a`, `for x in *a:`, `*a = 1`), which tree-sitter may refuse.
pub(crate) struct StatementStars {
    /// The text with those `*` replaced: CPython parses it the same way.
    pub(crate) replaced: String,
    /// The compiler's error for the first lone one (not in a tuple): message and line.
    pub(crate) error: Option<(&'static str, usize)>,
}

const TARGET_STAR: &str = "starred assignment target must be in a list or tuple";

pub(crate) fn statement_stars(text: &str, tokens: &[Token]) -> Option<StatementStars> {
    let openers = matching_openers(tokens);
    let targets = Targets::new(tokens, &openers);
    let mut blank = Vec::new();
    let mut error = None;
    let mut statement_start = 0;
    for (k, t) in tokens.iter().enumerate() {
        let prev = k.checked_sub(1).map(|p| &tokens[p]);
        let starts = t.logical_start || prev.is_some_and(|p| p.is(";") && p.depth == 0);
        if starts {
            statement_start = k;
        }
        if !t.is("*") || t.depth != 0 {
            continue;
        }
        let for_statement = tokens[statement_start].kind == Kind::Name && tokens[statement_start].text == "for";
        let assigned = |p: &Token| {
            p.depth == 0
                && p.kind == Kind::Op
                && p.text.ends_with('=')
                && !matches!(p.text, "==" | "<=" | ">=" | "!=" | ":=")
        };
        let iterable = |p: &Token| for_statement && p.kind == Kind::Name && p.text == "in";
        if !(starts || prev.is_some_and(|p| assigned(p) || iterable(p))) {
            continue;
        }
        let end = (k + 1..tokens.len())
            .find(|&j| tokens[j].logical_start || tokens[j].is(";") && tokens[j].depth == 0)
            .unwrap_or(tokens.len());
        let r = targets.reader(end);
        let Some(operand) = r.bitwise_or(k + 1, 0) else { continue };
        let message = match r.tok(operand.end) {
            None => Some("can't use starred expression here"),
            Some(n) if n.is(":") && for_statement => Some("can't use starred expression here"),
            Some(n) if n.is("=") => Some(TARGET_STAR),
            // `*a, b = x`: a tuple of targets, where the star is the target's own.
            Some(n) if n.is(",") && (operand.end..end).any(|j| tokens[j].depth == 0 && tokens[j].is("=")) => continue,
            Some(n) if n.is(",") => None,
            Some(_) => continue,
        };
        // A unary '+' reads the same and keeps the offsets; a target's star goes (but not at
        // a line's start, which would indent it: tree-sitter reads `*a = 1` there).
        let target = message == Some(TARGET_STAR);
        if !(target && starts) {
            blank.push((t.start, if target { b' ' } else { b'+' }));
        }
        if error.is_none() {
            error = message.map(|m| (m, t.line));
        }
    }
    if blank.is_empty() && error.is_none() {
        return None;
    }
    let mut bytes = text.as_bytes().to_vec();
    for (at, with) in blank {
        bytes[at] = with;
    }
    Some(StatementStars { replaced: String::from_utf8(bytes).ok()?, error })
}

/// The bytes of the expression CPython's second pass reads after the first operand that
/// another directly follows, at or after byte `from` on that logical line:
/// `invalid_expression`'s `disjunction expression_without_invalid` (the comma hint, or
/// nothing on a statement's own level). An atom error in it (a huge int) is raised there.
pub(crate) fn juxtaposed_expression(text: &str, from: usize) -> Option<std::ops::Range<usize>> {
    let tokens = tokenize(text)?;
    let openers = matching_openers(&tokens);
    let targets = Targets::new(&tokens, &openers);
    let first = tokens.iter().position(|t| t.end() > from)?;
    let end = (first + 1..tokens.len()).find(|&j| tokens[j].logical_start).unwrap_or(tokens.len());
    let k = (first.max(1)..end).find(|&k| {
        let (prev, t) = (&tokens[k - 1], &tokens[k]);
        !t.logical_start
            && prev.ends_operand()
            && t.starts_expression()
            && !(prev.kind == Kind::String && t.kind == Kind::String)
    })?;
    let e = targets.reader(end).expression(k, 0)?;
    Some(tokens[k].start..tokens[e.end - 1].end())
}

/// Where the statement starting at token `start` ends: the next logical line, or a `;` on
/// its own level.
pub(crate) fn statement_end(tokens: &[Token], start: usize) -> usize {
    let depth = tokens[start].depth;
    (start + 1..tokens.len())
        .find(|&j| tokens[j].logical_start || tokens[j].is(";") && tokens[j].depth == depth)
        .unwrap_or(tokens.len())
}

/// The first invalid target of a `del` statement (`del +x[0]`, `del f()`), which tree-sitter
/// reads as a deletion: where CPython's parser fails.
pub(crate) fn del_target_error(tokens: &[Token]) -> Option<std::ops::Range<usize>> {
    let openers = matching_openers(tokens);
    let targets = Targets::new(tokens, &openers);
    let starts = tokens.iter().enumerate().filter(|(k, t)| {
        t.is_name("del") && (t.logical_start || k.checked_sub(1).is_some_and(|p| tokens[p].is(";") && t.depth == 0))
    });
    for (k, _) in starts {
        if let Some((error, _)) = targets.del_error(k + 1, statement_end(tokens, k)) {
            let t = &tokens[error.at];
            return Some(t.start..t.end());
        }
    }
    None
}
