//! Port of CPython 3.11.7 `Lib/re/_compiler.py`: turns the parsed pattern
//! into SRE-style code for [`crate::engine`], raising the compile-time
//! errors (`look-behind requires fixed-width pattern`, `looks too much
//! behind`, template-flag errors).
//!
//! Opcodes mirror `_sre`'s; character sets are emitted in their
//! `_optimize_charset` form except that the BMP character map is stored as
//! a sorted range list (`CHARMAP index`) instead of `CHARSET`/`BIGCHARSET`
//! bitmaps, which has the same membership semantics.

use crate::parser::{
    At, Item, Parsed, RepeatKind, SetItem, SubPattern, Width, FLAG_DOTALL, FLAG_IGNORECASE, FLAG_LOCALE,
    FLAG_MULTILINE, FLAG_TEMPLATE, FLAG_UNICODE, TYPE_FLAGS,
};
use crate::unicode::{self, UnicodeData};
use crate::{CompileError, PythonVersion};

pub(crate) const MAXCODE: u128 = u32::MAX as u128;

pub(crate) mod op {
    pub const FAILURE: u32 = 0;
    pub const SUCCESS: u32 = 1;
    pub const ANY: u32 = 2;
    pub const ANY_ALL: u32 = 3;
    pub const ASSERT: u32 = 4;
    pub const ASSERT_NOT: u32 = 5;
    pub const AT: u32 = 6;
    pub const BRANCH: u32 = 7;
    pub const CATEGORY: u32 = 8;
    pub const CHARMAP: u32 = 9;
    pub const GROUPREF: u32 = 10;
    pub const GROUPREF_EXISTS: u32 = 11;
    pub const IN: u32 = 12;
    pub const JUMP: u32 = 14;
    pub const LITERAL: u32 = 15;
    pub const MARK: u32 = 16;
    pub const MAX_UNTIL: u32 = 17;
    pub const MIN_UNTIL: u32 = 18;
    pub const NOT_LITERAL: u32 = 19;
    pub const NEGATE: u32 = 20;
    pub const RANGE: u32 = 21;
    pub const REPEAT: u32 = 22;
    pub const REPEAT_ONE: u32 = 23;
    pub const MIN_REPEAT_ONE: u32 = 24;
    pub const ATOMIC_GROUP: u32 = 25;
    pub const POSSESSIVE_REPEAT: u32 = 26;
    pub const POSSESSIVE_REPEAT_ONE: u32 = 27;
    pub const GROUPREF_IGNORE: u32 = 28;
    pub const IN_IGNORE: u32 = 29;
    pub const LITERAL_IGNORE: u32 = 30;
    pub const NOT_LITERAL_IGNORE: u32 = 31;
    pub const GROUPREF_UNI_IGNORE: u32 = 32;
    pub const IN_UNI_IGNORE: u32 = 33;
    pub const LITERAL_UNI_IGNORE: u32 = 34;
    pub const NOT_LITERAL_UNI_IGNORE: u32 = 35;
    pub const RANGE_UNI_IGNORE: u32 = 36;
}

/// Category codes as in `re._constants.CHCODES` (UNI variants are +10).
pub(crate) mod cat {
    pub const DIGIT: u32 = 0;
    pub const NOT_DIGIT: u32 = 1;
    pub const SPACE: u32 = 2;
    pub const NOT_SPACE: u32 = 3;
    pub const WORD: u32 = 4;
    pub const NOT_WORD: u32 = 5;
    pub const UNI_DIGIT: u32 = 10;
    pub const UNI_NOT_DIGIT: u32 = 11;
    pub const UNI_SPACE: u32 = 12;
    pub const UNI_NOT_SPACE: u32 = 13;
    pub const UNI_WORD: u32 = 14;
    pub const UNI_NOT_WORD: u32 = 15;
}

