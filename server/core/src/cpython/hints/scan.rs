//! The scan behind [`first_hint`](super::first_hint): CPython's second pass read as one walk
//! over the parser's tokens, tracking the statement and the open brackets with the element
//! being read in each. Each `invalid_*` rule of the grammar is one method, asked at the
//! token where its alternative fails, in the order CPython's parser meets them.

use super::messages::{
    Hint, ASSIGNMENT_IN_ARGUMENT, COLON_EXPECTED, FORGOT_COMMA, INVALID, STARRED_GROUP, STARRED_VALUE, VALUE_EXPECTED,
};
use crate::cpython::error::SyntaxFix;
use crate::cpython::targets::{TargetError, Targets};
use crate::cpython::tokens::{is_keyword, matching_openers, Kind, Token};
use std::cell::Cell;

/// [`first_hint`](super::first_hint); `in_value` tells whether the scan stopped in the value
/// of an assignment whose target is bad.
pub(super) fn first_hint_scan(tokens: &[Token], in_value: &Cell<bool>) -> Option<Hint> {
    let mut scan = Scan::new(tokens);
    for k in 0..tokens.len() {
        if scan.pending.as_ref().is_some_and(|&(_, read_to)| read_to <= k) {
            return scan.pending.map(|(hint, _)| Hint { reached: true, ..hint });
        }
        in_value.set(scan.pending.is_some());
        scan.statement(k);
        if let Some(hint) = scan.token(k) {
            return Some(hint);
        }
    }
    scan.pending.map(|(hint, _)| Hint { reached: true, ..hint })
}

/// An open bracket and the element being read in it.
#[derive(Default)]
struct Frame {
    brace: bool,
    /// A call or subscript: `name=value` there is an argument.
    call: bool,
    /// A call's `(`.
    call_paren: bool,
    /// A `(` that is not a call: a parenthesized expression or a tuple.
    group: bool,
    /// A `{` whose first element is a `key: value` pair (or `**mapping`).
    dict: bool,
    /// Elements closed so far.
    elements: usize,
    /// First token of the current element.
    element_start: Option<usize>,
    /// The current element has a ':' at this level.
    element_colon: bool,
    element_lambda: bool,
    /// Token range of the first element, once closed.
    first_element: Option<(usize, usize)>,
}

struct Scan<'a, 't> {
    tokens: &'a [Token<'t>],
    openers: Vec<Option<usize>>,
    targets: Targets<'a, 't>,
    frames: Vec<Frame>,
    /// The statement the token is in, and whether its first '=' was looked at.
    statement_start: usize,
    statement_checked: bool,
    /// A bad assignment target found in the statement, with the token CPython's parser has
    /// read to when it raises the error (a hint found before that token comes first).
    pending: Option<(Hint, usize)>,
}

/// CPython's `message` at token `t`, with `fix` as its repair.
fn at(message: &'static str, t: &Token, fix: Option<SyntaxFix>) -> Option<Hint> {
    let fixes = fix.into_iter().collect();
    Some(Hint { message: message.into(), line: t.line, offset: t.start, fixes, reached: false, stops_parser: false })
}

fn replace_equals(t: &Token) -> Option<SyntaxFix> {
    Some(SyntaxFix { span: t.start..t.end(), text: ":", title: "Replace '=' with ':'" })
}

/// A ';' on a statement's own level: the next statement starts after it.
fn separator(t: &Token) -> bool {
    t.is(";") && t.depth == 0
}

