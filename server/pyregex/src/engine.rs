//! Backtracking matcher: a port of the semantics of CPython's
//! `Modules/_sre/sre_lib.h` (`SRE(match)`, `SRE(count)`, `SRE(charset)`,
//! `SRE(at)`, `SRE(search)`) over the code produced by
//! [`crate::compiler`].
//!
//! Like `_sre`, the matcher never recurses on the host stack: match
//! contexts live on an explicit stack (`DO_JUMP` pushes one, `RETURN_*`
//! pops one and resumes the parent at the recorded jump site).  Every
//! dispatched opcode and every character scanned by a repeat costs one step
//! of the caller's budget, so a search always terminates.

use crate::compiler::{cat, op, Program};
use crate::parser::{At, MAXREPEAT};
use crate::unicode::{self, UnicodeData};

/// The step budget ran out.
#[derive(Debug)]
pub(crate) struct Exhausted;

type Res<T> = Result<T, Exhausted>;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Jump {
    None,
    MaxUntil1,
    MaxUntil2,
    MaxUntil3,
    MinUntil1,
    MinUntil2,
    MinUntil3,
    Repeat,
    RepeatOne1,
    RepeatOne2,
    MinRepeatOne,
    Branch,
    Assert,
    AssertNot,
    PossRepeat1,
    PossRepeat2,
    AtomicGroup,
}

#[derive(Clone, Copy, Debug)]
struct Ctx {
    count: isize,
    chr: u32,
    rep: usize,
    lastmark: isize,
    lastindex: isize,
    pattern: usize,
    ptr: usize,
    jump: Jump,
    /// POSSESSIVE_REPEAT: the local `ptr` is still NULL (first iteration).
    ptr_null: bool,
}

impl Ctx {
    fn new(jump: Jump) -> Ctx {
        Ctx { count: 0, chr: 0, rep: 0, lastmark: -1, lastindex: -1, pattern: 0, ptr: 0, jump, ptr_null: false }
    }
}

#[derive(Clone, Copy, Debug)]
struct Repeat {
    count: isize,
    /// index of the `<skip>` word after the REPEAT opcode
    pattern: usize,
    prev: Option<usize>,
    last_ptr: Option<usize>,
}

enum Action {
    /// keep dispatching the current context at (pc, ptr)
    Continue(usize, usize),
    /// enter a child context at the given code index
    Jump(Jump, usize),
    /// leave the current context with a result
    Return(bool),
}

pub(crate) struct Matcher<'a> {
    code: &'a [u32],
    /// The Unicode data of the Python version the program was compiled for.
    u: &'static UnicodeData,
    charmaps: &'a [Vec<(u32, u32)>],
    text: &'a [u32],
    end: usize,
    /// `state->ptr`
    ptr: usize,
    marks: Vec<Option<usize>>,
    lastmark: isize,
    lastindex: isize,
    repeat: Option<usize>,
    repeats: Vec<Repeat>,
    data: Vec<Option<usize>>,
    ctxs: Vec<Ctx>,
    steps_left: u64,
}

const NL: u32 = '\n' as u32;

fn is_ascii_word(c: u32) -> bool {
    c < 128 && ((c as u8).is_ascii_alphanumeric() || c == '_' as u32)
}

fn is_uni_word(u: &UnicodeData, c: u32) -> bool {
    u.is_alnum(c) || c == '_' as u32
}

fn category(u: &UnicodeData, code: u32, c: u32) -> bool {
    match code {
        cat::DIGIT => c < 128 && (c as u8).is_ascii_digit(),
        cat::NOT_DIGIT => !(c < 128 && (c as u8).is_ascii_digit()),
        cat::SPACE => matches!(c, 9..=13 | 32),
        cat::NOT_SPACE => !matches!(c, 9..=13 | 32),
        cat::WORD => is_ascii_word(c),
        cat::NOT_WORD => !is_ascii_word(c),
        cat::UNI_DIGIT => u.decimal(c).is_some(),
        cat::UNI_NOT_DIGIT => u.decimal(c).is_none(),
        cat::UNI_SPACE => u.is_space(c),
        cat::UNI_NOT_SPACE => !u.is_space(c),
        cat::UNI_WORD => is_uni_word(u, c),
        cat::UNI_NOT_WORD => !is_uni_word(u, c),
        _ => false,
    }
}