/// Compiled program.
#[derive(Debug, Clone)]
pub(crate) struct Program {
    pub code: Vec<u32>,
    /// BMP character maps referenced by `CHARMAP idx`, as sorted ranges.
    pub charmaps: Vec<Vec<(u32, u32)>>,
    /// Minimal match width (`INFO` block `min`), clamped to `MAXCODE`.
    pub min_len: u64,
    /// Number of capturing groups (excluding group 0).
    pub groups: usize,
    /// Whose Unicode data the matcher reads.
    pub py: PythonVersion,
}

#[derive(Clone, Copy)]
enum Case {
    /// no IGNORECASE
    None,
    /// IGNORECASE with ASCII semantics
    Ascii,
    /// IGNORECASE with Unicode semantics (`_EXTRA_CASES` fixes)
    Unicode(&'static UnicodeData),
}

impl Case {
    fn from_flags(flags: u32, u: &'static UnicodeData) -> Case {
        if flags & FLAG_IGNORECASE != 0 && flags & FLAG_LOCALE == 0 {
            if flags & FLAG_UNICODE != 0 {
                Case::Unicode(u)
            } else {
                Case::Ascii
            }
        } else {
            Case::None
        }
    }
    fn iscased(self, c: u32) -> bool {
        match self {
            Case::None => false,
            Case::Ascii => unicode::ascii_iscased(c),
            Case::Unicode(u) => u.iscased(c),
        }
    }
    fn tolower(self, c: u32) -> u32 {
        match self {
            Case::None => c,
            Case::Ascii => unicode::ascii_lower(c),
            Case::Unicode(u) => u.lower(c),
        }
    }
}

fn combine_flags(flags: u32, add_flags: u32, del_flags: u32) -> u32 {
    let mut flags = flags;
    if add_flags & TYPE_FLAGS != 0 {
        flags &= !TYPE_FLAGS;
    }
    (flags | add_flags) & !del_flags
}

struct Compiler<'a> {
    code: Vec<u32>,
    charmaps: Vec<Vec<(u32, u32)>>,
    groupwidths: &'a [Option<Width>],
    py: PythonVersion,
}

/// `_simple`.
fn simple(p: &SubPattern) -> bool {
    if p.data.len() != 1 {
        return false;
    }
    match &p.data[0] {
        Item::Subpattern { group, p, .. } => group.is_none() && simple(p),
        Item::Literal(_) | Item::NotLiteral(_) | Item::Any | Item::In(_) => true,
        _ => false,
    }
}

/// Output of `_optimize_charset`, in membership-equivalent form.
struct OptimizedSet {
    negate: bool,
    charmap: Option<Vec<(u32, u32)>>,
    tail: Vec<(u32, u32, u32)>, // (op, a, b)
    hascased: bool,
}

struct Charmap {
    bits: Vec<u64>,
    len: usize,
}

impl Charmap {
    fn set(&mut self, i: u32) -> Result<(), ()> {
        let i = i as usize;
        if i >= self.len {
            return Err(());
        }
        self.bits[i / 64] |= 1 << (i % 64);
        Ok(())
    }
    fn ranges(&self) -> Vec<(u32, u32)> {
        let mut out = Vec::new();
        let mut start: Option<u32> = None;
        let mut i = 0;
        while i < self.len {
            let word = self.bits[i / 64];
            // skip whole words without a transition
            if i % 64 == 0 && ((word == 0 && start.is_none()) || (word == u64::MAX && start.is_some())) {
                i += 64;
                continue;
            }
            let on = word & (1 << (i % 64)) != 0;
            match (on, start) {
                (true, None) => start = Some(i as u32),
                (false, Some(s)) => {
                    out.push((s, i as u32 - 1));
                    start = None;
                }
                _ => {}
            }
            i += 1;
        }
        if let Some(s) = start {
            out.push((s, self.len as u32 - 1));
        }
        out
    }
}

