//! Differential test against CPython's `re`, for every CPython 3.10-3.13 the machine has
//! (`PYREGEX_ORACLE_PYTHON`, a list separated like `PATH`; `python3.10` ... `python3.13`,
//! `python3` and `python` on `PATH`; pyenv's versions): each is compared with `pyregex`
//! answering as that version. Needs one of them, none in particular; a version not
//! found is skipped with a note.
//!
//! Generates a large deterministic set of patterns (seeded xorshift over a
//! grammar of regex fragments) plus a hand-written list of tricky ones,
//! asks `tests/differential_oracle.py` what CPython does with each
//! (exception kind and text, warnings, `bool(re.search(p, name))` for a
//! fixed list of operator-like names) and compares with `pyregex`.

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};

use pyregex::PythonVersion;

const GENERATED: usize = 24_000;
const SEED: u64 = 0x5EED_CAFE_F00D_1234;
/// Matcher budget per search; a CPython timeout and an exhausted budget
/// count as "undecided" (reported, not a divergence).
const STEP_LIMIT: u64 = 1_000_000;

const NAMES: &[&str] = &[
    "\nA.",
    "ab.",
    "ßdA",
    "",
    " éA KdA",
    " ",
    "amß",
    " A_m_b",
    "A_asnb",
    "ßdK.bſa",
    "d.KéKéT",
    "\n1.:_ſs\n",
    "ßdT.\nßT",
    "bßſn\nnaT",
    "nma1m",
    "T1:A_:",
    "",
    ":T_",
    "",
    "s:K1n.",
    "Ké11bK",
    "T",
    "a",
    "_",
    "ß\n.ß .bd",
    "",
    "sA",
    "_T\ns\na da",
    "aK::s1é_b",
    "n  ",
    "A_",
    "K",
    ".éßb KA",
    "énada",
    "__daa\n1",
    "bßKdßnsß",
    "ßdaTTb",
    "AnTbſ",
    "\nsßT\nT",
    "d",
    "\nAKTdTA",
    "Aß\nK\n1d ß",
];

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.0 = x;
        x
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    fn chance(&mut self, percent: usize) -> bool {
        self.below(100) < percent
    }
    fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[self.below(items.len())]
    }
}

const LITERALS: &[&str] = &[
    "a",
    "a",
    "a",
    "b",
    "d",
    "d",
    "n",
    "m",
    "m",
    "s",
    "t",
    "l",
    "i",
    "g",
    "v",
    "f",
    "o",
    "r",
    "e",
    "u",
    "x",
    "_",
    "_",
    "1",
    "2",
    "0",
    "A",
    "D",
    "T",
    "S",
    ":",
    ",",
    "=",
    "!",
    "<",
    ">",
    "'",
    "\"",
    "-",
    "]",
    "}",
    "&",
    "~",
    "/",
    "@",
    "é",
    "ß",
    "İ",
    "ı",
    "\u{212A}",
    "ſ",
    "σ",
    "ς",
    "Σ",
    "١",
    "\u{1F600}",
    "\n",
    " ",
    "\t",
    "#",
];

const ESCAPES: &[&str] = &[
    r"\d",
    r"\D",
    r"\w",
    r"\W",
    r"\s",
    r"\S",
    r"\b",
    r"\B",
    r"\A",
    r"\Z",
    r"\n",
    r"\t",
    r"\\",
    r"\.",
    r"\-",
    r"\(",
    r"\)",
    r"\[",
    r"\]",
    r"\{",
    r"\}",
    r"\*",
    r"\+",
    r"\?",
    r"\|",
    r"\^",
    r"\$",
    r"\a",
    r"\f",
    r"\v",
    r"\r",
    r"\x41",
    r"\x61",
    r"\x6",
    r"\x",
    r"\xg1",
    r"\u0061",
    r"\u00e9",
    r"\u00",
    r"\U0001F600",
    r"\U00000061",
    r"\U00110000",
    r"\U0000",
    r"\N{LATIN SMALL LETTER A}",
    r"\N{latin small letter d}",
    r"\N{EM DASH}",
    r"\N{LOW LINE}",
    r"\N{FULL STOP}",
    r"\N{bogus name}",
    r"\N",
    r"\N{",
    r"\N{}",
    r"\N{LATIN SMALL LETTER A",
    r"\N{HANGUL SYLLABLE GAG}",
    r"\N{CJK UNIFIED IDEOGRAPH-4E00}",
    r"\N{LATIN CAPITAL LETTER GHA}",
    r"\0",
    r"\01",
    r"\012",
    r"\0012",
    r"\123",
    r"\141",
    r"\400",
    r"\777",
    r"\1",
    r"\2",
    r"\3",
    r"\10",
    r"\11",
    r"\8",
    r"\9",
    r"\q",
    r"\e",
    r"\y",
    r"\z",
    r"\_",
    r"\%",
    r"\ ",
    r"\#",
    r"\é",
    r"\:",
    r"\'",
    r"\,",
    r"\0a",
    r"\1a",
    r"\18",
];

const CLASS_ITEMS: &[&str] = &[
    "a",
    "b",
    "d",
    "m",
    "n",
    "s",
    "_",
    ".",
    ":",
    "1",
    "A",
    "Z",
    "é",
    "ß",
    "σ",
    "\u{212A}",
    "a-z",
    "a-d",
    "A-Z",
    "0-9",
    "z-a",
    "_-a",
    "a-\\d",
    "\\d-a",
    "\\w",
    "\\W",
    "\\s",
    "\\S",
    "\\d",
    "\\D",
    "\\b",
    "\\B",
    "\\A",
    "\\Z",
    "\\n",
    "\\x41",
    "\\x4",
    "\\u00e9",
    "\\U0001F600",
    "\\N{LATIN SMALL LETTER M}",
    "\\N{nope}",
    "\\0",
    "\\12",
    "\\400",
    "\\9",
    "\\q",
    "\\]",
    "\\-",
    "\\\\",
    "[",
    "[:alpha:]",
    "--",
    "&&",
    "~~",
    "||",
    "-",
    "^",
    "a-",
    "\\x00-\\x7f",
    "\\u0100-\\uffff",
    "\\U00010000-\\U0010ffff",
    "\u{3b1}-\u{3c9}",
    "\\x41-\\x5a",
    "\\t-\\r",
    "#",
    " ",
    "\n",
    "a--b",
    "\\n-\\x0a",
    "\\N{LATIN SMALL LETTER A}-z",
];