impl<'a> Matcher<'a> {
    pub(crate) fn new(prog: &'a Program, text: &'a [u32], steps: u64) -> Self {
        Matcher {
            code: &prog.code,
            u: prog.py.unicode(),
            charmaps: &prog.charmaps,
            text,
            end: text.len(),
            ptr: 0,
            marks: vec![None; prog.groups * 2],
            lastmark: -1,
            lastindex: -1,
            repeat: None,
            repeats: Vec::new(),
            data: Vec::new(),
            ctxs: Vec::new(),
            steps_left: steps,
        }
    }

    #[inline]
    fn step(&mut self, n: u64) -> Res<()> {
        if self.steps_left < n {
            self.steps_left = 0;
            return Err(Exhausted);
        }
        self.steps_left -= n;
        Ok(())
    }

    fn at(&self, ptr: usize, code: u32) -> bool {
        let end = self.end;
        let t = self.text;
        let uni_word = |c: u32| is_uni_word(self.u, c);
        let word = |f: &dyn Fn(u32) -> bool| -> Option<(bool, bool)> {
            if end == 0 {
                return None;
            }
            let thatp = ptr > 0 && f(t[ptr - 1]);
            let thisp = ptr < end && f(t[ptr]);
            Some((thisp, thatp))
        };
        match code {
            c if c == At::Beginning as u32 || c == At::BeginningString as u32 => ptr == 0,
            c if c == At::BeginningLine as u32 => ptr == 0 || t[ptr - 1] == NL,
            c if c == At::End as u32 => (end - ptr == 1 && t[ptr] == NL) || ptr == end,
            c if c == At::EndLine as u32 => ptr == end || t[ptr] == NL,
            c if c == At::EndString as u32 => ptr == end,
            c if c == At::Boundary as u32 => word(&is_ascii_word).is_some_and(|(a, b)| a != b),
            c if c == At::NonBoundary as u32 => word(&is_ascii_word).is_some_and(|(a, b)| a == b),
            c if c == At::UniBoundary as u32 => word(&uni_word).is_some_and(|(a, b)| a != b),
            c if c == At::UniNonBoundary as u32 => word(&uni_word).is_some_and(|(a, b)| a == b),
            _ => false,
        }
    }

    /// `SRE(charset)`: `set` is the index of the first set item.
    fn charset(&self, mut set: usize, ch: u32) -> bool {
        let code = self.code;
        let mut ok = true;
        loop {
            let o = code[set];
            set += 1;
            match o {
                op::FAILURE => return !ok,
                op::LITERAL => {
                    if ch == code[set] {
                        return ok;
                    }
                    set += 1;
                }
                op::CATEGORY => {
                    if category(self.u, code[set], ch) {
                        return ok;
                    }
                    set += 1;
                }
                op::CHARMAP => {
                    let ranges = &self.charmaps[code[set] as usize];
                    let idx = ranges.partition_point(|&(lo, _)| lo <= ch);
                    if idx > 0 && ch <= ranges[idx - 1].1 {
                        return ok;
                    }
                    set += 1;
                }
                op::RANGE => {
                    if code[set] <= ch && ch <= code[set + 1] {
                        return ok;
                    }
                    set += 2;
                }
                op::RANGE_UNI_IGNORE => {
                    if code[set] <= ch && ch <= code[set + 1] {
                        return ok;
                    }
                    let uch = self.u.upper(ch);
                    if code[set] <= uch && uch <= code[set + 1] {
                        return ok;
                    }
                    set += 2;
                }
                op::NEGATE => ok = !ok,
                _ => return false,
            }
        }
    }

    /// Whether the single-character opcode at `pc` matches `ch`.
    fn match_one(&self, pc: usize, ch: u32) -> bool {
        let code = self.code;
        match code[pc] {
            op::LITERAL => ch == code[pc + 1],
            op::NOT_LITERAL => ch != code[pc + 1],
            op::LITERAL_IGNORE => unicode::ascii_lower(ch) == code[pc + 1],
            op::NOT_LITERAL_IGNORE => unicode::ascii_lower(ch) != code[pc + 1],
            op::LITERAL_UNI_IGNORE => self.u.lower(ch) == code[pc + 1],
            op::NOT_LITERAL_UNI_IGNORE => self.u.lower(ch) != code[pc + 1],
            op::ANY => ch != NL,
            op::ANY_ALL => true,
            op::IN => self.charset(pc + 2, ch),
            op::IN_IGNORE => self.charset(pc + 2, unicode::ascii_lower(ch)),
            op::IN_UNI_IGNORE => self.charset(pc + 2, self.u.lower(ch)),
            op::CATEGORY => category(self.u, code[pc + 1], ch),
            _ => false,
        }
    }