/// `_optimize_charset(charset, iscased, tolower, fixes)`.
fn optimize_charset(charset: &[SetItem], case: Case) -> OptimizedSet {
    let fixup = !matches!(case, Case::None);
    let fixes = match case {
        Case::Unicode(u) => Some(u),
        _ => None,
    };
    let mut charmap = Charmap { bits: vec![0u64; 4], len: 256 };
    let mut negate = false;
    let mut tail: Vec<(u32, u32, u32)> = Vec::new();
    let mut hascased = false;
    for item in charset {
        loop {
            let res: Result<(), ()> = (|| {
                match *item {
                    SetItem::Literal(av) => {
                        if fixup {
                            let lo = case.tolower(av);
                            charmap.set(lo)?;
                            if let Some(u) = fixes {
                                for k in u.extra_cases(lo) {
                                    charmap.set(k)?;
                                }
                            }
                            if !hascased && case.iscased(av) {
                                hascased = true;
                            }
                        } else {
                            charmap.set(av)?;
                        }
                    }
                    SetItem::Range(a, b) => {
                        if fixup {
                            for i in a..=b {
                                let l = case.tolower(i);
                                charmap.set(l)?;
                                if let Some(u) = fixes {
                                    for k in u.extra_cases(l) {
                                        charmap.set(k)?;
                                    }
                                }
                            }
                            if !hascased {
                                hascased = (a..=b).any(|c| case.iscased(c));
                            }
                        } else {
                            for i in a..=b {
                                charmap.set(i)?;
                            }
                        }
                    }
                    SetItem::Negate => negate = true,
                    SetItem::Category(c) => tail.push((op::CATEGORY, c as u32, 0)),
                }
                Ok(())
            })();
            if res.is_err() {
                if charmap.len == 256 {
                    charmap.bits.resize(1024, 0);
                    charmap.len = 65536;
                    continue;
                }
                match *item {
                    SetItem::Literal(av) => {
                        if fixup {
                            hascased = true;
                        }
                        tail.push((op::LITERAL, av, 0));
                    }
                    SetItem::Range(a, b) => {
                        if fixup {
                            hascased = true;
                            tail.push((op::RANGE_UNI_IGNORE, a, b));
                        } else {
                            tail.push((op::RANGE, a, b));
                        }
                    }
                    _ => {}
                }
            }
            break;
        }
    }
    let ranges = charmap.ranges();
    OptimizedSet { negate, charmap: if ranges.is_empty() { None } else { Some(ranges) }, tail, hascased }
}

fn category_code(c: u32, flags: u32) -> u32 {
    if flags & FLAG_UNICODE != 0 {
        c + 10
    } else {
        c
    }
}

impl<'a> Compiler<'a> {
    fn emit(&mut self, v: u32) {
        self.code.push(v);
    }

    fn len(&self) -> usize {
        self.code.len()
    }

    fn set_skip(&mut self, at: usize, value: usize) {
        self.code[at] = value as u32;
    }

    fn compile_charset(&mut self, set: OptimizedSet, flags: u32) {
        if set.negate {
            self.emit(op::NEGATE);
        }
        if let Some(ranges) = set.charmap {
            self.emit(op::CHARMAP);
            self.emit(self.charmaps.len() as u32);
            self.charmaps.push(ranges);
        }
        for (o, a, b) in set.tail {
            self.emit(o);
            match o {
                op::CATEGORY => self.emit(category_code(a, flags)),
                op::LITERAL => self.emit(a),
                _ => {
                    self.emit(a);
                    self.emit(b);
                }
            }
        }
        self.emit(op::FAILURE);
    }

