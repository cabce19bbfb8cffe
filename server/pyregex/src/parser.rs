//! Port of CPython 3.11.7 `Lib/re/_parser.py` (str patterns only), answering as 3.10
//! (`sre_parse.py`), 3.12 or 3.13 where the `PythonVersion` says so.
//!
//! The structure follows the Python module closely (`Tokenizer`, `State`,
//! `SubPattern`, `_parse_sub`, `_parse`, `_escape`, `_class_escape`,
//! `_parse_flags`, `parse`) so that every error is raised at the same point
//! with the same message and position.

use std::cell::Cell;

use crate::unicode::{self, UnicodeData};
use crate::{CompileError, PyWarning, PythonVersion};

pub(crate) const MAXREPEAT: u32 = u32::MAX;
pub(crate) const MAXWIDTH: u128 = 1 << 64;

pub(crate) const FLAG_TEMPLATE: u32 = 1;
pub(crate) const FLAG_IGNORECASE: u32 = 2;
pub(crate) const FLAG_LOCALE: u32 = 4;
pub(crate) const FLAG_MULTILINE: u32 = 8;
pub(crate) const FLAG_DOTALL: u32 = 16;
pub(crate) const FLAG_UNICODE: u32 = 32;
pub(crate) const FLAG_VERBOSE: u32 = 64;
pub(crate) const FLAG_DEBUG: u32 = 128;
pub(crate) const FLAG_ASCII: u32 = 256;

pub(crate) const TYPE_FLAGS: u32 = FLAG_ASCII | FLAG_LOCALE | FLAG_UNICODE;
const GLOBAL_FLAGS: u32 = FLAG_DEBUG | FLAG_TEMPLATE;

/// CPython's default recursion limit, and the Python frame depth of the
/// first `_parse` call when `re.compile(p)` is called from module level
/// (`<module>`, `re.compile`, `re._compile`, `_compiler.compile`,
/// `_parser.parse`, `_parse_sub`, `_parse`).
const RECURSION_LIMIT: usize = 1000;
const BASE_PARSE_DEPTH: usize = 7;

fn flag_value(py: PythonVersion, c: char) -> Option<u32> {
    Some(match c {
        't' if !py.has_template_flag() => return None,
        'i' => FLAG_IGNORECASE,
        'L' => FLAG_LOCALE,
        'm' => FLAG_MULTILINE,
        's' => FLAG_DOTALL,
        'x' => FLAG_VERBOSE,
        'a' => FLAG_ASCII,
        't' => FLAG_TEMPLATE,
        'u' => FLAG_UNICODE,
        _ => return None,
    })
}

/// `AT` codes (same numbering as `re._constants.ATCODES`).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum At {
    Beginning = 0,
    BeginningLine = 1,
    BeginningString = 2,
    Boundary = 3,
    NonBoundary = 4,
    End = 5,
    EndLine = 6,
    EndString = 7,
    UniBoundary = 10,
    UniNonBoundary = 11,
}

/// `CATEGORY` codes (same numbering as `re._constants.CHCODES`).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Category {
    Digit = 0,
    NotDigit = 1,
    Space = 2,
    NotSpace = 3,
    Word = 4,
    NotWord = 5,
}

/// A member of an `IN` set.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum SetItem {
    Negate,
    Literal(u32),
    Range(u32, u32),
    Category(Category),
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum RepeatKind {
    Max,
    Min,
    Possessive,
}

/// One `(op, av)` item of a parsed subpattern.
#[derive(Debug)]
pub(crate) enum Item {
    Literal(u32),
    NotLiteral(u32),
    Any,
    In(Vec<SetItem>),
    At(At),
    Branch(Vec<SubPattern>),
    Subpattern { group: Option<usize>, add_flags: u32, del_flags: u32, p: SubPattern },
    AtomicGroup(SubPattern),
    Repeat { kind: RepeatKind, min: u32, max: u32, item: SubPattern },
    GroupRef(usize),
    GroupRefExists { group: usize, yes: SubPattern, no: Option<SubPattern> },
    Assert { negate: bool, behind: bool, p: SubPattern },
}

impl Item {
    /// `item[0] == prefix` in `_parse_sub` (tuples holding `SubPattern`
    /// objects only compare equal by identity, i.e. never here).
    fn prefix_eq(&self, other: &Item) -> bool {
        match (self, other) {
            (Item::Literal(a), Item::Literal(b)) => a == b,
            (Item::NotLiteral(a), Item::NotLiteral(b)) => a == b,
            (Item::Any, Item::Any) => true,
            (Item::In(a), Item::In(b)) => a == b,
            (Item::At(a), Item::At(b)) => a == b,
            (Item::GroupRef(a), Item::GroupRef(b)) => a == b,
            _ => false,
        }
    }

    fn is_repeat(&self) -> bool {
        matches!(self, Item::Repeat { .. })
    }
}

pub(crate) type Width = (u128, u128);

/// `SubPattern`: a list of items with a cached width.
#[derive(Debug, Default)]
pub(crate) struct SubPattern {
    pub data: Vec<Item>,
    width: Cell<Option<Width>>,
}

impl SubPattern {
    fn new() -> Self {
        SubPattern { data: Vec::new(), width: Cell::new(None) }
    }

    fn from_items(data: Vec<Item>) -> Self {
        SubPattern { data, width: Cell::new(None) }
    }