    /// `SRE(count)`: how many times the single-character item at `pc`
    /// matches from `self.ptr`, at most `maxcount` times.
    fn count(&mut self, pc: usize, maxcount: u32) -> Res<usize> {
        let start = self.ptr;
        let mut end = self.end;
        if (maxcount as usize) < end - start && maxcount != MAXREPEAT {
            end = start + maxcount as usize;
        }
        let mut ptr = start;
        if self.code[pc] == op::ANY_ALL {
            ptr = end;
        } else {
            while ptr < end && self.match_one(pc, self.text[ptr]) {
                ptr += 1;
            }
        }
        self.step((ptr - start) as u64 + 1)?;
        Ok(ptr - start)
    }

    fn mark_push(&mut self, lastmark: isize) {
        if lastmark >= 0 {
            let n = lastmark as usize + 1;
            self.data.extend_from_slice(&self.marks[..n]);
        }
    }

    fn mark_pop(&mut self, lastmark: isize, discard: bool) {
        if lastmark >= 0 {
            // (pushes and pops are balanced as in `_sre`; stay panic-free anyway)
            let n = (lastmark as usize + 1).min(self.data.len()).min(self.marks.len());
            let start = self.data.len() - n;
            self.marks[..n].copy_from_slice(&self.data[start..]);
            if discard {
                self.data.truncate(start);
            }
        }
    }

    fn mark_pop_discard(&mut self, lastmark: isize) {
        if lastmark >= 0 {
            let n = (lastmark as usize + 1).min(self.data.len());
            let l = self.data.len() - n;
            self.data.truncate(l);
        }
    }

    fn ctx(&mut self) -> &mut Ctx {
        self.ctxs.last_mut().expect("context stack is never empty while matching")
    }

    fn lastmark_save(&mut self) {
        let (lm, li) = (self.lastmark, self.lastindex);
        let c = self.ctx();
        c.lastmark = lm;
        c.lastindex = li;
    }

    fn lastmark_restore(&mut self) {
        let c = *self.ctx();
        self.lastmark = c.lastmark;
        self.lastindex = c.lastindex;
    }

    fn alloc_repeat(&mut self, r: Repeat) -> usize {
        self.repeats.push(r);
        self.repeats.len() - 1
    }

    fn free_repeat(&mut self, idx: usize) {
        if idx + 1 == self.repeats.len() {
            self.repeats.pop();
        }
    }

    /// `SRE(match)` starting at `pc` with `self.ptr` as the position.
    pub(crate) fn run(&mut self, start_pc: usize) -> Res<bool> {
        self.ctxs.clear();
        self.ctxs.push(Ctx::new(Jump::None));
        let start = self.ptr;
        let mut action = self.dispatch(start_pc, start)?;
        loop {
            action = match action {
                Action::Continue(pc, ptr) => self.dispatch(pc, ptr)?,
                Action::Jump(kind, target) => {
                    self.step(1)?;
                    self.ctxs.push(Ctx::new(kind));
                    let ptr = self.ptr;
                    self.dispatch(target, ptr)?
                }
                Action::Return(ret) => {
                    let child = self.ctxs.pop().expect("context stack is never empty while matching");
                    let Some(parent) = self.ctxs.last() else {
                        return Ok(ret);
                    };
                    let (pc, ptr) = (parent.pattern, parent.ptr);
                    self.resume(child.jump, ret, pc, ptr)?
                }
            };
        }
    }

    /// `DO_JUMP`: save the current position in the current context and
    /// enter a child context at `target` (the child starts at `self.ptr`).
    fn do_jump(&mut self, kind: Jump, target: usize, pc: usize, ptr: usize) -> Res<Action> {
        let c = self.ctx();
        c.pattern = pc;
        c.ptr = ptr;
        Ok(Action::Jump(kind, target))
    }

    fn fail() -> Res<Action> {
        Ok(Action::Return(false))
    }