    /// `_compile(code, pattern, flags)`.
    fn compile(&mut self, pattern: &SubPattern, flags: u32) -> Result<(), CompileError> {
        let case = Case::from_flags(flags, self.py.unicode());
        for item in &pattern.data {
            match item {
                Item::Literal(av) | Item::NotLiteral(av) => {
                    let is_not = matches!(item, Item::NotLiteral(_));
                    let av = *av;
                    if flags & FLAG_IGNORECASE == 0 || !case.iscased(av) {
                        self.emit(if is_not { op::NOT_LITERAL } else { op::LITERAL });
                        self.emit(av);
                    } else {
                        let lo = case.tolower(av);
                        match case {
                            Case::Ascii => {
                                self.emit(if is_not { op::NOT_LITERAL_IGNORE } else { op::LITERAL_IGNORE });
                                self.emit(lo);
                            }
                            Case::None | Case::Unicode(_) if !self.py.unicode().has_extra_cases(lo) => {
                                self.emit(if is_not { op::NOT_LITERAL_UNI_IGNORE } else { op::LITERAL_UNI_IGNORE });
                                self.emit(lo);
                            }
                            _ => {
                                self.emit(op::IN_UNI_IGNORE);
                                let skip = self.len();
                                self.emit(0);
                                if is_not {
                                    self.emit(op::NEGATE);
                                }
                                self.emit(op::LITERAL);
                                self.emit(lo);
                                for k in self.py.unicode().extra_cases(lo) {
                                    self.emit(op::LITERAL);
                                    self.emit(k);
                                }
                                self.emit(op::FAILURE);
                                let l = self.len();
                                self.set_skip(skip, l - skip);
                            }
                        }
                    }
                }
                Item::In(av) => {
                    let set = optimize_charset(av, case);
                    let opcode = if !set.hascased {
                        op::IN
                    } else if matches!(case, Case::Ascii) {
                        op::IN_IGNORE
                    } else {
                        op::IN_UNI_IGNORE
                    };
                    self.emit(opcode);
                    let skip = self.len();
                    self.emit(0);
                    self.compile_charset(set, flags);
                    let l = self.len();
                    self.set_skip(skip, l - skip);
                }
                Item::Any => {
                    self.emit(if flags & FLAG_DOTALL != 0 { op::ANY_ALL } else { op::ANY });
                }
                Item::Repeat { kind, min, max, item } => {
                    if flags & FLAG_TEMPLATE != 0 {
                        let name = match kind {
                            RepeatKind::Max => "MAX_REPEAT",
                            RepeatKind::Min => "MIN_REPEAT",
                            RepeatKind::Possessive => "POSSESSIVE_REPEAT",
                        };
                        return Err(CompileError::Re {
                            msg: format!("internal: unsupported template operator {}", name),
                            pos: None,
                        });
                    }
                    if simple(item) {
                        self.emit(match kind {
                            RepeatKind::Max => op::REPEAT_ONE,
                            RepeatKind::Min => op::MIN_REPEAT_ONE,
                            RepeatKind::Possessive => op::POSSESSIVE_REPEAT_ONE,
                        });
                        let skip = self.len();
                        self.emit(0);
                        self.emit(*min);
                        self.emit(*max);
                        self.compile(item, flags)?;
                        self.emit(op::SUCCESS);
                        let l = self.len();
                        self.set_skip(skip, l - skip);
                    } else {
                        self.emit(match kind {
                            RepeatKind::Possessive => op::POSSESSIVE_REPEAT,
                            _ => op::REPEAT,
                        });
                        let skip = self.len();
                        self.emit(0);
                        self.emit(*min);
                        self.emit(*max);
                        self.compile(item, flags)?;
                        let l = self.len();
                        self.set_skip(skip, l - skip);
                        self.emit(match kind {
                            RepeatKind::Max => op::MAX_UNTIL,
                            RepeatKind::Min => op::MIN_UNTIL,
                            RepeatKind::Possessive => op::SUCCESS,
                        });
                    }
                }
                Item::Subpattern { group, add_flags, del_flags, p } => {
                    if let Some(g) = group {
                        self.emit(op::MARK);
                        self.emit(((g - 1) * 2) as u32);
                    }
                    self.compile(p, combine_flags(flags, *add_flags, *del_flags))?;
                    if let Some(g) = group {
                        self.emit(op::MARK);
                        self.emit(((g - 1) * 2 + 1) as u32);
                    }
                }
                Item::AtomicGroup(p) => {
                    self.emit(op::ATOMIC_GROUP);
                    let skip = self.len();
                    self.emit(0);
                    self.compile(p, flags)?;
                    self.emit(op::SUCCESS);
                    let l = self.len();
                    self.set_skip(skip, l - skip);
                }
                Item::Assert { negate, behind, p } => {
                    self.emit(if *negate { op::ASSERT_NOT } else { op::ASSERT });
                    let skip = self.len();
                    self.emit(0);
                    if !*behind {
                        self.emit(0);
                    } else {
                        let (lo, hi) = p.getwidth(self.groupwidths, self.py);
                        if lo > MAXCODE && self.py.has_possessive() {
                            return Err(CompileError::Re { msg: "looks too much behind".to_string(), pos: None });
                        }
                        if lo != hi {
                            return Err(CompileError::Re {
                                msg: "look-behind requires fixed-width pattern".to_string(),
                                pos: None,
                            });
                        }
                        self.emit(lo as u32);
                    }
                    self.compile(p, flags)?;
                    self.emit(op::SUCCESS);
                    let l = self.len();
                    self.set_skip(skip, l - skip);
                }
                Item::At(at) => {
                    let mut at = *at;
                    if flags & FLAG_MULTILINE != 0 {
                        at = match at {
                            At::Beginning => At::BeginningLine,
                            At::End => At::EndLine,
                            other => other,
                        };
                    }
                    if flags & FLAG_UNICODE != 0 {
                        at = match at {
                            At::Boundary => At::UniBoundary,
                            At::NonBoundary => At::UniNonBoundary,
                            other => other,
                        };
                    }
                    self.emit(op::AT);
                    self.emit(at as u32);
                }
                Item::Branch(alts) => {
                    self.emit(op::BRANCH);
                    let mut tails = Vec::with_capacity(alts.len());
                    for alt in alts {
                        let skip = self.len();
                        self.emit(0);
                        self.compile(alt, flags)?;
                        self.emit(op::JUMP);
                        tails.push(self.len());
                        self.emit(0);
                        let l = self.len();
                        self.set_skip(skip, l - skip);
                    }
                    self.emit(op::FAILURE);
                    let l = self.len();
                    for t in tails {
                        self.set_skip(t, l - t);
                    }
                }
                Item::GroupRef(g) => {
                    self.emit(match case {
                        Case::None => op::GROUPREF,
                        Case::Ascii => op::GROUPREF_IGNORE,
                        Case::Unicode(_) => op::GROUPREF_UNI_IGNORE,
                    });
                    self.emit((*g - 1) as u32);
                }
                Item::GroupRefExists { group, yes, no } => {
                    self.emit(op::GROUPREF_EXISTS);
                    self.emit((*group - 1) as u32);
                    let skipyes = self.len();
                    self.emit(0);
                    self.compile(yes, flags)?;
                    match no {
                        Some(no) if !no.data.is_empty() => {
                            self.emit(op::JUMP);
                            let skipno = self.len();
                            self.emit(0);
                            let l = self.len();
                            self.set_skip(skipyes, l - skipyes + 1);
                            self.compile(no, flags)?;
                            let l = self.len();
                            self.set_skip(skipno, l - skipno);
                        }
                        _ => {
                            let l = self.len();
                            self.set_skip(skipyes, l - skipyes + 1);
                        }
                    }
                }
            }
        }
        Ok(())
    }
}

/// `_code(p, flags)` minus the literal-prefix part of the `INFO` block.
pub(crate) fn compile(parsed: &Parsed, py: PythonVersion) -> Result<Program, CompileError> {
    let flags = parsed.state.flags;
    let groupwidths = &parsed.state.groupwidths;
    let (lo, _hi) = parsed.p.getwidth(groupwidths, py);
    let mut c = Compiler { code: Vec::new(), charmaps: Vec::new(), groupwidths, py };
    c.compile(&parsed.p, flags)?;
    c.emit(op::SUCCESS);
    Ok(Program {
        code: c.code,
        charmaps: c.charmaps,
        min_len: lo.min(MAXCODE) as u64,
        groups: parsed.state.groups() - 1,
        py,
    })
}