    /// `SubPattern.getwidth()` (3.11.7, with `MAXWIDTH`; 3.10 caps the result at
    /// `MAXREPEAT - 1` and `MAXREPEAT` instead).
    pub(crate) fn getwidth(&self, groupwidths: &[Option<Width>], py: PythonVersion) -> Width {
        if let Some(w) = self.width.get() {
            return w;
        }
        let mut lo: u128 = 0;
        let mut hi: u128 = 0;
        for item in &self.data {
            match item {
                Item::Branch(items) => {
                    let mut i = if py.has_possessive() { MAXWIDTH } else { MAXREPEAT as u128 - 1 };
                    let mut j = 0;
                    for av in items {
                        let (l, h) = av.getwidth(groupwidths, py);
                        i = i.min(l);
                        j = j.max(h);
                    }
                    lo = lo.saturating_add(i);
                    hi = hi.saturating_add(j);
                }
                Item::AtomicGroup(p) | Item::Subpattern { p, .. } => {
                    let (i, j) = p.getwidth(groupwidths, py);
                    lo = lo.saturating_add(i);
                    hi = hi.saturating_add(j);
                }
                Item::Repeat { min, max, item, .. } => {
                    let (i, j) = item.getwidth(groupwidths, py);
                    lo = lo.saturating_add(i.saturating_mul(*min as u128));
                    if *max == MAXREPEAT && j != 0 && py.has_possessive() {
                        hi = MAXWIDTH;
                    } else {
                        hi = hi.saturating_add(j.saturating_mul(*max as u128));
                    }
                }
                Item::Any | Item::In(_) | Item::Literal(_) | Item::NotLiteral(_) => {
                    lo = lo.saturating_add(1);
                    hi = hi.saturating_add(1);
                }
                Item::GroupRef(g) => {
                    let (i, j) = groupwidths.get(*g).copied().flatten().unwrap_or((0, 0));
                    lo = lo.saturating_add(i);
                    hi = hi.saturating_add(j);
                }
                Item::GroupRefExists { yes, no, .. } => {
                    let (mut i, mut j) = yes.getwidth(groupwidths, py);
                    if let Some(no) = no {
                        let (l, h) = no.getwidth(groupwidths, py);
                        i = i.min(l);
                        j = j.max(h);
                    } else {
                        i = 0;
                    }
                    lo = lo.saturating_add(i);
                    hi = hi.saturating_add(j);
                }
                Item::At(_) | Item::Assert { .. } => {}
            }
        }
        let w = if py.has_possessive() {
            (lo.min(MAXWIDTH), hi.min(MAXWIDTH))
        } else {
            (lo.min(MAXREPEAT as u128 - 1), hi.min(MAXREPEAT as u128))
        };
        self.width.set(Some(w));
        w
    }
}

/// Parser state (`State`).
pub(crate) struct State {
    pub flags: u32,
    groupdict: Vec<(Vec<char>, usize)>,
    pub groupwidths: Vec<Option<Width>>,
    lookbehindgroups: Option<usize>,
    grouprefpos: Vec<(u64, isize)>,
    py: PythonVersion,
}

impl State {
    fn new(py: PythonVersion) -> Self {
        State {
            py,
            flags: 0,
            groupdict: Vec::new(),
            groupwidths: vec![None],
            lookbehindgroups: None,
            grouprefpos: Vec::new(),
        }
    }

    pub(crate) fn groups(&self) -> usize {
        self.groupwidths.len()
    }

    fn group_by_name(&self, name: &[char]) -> Option<usize> {
        self.groupdict.iter().find(|(n, _)| n.as_slice() == name).map(|&(_, g)| g)
    }

    /// `opengroup`; the error message is re-raised by the caller.
    fn opengroup(&mut self, name: Option<&[char]>) -> Result<usize, String> {
        let gid = self.groups();
        self.groupwidths.push(None);
        if self.groups() as u64 > self.py.maxgroups() {
            return Err("too many groups".to_string());
        }
        if let Some(name) = name {
            if let Some(ogid) = self.group_by_name(name) {
                return Err(format!(
                    "redefinition of group name {} as group {}; was group {}",
                    unicode::py_repr(self.py.unicode(), name),
                    gid,
                    ogid
                ));
            }
            self.groupdict.push((name.to_vec(), gid));
        }
        Ok(gid)
    }

    fn closegroup(&mut self, gid: usize, p: &SubPattern) {
        let w = p.getwidth(&self.groupwidths, self.py);
        self.groupwidths[gid] = Some(w);
    }

    fn checkgroup(&self, gid: usize) -> bool {
        gid < self.groups() && self.groupwidths[gid].is_some()
    }

    fn checklookbehindgroup(&self, gid: usize, source: &Tokenizer) -> Result<(), CompileError> {
        if let Some(lbg) = self.lookbehindgroups {
            if !self.checkgroup(gid) {
                return Err(source.error("cannot refer to an open group", 0));
            }
            if gid >= lbg {
                return Err(source.error("cannot refer to group defined in the same lookbehind subpattern", 0));
            }
        }
        Ok(())
    }
}

/// A token: one character, or a backslash followed by one character.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
struct Tok {
    c: char,
    esc: Option<char>,
}

impl Tok {
    fn is(&self, c: char) -> bool {
        self.esc.is_none() && self.c == c
    }
    fn is_escape(&self) -> bool {
        self.esc.is_some()
    }
    fn len(&self) -> usize {
        if self.esc.is_some() {
            2
        } else {
            1
        }
    }
    fn push_to(&self, s: &mut Vec<char>) {
        s.push(self.c);
        if let Some(e) = self.esc {
            s.push(e);
        }
    }
    fn chars(&self) -> Vec<char> {
        let mut v = Vec::with_capacity(2);
        self.push_to(&mut v);
        v
    }
    fn text(&self) -> String {
        self.chars().into_iter().collect()
    }
    /// `str.isalpha()` of the token string.
    fn isalpha(&self, u: &UnicodeData) -> bool {
        self.esc.is_none() && u.is_alpha(self.c as u32)
    }
}

fn opt_is(t: Option<Tok>, c: char) -> bool {
    matches!(t, Some(t) if t.is(c))
}

fn in_set(t: Option<Tok>, set: &str) -> bool {
    matches!(t, Some(t) if t.esc.is_none() && set.contains(t.c))
}

const DIGITS: &str = "0123456789";
const OCTDIGITS: &str = "01234567";
const HEXDIGITS: &str = "0123456789abcdefABCDEF";

pub(crate) struct Tokenizer<'a> {
    s: &'a [char],
    index: usize,
    next: Option<Tok>,
    py: PythonVersion,
}

type PResult<T> = Result<T, CompileError>;