/// Fragments used in "clean" mode (mostly valid patterns).
const CLEAN_ESCAPES: &[&str] = &[
    r"\d",
    r"\D",
    r"\w",
    r"\W",
    r"\s",
    r"\S",
    r"\b",
    r"\B",
    r"\A",
    r"\Z",
    r"\n",
    r"\.",
    r"\-",
    r"\(",
    r"\)",
    r"\[",
    r"\]",
    r"\*",
    r"\+",
    r"\?",
    r"\|",
    r"\^",
    r"\$",
    r"\x61",
    r"\x5f",
    r"\u0061",
    r"\u00df",
    r"\U0001F600",
    r"\N{LATIN SMALL LETTER A}",
    r"\N{LOW LINE}",
    r"\N{FULL STOP}",
    r"\N{COLON}",
    r"\0",
    r"\141",
    r"\1",
    r"\2",
    r"\_",
    r"\:",
    r"\ ",
    r"\é",
];
const CLEAN_CLASS_ITEMS: &[&str] = &[
    "a",
    "b",
    "d",
    "m",
    "n",
    "s",
    "t",
    "_",
    ".",
    ":",
    "1",
    "2",
    "A",
    "T",
    "é",
    "ß",
    "σ",
    "\\u212a",
    "ſ",
    "a-z",
    "a-d",
    "A-Z",
    "0-9",
    "_-a",
    "\\w",
    "\\W",
    "\\s",
    "\\S",
    "\\d",
    "\\D",
    "\\b",
    "\\n",
    "\\x41",
    "\\u00e9",
    "\\]",
    "\\-",
    "\\\\",
    "\\x00-\\x7f",
    "\\u0100-\\uffff",
    "\\U00010000-\\U0010ffff",
    "\u{3b1}-\u{3c9}",
    "\\x41-\\x5a",
    "#",
    " ",
    "\\N{LATIN SMALL LETTER M}",
];
const CLEAN_FLAG_SETS: &[&str] =
    &["i", "m", "s", "x", "a", "u", "is", "im", "ix", "ia", "-i", "i-s", "-s", "-x", "x-i", "s-m"];
const CLEAN_QUANTS: &[&str] = &[
    "*", "+", "?", "*?", "+?", "??", "*+", "++", "?+", "{2}", "{0}", "{1,}", "{,2}", "{1,2}", "{0,1}?", "{2}+",
    "{1,3}?", "{,1}+", "{3,}", "{2,3}",
];
const CLEAN_COND_REFS: &[&str] = &["1", "2", "g1", "name", "1", "1"];
const LITERAL_WORDS: &[&str] = &[
    "add",
    "svd",
    "conv",
    "nn",
    "linalg",
    "fft",
    "Tensor",
    "mm",
    "mul",
    "sum",
    "max",
    "norm",
    "aten",
    "_",
    "\\.",
    "::",
    "functional",
    "index",
    "float",
    "abs",
    "mask",
    "ab",
    "ba",
    "T",
    "ADD",
    "2d",
];

const GROUP_NAMES: &[&str] = &["g1", "g2", "name", "a", "é", "_x", "g1", "1a", "a-b", "", "a b", "ß"];
const FLAG_SETS: &[&str] = &[
    "i", "m", "s", "x", "a", "u", "L", "t", "is", "im", "ix", "ia", "iu", "au", "ua", "aL", "z", "-i", "i-s", "-s",
    "i-i", "-a", "-t", "t", "-", "i-", "m-x", "x-i", "ii", "I", "é", "1", "i)", "",
];
const QUANTS: &[&str] = &[
    "*",
    "+",
    "?",
    "*?",
    "+?",
    "??",
    "*+",
    "++",
    "?+",
    "{2}",
    "{0}",
    "{1,}",
    "{,2}",
    "{1,2}",
    "{2,1}",
    "{0,1}?",
    "{2}+",
    "{1,3}?",
    "{,}",
    "{}",
    "{x}",
    "{1,x}",
    "{ 1}",
    "{4294967295}",
    "{4294967294}",
    "{99999999999}",
    "{0,4294967295}",
    "**",
    "*?+",
    "{3",
    "{2,",
    "{,1}+",
    "{1}{2}",
    "+*",
];
const COND_REFS: &[&str] = &[
    "1",
    "2",
    "3",
    "g1",
    "name",
    "0",
    "-1",
    "+1",
    " 1",
    "1_0",
    "١",
    "01",
    "x-y",
    "",
    "a b",
    "99",
    "1073741823",
    "99999999999999999999",
    "-0",
    "1 ",
    "²",
    "\u{3000}1",
];

struct Gen {
    rng: Rng,
    /// prefer fragments that keep the pattern valid
    clean: bool,
}

impl Gen {
    fn atom(&mut self, depth: usize, out: &mut String) {
        if self.clean {
            return self.clean_atom(depth, out);
        }
        let r = self.rng.below(100);
        match r {
            0..=29 => out.push_str(self.rng.pick(LITERALS)),
            30..=34 => out.push_str(self.rng.pick(&[".", "^", "$", "|", ".", "^", "$"])),
            35..=49 => out.push_str(self.rng.pick(ESCAPES)),
            50..=61 => self.class(out),
            62..=89 => self.group(depth, out),
            90..=94 => {
                let f = self.rng.pick(FLAG_SETS);
                out.push_str("(?");
                out.push_str(f);
                out.push(')');
            }
            95..=97 => out.push_str(self.rng.pick(&[")", "(", "((", "))", "(?", "(?P", "[", "\\"])),
            _ => out.push_str(self.rng.pick(&["(?P=g1)", "(?P=name)", "(?P=nope)", "\\1", "\\2", "(?P=1)", "(?P=)"])),
        }
    }