    fn dispatch(&mut self, mut pc: usize, mut ptr: usize) -> Res<Action> {
        let code = self.code;
        let end = self.end;
        loop {
            self.step(1)?;
            let opcode = code[pc];
            pc += 1;
            match opcode {
                op::MARK => {
                    let i = code[pc] as isize;
                    if i & 1 != 0 {
                        self.lastindex = i / 2 + 1;
                    }
                    if i > self.lastmark {
                        let mut j = self.lastmark + 1;
                        while j < i {
                            self.marks[j as usize] = None;
                            j += 1;
                        }
                        self.lastmark = i;
                    }
                    self.marks[i as usize] = Some(ptr);
                    pc += 1;
                }
                op::LITERAL
                | op::NOT_LITERAL
                | op::LITERAL_IGNORE
                | op::NOT_LITERAL_IGNORE
                | op::LITERAL_UNI_IGNORE
                | op::NOT_LITERAL_UNI_IGNORE
                | op::ANY
                | op::ANY_ALL => {
                    if ptr >= end || !self.match_one(pc - 1, self.text[ptr]) {
                        return Self::fail();
                    }
                    if opcode != op::ANY && opcode != op::ANY_ALL {
                        pc += 1;
                    }
                    ptr += 1;
                }
                op::SUCCESS => {
                    self.ptr = ptr;
                    return Ok(Action::Return(true));
                }
                op::AT => {
                    if !self.at(ptr, code[pc]) {
                        return Self::fail();
                    }
                    pc += 1;
                }
                op::CATEGORY => {
                    if ptr >= end || !category(self.u, code[pc], self.text[ptr]) {
                        return Self::fail();
                    }
                    pc += 1;
                    ptr += 1;
                }
                op::IN | op::IN_IGNORE | op::IN_UNI_IGNORE => {
                    if ptr >= end || !self.match_one(pc - 1, self.text[ptr]) {
                        return Self::fail();
                    }
                    pc += code[pc] as usize;
                    ptr += 1;
                }
                op::JUMP => {
                    pc += code[pc] as usize;
                }
                op::BRANCH => {
                    self.lastmark_save();
                    if self.repeat.is_some() {
                        let lm = self.ctx().lastmark;
                        self.mark_push(lm);
                    }
                    return self.branch_next(pc, ptr);
                }
                op::REPEAT_ONE => {
                    let min = code[pc + 1] as usize;
                    if min > end - ptr {
                        return Self::fail();
                    }
                    self.ptr = ptr;
                    let count = self.count(pc + 3, code[pc + 2])?;
                    self.ctx().count = count as isize;
                    ptr += count;
                    if count < min {
                        return Self::fail();
                    }
                    let next = pc + code[pc] as usize;
                    if code[next] == op::SUCCESS && ptr == end {
                        self.ptr = ptr;
                        return Ok(Action::Return(true));
                    }
                    self.lastmark_save();
                    if self.repeat.is_some() {
                        let lm = self.ctx().lastmark;
                        self.mark_push(lm);
                    }
                    if code[next] == op::LITERAL {
                        self.ctx().chr = code[next + 1];
                        return self.repeat_one_literal(pc, ptr);
                    }
                    return self.repeat_one_general(pc, ptr);
                }
                op::MIN_REPEAT_ONE => {
                    let min = code[pc + 1] as usize;
                    if min > end - ptr {
                        return Self::fail();
                    }
                    self.ptr = ptr;
                    if min == 0 {
                        self.ctx().count = 0;
                    } else {
                        let ret = self.count(pc + 3, min as u32)?;
                        if ret < min {
                            return Self::fail();
                        }
                        self.ctx().count = ret as isize;
                        ptr += ret;
                    }
                    let next = pc + code[pc] as usize;
                    if code[next] == op::SUCCESS {
                        self.ptr = ptr;
                        return Ok(Action::Return(true));
                    }
                    self.lastmark_save();
                    if self.repeat.is_some() {
                        let lm = self.ctx().lastmark;
                        self.mark_push(lm);
                    }
                    return self.min_repeat_one_next(pc, ptr);
                }
                op::POSSESSIVE_REPEAT_ONE => {
                    let min = code[pc + 1] as usize;
                    if ptr + min > end {
                        return Self::fail();
                    }
                    self.ptr = ptr;
                    let count = self.count(pc + 3, code[pc + 2])?;
                    self.ctx().count = count as isize;
                    ptr += count;
                    if count < min {
                        return Self::fail();
                    }
                    pc += code[pc] as usize;
                    if code[pc] == op::SUCCESS && ptr == end {
                        self.ptr = ptr;
                        return Ok(Action::Return(true));
                    }
                }
                op::REPEAT => {
                    let prev = self.repeat;
                    let idx = self.alloc_repeat(Repeat { count: -1, pattern: pc, prev, last_ptr: None });
                    self.ctx().rep = idx;
                    self.repeat = Some(idx);
                    self.ptr = ptr;
                    return self.do_jump(Jump::Repeat, pc + code[pc] as usize, pc, ptr);
                }
                op::MAX_UNTIL => {
                    let Some(rep) = self.repeat else {
                        return Self::fail();
                    };
                    self.ctx().rep = rep;
                    self.ptr = ptr;
                    let count = self.repeats[rep].count + 1;
                    self.ctx().count = count;
                    let rp = self.repeats[rep].pattern;
                    if count < code[rp + 1] as isize {
                        self.repeats[rep].count = count;
                        return self.do_jump(Jump::MaxUntil1, rp + 3, pc, ptr);
                    }
                    let max = code[rp + 2];
                    if ((count < max as isize) || max == MAXREPEAT) && Some(self.ptr) != self.repeats[rep].last_ptr {
                        self.repeats[rep].count = count;
                        self.lastmark_save();
                        let lm = self.ctx().lastmark;
                        self.mark_push(lm);
                        self.data.push(self.repeats[rep].last_ptr);
                        self.repeats[rep].last_ptr = Some(self.ptr);
                        return self.do_jump(Jump::MaxUntil2, rp + 3, pc, ptr);
                    }
                    self.repeat = self.repeats[rep].prev;
                    return self.do_jump(Jump::MaxUntil3, pc, pc, ptr);
                }
                op::MIN_UNTIL => {
                    let Some(rep) = self.repeat else {
                        return Self::fail();
                    };
                    self.ctx().rep = rep;
                    self.ptr = ptr;
                    let count = self.repeats[rep].count + 1;
                    self.ctx().count = count;
                    let rp = self.repeats[rep].pattern;
                    if count < code[rp + 1] as isize {
                        self.repeats[rep].count = count;
                        return self.do_jump(Jump::MinUntil1, rp + 3, pc, ptr);
                    }
                    self.repeat = self.repeats[rep].prev;
                    self.lastmark_save();
                    if self.repeat.is_some() {
                        let lm = self.ctx().lastmark;
                        self.mark_push(lm);
                    }
                    return self.do_jump(Jump::MinUntil2, pc, pc, ptr);
                }
                op::POSSESSIVE_REPEAT => {
                    self.ptr = ptr;
                    self.ctx().count = 0;
                    return self.poss_repeat_min_loop(pc, ptr);
                }
                op::ATOMIC_GROUP => {
                    self.ptr = ptr;
                    return self.do_jump(Jump::AtomicGroup, pc + 1, pc, ptr);
                }
                op::GROUPREF | op::GROUPREF_IGNORE | op::GROUPREF_UNI_IGNORE => {
                    let groupref = code[pc] as isize * 2;
                    if groupref >= self.lastmark {
                        return Self::fail();
                    }
                    let (Some(mut p), Some(e)) = (self.marks[groupref as usize], self.marks[groupref as usize + 1])
                    else {
                        return Self::fail();
                    };
                    if e < p {
                        return Self::fail();
                    }
                    self.step((e - p) as u64)?;
                    while p < e {
                        if ptr >= end {
                            return Self::fail();
                        }
                        let (a, b) = (self.text[ptr], self.text[p]);
                        let same = match opcode {
                            op::GROUPREF => a == b,
                            op::GROUPREF_IGNORE => unicode::ascii_lower(a) == unicode::ascii_lower(b),
                            _ => self.u.lower(a) == self.u.lower(b),
                        };
                        if !same {
                            return Self::fail();
                        }
                        p += 1;
                        ptr += 1;
                    }
                    pc += 1;
                }
                op::GROUPREF_EXISTS => {
                    let groupref = code[pc] as isize * 2;
                    let exists = groupref < self.lastmark
                        && matches!(
                            (self.marks[groupref as usize], self.marks[groupref as usize + 1]),
                            (Some(p), Some(e)) if e >= p
                        );
                    if exists {
                        pc += 2;
                    } else {
                        pc += code[pc + 1] as usize;
                    }
                }
                op::ASSERT => {
                    let back = code[pc + 1] as usize;
                    if ptr < back {
                        return Self::fail();
                    }
                    self.ptr = ptr - back;
                    return self.do_jump(Jump::Assert, pc + 2, pc, ptr);
                }
                op::ASSERT_NOT => {
                    let back = code[pc + 1] as usize;
                    if ptr >= back {
                        self.ptr = ptr - back;
                        self.lastmark_save();
                        if self.repeat.is_some() {
                            let lm = self.ctx().lastmark;
                            self.mark_push(lm);
                        }
                        return self.do_jump(Jump::AssertNot, pc + 2, pc, ptr);
                    }
                    pc += code[pc] as usize;
                }
                _ => {
                    // FAILURE and anything unexpected
                    return Self::fail();
                }
            }
        }
    }