impl<'a> Tokenizer<'a> {
    fn new(s: &'a [char], py: PythonVersion) -> PResult<Self> {
        let mut t = Tokenizer { s, index: 0, next: None, py };
        t.advance()?;
        Ok(t)
    }

    /// `__next`.
    fn advance(&mut self) -> PResult<()> {
        let index = self.index;
        let Some(&c) = self.s.get(index) else {
            self.next = None;
            return Ok(());
        };
        if c == '\\' {
            match self.s.get(index + 1) {
                Some(&e) => {
                    self.index = index + 2;
                    self.next = Some(Tok { c, esc: Some(e) });
                }
                None => {
                    return Err(CompileError::Re {
                        msg: "bad escape (end of pattern)".to_string(),
                        pos: Some(self.s.len() - 1),
                    })
                }
            }
        } else {
            self.index = index + 1;
            self.next = Some(Tok { c, esc: None });
        }
        Ok(())
    }

    fn matches(&mut self, c: char) -> PResult<bool> {
        if opt_is(self.next, c) {
            self.advance()?;
            Ok(true)
        } else {
            Ok(false)
        }
    }

    fn get(&mut self) -> PResult<Option<Tok>> {
        let this = self.next;
        self.advance()?;
        Ok(this)
    }

    fn getwhile(&mut self, n: usize, charset: &str) -> PResult<Vec<char>> {
        let mut result = Vec::new();
        for _ in 0..n {
            if !in_set(self.next, charset) {
                break;
            }
            self.next.unwrap().push_to(&mut result);
            self.advance()?;
        }
        Ok(result)
    }

    fn getuntil(&mut self, terminator: char, name: &str) -> PResult<Vec<char>> {
        let mut result: Vec<char> = Vec::new();
        loop {
            let c = self.next;
            self.advance()?;
            match c {
                None => {
                    if result.is_empty() {
                        return Err(self.error(&format!("missing {}", name), 0));
                    }
                    return Err(
                        self.error(&format!("missing {}, unterminated name", terminator), result.len() as isize)
                    );
                }
                Some(t) if t.is(terminator) => {
                    if result.is_empty() {
                        return Err(self.error(&format!("missing {}", name), 1));
                    }
                    break;
                }
                Some(t) => t.push_to(&mut result),
            }
        }
        Ok(result)
    }

    fn tell(&self) -> isize {
        self.index as isize - self.next.map_or(0, |t| t.len() as isize)
    }

    fn seek(&mut self, index: usize) -> PResult<()> {
        self.index = index;
        self.advance()
    }

    fn error(&self, msg: &str, offset: isize) -> CompileError {
        let pos = self.tell() - offset;
        CompileError::Re { msg: msg.to_string(), pos: Some(pos.max(0) as usize) }
    }

    fn u(&self) -> &'static UnicodeData {
        self.py.unicode()
    }

    /// `repr()` of a `str`, with this version's printable characters.
    fn repr(&self, s: &[char]) -> String {
        unicode::py_repr(self.u(), s)
    }

    fn checkgroupname(&self, name: &[char], offset: isize) -> PResult<()> {
        if !self.u().is_identifier(name) {
            let msg = format!("bad character in group name {}", self.repr(name));
            return Err(self.error(&msg, name.len() as isize + offset));
        }
        Ok(())
    }
}

/// The result of a (class) escape.
enum Code {
    Literal(u32),
    /// `(IN, [(CATEGORY, c)])`
    InCategory(Category),
    At(At),
    GroupRef(usize),
}

fn category_escape(c: char) -> Option<Code> {
    Some(match c {
        'A' => Code::At(At::BeginningString),
        'b' => Code::At(At::Boundary),
        'B' => Code::At(At::NonBoundary),
        'd' => Code::InCategory(Category::Digit),
        'D' => Code::InCategory(Category::NotDigit),
        's' => Code::InCategory(Category::Space),
        'S' => Code::InCategory(Category::NotSpace),
        'w' => Code::InCategory(Category::Word),
        'W' => Code::InCategory(Category::NotWord),
        'Z' => Code::At(At::EndString),
        _ => return None,
    })
}

fn simple_escape(c: char) -> Option<u32> {
    Some(match c {
        'a' => 7,
        'b' => 8,
        'f' => 12,
        'n' => 10,
        'r' => 13,
        't' => 9,
        'v' => 11,
        '\\' => 92,
        _ => return None,
    })
}

fn chars_to_string(v: &[char]) -> String {
    v.iter().collect()
}

fn parse_radix(digits: &[char], radix: u32) -> u32 {
    digits.iter().fold(0u32, |acc, c| acc.wrapping_mul(radix).wrapping_add(c.to_digit(radix).unwrap_or(0)))
}

/// Shared part of `_escape`/`_class_escape` for `\x`, `\u`, `\U`, `\N`.
/// Returns `Ok(None)` when the escape letter is not one of those.
fn hex_or_named_escape(source: &mut Tokenizer, escape: &mut Vec<char>, c: char) -> PResult<Option<Code>> {
    match c {
        'x' | 'u' | 'U' => {
            let n = match c {
                'x' => 2,
                'u' => 4,
                _ => 8,
            };
            let more = source.getwhile(n, HEXDIGITS)?;
            escape.extend_from_slice(&more);
            if escape.len() != n + 2 {
                let msg = format!("incomplete escape {}", chars_to_string(escape));
                return Err(source.error(&msg, escape.len() as isize));
            }
            let v = parse_radix(&escape[2..], 16);
            if c == 'U' && (v > 0x10FFFF) {
                // chr(c) raises ValueError -> "bad escape"
                let msg = format!("bad escape {}", chars_to_string(escape));
                return Err(source.error(&msg, escape.len() as isize));
            }
            Ok(Some(Code::Literal(v)))
        }
        'N' => {
            if !source.matches('{')? {
                return Err(source.error("missing {", 0));
            }
            let charname = source.getuntil('}', "character name")?;
            match crate::names::lookup(source.u(), &chars_to_string(&charname)) {
                Some(v) => Ok(Some(Code::Literal(v))),
                None => {
                    let msg = format!("undefined character name {}", source.repr(&charname));
                    Err(source.error(&msg, charname.len() as isize + 4))
                }
            }
        }
        _ => Ok(None),
    }
}