impl<'a, 't> Scan<'a, 't> {
    fn new(tokens: &'a [Token<'t>]) -> Self {
        let openers = matching_openers(tokens);
        let targets = Targets::new(tokens, &openers);
        let (frames, statement_start, statement_checked, pending) = (Vec::new(), 0, false, None);
        Scan { tokens, openers, targets, frames, statement_start, statement_checked, pending }
    }

    fn prev(&self, k: usize) -> Option<&'a Token<'t>> {
        let tokens = self.tokens;
        k.checked_sub(1).map(|p| &tokens[p])
    }

    fn target_hint(&self, error: TargetError, fix: Option<SyntaxFix>) -> Hint {
        let t = &self.tokens[error.at];
        let fixes = fix.into_iter().collect();
        Hint {
            message: error.message.into(),
            line: t.line,
            offset: t.start,
            fixes,
            reached: false,
            stops_parser: false,
        }
    }

    /// A statement starts at a logical line or after a ';'; its first '=' on its own level
    /// is where `invalid_assignment` is asked.
    fn statement(&mut self, k: usize) {
        let t = &self.tokens[k];
        if t.logical_start || self.prev(k).is_some_and(separator) {
            (self.statement_start, self.statement_checked) = (k, false);
            if t.is_name("del") {
                let end = super::super::targets::statement_end(self.tokens, k);
                if let Some((error, read_to)) = self.targets.del_error(k + 1, end) {
                    self.pending = Some((self.target_hint(error, None), read_to));
                }
            }
        }
        if t.is("=") && t.depth == 0 && !std::mem::replace(&mut self.statement_checked, true) {
            self.pending = self.invalid_assignment(self.statement_start, k);
        }
    }

    /// The rules that apply at token `k`, then the bookkeeping of brackets and elements.
    fn token(&mut self, k: usize) -> Option<Hint> {
        let t = &self.tokens[k];
        if self.stops_in_bracket(k) {
            return at(INVALID, t, None).map(|h| Hint { stops_parser: true, ..h });
        }
        let hint = self.invalid_kvpair_key(k).or_else(|| self.invalid_expression(k)).or_else(|| self.invalid_kwarg(k));
        if hint.is_some() {
            return self.in_key_trailer().or(hint);
        }
        if t.kind == Kind::Op {
            match t.text {
                "(" | "[" | "{" => {
                    self.open_bracket(k);
                    return None;
                }
                "," | ")" | "]" | "}" => return self.close_element(k),
                ":" => return self.colon(k),
                "=" => {
                    if let Some(hint) = self.invalid_named_expression(k) {
                        return Some(hint);
                    }
                }
                ":=" => {
                    if let Some(hint) = self.invalid_walrus_target(k) {
                        return Some(hint);
                    }
                }
                _ => {}
            }
        }
        if let Some(f) = self.frames.last_mut() {
            f.element_start.get_or_insert(k);
            if t.kind == Kind::Name && t.text == "lambda" {
                f.element_lambda = true;
            }
        }
        None
    }

    /// A failure inside a call or subscript on a dict key after the first (`f(x y): 1`):
    /// CPython's first pass dropped that trailer (the key is `f`), and its second pass
    /// reuses that parse, so the key wants its ':' (`invalid_kvpair`).
    fn in_key_trailer(&self) -> Option<Hint> {
        let frames = &self.frames;
        let i = (1..frames.len()).find(|&i| {
            let key = &frames[i - 1];
            frames[i].call && key.dict && key.elements > 0 && key.element_start.is_some() && !key.element_colon
        })?;
        at(COLON_EXPECTED, &self.tokens[frames[i - 1].element_start?], None)
    }

    /// Tokens no expression in a bracket can hold where they stand: a statement's keyword
    /// (`(import torch`), an '=' with nothing before it (`{ = ...`). CPython's parse stops
    /// there with its generic message, before anything further on.
    fn stops_in_bracket(&self, k: usize) -> bool {
        let t = &self.tokens[k];
        // An import names modules, never a bracket (but `from m import (a, b)`).
        let opening = t.kind == Kind::Op && matches!(t.text, "(" | "[" | "{");
        let first = &self.tokens[self.statement_start];
        let names_only = first.is_name("import")
            || first.is_name("from") && !(t.is("(") && self.prev(k).is_some_and(|p| p.is_name("import")));
        if opening && names_only {
            return true;
        }
        let Some(f) = self.frames.last() else { return false };
        let statement_keyword = t.kind == Kind::Name
            && matches!(
                t.text,
                "import"
                    | "def"
                    | "class"
                    | "return"
                    | "pass"
                    | "break"
                    | "continue"
                    | "raise"
                    | "global"
                    | "nonlocal"
                    | "del"
                    | "assert"
                    | "while"
                    | "try"
                    | "except"
                    | "finally"
                    | "elif"
                    | "with"
            );
        let bare_from = t.is_name("from") && self.prev(k).is_none_or(|p| !p.is_name("yield"));
        statement_keyword || bare_from || (t.is("=") && f.element_start.is_none())
    }

    fn open_bracket(&mut self, k: usize) {
        let t = &self.tokens[k];
        if let Some(f) = self.frames.last_mut() {
            f.element_start.get_or_insert(k);
        }
        let call = t.text != "{" && self.prev(k).is_some_and(|p| p.ends_operand());
        let group = t.text == "(" && !call;
        let call_paren = call && t.text == "(";
        self.frames.push(Frame { brace: t.text == "{", call, call_paren, group, ..Frame::default() });
    }

    /// A ',' or a closing bracket ends the element being read: the first one decides
    /// whether a `{` is a dict; a later dict entry without ':' is `invalid_kvpair`'s.
    fn close_element(&mut self, k: usize) -> Option<Hint> {
        let tokens = self.tokens;
        let t = &tokens[k];
        if t.is(",") && self.prev(k).is_some_and(|p| p.is(",") || (p.is("(") || p.is("[") || p.is("{"))) {
            return at(INVALID, t, None);
        }
        if let Some(hint) = self.invalid_group(k) {
            return Some(hint);
        }
        if let Some(f) = self.frames.last_mut() {
            if let Some(start) = f.element_start {
                let starred = tokens[start].is("**");
                if f.brace && f.elements == 0 {
                    f.dict = f.element_colon || starred;
                    f.first_element = Some((start, k));
                } else if f.dict && !f.element_colon && !starred {
                    return invalid_kvpair_end(tokens, start, k);
                }
                f.elements += 1;
            }
            f.element_start = None;
            f.element_colon = false;
            f.element_lambda = false;
        }
        if t.text != "," {
            self.frames.pop();
        }
        None
    }

    /// A ':' in a bracket: in a `{`, `invalid_double_starred_kvpairs` is asked.
    fn colon(&mut self, k: usize) -> Option<Hint> {
        let tokens = self.tokens;
        let f = self.frames.last_mut()?;
        // No key before it (`{:`, `, :`): the parse stops at the ':'.
        if f.brace && f.element_start.is_none() {
            return at(INVALID, &tokens[k], None);
        }
        if f.brace && f.element_start.is_some() && !f.element_lambda {
            let hint = invalid_double_starred_kvpairs(tokens, f, k);
            if hint.is_some() {
                return hint;
            }
        }
        f.element_colon = true;
        None
    }

    /// `invalid_assignment`: the statement from `start` whose first '=' on its own level is
    /// at `eq`, and the token CPython's parser has read to when it raises the error.
    fn invalid_assignment(&self, start: usize, eq: usize) -> Option<(Hint, usize)> {
        let tokens = self.tokens;
        let end =
            (eq + 1..tokens.len()).find(|&j| tokens[j].logical_start || separator(&tokens[j])).unwrap_or(tokens.len());
        self.targets.statement_error(start, end).map(|(error, read_to)| (self.target_hint(error, None), read_to))
    }

    /// `invalid_kvpair` where the key of a dict entry after the first is followed by another
    /// expression, an '=' or a broken attribute: CPython parses one expression and wants
    /// ':' next, before any comma hint at that level.
    fn invalid_kvpair_key(&self, k: usize) -> Option<Hint> {
        let tokens = self.tokens;
        let (t, prev, frame) = (&tokens[k], self.prev(k), self.frames.last());
        let later_key =
            frame.is_some_and(|f| f.dict && f.elements > 0 && f.element_start.is_some() && !f.element_colon);
        // The key expression can also end where an attribute has no name (`torch.+x`), at a
        // character Python has no token for (`torch.bf!loat16`) or at a ';': not ':' either.
        let next = tokens.get(k + 1);
        // And where a binary operator has no right operand (`"key" *: 1`).
        let no_operand = next.is_some_and(|n| n.is(":") || n.is(",") || n.is("}"));
        let key_ends_badly = t.is(".") && !next.is_some_and(|n| n.kind == Kind::Name)
            || t.kind == Kind::Op && matches!(t.text, "!" | "?" | "$" | ";")
            || t.kind == Kind::Op && t.in_disjunction() && !t.ends_operand() && !t.is(".") && no_operand;
        let after_operand = prev.is_some_and(|p| p.ends_operand());
        if !(later_key && (t.is("=") || after_operand && (t.starts_expression() || key_ends_badly))) {
            return None;
        }
        let start = frame.and_then(|f| f.element_start).unwrap_or(k);
        let fix = match prev {
            _ if t.is("=") => replace_equals(t),
            // No ':' to insert: the key itself is broken.
            _ if key_ends_badly => None,
            Some(p) => SyntaxFix::insert(p.end(), ":", "Insert ':' after the key"),
            None => None,
        };
        at(COLON_EXPECTED, &tokens[start], fix)
    }

    /// `invalid_expression`: an operand directly followed by the start of another, inside
    /// brackets (a missing comma).
    fn invalid_expression(&self, k: usize) -> Option<Hint> {
        let tokens = self.tokens;
        let t = &tokens[k];
        let prev = self.prev(k).filter(|p| t.depth > 0 && p.ends_operand() && t.starts_expression())?;
        if prev.kind == Kind::String && t.kind == Kind::String {
            return None;
        }
        let a = disjunction_start(tokens, &self.openers, k - 1);
        let first = &tokens[a];
        // `NAME` in CPython's grammar is a name that is not a keyword.
        let name = first.kind == Kind::Name && !is_keyword(first.text);
        let name_string = name && tokens.get(a + 1).is_some_and(|n| n.kind == Kind::String);
        // CPython 3.11 compares a NAME with the soft keywords over the NAME's length
        // (`strncmp`), so any prefix of one counts: `m`, `ma`, `ca`, ...
        let soft_keyword = name && ["match", "case", "_"].iter().any(|s| s.starts_with(first.text));
        let legacy = a == k - 1 && name && matches!(first.text, "print" | "exec");
        // `{**a b}`, `[1, *a b]`: a starred item is `'*' bitwise_or`, where no
        // `invalid_expression` is asked.
        let frame = self.frames.last();
        let starred_item = (first.is("**") && frame.is_some_and(|f| f.brace))
            || (first.is("*") && frame.is_some_and(|f| !f.call && f.elements > 0));
        if name_string || soft_keyword || legacy || starred_item {
            // Excluded (`name 'string'`, a soft keyword, `print x`): the parse stops
            // here with CPython's generic message.
            return at(INVALID, t, None);
        }
        let comma = SyntaxFix::insert(prev.end(), ",", "Insert the missing ','");
        // `{"key" value, ...}`: more likely a key that lost its ':'.
        let key_value =
            self.frames.last().is_some_and(|f| f.brace && !f.element_colon && f.element_start == Some(k - 1))
                && tokens.get(k + 1).is_some_and(|n| n.is(",") || n.is("}"));
        if key_value {
            let colon = SyntaxFix::insert(prev.end(), ":", "Insert ':' after the key");
            let mut hint = at(FORGOT_COMMA, first, colon)?;
            hint.fixes.extend(comma);
            return Some(hint);
        }
        at(FORGOT_COMMA, first, comma)
    }

    /// `invalid_kwarg`: an argument `expression=value` whose expression is not a name.
    fn invalid_kwarg(&self, k: usize) -> Option<Hint> {
        let tokens = self.tokens;
        let t = &tokens[k];
        let frame = self.frames.last().filter(|f| t.is("=") && f.call_paren && !f.element_lambda);
        let start = frame.and_then(|f| f.element_start)?;
        let first = &tokens[start];
        if k == start + 1 && first.kind == Kind::Name {
            match first.text {
                "True" => return at("cannot assign to True", first, None),
                "False" => return at("cannot assign to False", first, None),
                "None" => return at("cannot assign to None", first, None),
                _ => {}
            }
        } else if self.targets.is_expression(start, k) {
            // (`*a=`, `.a=`, `a;b=`, a character Python has no token for: no expression,
            // the generic error.)
            return at(ASSIGNMENT_IN_ARGUMENT, first, None);
        }
        None
    }

    /// `invalid_group`: `(*x)`.
    fn invalid_group(&self, k: usize) -> Option<Hint> {
        let t = &self.tokens[k];
        let frame = self.frames.last().filter(|f| t.is(")") && f.group && f.elements == 0);
        let start = frame.and_then(|f| f.element_start)?;
        let star = &self.tokens[start];
        // `(*a for a in z)` is a generator: its star is the comprehension's error.
        let generator =
            self.tokens[start..k].iter().any(|t| t.kind == Kind::Name && t.text == "for" && t.depth == star.depth);
        if star.is("*") && !generator {
            return at(STARRED_GROUP, star, None);
        }
        None
    }

    /// `invalid_named_expression`: an element `target = value` whose target is not a name.
    fn invalid_named_expression(&self, k: usize) -> Option<Hint> {
        let t = &self.tokens[k];
        let f = self.frames.last().filter(|f| !f.call && f.element_start.is_some())?;
        if f.element_colon {
            return at(INVALID, t, None);
        }
        let start = f.element_start.unwrap_or(k);
        let error = self.targets.element_error(start, k, self.tokens.len())?;
        let fix = if f.brace { replace_equals(t) } else { None };
        Some(self.target_hint(error, fix))
    }
}