    fn clean_atom(&mut self, depth: usize, out: &mut String) {
        match self.rng.below(100) {
            0..=19 => out.push_str(self.rng.pick(LITERALS)),
            20..=39 => out.push_str(self.rng.pick(LITERAL_WORDS)),
            40..=44 => out.push_str(self.rng.pick(&[".", "^", "$", "."])),
            45..=56 => out.push_str(self.rng.pick(CLEAN_ESCAPES)),
            57..=69 => {
                out.push('[');
                if self.rng.chance(20) {
                    out.push('^');
                }
                let n = self.rng.below(3) + 1;
                for _ in 0..n {
                    out.push_str(self.rng.pick(CLEAN_CLASS_ITEMS));
                }
                out.push(']');
            }
            70..=97 => self.group(depth, out),
            _ => out.push_str(self.rng.pick(&["(?P=g1)", "(?P=name)", "\\1", "\\2"])),
        }
    }

    fn class(&mut self, out: &mut String) {
        out.push('[');
        if self.rng.chance(20) {
            out.push('^');
        }
        if self.rng.chance(8) {
            out.push(']');
        }
        let n = self.rng.below(4) + usize::from(self.rng.chance(70));
        for _ in 0..n {
            out.push_str(self.rng.pick(CLASS_ITEMS));
        }
        if !self.rng.chance(6) {
            out.push(']');
        }
    }

    fn group(&mut self, depth: usize, out: &mut String) {
        let kind = self.rng.below(40);
        let body = |g: &mut Gen, out: &mut String| {
            if depth < 4 {
                g.expr(depth + 1, out);
            } else {
                out.push_str(g.rng.pick(LITERALS));
            }
        };
        let close = |g: &mut Gen, out: &mut String| {
            if g.clean || !g.rng.chance(4) {
                out.push(')');
            }
        };
        let clean = self.clean;
        match kind {
            0..=7 => {
                out.push('(');
                body(self, out);
                close(self, out);
            }
            8..=12 => {
                out.push_str("(?:");
                body(self, out);
                close(self, out);
            }
            13..=16 => {
                out.push_str("(?P<");
                out.push_str(self.rng.pick(if clean { &["g1", "g2", "name", "é", "_x"] } else { GROUP_NAMES }));
                if clean || !self.rng.chance(3) {
                    out.push('>');
                }
                body(self, out);
                close(self, out);
            }
            17..=18 => {
                out.push_str(self.rng.pick(&["(?=", "(?!"]));
                body(self, out);
                close(self, out);
            }
            19..=23 => {
                out.push_str(self.rng.pick(&["(?<=", "(?<!"]));
                // mostly fixed width bodies
                if self.rng.chance(60) {
                    let n = self.rng.below(3) + 1;
                    for _ in 0..n {
                        let frag = self.rng.pick(&[
                            "a",
                            "d",
                            "_",
                            ".",
                            "\\d",
                            "[a-z]",
                            "(a)",
                            "(?:ab|cd)",
                            "\\w",
                            "\\1",
                            "(?P=g1)",
                            "a{2}",
                            "x|y",
                            "(?(1)a|b)",
                            "(?(1)a|bc)",
                            "\\b",
                            "^",
                            "a*",
                            "(?<=a)",
                            "(?=a)",
                            "(?P<g9>n)",
                            "(?:)",
                            "ab|c",
                            "[^a]",
                            "(?i:A)",
                            "(?>a)",
                            "a{0}",
                            "\\N{LOW LINE}",
                        ]);
                        out.push_str(frag);
                    }
                } else {
                    body(self, out);
                }
                close(self, out);
            }
            24..=26 => {
                out.push_str("(?>");
                body(self, out);
                close(self, out);
            }
            27..=31 => {
                out.push_str("(?");
                out.push_str(self.rng.pick(if clean { CLEAN_FLAG_SETS } else { FLAG_SETS }));
                out.push(':');
                body(self, out);
                close(self, out);
            }
            32..=35 => {
                out.push_str("(?(");
                out.push_str(self.rng.pick(if clean { CLEAN_COND_REFS } else { COND_REFS }));
                if clean || !self.rng.chance(3) {
                    out.push(')');
                }
                body(self, out);
                if self.rng.chance(60) {
                    out.push('|');
                    body(self, out);
                    if !clean && self.rng.chance(5) {
                        out.push('|');
                        body(self, out);
                    }
                }
                close(self, out);
            }
            36..=37 if clean => {
                out.push('(');
                body(self, out);
                out.push(')');
            }
            36 => {
                out.push_str("(?#");
                out.push_str(self.rng.pick(&["comment", "a)b", "", "(", "\\)"]));
                close(self, out);
            }
            37 => {
                out.push_str(
                    self.rng.pick(&["(?<", "(?<a", "(?<x>", "(?P", "(?Px", "(?P>", "(?&", "(?R)", "(?'", "(?|"]),
                );
                body(self, out);
                close(self, out);
            }
            _ => {
                out.push('(');
                if self.rng.chance(50) {
                    out.push('|');
                }
                body(self, out);
                out.push('|');
                body(self, out);
                close(self, out);
            }
        }
    }

    fn piece(&mut self, depth: usize, out: &mut String) {
        self.atom(depth, out);
        if self.rng.chance(30) {
            let q = if self.clean { CLEAN_QUANTS } else { QUANTS };
            out.push_str(self.rng.pick(q));
        }
    }

    fn expr(&mut self, depth: usize, out: &mut String) {
        let n = self.rng.below(4) + usize::from(depth == 0);
        for _ in 0..n {
            self.piece(depth, out);
            if self.rng.chance(8) {
                out.push('|');
            }
        }
    }