/// `_class_escape`.
fn class_escape(source: &mut Tokenizer, tok: Tok) -> PResult<Code> {
    let c = tok.esc.unwrap_or('\0');
    if let Some(v) = simple_escape(c) {
        return Ok(Code::Literal(v));
    }
    if let Some(code @ Code::InCategory(_)) = category_escape(c) {
        return Ok(code);
    }
    let mut escape = tok.chars();
    if let Some(code) = hex_or_named_escape(source, &mut escape, c)? {
        return Ok(code);
    }
    if OCTDIGITS.contains(c) {
        let more = source.getwhile(2, OCTDIGITS)?;
        escape.extend_from_slice(&more);
        let v = parse_radix(&escape[1..], 8);
        if v > 0o377 {
            let msg = format!("octal escape value {} outside of range 0-0o377", chars_to_string(&escape));
            return Err(source.error(&msg, escape.len() as isize));
        }
        return Ok(Code::Literal(v));
    }
    if DIGITS.contains(c) || c.is_ascii_alphabetic() {
        let msg = format!("bad escape {}", chars_to_string(&escape));
        return Err(source.error(&msg, escape.len() as isize));
    }
    Ok(Code::Literal(c as u32))
}

/// `_escape`.
fn escape(source: &mut Tokenizer, tok: Tok, state: &State) -> PResult<Code> {
    let c = tok.esc.unwrap_or('\0');
    if let Some(code) = category_escape(c) {
        return Ok(code);
    }
    if let Some(v) = simple_escape(c) {
        return Ok(Code::Literal(v));
    }
    let mut escape = tok.chars();
    if let Some(code) = hex_or_named_escape(source, &mut escape, c)? {
        return Ok(code);
    }
    if c == '0' {
        let more = source.getwhile(2, OCTDIGITS)?;
        escape.extend_from_slice(&more);
        return Ok(Code::Literal(parse_radix(&escape[1..], 8)));
    }
    if DIGITS.contains(c) {
        if in_set(source.next, DIGITS) {
            source.get()?.unwrap().push_to(&mut escape);
            if OCTDIGITS.contains(escape[1]) && OCTDIGITS.contains(escape[2]) && in_set(source.next, OCTDIGITS) {
                source.get()?.unwrap().push_to(&mut escape);
                let v = parse_radix(&escape[1..], 8);
                if v > 0o377 {
                    let msg = format!("octal escape value {} outside of range 0-0o377", chars_to_string(&escape));
                    return Err(source.error(&msg, escape.len() as isize));
                }
                return Ok(Code::Literal(v));
            }
        }
        let group = parse_radix(&escape[1..], 10) as usize;
        if group < state.groups() {
            if !state.checkgroup(group) {
                return Err(source.error("cannot refer to an open group", escape.len() as isize));
            }
            state.checklookbehindgroup(group, source)?;
            return Ok(Code::GroupRef(group));
        }
        let msg = format!("invalid group reference {}", group);
        return Err(source.error(&msg, escape.len() as isize - 1));
    }
    if c.is_ascii_alphabetic() {
        let msg = format!("bad escape {}", chars_to_string(&escape));
        return Err(source.error(&msg, escape.len() as isize));
    }
    Ok(Code::Literal(c as u32))
}

fn uniq(items: Vec<SetItem>) -> Vec<SetItem> {
    let mut out: Vec<SetItem> = Vec::with_capacity(items.len());
    for it in items {
        if !out.contains(&it) {
            out.push(it);
        }
    }
    out
}

struct Parser<'a, 'w> {
    source: Tokenizer<'a>,
    state: State,
    warnings: &'w mut Vec<PyWarning>,
}

fn recursion_error(depth: usize, py: PythonVersion) -> Option<CompileError> {
    if py >= PythonVersion::V3_12 {
        // 3.12 counts Python frames only: `SubPattern.__init__` at P+1 (the first
        // `source.get()`, at P+1 calling `__next` at P+2, is checked in `parse`).
        return (depth + 1 > RECURSION_LIMIT).then(plain_recursion_error);
    }
    // `_parse` at Python frame depth P instantiates `SubPattern(state)`:
    // a C-level call at P+1 and the `__init__` frame at P+2.
    if depth + 1 > RECURSION_LIMIT {
        Some(CompileError::Other {
            kind: "RecursionError".to_string(),
            msg: "maximum recursion depth exceeded while calling a Python object".to_string(),
        })
    } else if depth + 2 > RECURSION_LIMIT {
        Some(plain_recursion_error())
    } else {
        None
    }
}

fn plain_recursion_error() -> CompileError {
    CompileError::Other { kind: "RecursionError".to_string(), msg: "maximum recursion depth exceeded".to_string() }
}

impl<'a, 'w> Parser<'a, 'w> {
    fn warn(&mut self, category: &'static str, message: String, pos: isize) {
        self.warnings.push(PyWarning { category, message, pos: pos.max(0) as usize });
    }

    /// `_parse_sub`; `depth` is the Python frame depth of this call.
    fn parse_sub(&mut self, mut verbose: bool, nested: usize, depth: usize) -> PResult<SubPattern> {
        let mut items: Vec<SubPattern> = Vec::new();
        loop {
            let first = nested == 0 && items.is_empty();
            let item = self.parse(verbose, nested + 1, first, depth + 1)?;
            items.push(item);
            if !self.source.matches('|')? {
                break;
            }
            if nested == 0 {
                verbose = self.state.flags & FLAG_VERBOSE != 0;
            }
        }
        if items.len() == 1 {
            return Ok(items.pop().unwrap());
        }
        let mut subpattern = SubPattern::new();
        // check if all items share a common prefix
        loop {
            let mut all_same = true;
            for item in &items {
                if item.data.is_empty() || !item.data[0].prefix_eq(&items[0].data[0]) {
                    all_same = false;
                    break;
                }
            }
            if !all_same {
                break;
            }
            let mut prefix = None;
            for item in items.iter_mut() {
                let it = item.data.remove(0);
                if prefix.is_none() {
                    prefix = Some(it);
                }
            }
            subpattern.data.push(prefix.unwrap());
        }
        // check if the branch can be replaced by a character set
        let mut set: Vec<SetItem> = Vec::new();
        let mut convertible = true;
        for item in &items {
            if item.data.len() != 1 {
                convertible = false;
                break;
            }
            match &item.data[0] {
                Item::Literal(c) => set.push(SetItem::Literal(*c)),
                Item::In(av) if av.first() != Some(&SetItem::Negate) => set.extend_from_slice(av),
                _ => {
                    convertible = false;
                    break;
                }
            }
        }
        if convertible {
            subpattern.data.push(Item::In(uniq(set)));
            return Ok(subpattern);
        }
        subpattern.data.push(Item::Branch(items));
        Ok(subpattern)
    }