impl Scan<'_, '_> {
    /// `invalid_named_expression`'s first rule: an element, or a statement, `target :=
    /// value` whose target is not a name (not in a call's arguments, nor a dict's later
    /// entries, where other rules answer).
    fn invalid_walrus_target(&self, k: usize) -> Option<Hint> {
        let start = match self.frames.last() {
            Some(f) if f.call || f.dict || f.element_colon => return None,
            Some(f) => f.element_start?,
            None => self.statement_start,
        };
        // The rule is `expression ':=' expression`: nothing after the walrus (`{"a":=,`) is
        // plain invalid syntax.
        self.tokens
            .get(k + 1)
            .filter(|t| !t.logical_start && !matches!(t.text, "," | ")" | "]" | "}" | ":" | "=" | ";"))?;
        let error = self.targets.walrus_error(start, k, self.tokens.len())?;
        Some(self.target_hint(error, None))
    }
}

/// `invalid_kvpair` where a dict entry after the first ends (`start..end`) without ':'.
/// It needs a key expression: `; }` or `*}` has none, and the parse stops there with the
/// generic message.
fn invalid_kvpair_end(tokens: &[Token], start: usize, end: usize) -> Option<Hint> {
    let key = &tokens[start];
    let starts_key = key.starts_expression()
        || key.kind == Kind::Op && matches!(key.text, "(" | "[" | "-" | "+")
        || key.kind == Kind::Name && matches!(key.text, "not" | "await");
    // A unary operator alone (`+}`) starts no expression either.
    let operand_missing = end == start + 1 && !key.starts_expression();
    if !starts_key || operand_missing {
        return at(INVALID, key, None);
    }
    let fix = joined_key_fix(tokens, start, end);
    at(COLON_EXPECTED, &tokens[start], fix)
}