    fn pattern(&mut self) -> String {
        let mut out = String::new();
        self.clean = self.rng.chance(55);
        let r = self.rng.below(100);
        if r < 12 {
            out.push_str("(?");
            out.push_str(self.rng.pick(if self.clean { CLEAN_FLAG_SETS } else { FLAG_SETS }));
            out.push(')');
        } else if r < 16 {
            out.push('^');
        }
        self.expr(0, &mut out);
        if self.rng.chance(10) {
            out.push('$');
        }
        out
    }
}

fn hand_written() -> Vec<String> {
    let mut v: Vec<String> = [
        "",
        "a",
        "add",
        "^add$",
        "^(add|sub)_?$",
        r"linalg\..*",
        r"^nn\.functional\.conv\dd$",
        "aten::.*Tensor",
        "(?i)^ADD",
        "[",
        "[]",
        "[]]",
        "[^]]",
        "[a-]",
        "[-a]",
        "[a-Z]",
        "[z-a]",
        r"[\d-z]",
        r"[a-\d]",
        "[[a]",
        "[a[]",
        "[a--b]",
        "[a&&b]",
        "[a~~b]",
        "[a||b]",
        "[--a]",
        "[a-b-c]",
        "a**",
        "a*+*",
        "*",
        "+a",
        "?",
        "{1}",
        "a{2,1}",
        "a{4294967295}",
        "a{4294967294}",
        "a{,4294967295}",
        "x{1,99999999999999}",
        "(",
        ")",
        "())",
        "(()",
        "(?",
        "(?P",
        "(?P<",
        "(?P<a",
        "(?P<>)",
        "(?P<a>)(?P<a>)",
        "(?P<1>)",
        "(?P=a)",
        "(?P<a>(?P=a))",
        "(?P<a>)(?P=a)",
        "(?P<a>a)(?P=b)",
        "(?Px)",
        "(?<)",
        "(?<a)",
        "(?<=a*)",
        "(?<=a|bc)",
        "(?<=ab|cd)",
        "(?<!a{2})",
        "(?<=\\b)",
        "(?<=(a))\\1",
        "(a)(?<=\\1)",
        "(?<=(a)\\1)",
        "(?<=(?P<x>a)(?P=x))",
        "(a)(?<=(?(1)a|b))",
        "(a)(?<=(?(1)a|bc))",
        "(?<=(?(1)a|b))",
        "(?(1)a|b)",
        "(a)(?(1)a|b|c)",
        "(?(1",
        "(?()",
        "(?(0)a)",
        "(?(-1)a)",
        "(?(+1)a)(a)",
        "(a)(?( 1)b)",
        "(a)(?(1_0)b)",
        "(a)(?(\u{661})b)",
        "(a)(?(-0)b)",
        "(?(a)b)",
        "(?P<a>x)(?(a)b|c)",
        "(?(2)a)(b)",
        "(?(99)a)",
        "(?(1073741823)a)",
        "(?(1073741822)a)",
        "(?i)",
        "a(?i)",
        "(?i)a(?s)",
        "(?i)(?s)a",
        "(?x) a b # c",
        "(?x)[ ] # x",
        "(?x)a\\ b",
        "(?x)a#b\nc",
        "(?x)(?-x: a)b c",
        "(?-x:(?x) a)",
        "(?a)(?u)",
        "(?u)(?a)",
        "(?au)",
        "(?aL)",
        "(?L)",
        "(?t)a*",
        "(?t)a",
        "(?t:a)",
        "(?-t:a)",
        "(?i-i:a)",
        "(?-:a)",
        "(?-",
        "(?i",
        "(?i-",
        "(?i-s",
        "(?z)",
        "(?iz)",
        "(?i-z:a)",
        "(?-i)",
        "(?é)",
        "(?i\\a)",
        "(?#",
        "(?#)",
        "(?#a)b",
        "\\",
        "a\\",
        "\\x",
        "\\x1",
        "\\x1g",
        "\\u123",
        "\\U1234567",
        "\\U00110000",
        "\\U0010ffff",
        "\\N",
        "\\N{",
        "\\N{}",
        "\\N{a",
        "\\N{LATIN SMALL LETTER A}",
        "\\N{latin small letter a}",
        "\\N{CJK UNIFIED IDEOGRAPH-4e00}",
        "\\N{CJK UNIFIED IDEOGRAPH-4E00}",
        "\\N{CJK UNIFIED IDEOGRAPH-04E00}",
        "\\N{HANGUL SYLLABLE GAG}",
        "\\N{hangul syllable GAG}",
        "\\N{HANGUL SYLLABLE gag}",
        "\\N{TANGUT IDEOGRAPH-17000}",
        "\\N{LINE FEED}",
        "\\N{LF}",
        "\\N{LATIN CAPITAL LETTER GHA}",
        "\\N{KEYCAP NUMBER SIGN}",
        "\\N{EM DASH}",
        "\\N{é}",
        "[\\N{EM DASH}]",
        "\\0",
        "\\08",
        "\\400",
        "\\377",
        "\\1",
        "(a)\\1",
        "(a)\\2",
        "(a)\\10",
        "(a)\\11",
        "(a\\1)",
        "\\8",
        "[\\8]",
        "[\\400]",
        "[\\1]",
        "[\\0]",
        "[\\A]",
        "[\\b]",
        "[\\Z]",
        "\\q",
        "[\\q]",
        "\\_",
        "\\é",
        "a|*",
        "a|+",
        "^*",
        "$*",
        "\\b*",
        "\\A+",
        "(?:^)*",
        "(?=a)*",
        "(?<=a)+",
        "(?:)*",
        "()*",
        "(a*)*",
        "(a*)+b",
        "(a|b)*?c",
        "(?>a+)b",
        "a++b",
        "a*+a",
        "(?:ab)++b",
        "(a)|b",
        "(a)|(b)",
        "a{,}",
        "a{}",
        "a{,3}",
        "a{3,}",
        "a{1,3}?",
        "a{1,3}+",
        "a{x}",
        "x{",
        "x{1",
        "x{1,",
        "x{1,2",
        "\n(",
        "a\n(",
        "a\nb\n(?P<1>)",
        "(?P<a\nb>)",
        "\n\\",
        "[\n",
        "((((((((((a))))))))))\\10",
        "(?i)[\u{10400}x]",
        "(?i)\u{10400}",
        "(?i)[\u{10400}-\u{10401}]",
        "(?i)ſ",
        "(?i)s",
        "(?i)[s]",
        "(?i)[ſ]",
        "(?i)K",
        "(?i)[k]",
        "(?i)\u{212A}",
        "(?i)ß",
        "(?i)İ",
        "(?i)ı",
        "(?i)σ",
        "(?i)[σ]",
        "(?i)ς",
        "(?a)\\w",
        "(?a)[\\w]",
        "(?a:(?u:\\w))",
        "(?u)\\w",
        "(?i)(?a)k",
        "(?ia)k",
        "\\d",
        "\\d\\d",
        "\\s",
        "\\S",
        "\\W",
        "\\bmm\\b",
        "\\Bm",
        "m\\B",
        "\\B",
        "^$",
        "$",
        "\\Z",
        "\\A$",
        "(?m)^$",
        "(?m)y$",
        "(?s).",
        ".",
        "..",
        "(?s)x.y",
        "x.y",
        "(?m)^y",
        "^y",
        "(?m)x$",
        "x$",
        "x\\Z",
        "sum$",
        "sum\\Z",
        "(?x)a\n(",
        "(?x)\n",
        "a#b",
        "(?x)[#]",
        "(?x)\\#",
        "a|(?x)b c",
        "(?x)a|b c",
        "(?x)[ a]",
        "(?x)a {2}",
        "(?x)a{ 2}",
        "(?x)(?P< a>x)",
        "(?x)\\ ",
        "(?x)a\\\nb",
        "(?x)(?#x) a",
        "(?x)(? i)",
        "(?x)( ?i)",
        "(?P<é>a)",
        "(?P<ß>a)(?P=ß)",
        "(?P<a-b>a)",
        "(?P<a b>a)",
        "(?P<\u{1F600}>a)",
        "(?P<\u{0}>a)",
        "(?P<a'>)",
        "(?P<a\"'>)",
        "(?(é)a)",
        "(?(\u{1F600})a)",
        "(?(a'b)x)",
        "(a)(?(1)a|b)c",
        "(a)?(?(1)b|c)",
        "(?:(a)|b)(?(1)c|d)",
        "(a)?b\\1",
        "(a|)\\1",
        "(a*)\\1",
        "(?:(a)|(b))\\2",
        "(a)(?P<n>b)(?P=n)",
        "(?=(a))\\1",
        "(?!(a))\\1",
        "(?<=(a))",
        "a(?=b)",
        "a(?!b)",
        "(?<=a)b",
        "(?<!a)b",
        "(?<=^)a",
        "(?<=\\A)a",
        "(?=a)(?=d)",
        "(?i)(?P<x>A)(?P=x)",
        "(?i)(a)\\1",
        "(?i:(a))\\1",
        "a(?i:B)",
        "(?-i:a)",
        "(?i)(?-i:a)A",
        "(?i:[a-z])+",
        "(?i)[^a]",
        "(?i)[^ab]",
        "[^\\W\\d]",
        "[\\w-]",
        "[\\w-a]",
        "(?:a|b|c)",
        "a|b|c",
        "ab|ac",
        "ab|ab",
        "(?:ab|ab)+",
        "a|",
        "|a",
        "|",
        "||",
        "(|)",
        "(?:|a)*",
        "(a|b)+",
        "((a)|b)+",
        "(a|(b))+\\2",
        "((a)|b)*\\2",
        "(?:(a)|b)*\\1",
        "(a)*\\1",
        "(?:(a)b)*",
        "(a)+?\\1",
        "((a)*)+",
        "(a?)+?b",
        "(a*?)*?b",
        "(?:a*)*",
        "(?:a*?)*",
        "(?:a*)*+",
        "(?:a|b)*+b",
        "(?>a|ab)b",
        "(?>ab|a)b",
        "(?>(a))\\1",
        "(?>a*)a",
        "(a+)+$",
        "(\\w+)*:",
        "^(\\w+\\.)+\\w+$",
        "(?:\\w+\\.)*svd",
        "(?:(?:a*)*)*b",
        "(?:(?:a|a)*)*b",
        "(?P<g1>a)(?(g1)d|n)",
        "(?(1)a)",
        "(?(1)a)(b)",
        "(b)(?(1)|c)",
        "(b)?(?(1)|c)d",
        "(?x)(?(1) a | b )(a)",
        "\\da",
        "[\\da]+",
        "[\\D]",
        "[^\\d\\s]",
        "[\\s\\S]",
        "[^\\s\\S]",
        "[a-c-e]",
        "[\\]]",
        "[\\[]",
        "[\\^]",
        "[\\-]",
        "[a\\-z]",
        "[]-a]",
        "[^-a]",
        "[a-a]",
        "[\\x00-\\U0010ffff]",
        "[^\\x00-\\U0010ffff]",
        "(?i)[\\x00-\\U0010ffff]",
        "(?i)[\u{3b1}-\u{3c9}]",
        "(?i)[\u{391}-\u{3a9}]+",
        "(?i)[a-z]+",
        "(?i)[A-Z]+",
        "[\u{1F600}]",
        "\u{1F600}",
        "é",
        "(?i)É",
        "[é-ë]",
        "straße",
        "(?i)STRASSE",
        "(?i)straße",
        "İ",
        "(?i)i̇",
        "(?a)(?i)ſ",
        "(?a)(?i)[ſ]",
        "(?u)(?i)[ſ]",
        "(?i)[\u{2126}]",
        "(?i)ω",
        "(?i)[\u{1E9E}]",
        "(?i)ß",
        "(?i)[ß]",
        "(?>.(n.??)|)*+",
        "(?>.(a|n[d]?)|)*+",
        "(?>.(n[d]??)|)*+",
        "(?i)[ǅ]",
        "(?i)ǅ",
        "(?i)[ǆ]",
        "(?i)Ǆ",
        "(?i)[\u{390}]",
        "(?i)\u{1FD3}",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    // deep nesting around CPython's recursion limit (module-level call)
    for n in [100usize, 330, 331, 494, 495, 496, 497] {
        v.push("(".repeat(n) + &")".repeat(n));
        v.push("(?:".repeat(n) + "a" + &")".repeat(n));
        v.push("(?=".repeat(n) + &")".repeat(n));
        v.push("(a|".repeat(n) + &")".repeat(n));
        v.push("(a)".to_string() + &"(?(1)(".repeat(n / 2 + 1) + &"))".repeat(n / 2 + 1));
    }
    for n in [329usize, 330, 331, 332] {
        v.push("(a)".to_string() + &"(?(1)(".repeat(n) + &"))".repeat(n));
        v.push("(?<=(".repeat(n / 2) + "a" + &"))".repeat(n / 2));
    }
    for n in [494usize, 495, 496, 497] {
        v.push((0..n).map(|i| format!("(?P<g{}>", i)).collect::<String>() + &")".repeat(n));
        v.push("(?<=".repeat(n) + "a" + &")".repeat(n));
        v.push("(?>".repeat(n) + "a" + &")".repeat(n));
        v.push("(?i:".repeat(n) + "a" + &")".repeat(n));
        v.push("(a".repeat(n) + &")*".repeat(n));
        v.push("(|".repeat(n) + &")".repeat(n));
        v.push("[(".repeat(n) + &")".repeat(n));
    }
    for n in [990usize, 991, 992, 993] {
        v.push("(a)".to_string() + &"(?(1)".repeat(n) + &")".repeat(n));
    }
    v.push("(".repeat(600));
    v.push("a{".to_string() + &"1".repeat(5000) + "}");
    v.push("a{".to_string() + &"0".repeat(4301) + "1}");
    v.push("a{1,".to_string() + &"1".repeat(4301) + "}");
    v.push("a{99999999999,".to_string() + &"1".repeat(4301) + "}");
    v.push("(?(".to_string() + &"1".repeat(5000) + ")a)");
    v.push("(?<=a{4294967294}a{4294967294})".to_string());
    v.push("(?<=(?:a{4294967294}){4294967294})".to_string());
    v
}

fn json_str(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if (c as u32) < 0x20 || c == '\u{7f}' => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// Minimal JSON reader for the oracle's output (arrays and strings only).
#[derive(Debug, Clone, PartialEq)]
enum Json {
    Str(String),
    Arr(Vec<Json>),
}

fn parse_json(s: &str) -> Json {
    let chars: Vec<char> = s.chars().collect();
    let mut i = 0;
    parse_value(&chars, &mut i)
}

fn skip_ws(c: &[char], i: &mut usize) {
    while *i < c.len() && c[*i].is_whitespace() {
        *i += 1;
    }
}

fn parse_value(c: &[char], i: &mut usize) -> Json {
    skip_ws(c, i);
    match c[*i] {
        '[' => {
            *i += 1;
            let mut items = Vec::new();
            skip_ws(c, i);
            if c[*i] == ']' {
                *i += 1;
                return Json::Arr(items);
            }
            loop {
                items.push(parse_value(c, i));
                skip_ws(c, i);
                if c[*i] == ',' {
                    *i += 1;
                } else {
                    assert_eq!(c[*i], ']', "bad JSON from oracle");
                    *i += 1;
                    return Json::Arr(items);
                }
            }
        }
        '"' => {
            *i += 1;
            let mut units: Vec<u16> = Vec::new();
            let mut out = String::new();
            let flush = |units: &mut Vec<u16>, out: &mut String| {
                if !units.is_empty() {
                    out.push_str(&String::from_utf16_lossy(units));
                    units.clear();
                }
            };
            loop {
                let ch = c[*i];
                *i += 1;
                match ch {
                    '"' => break,
                    '\\' => {
                        let e = c[*i];
                        *i += 1;
                        match e {
                            'u' => {
                                let hex: String = c[*i..*i + 4].iter().collect();
                                *i += 4;
                                units.push(u16::from_str_radix(&hex, 16).expect("bad \\u escape"));
                                continue;
                            }
                            _ => {
                                flush(&mut units, &mut out);
                                out.push(match e {
                                    'n' => '\n',
                                    't' => '\t',
                                    'r' => '\r',
                                    'b' => '\u{8}',
                                    'f' => '\u{c}',
                                    other => other,
                                });
                            }
                        }
                    }
                    other => {
                        flush(&mut units, &mut out);
                        out.push(other);
                    }
                }
            }
            flush(&mut units, &mut out);
            Json::Str(out)
        }
        other => panic!("unexpected JSON from oracle: {:?}", other),
    }
}

#[derive(Debug, PartialEq)]
struct Outcome {
    kind: String,
    text: String,
    warnings: Vec<(String, String)>,
    searches: String,
}

fn rust_outcome(p: &str, py: PythonVersion) -> Outcome {
    match pyregex::compile_as(p, py) {
        Ok((pat, w)) => {
            // after the first undecided search the remaining ones are skipped
            let mut gave_up = false;
            let searches: String = NAMES
                .iter()
                .map(|n| {
                    if gave_up {
                        return 'T';
                    }
                    match pat.search_outcome(n, STEP_LIMIT) {
                        pyregex::SearchOutcome::Match => '1',
                        pyregex::SearchOutcome::NoMatch => '0',
                        pyregex::SearchOutcome::SystemError => 'E',
                        pyregex::SearchOutcome::GaveUp => {
                            gave_up = true;
                            'T'
                        }
                    }
                })
                .collect();
            Outcome {
                kind: "ok".into(),
                text: String::new(),
                warnings: w.into_iter().map(|w| (w.category.to_string(), w.message)).collect(),
                searches,
            }
        }
        Err((e, w)) => Outcome {
            kind: e.kind().to_string(),
            text: e.python_text(p),
            warnings: w.into_iter().map(|w| (w.category.to_string(), w.message)).collect(),
            searches: String::new(),
        },
    }
}

fn oracle_outcome(v: Json) -> Outcome {
    let Json::Arr(items) = v else { panic!("bad oracle line") };
    let s = |j: &Json| match j {
        Json::Str(s) => s.clone(),
        _ => panic!("bad oracle field"),
    };
    let warnings = match &items[2] {
        Json::Arr(ws) => ws
            .iter()
            .map(|w| match w {
                Json::Arr(pair) => (s(&pair[0]), s(&pair[1])),
                _ => panic!("bad warning"),
            })
            .collect(),
        _ => panic!("bad warnings"),
    };
    Outcome { kind: s(&items[0]), text: s(&items[1]), warnings, searches: s(&items[3]) }
}

fn short(s: &str) -> String {
    let n = s.chars().count();
    if n > 160 {
        format!("{}... ({} chars)", s.chars().take(160).collect::<String>(), n)
    } else {
        s.to_string()
    }
}

#[test]
fn differential_against_cpython() {
    // PYREGEX_DIFF_SEED / PYREGEX_DIFF_COUNT allow longer exploratory runs
    let seed = std::env::var("PYREGEX_DIFF_SEED").ok().and_then(|s| s.parse().ok()).unwrap_or(SEED);
    let count = std::env::var("PYREGEX_DIFF_COUNT").ok().and_then(|s| s.parse().ok()).unwrap_or(GENERATED);
    let mut gen = Gen { rng: Rng(seed), clean: false };
    let mut patterns = hand_written();
    let hand = patterns.len();
    let mut seen = std::collections::HashSet::new();
    while patterns.len() < hand + count {
        let p = gen.pattern();
        if seen.insert(p.clone()) {
            patterns.push(p);
        }
    }

    if let Ok(path) = std::env::var("PYREGEX_DIFF_DUMP") {
        let mut s = String::new();
        for p in &patterns {
            s.push_str(&json_str(p));
            s.push('\n');
        }
        std::fs::write(path, s).expect("dump patterns");
    }
    let oracles = oracle_pythons();
    for py in PythonVersion::ALL {
        if !oracles.iter().any(|(v, _)| *v == py) {
            println!("SKIPPED: no CPython {py} found (python{py} on PATH, pyenv, or PYREGEX_ORACLE_PYTHON)");
        }
    }
    assert!(
        !oracles.is_empty(),
        "the regex differential test needs a CPython 3.10, 3.11, 3.12 or 3.13 as its oracle \
         (python3 on PATH, python3.1X, pyenv, or PYREGEX_ORACLE_PYTHON=/path/to/python)"
    );
    let mut failed = Vec::new();
    // PYREGEX_DIFF_AS=3.11 answers as one version for every oracle: how far apart they are
    let answer_as: Option<PythonVersion> = std::env::var("PYREGEX_DIFF_AS").ok().and_then(|v| v.parse().ok());
    for (py, python) in &oracles {
        let divergences = compare_with(*py, answer_as.unwrap_or(*py), python, &patterns, hand);
        if divergences > 0 {
            failed.push(format!("{divergences} on {py} ({python})"));
        }
    }
    assert!(failed.is_empty(), "divergences from CPython (see output above): {}", failed.join(", "));
}

/// Runs the oracle on `python` and compares; returns the number of divergences.
fn compare_with(py: PythonVersion, ours_as: PythonVersion, python: &str, patterns: &[String], hand: usize) -> usize {
    println!("== CPython {py} ({python}), pyregex answering as {ours_as}");
    let oracle = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/differential_oracle.py");
    let child =
        Command::new(python).arg(oracle).stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::inherit()).spawn();
    let mut child = match child {
        Ok(c) => c,
        Err(e) => {
            panic!("cannot start the oracle {oracle} with {python}: {e}")
        }
    };
    let mut stdin = child.stdin.take().unwrap();
    let input: String = {
        let mut s = String::new();
        s.push('[');
        s.push_str(&NAMES.iter().map(|n| json_str(n)).collect::<Vec<_>>().join(","));
        s.push_str("]\n");
        for p in patterns {
            s.push_str(&json_str(p));
            s.push('\n');
        }
        s
    };
    // a write error means the oracle died; its exit status is checked below
    let writer = std::thread::spawn(move || stdin.write_all(input.as_bytes()).is_ok());
    let stdout = child.stdout.take().unwrap();
    let reader = std::thread::spawn(move || {
        BufReader::new(stdout).lines().map(|l| l.expect("reading the oracle")).collect::<Vec<String>>()
    });

    // compute our side while Python works
    let t0 = std::time::Instant::now();
    let ours: Vec<Outcome> = patterns.iter().map(|p| rust_outcome(p, ours_as)).collect();
    println!("pyregex side: {:?}", t0.elapsed());

    let _ = writer.join();
    let lines = reader.join().unwrap();
    println!("oracle done after: {:?}", t0.elapsed());
    let status = child.wait().expect("oracle exit status");
    assert!(status.success(), "the oracle failed ({python})");
    assert_eq!(lines.len(), patterns.len(), "oracle answered {} of {} patterns", lines.len(), patterns.len());

    let mut divergences = Vec::new();
    let mut search_checks = 0usize;
    let mut undecided = 0usize;
    let mut system_errors = 0usize;
    let mut ok_patterns = 0usize;
    let mut deep_on_310 = Vec::new();
    let mut behind_before_fix = Vec::new();
    let release = micro_release(python);
    // gh-109747 (3.11.6, 3.12.1): look-behind widths past 2**31 got "looks too much behind";
    // earlier patch releases cap widths as 3.10 does (or fail with RuntimeError).
    let fixed_in = match py {
        PythonVersion::V3_11 => Some(6),
        PythonVersion::V3_12 => Some(1),
        _ => None,
    };
    let before_width_fix = fixed_in.is_some_and(|fixed| release < fixed);
    let mut search_divergences = 0usize;
    for ((p, line), ours) in patterns.iter().zip(&lines).zip(ours) {
        let theirs = oracle_outcome(parse_json(line));
        if py == PythonVersion::V3_10 && (ours.kind == "RecursionError" || theirs.kind == "RecursionError") {
            // 3.10 also checks the recursion limit in C-level comparisons and calls (`char ==
            // "\\"` in `Tokenizer.__next`, `len(subpattern)`); pyregex models 3.11's checks
            // only, so the patterns nested hundreds deep that reach the limit are not compared.
            deep_on_310.push((short(p), ours.text, theirs.text));
            continue;
        }
        let width_error =
            |o: &Outcome| o.text.contains("look") && o.text.contains("behind") || o.kind == "RuntimeError";
        if before_width_fix && ours != theirs && (width_error(&ours) || width_error(&theirs)) {
            behind_before_fix.push((short(p), ours.text, theirs.text));
            continue;
        }
        let mut same = ours.kind == theirs.kind && ours.text == theirs.text && ours.warnings == theirs.warnings;
        if same && ours.kind == "ok" {
            ok_patterns += 1;
            for (a, b) in ours.searches.chars().zip(theirs.searches.chars()) {
                if a == 'T' || b == 'T' {
                    undecided += 1;
                    continue;
                }
                search_checks += 1;
                if b == 'E' {
                    system_errors += 1;
                }
                if a != b {
                    same = false;
                }
            }
        }
        if !same {
            if ours.kind == theirs.kind && ours.text == theirs.text && ours.warnings == theirs.warnings {
                search_divergences += 1;
            }
            divergences.push((p.clone(), ours, theirs));
        }
    }
    println!(
        "differential: {} patterns ({} hand-written, {} compile ok), {} search checks ({} CPython SystemErrors), \
         {} undecided (time/step limit), {} divergences ({} in searches only)",
        patterns.len(),
        hand,
        ok_patterns,
        search_checks,
        system_errors,
        undecided,
        divergences.len(),
        search_divergences
    );
    if !behind_before_fix.is_empty() {
        println!(
            "{} look-behind width patterns differ on {py}.{release}, older than the fix of gh-109747, and are not compared:",
            behind_before_fix.len()
        );
        for (p, ours, theirs) in &behind_before_fix {
            println!("    {p:?}: ours {ours:?}, cpython {theirs:?}");
        }
    }
    if !deep_on_310.is_empty() {
        println!("{} patterns reach the recursion limit on 3.10 and are not compared:", deep_on_310.len());
        for (p, ours, theirs) in &deep_on_310 {
            println!("    {p:?}: ours {ours:?}, cpython {theirs:?}");
        }
    }
    for (p, ours, theirs) in divergences.iter().take(40) {
        println!("--- pattern {:?}", short(p));
        if ours.kind != theirs.kind || ours.text != theirs.text {
            println!("    ours:    {}: {}", ours.kind, short(&ours.text));
            println!("    cpython: {}: {}", theirs.kind, short(&theirs.text));
        }
        if ours.warnings != theirs.warnings {
            println!("    ours warnings:    {:?}", ours.warnings);
            println!("    cpython warnings: {:?}", theirs.warnings);
        }
        if ours.kind == "ok" && ours.searches != theirs.searches {
            for ((n, a), b) in NAMES.iter().zip(ours.searches.chars()).zip(theirs.searches.chars()) {
                if a != b {
                    println!("    search {:?}: ours {} cpython {}", n, a, b);
                }
            }
        }
    }
    assert!(undecided * 100 < search_checks, "too many undecided searches on {py}: {}", undecided);
    divergences.len()
}

/// The patch release number of a CPython (`7` for 3.11.7).
fn micro_release(python: &str) -> u32 {
    let out = Command::new(python).args(["-c", "import sys; print(sys.version_info[2])"]).output();
    out.ok().and_then(|o| String::from_utf8_lossy(&o.stdout).trim().parse().ok()).unwrap_or(0)
}

/// The CPythons this machine has, at most one per minor version pyregex answers as
/// (the first found of each): `PYREGEX_ORACLE_PYTHON` (every entry must be one of them),
/// then `python3.10` ... `python3.13`, `python3` and `python` on `PATH`, then pyenv's.
fn oracle_pythons() -> Vec<(PythonVersion, String)> {
    let version_of = |python: &str| -> Option<PythonVersion> {
        let out = Command::new(python)
            .args(["-c", "import sys; print('%d.%d.%d' % sys.version_info[:3])"])
            .stderr(Stdio::null())
            .output()
            .ok()?;
        if !out.status.success() {
            return None;
        }
        String::from_utf8_lossy(&out.stdout).trim().parse().ok()
    };
    let mut found: Vec<(PythonVersion, String)> = Vec::new();
    let mut add = |python: String, required: bool| match version_of(&python) {
        Some(v) if !found.iter().any(|(f, _)| *f == v) => found.push((v, python)),
        Some(_) => {}
        None if required => panic!("PYREGEX_ORACLE_PYTHON: {python} is not a CPython 3.10 to 3.13"),
        None => {}
    };
    if let Some(list) = std::env::var_os("PYREGEX_ORACLE_PYTHON") {
        for python in std::env::split_paths(&list) {
            add(python.to_string_lossy().into_owned(), true);
        }
    }
    for py in PythonVersion::ALL {
        add(format!("python{py}"), false);
    }
    add("python3".to_string(), false);
    add("python".to_string(), false);
    let pyenv = std::env::var_os("PYENV_ROOT")
        .map(std::path::PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| std::path::Path::new(&h).join(".pyenv")));
    if let Some(Ok(entries)) = pyenv.map(|root| std::fs::read_dir(root.join("versions"))) {
        let mut dirs: Vec<_> = entries.flatten().map(|e| e.path().join("bin").join("python")).collect();
        dirs.sort();
        for python in dirs.into_iter().rev().filter(|p| p.exists()) {
            add(python.to_string_lossy().into_owned(), false);
        }
    }
    found.sort();
    found
}