    /// `_parse`; `depth` is the Python frame depth of this call.
    fn parse(&mut self, mut verbose: bool, nested: usize, first: bool, depth: usize) -> PResult<SubPattern> {
        if let Some(e) = recursion_error(depth, self.source.py) {
            return Err(e);
        }
        let mut subpattern = SubPattern::new();
        while let Some(this) = self.source.next {
            if this.is('|') || this.is(')') {
                break;
            }
            if depth + 2 > RECURSION_LIMIT {
                // only reached on 3.12+ (older versions failed on entry)
                return Err(plain_recursion_error());
            }
            self.source.get()?;
            if verbose {
                if !this.is_escape() && " \t\n\r\x0b\x0c".contains(this.c) {
                    continue;
                }
                if this.is('#') {
                    loop {
                        let t = self.source.get()?;
                        if t.is_none() || opt_is(t, '\n') {
                            break;
                        }
                    }
                    continue;
                }
            }
            if this.is_escape() {
                let code = escape(&mut self.source, this, &self.state)?;
                subpattern.data.push(match code {
                    Code::Literal(c) => Item::Literal(c),
                    Code::InCategory(cat) => Item::In(vec![SetItem::Category(cat)]),
                    Code::At(at) => Item::At(at),
                    Code::GroupRef(g) => Item::GroupRef(g),
                });
            } else if !".\\[{()*+?^$|".contains(this.c) {
                subpattern.data.push(Item::Literal(this.c as u32));
            } else if this.c == '[' {
                self.parse_set(&mut subpattern)?;
            } else if "*+?{".contains(this.c) {
                if !self.parse_repeat(&mut subpattern, this)? {
                    continue;
                }
            } else if this.c == '.' {
                subpattern.data.push(Item::Any);
            } else if this.c == '(' {
                self.parse_group(&mut subpattern, &mut verbose, nested, first, depth)?;
            } else if this.c == '^' {
                subpattern.data.push(Item::At(At::Beginning));
            } else if this.c == '$' {
                subpattern.data.push(Item::At(At::End));
            }
        }
        // unpack non-capturing groups
        let mut i = subpattern.data.len();
        while i > 0 {
            i -= 1;
            if let Item::Subpattern { group: None, add_flags: 0, del_flags: 0, .. } = &subpattern.data[i] {
                if let Item::Subpattern { p, .. } = subpattern.data.remove(i) {
                    let tail = subpattern.data.split_off(i);
                    subpattern.data.extend(p.data);
                    subpattern.data.extend(tail);
                }
            }
        }
        Ok(subpattern)
    }

    fn parse_set(&mut self, subpattern: &mut SubPattern) -> PResult<()> {
        let here = self.source.tell() - 1;
        let mut set: Vec<SetItem> = Vec::new();
        if opt_is(self.source.next, '[') {
            let pos = self.source.tell();
            self.warn("FutureWarning", format!("Possible nested set at position {}", pos), pos);
        }
        let negate = self.source.matches('^')?;
        loop {
            let this = self.source.get()?;
            let Some(this) = this else {
                return Err(self.source.error("unterminated character set", self.source.tell() - here));
            };
            if this.is(']') && !set.is_empty() {
                break;
            }
            let code1 = if this.is_escape() {
                class_escape(&mut self.source, this)?
            } else {
                if !set.is_empty() && "-&~|".contains(this.c) && self.source.next == Some(this) {
                    let kind = match this.c {
                        '-' => "difference",
                        '&' => "intersection",
                        '~' => "symmetric difference",
                        _ => "union",
                    };
                    let pos = self.source.tell() - 1;
                    self.warn("FutureWarning", format!("Possible set {} at position {}", kind, pos), pos);
                }
                Code::Literal(this.c as u32)
            };
            if self.source.matches('-')? {
                let that = self.source.get()?;
                let Some(that) = that else {
                    return Err(self.source.error("unterminated character set", self.source.tell() - here));
                };
                if that.is(']') {
                    set.push(code_to_setitem(&code1));
                    set.push(SetItem::Literal('-' as u32));
                    break;
                }
                let code2 = if that.is_escape() {
                    class_escape(&mut self.source, that)?
                } else {
                    if that.is('-') {
                        let pos = self.source.tell() - 2;
                        self.warn("FutureWarning", format!("Possible set difference at position {}", pos), pos);
                    }
                    Code::Literal(that.c as u32)
                };
                let msg = format!("bad character range {}-{}", this.text(), that.text());
                let off = (this.len() + 1 + that.len()) as isize;
                let (Code::Literal(lo), Code::Literal(hi)) = (&code1, &code2) else {
                    return Err(self.source.error(&msg, off));
                };
                if hi < lo {
                    return Err(self.source.error(&msg, off));
                }
                set.push(SetItem::Range(*lo, *hi));
            } else {
                set.push(code_to_setitem(&code1));
            }
        }
        let mut set = uniq(set);
        if set.len() == 1 {
            if let SetItem::Literal(c) = set[0] {
                subpattern.data.push(if negate { Item::NotLiteral(c) } else { Item::Literal(c) });
                return Ok(());
            }
        }
        if negate {
            set.insert(0, SetItem::Negate);
        }
        subpattern.data.push(Item::In(set));
        Ok(())
    }