/// `invalid_double_starred_kvpairs` (and `invalid_kvpair`'s alternatives after the ':'),
/// at the ':' `k` of a dict entry: no value after it, a starred key or value, a second
/// ':', or a ':' in what the first element made a set.
fn invalid_double_starred_kvpairs(tokens: &[Token], f: &Frame, k: usize) -> Option<Hint> {
    let t = &tokens[k];
    if f.element_colon {
        // A second ':' in one entry (often strings joined across a missing comma, or a
        // value followed by ':'): the parser stops at it.
        return at(INVALID, t, None);
    }
    if tokens.get(k + 1).is_some_and(|n| n.is(",") || n.is("}")) {
        return at(VALUE_EXPECTED, t, None);
    }
    // A set's `*x` cannot be a key; a value cannot be starred.
    if f.element_start.is_some_and(|s| tokens[s].is("*")) {
        return at(INVALID, t, None);
    }
    if let Some(star) = tokens.get(k + 1).filter(|n| n.is("*")) {
        return at(STARRED_VALUE, star, None);
    }
    if f.elements > 0 && !f.dict {
        // A ':' in what the first element made a set: most likely that first entry lost
        // its ':'.
        let fix = f.first_element.and_then(|(start, end)| joined_key_fix(tokens, start, end));
        return at(INVALID, t, fix);
    }
    None
}