    fn branch_next(&mut self, pc: usize, ptr: usize) -> Res<Action> {
        if self.code[pc] != 0 {
            self.ptr = ptr;
            return self.do_jump(Jump::Branch, pc + 1, pc, ptr);
        }
        if self.repeat.is_some() {
            let lm = self.ctx().lastmark;
            self.mark_pop_discard(lm);
        }
        Self::fail()
    }

    fn repeat_one_literal(&mut self, pc: usize, mut ptr: usize) -> Res<Action> {
        let code = self.code;
        let min = code[pc + 1] as isize;
        let chr = self.ctx().chr;
        let mut count = self.ctx().count;
        while count >= min && (ptr >= self.end || self.text[ptr] != chr) {
            ptr = ptr.wrapping_sub(1);
            count -= 1;
        }
        self.ctx().count = count;
        if count >= min {
            self.ptr = ptr;
            return self.do_jump(Jump::RepeatOne1, pc + code[pc] as usize, pc, ptr);
        }
        if self.repeat.is_some() {
            let lm = self.ctx().lastmark;
            self.mark_pop_discard(lm);
        }
        Self::fail()
    }

    fn repeat_one_general(&mut self, pc: usize, ptr: usize) -> Res<Action> {
        let code = self.code;
        let min = code[pc + 1] as isize;
        if self.ctx().count >= min {
            self.ptr = ptr;
            return self.do_jump(Jump::RepeatOne2, pc + code[pc] as usize, pc, ptr);
        }
        if self.repeat.is_some() {
            let lm = self.ctx().lastmark;
            self.mark_pop_discard(lm);
        }
        Self::fail()
    }