    /// Returns `Ok(false)` for the `continue` paths (literal `{`).
    fn parse_repeat(&mut self, subpattern: &mut SubPattern, this: Tok) -> PResult<bool> {
        let here = self.source.tell();
        let (min, max);
        match this.c {
            '?' => {
                min = 0;
                max = 1;
            }
            '*' => {
                min = 0;
                max = MAXREPEAT;
            }
            '+' => {
                min = 1;
                max = MAXREPEAT;
            }
            _ => {
                // '{'
                if opt_is(self.source.next, '}') {
                    subpattern.data.push(Item::Literal('{' as u32));
                    return Ok(false);
                }
                let mut lo: Vec<char> = Vec::new();
                let mut hi: Vec<char> = Vec::new();
                while in_set(self.source.next, DIGITS) {
                    self.source.get()?.unwrap().push_to(&mut lo);
                }
                if self.source.matches(',')? {
                    while in_set(self.source.next, DIGITS) {
                        self.source.get()?.unwrap().push_to(&mut hi);
                    }
                } else {
                    hi = lo.clone();
                }
                if !self.source.matches('}')? {
                    subpattern.data.push(Item::Literal('{' as u32));
                    self.source.seek(here as usize)?;
                    return Ok(false);
                }
                let mut mn = 0u32;
                let mut mx = MAXREPEAT;
                if !lo.is_empty() {
                    mn = repeat_number(self.source.py, &lo)?;
                }
                if !hi.is_empty() {
                    mx = repeat_number(self.source.py, &hi)?;
                    if mx < mn {
                        return Err(self.source.error("min repeat greater than max repeat", self.source.tell() - here));
                    }
                }
                min = mn;
                max = mx;
            }
        }
        let last_ok = match subpattern.data.last() {
            None => None,
            Some(Item::At(_)) => None,
            Some(it) => Some(it.is_repeat()),
        };
        match last_ok {
            None => {
                return Err(self.source.error("nothing to repeat", self.source.tell() - here + 1));
            }
            Some(true) => {
                return Err(self.source.error("multiple repeat", self.source.tell() - here + 1));
            }
            Some(false) => {}
        }
        let last = subpattern.data.pop().unwrap();
        let item = match last {
            Item::Subpattern { group: None, add_flags: 0, del_flags: 0, p } => p,
            other => SubPattern::from_items(vec![other]),
        };
        let kind = if self.source.matches('?')? {
            RepeatKind::Min
        } else if self.source.py.has_possessive() && self.source.matches('+')? {
            RepeatKind::Possessive
        } else {
            RepeatKind::Max
        };
        subpattern.data.push(Item::Repeat { kind, min, max, item });
        Ok(true)
    }

    fn parse_group(
        &mut self,
        subpattern: &mut SubPattern,
        verbose: &mut bool,
        nested: usize,
        first: bool,
        depth: usize,
    ) -> PResult<()> {
        let start = self.source.tell() - 1;
        let mut capture = true;
        let mut atomic = false;
        let mut name: Option<Vec<char>> = None;
        let mut add_flags = 0u32;
        let mut del_flags = 0u32;
        if self.source.matches('?')? {
            let Some(char) = self.source.get()? else {
                return Err(self.source.error("unexpected end of pattern", 0));
            };
            if char.is('P') {
                if self.source.matches('<')? {
                    let n = self.source.getuntil('>', "group name")?;
                    self.source.checkgroupname(&n, 1)?;
                    name = Some(n);
                } else if self.source.matches('=')? {
                    let n = self.source.getuntil(')', "group name")?;
                    self.source.checkgroupname(&n, 1)?;
                    let off = n.len() as isize + 1;
                    let Some(gid) = self.state.group_by_name(&n) else {
                        let msg = format!("unknown group name {}", self.source.repr(&n));
                        return Err(self.source.error(&msg, off));
                    };
                    if !self.state.checkgroup(gid) {
                        return Err(self.source.error("cannot refer to an open group", off));
                    }
                    self.state.checklookbehindgroup(gid, &self.source)?;
                    subpattern.data.push(Item::GroupRef(gid));
                    return Ok(());
                } else {
                    let Some(char) = self.source.get()? else {
                        return Err(self.source.error("unexpected end of pattern", 0));
                    };
                    let msg = format!("unknown extension ?P{}", char.text());
                    return Err(self.source.error(&msg, char.len() as isize + 2));
                }
            } else if char.is(':') {
                capture = false;
            } else if char.is('#') {
                loop {
                    if self.source.next.is_none() {
                        return Err(self.source.error("missing ), unterminated comment", self.source.tell() - start));
                    }
                    if opt_is(self.source.get()?, ')') {
                        break;
                    }
                }
                return Ok(());
            } else if char.is('=') || char.is('!') || char.is('<') {
                let mut char = char;
                let mut behind = false;
                let mut lookbehindgroups = None;
                if char.is('<') {
                    let Some(c2) = self.source.get()? else {
                        return Err(self.source.error("unexpected end of pattern", 0));
                    };
                    if !(c2.is('=') || c2.is('!')) {
                        let msg = format!("unknown extension ?<{}", c2.text());
                        return Err(self.source.error(&msg, c2.len() as isize + 2));
                    }
                    char = c2;
                    behind = true;
                    lookbehindgroups = self.state.lookbehindgroups;
                    if lookbehindgroups.is_none() {
                        self.state.lookbehindgroups = Some(self.state.groups());
                    }
                }
                let p = self.parse_sub(*verbose, nested + 1, depth + 1)?;
                if behind && lookbehindgroups.is_none() {
                    self.state.lookbehindgroups = None;
                }
                if !self.source.matches(')')? {
                    return Err(self.source.error("missing ), unterminated subpattern", self.source.tell() - start));
                }
                subpattern.data.push(Item::Assert { negate: char.is('!'), behind, p });
                return Ok(());
            } else if char.is('(') {
                let condname = self.source.getuntil(')', "group name")?;
                let condgroup = self.condgroup(&condname)?;
                self.state.checklookbehindgroup(condgroup, &self.source)?;
                let item_yes = self.parse(*verbose, nested + 1, false, depth + 1)?;
                let item_no = if self.source.matches('|')? {
                    let no = self.parse(*verbose, nested + 1, false, depth + 1)?;
                    if opt_is(self.source.next, '|') {
                        return Err(self.source.error("conditional backref with more than two branches", 0));
                    }
                    Some(no)
                } else {
                    None
                };
                if !self.source.matches(')')? {
                    return Err(self.source.error("missing ), unterminated subpattern", self.source.tell() - start));
                }
                subpattern.data.push(Item::GroupRefExists { group: condgroup, yes: item_yes, no: item_no });
                return Ok(());
            } else if char.is('>') && self.source.py.has_possessive() {
                capture = false;
                atomic = true;
            } else if (!char.is_escape() && flag_value(self.source.py, char.c).is_some()) || char.is('-') {
                match self.parse_flags(char)? {
                    None if self.source.py.global_flags_anywhere() => {
                        if !first || !subpattern.data.is_empty() {
                            self.flags_not_at_start(start);
                        }
                        if self.state.flags & FLAG_VERBOSE != 0 && !*verbose {
                            return Err(verbose_restart());
                        }
                        return Ok(());
                    }
                    None => {
                        if !first || !subpattern.data.is_empty() {
                            return Err(self
                                .source
                                .error("global flags not at the start of the expression", self.source.tell() - start));
                        }
                        *verbose = self.state.flags & FLAG_VERBOSE != 0;
                        return Ok(());
                    }
                    Some((a, d)) => {
                        add_flags = a;
                        del_flags = d;
                        capture = false;
                    }
                }
            } else {
                let msg = format!("unknown extension ?{}", char.text());
                return Err(self.source.error(&msg, char.len() as isize + 1));
            }
        }
        // parse group contents
        let group = if capture {
            match self.state.opengroup(name.as_deref()) {
                Ok(g) => Some(g),
                Err(msg) => {
                    let off = name.as_ref().map_or(0, |n| n.len()) as isize + 1;
                    return Err(self.source.error(&msg, off));
                }
            }
        } else {
            None
        };
        let sub_verbose = (*verbose || add_flags & FLAG_VERBOSE != 0) && del_flags & FLAG_VERBOSE == 0;
        let p = self.parse_sub(sub_verbose, nested + 1, depth + 1)?;
        if !self.source.matches(')')? {
            return Err(self.source.error("missing ), unterminated subpattern", self.source.tell() - start));
        }
        if let Some(g) = group {
            self.state.closegroup(g, &p);
        }
        if atomic {
            subpattern.data.push(Item::AtomicGroup(p));
        } else {
            subpattern.data.push(Item::Subpattern { group, add_flags, del_flags, p });
        }
        Ok(())
    }