/// `"key" "value"`: two strings Python joined where a ':' went missing; the fix puts it back.
fn joined_key_fix(tokens: &[Token], start: usize, end: usize) -> Option<SyntaxFix> {
    let joined = end - start >= 2 && tokens[start..end].iter().all(|t| t.kind == Kind::String);
    joined.then(|| tokens[start].end()).and_then(|at| SyntaxFix::insert(at, ":", "Insert ':' after the key"))
}

/// Index of the first token of the `disjunction` that ends at `last`: operands joined by
/// operators, attribute access, calls and subscripts, and implicitly joined strings. Two
/// operands side by side end it, which also keeps each walk short.
fn disjunction_start(tokens: &[Token], openers: &[Option<usize>], last: usize) -> usize {
    let mut k = last;
    loop {
        // A bracket group is one operand (or a call/subscript on the one before).
        if let Some(open) = openers[k] {
            k = open;
        }
        if k == 0 {
            return 0;
        }
        let (cur, before) = (&tokens[k], &tokens[k - 1]);
        let operator = |t: &Token| t.in_disjunction() && !t.ends_operand();
        let joins = if operator(cur) {
            // `a + b`, `a . b`, or a unary operator after another operator: `a * -b`.
            before.ends_operand() || (operator(before) && matches!(cur.text, "-" | "+" | "~" | "not"))
        } else {
            // An operand: after an operator, or a call/subscript, or a joined string.
            operator(before)
                || ((cur.is("(") || cur.is("[")) && before.ends_operand())
                || (cur.kind == Kind::String && before.kind == Kind::String)
        };
        if !joins {
            return k;
        }
        k -= 1;
    }
}