    fn min_repeat_one_next(&mut self, pc: usize, ptr: usize) -> Res<Action> {
        let code = self.code;
        let max = code[pc + 2];
        if max == MAXREPEAT || self.ctx().count <= max as isize {
            self.ptr = ptr;
            return self.do_jump(Jump::MinRepeatOne, pc + code[pc] as usize, pc, ptr);
        }
        if self.repeat.is_some() {
            let lm = self.ctx().lastmark;
            self.mark_pop_discard(lm);
        }
        Self::fail()
    }

    fn poss_repeat_min_loop(&mut self, pc: usize, ptr: usize) -> Res<Action> {
        let code = self.code;
        if self.ctx().count < code[pc + 1] as isize {
            return self.do_jump(Jump::PossRepeat1, pc + 3, pc, ptr);
        }
        self.ctx().ptr_null = true;
        self.poss_repeat_loop(pc)
    }

    fn poss_repeat_loop(&mut self, mut pc: usize) -> Res<Action> {
        let code = self.code;
        let max = code[pc + 2];
        let c = *self.ctx();
        if (c.count < max as isize || max == MAXREPEAT) && (c.ptr_null || self.ptr != c.ptr) {
            self.lastmark_save();
            let lm = self.ctx().lastmark;
            self.mark_push(lm);
            let sp = self.ptr;
            self.ctx().ptr_null = false;
            return self.do_jump(Jump::PossRepeat2, pc + 3, pc, sp);
        }
        pc += code[pc] as usize + 1;
        let ptr = self.ptr;
        self.continue_at(pc, ptr)
    }

    /// Continue dispatching the current context at `pc`/`ptr`.
    fn continue_at(&mut self, pc: usize, ptr: usize) -> Res<Action> {
        Ok(Action::Continue(pc, ptr))
    }