    /// 3.10's `DeprecationWarning` for global flags after the start.
    fn flags_not_at_start(&mut self, start: isize) {
        let string = self.source.s;
        let head: Vec<char> = string.iter().take(20).copied().collect();
        let truncated = if string.len() > 20 { " (truncated)" } else { "" };
        let msg = format!(
            "Flags not at the start of the expression {}{} but at position {}",
            self.source.repr(&head),
            truncated,
            start
        );
        self.warn("DeprecationWarning", msg, start);
    }

    /// The group number of a conditional reference `(?(condname)...)`, with its errors and
    /// warnings: 3.11 accepts what `int()` reads (`+1`, ` 1`, `١`) with a
    /// `DeprecationWarning`, 3.10 silently, 3.12 on only ASCII digits.
    fn condgroup(&mut self, condname: &[char]) -> PResult<usize> {
        let off = condname.len() as isize + 1;
        let u = self.source.u();
        let ascii_decimal = u.is_decimal_str(condname) && condname.iter().all(|c| c.is_ascii());
        let by_name = if self.source.py >= PythonVersion::V3_12 { !ascii_decimal } else { u.is_identifier(condname) };
        if by_name {
            self.source.checkgroupname(condname, 1)?;
            return match self.state.group_by_name(condname) {
                Some(g) => Ok(g),
                None => {
                    let msg = format!("unknown group name {}", self.source.repr(condname));
                    Err(self.source.error(&msg, off))
                }
            };
        }
        if condname.len() > 4300 && self.source.py >= PythonVersion::V3_12 {
            // `int(condname)` outside 3.11's `try`
            return Err(int_digits_limit(self.source.py, condname.len()));
        }
        let bad = || format!("bad character in group name {}", self.source.repr(condname));
        let value = unicode::py_int(u, condname);
        let (negative, digits) = match &value {
            unicode::PyInt::Value { negative, digits } => (*negative, digits.clone()),
            unicode::PyInt::Invalid => return Err(self.source.error(&bad(), off)),
        };
        if negative {
            return Err(self.source.error(&bad(), off));
        }
        if digits == "0" {
            return Err(self.source.error("bad group number", off));
        }
        let small = value.as_u64().filter(|&v| v < self.source.py.maxgroups());
        let Some(v) = small else {
            let msg = format!("invalid group reference {}", digits);
            return Err(self.source.error(&msg, off));
        };
        let pos = self.source.tell() - condname.len() as isize - 1;
        if !self.state.grouprefpos.iter().any(|&(g, _)| g == v) {
            self.state.grouprefpos.push((v, pos));
        }
        if !ascii_decimal && self.source.py == PythonVersion::V3_11 {
            let msg = format!("bad character in group name {} at position {}", self.source.repr(condname), pos);
            self.warn("DeprecationWarning", msg, pos);
        }
        Ok(v as usize)
    }