    /// Resume the current (parent) context after a child returned `ret`.
    /// `pc`/`ptr` have been restored from the context.
    fn resume(&mut self, jump: Jump, ret: bool, pc: usize, ptr: usize) -> Res<Action> {
        let code = self.code;
        let action = match jump {
            Jump::None => Action::Return(ret),
            Jump::Branch => {
                if ret {
                    if self.repeat.is_some() {
                        let lm = self.ctx().lastmark;
                        self.mark_pop_discard(lm);
                    }
                    return Ok(Action::Return(true));
                }
                if self.repeat.is_some() {
                    let lm = self.ctx().lastmark;
                    self.mark_pop(lm, false);
                }
                self.lastmark_restore();
                let next = pc + code[pc] as usize;
                return self.branch_next(next, ptr);
            }
            Jump::RepeatOne1 | Jump::RepeatOne2 => {
                if ret {
                    if self.repeat.is_some() {
                        let lm = self.ctx().lastmark;
                        self.mark_pop_discard(lm);
                    }
                    return Ok(Action::Return(true));
                }
                if self.repeat.is_some() {
                    let lm = self.ctx().lastmark;
                    self.mark_pop(lm, false);
                }
                self.lastmark_restore();
                let ptr = ptr.wrapping_sub(1);
                self.ctx().count -= 1;
                return if jump == Jump::RepeatOne1 {
                    self.repeat_one_literal(pc, ptr)
                } else {
                    self.repeat_one_general(pc, ptr)
                };
            }
            Jump::MinRepeatOne => {
                if ret {
                    if self.repeat.is_some() {
                        let lm = self.ctx().lastmark;
                        self.mark_pop_discard(lm);
                    }
                    return Ok(Action::Return(true));
                }
                if self.repeat.is_some() {
                    let lm = self.ctx().lastmark;
                    self.mark_pop(lm, false);
                }
                self.lastmark_restore();
                self.ptr = ptr;
                let n = self.count(pc + 3, 1)?;
                if n == 0 {
                    if self.repeat.is_some() {
                        let lm = self.ctx().lastmark;
                        self.mark_pop_discard(lm);
                    }
                    return Self::fail();
                }
                self.ctx().count += 1;
                return self.min_repeat_one_next(pc, ptr + 1);
            }
            Jump::Repeat => {
                let rep = self.ctx().rep;
                self.repeat = self.repeats[rep].prev;
                self.free_repeat(rep);
                Action::Return(ret)
            }
            Jump::MaxUntil1 => {
                if ret {
                    return Ok(Action::Return(true));
                }
                let c = *self.ctx();
                self.repeats[c.rep].count = c.count - 1;
                self.ptr = ptr;
                Action::Return(false)
            }
            Jump::MaxUntil2 => {
                let c = *self.ctx();
                let saved = self.data.pop().flatten();
                self.repeats[c.rep].last_ptr = saved;
                if ret {
                    self.mark_pop_discard(c.lastmark);
                    return Ok(Action::Return(true));
                }
                self.mark_pop(c.lastmark, true);
                self.lastmark_restore();
                self.repeats[c.rep].count = c.count - 1;
                self.ptr = ptr;
                // cannot match more repeated items here; make sure the tail matches
                self.repeat = self.repeats[c.rep].prev;
                return self.do_jump(Jump::MaxUntil3, pc, pc, ptr);
            }
            Jump::MaxUntil3 => {
                let rep = self.ctx().rep;
                self.repeat = Some(rep);
                if ret {
                    return Ok(Action::Return(true));
                }
                self.ptr = ptr;
                Action::Return(false)
            }
            Jump::MinUntil1 => {
                if ret {
                    return Ok(Action::Return(true));
                }
                let c = *self.ctx();
                self.repeats[c.rep].count = c.count - 1;
                self.ptr = ptr;
                Action::Return(false)
            }
            Jump::MinUntil2 => {
                let c = *self.ctx();
                let repeat_of_tail = self.repeat;
                self.repeat = Some(c.rep);
                if ret {
                    if repeat_of_tail.is_some() {
                        self.mark_pop_discard(c.lastmark);
                    }
                    return Ok(Action::Return(true));
                }
                if repeat_of_tail.is_some() {
                    self.mark_pop(c.lastmark, true);
                }
                self.lastmark_restore();
                self.ptr = ptr;
                let rp = self.repeats[c.rep].pattern;
                let max = code[rp + 2];
                if (c.count >= max as isize && max != MAXREPEAT) || Some(self.ptr) == self.repeats[c.rep].last_ptr {
                    return Self::fail();
                }
                self.repeats[c.rep].count = c.count;
                self.data.push(self.repeats[c.rep].last_ptr);
                self.repeats[c.rep].last_ptr = Some(self.ptr);
                return self.do_jump(Jump::MinUntil3, rp + 3, pc, ptr);
            }
            Jump::MinUntil3 => {
                let c = *self.ctx();
                let saved = self.data.pop().flatten();
                self.repeats[c.rep].last_ptr = saved;
                if ret {
                    return Ok(Action::Return(true));
                }
                self.repeats[c.rep].count = c.count - 1;
                self.ptr = ptr;
                Action::Return(false)
            }
            Jump::PossRepeat1 => {
                if ret {
                    self.ctx().count += 1;
                    return self.poss_repeat_min_loop(pc, ptr);
                }
                self.ptr = ptr;
                Action::Return(false)
            }
            Jump::PossRepeat2 => {
                let c = *self.ctx();
                if ret {
                    self.mark_pop_discard(c.lastmark);
                    self.ctx().count += 1;
                    return self.poss_repeat_loop(pc);
                }
                self.mark_pop(c.lastmark, true);
                self.lastmark_restore();
                self.ptr = ptr;
                let pc = pc + code[pc] as usize + 1;
                let ptr = self.ptr;
                return self.continue_at(pc, ptr);
            }
            Jump::AtomicGroup => {
                if !ret {
                    self.ptr = ptr;
                    return Self::fail();
                }
                let pc = pc + code[pc] as usize;
                let ptr = self.ptr;
                return self.continue_at(pc, ptr);
            }
            Jump::Assert => {
                if !ret {
                    return Self::fail();
                }
                let pc = pc + code[pc] as usize;
                return self.continue_at(pc, ptr);
            }
            Jump::AssertNot => {
                if ret {
                    if self.repeat.is_some() {
                        let lm = self.ctx().lastmark;
                        self.mark_pop_discard(lm);
                    }
                    return Self::fail();
                }
                if self.repeat.is_some() {
                    let lm = self.ctx().lastmark;
                    self.mark_pop(lm, true);
                }
                self.lastmark_restore();
                let pc = pc + code[pc] as usize;
                return self.continue_at(pc, ptr);
            }
        };
        Ok(action)
    }
}