    /// `_parse_flags`; `Ok(None)` for global flags.
    fn parse_flags(&mut self, first: Tok) -> PResult<Option<(u32, u32)>> {
        let mut add_flags = 0u32;
        let mut del_flags = 0u32;
        let mut char = first;
        if !char.is('-') {
            loop {
                let flag = flag_value(self.source.py, char.c).unwrap_or(0);
                if char.is('L') {
                    return Err(self.source.error("bad inline flags: cannot use 'L' flag with a str pattern", 0));
                }
                add_flags |= flag;
                if flag & TYPE_FLAGS != 0 && (add_flags & TYPE_FLAGS) != flag {
                    return Err(self.source.error("bad inline flags: flags 'a', 'u' and 'L' are incompatible", 0));
                }
                let Some(c) = self.source.get()? else {
                    return Err(self.source.error("missing -, : or )", 0));
                };
                char = c;
                if char.is(')') || char.is('-') || char.is(':') {
                    break;
                }
                if char.is_escape() || flag_value(self.source.py, char.c).is_none() {
                    let msg = if char.isalpha(self.source.u()) { "unknown flag" } else { "missing -, : or )" };
                    return Err(self.source.error(msg, char.len() as isize));
                }
            }
        }
        if char.is(')') {
            self.state.flags |= add_flags;
            return Ok(None);
        }
        if add_flags & GLOBAL_FLAGS != 0 {
            return Err(self.source.error("bad inline flags: cannot turn on global flag", 1));
        }
        if char.is('-') {
            let Some(c) = self.source.get()? else {
                return Err(self.source.error("missing flag", 0));
            };
            char = c;
            if char.is_escape() || flag_value(self.source.py, char.c).is_none() {
                let msg = if char.isalpha(self.source.u()) { "unknown flag" } else { "missing flag" };
                return Err(self.source.error(msg, char.len() as isize));
            }
            loop {
                let flag = flag_value(self.source.py, char.c).unwrap_or(0);
                if flag & TYPE_FLAGS != 0 {
                    return Err(self.source.error("bad inline flags: cannot turn off flags 'a', 'u' and 'L'", 0));
                }
                del_flags |= flag;
                let Some(c) = self.source.get()? else {
                    return Err(self.source.error("missing :", 0));
                };
                char = c;
                if char.is(':') {
                    break;
                }
                if char.is_escape() || flag_value(self.source.py, char.c).is_none() {
                    let msg = if char.isalpha(self.source.u()) { "unknown flag" } else { "missing :" };
                    return Err(self.source.error(msg, char.len() as isize));
                }
            }
        }
        if del_flags & GLOBAL_FLAGS != 0 {
            return Err(self.source.error("bad inline flags: cannot turn off global flag", 1));
        }
        if add_flags & del_flags != 0 {
            return Err(self.source.error("bad inline flags: flag turned on and off", 1));
        }
        Ok(Some((add_flags, del_flags)))
    }
}

fn code_to_setitem(code: &Code) -> SetItem {
    match code {
        Code::Literal(c) => SetItem::Literal(*c),
        Code::InCategory(cat) => SetItem::Category(*cat),
        // class escapes only produce literals and categories
        Code::At(_) | Code::GroupRef(_) => SetItem::Literal(0),
    }
}

/// `int(digits)` for a `{m,n}` bound, with the `MAXREPEAT` check.
fn repeat_number(py: PythonVersion, digits: &[char]) -> PResult<u32> {
    if digits.len() > 4300 {
        return Err(int_digits_limit(py, digits.len()));
    }
    let trimmed: Vec<char> = digits.iter().copied().skip_while(|&c| c == '0').collect();
    let too_large = || CompileError::Other {
        kind: "OverflowError".to_string(),
        msg: "the repetition number is too large".to_string(),
    };
    if trimmed.len() > 10 {
        return Err(too_large());
    }
    let v: u64 = trimmed.iter().fold(0u64, |acc, c| acc * 10 + c.to_digit(10).unwrap_or(0) as u64);
    if v >= MAXREPEAT as u64 {
        return Err(too_large());
    }
    Ok(v as u32)
}

/// `int()` of a string of more than 4300 digits.
fn int_digits_limit(py: PythonVersion, digits: usize) -> CompileError {
    let limit = if py == PythonVersion::V3_10 { "4300" } else { "4300 digits" };
    CompileError::Other {
        kind: "ValueError".to_string(),
        msg: format!(
            "Exceeds the limit ({limit}) for integer string conversion: value has {digits} digits; \
             use sys.set_int_max_str_digits() to increase the limit"
        ),
    }
}

/// 3.10's `Verbose` exception: the verbose flag turned on inside the pattern, which
/// `parse` catches once to parse the whole pattern again in verbose mode.
fn verbose_restart() -> CompileError {
    CompileError::Other { kind: "Verbose".to_string(), msg: String::new() }
}

/// The output of `parse()`.
pub(crate) struct Parsed {
    pub p: SubPattern,
    pub state: State,
}

/// `re._parser.parse(pattern)` with `flags=0`.
pub(crate) fn parse(pattern: &[char], py: PythonVersion, warnings: &mut Vec<PyWarning>) -> PResult<Parsed> {
    let source = Tokenizer::new(pattern, py)?;
    let mut parser = Parser { source, state: State::new(py), warnings };
    let p = match parser.parse_sub(false, 0, BASE_PARSE_DEPTH - 1) {
        Err(e) if e == verbose_restart() => {
            // 3.10: parse again from the start with the verbose flag on
            parser.source.seek(0)?;
            parser.state = State::new(py);
            parser.state.flags = FLAG_VERBOSE;
            parser.parse_sub(true, 0, BASE_PARSE_DEPTH - 1)?
        }
        other => other?,
    };
    // fix_flags
    let flags = parser.state.flags;
    if flags & FLAG_ASCII == 0 {
        parser.state.flags |= FLAG_UNICODE;
    } else if flags & FLAG_UNICODE != 0 {
        return Err(CompileError::Other {
            kind: "ValueError".to_string(),
            msg: "ASCII and UNICODE flags are incompatible".to_string(),
        });
    }
    if parser.source.next.is_some() {
        return Err(parser.source.error("unbalanced parenthesis", 0));
    }
    let groups = parser.state.groups() as u64;
    for &(g, pos) in &parser.state.grouprefpos {
        if g >= groups {
            return Err(CompileError::Re {
                msg: format!("invalid group reference {}", g),
                pos: Some(pos.max(0) as usize),
            });
        }
    }
    let state = parser.state;
    Ok(Parsed { p, state })
}