/// Result of a search.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Found {
    No,
    Yes,
    /// A match was found but a capturing group ended before it started;
    /// CPython raises `SystemError` when it builds the match object.
    WrongSpan,
}

/// `SRE(search)` plus the group-span check of `pattern_new_match`.
pub(crate) fn search(prog: &Program, text: &[u32], steps: u64) -> Res<Found> {
    let mut budget = steps;
    search_within(prog, text, &mut budget)
}

/// `search` drawing its matcher steps from `budget`, which keeps what is left: a caller
/// bounds the work of many searches by steps, never by the clock.
pub(crate) fn search_within(prog: &Program, text: &[u32], budget: &mut u64) -> Res<Found> {
    let n = text.len();
    let min_len = prog.min_len;
    if min_len > 0 && (n as u64) < min_len {
        return Ok(Found::No);
    }
    let mut m = Matcher::new(prog, text, *budget);
    let found = search_from_each_start(&mut m, prog, n, min_len);
    *budget = m.steps_left;
    found
}

fn search_from_each_start(m: &mut Matcher<'_>, prog: &Program, n: usize, min_len: u64) -> Res<Found> {
    let anchored = prog.code.len() >= 2
        && prog.code[0] == op::AT
        && (prog.code[1] == At::Beginning as u32 || prog.code[1] == At::BeginningString as u32);
    for start in 0..=n {
        if min_len > 0 && ((n - start) as u64) < min_len {
            break;
        }
        m.lastmark = -1;
        m.lastindex = -1;
        m.repeat = None;
        m.repeats.clear();
        m.data.clear();
        m.ptr = start;
        if m.run(0)? {
            return Ok(m.check_spans());
        }
        if anchored {
            break;
        }
    }
    Ok(Found::No)
}

impl Matcher<'_> {
    /// `pattern_new_match`: groups whose end mark precedes their start mark
    /// make CPython raise `SystemError`.
    fn check_spans(&self) -> Found {
        let mut j = 0usize;
        while j + 1 < self.marks.len() {
            if (j + 1) as isize <= self.lastmark {
                if let (Some(s), Some(e)) = (self.marks[j], self.marks[j + 1]) {
                    if s > e {
                        return Found::WrongSpan;
                    }
                }
            }
            j += 2;
        }
        Found::Yes
    }
}
