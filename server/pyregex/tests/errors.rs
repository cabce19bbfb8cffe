//! Exact CPython 3.11.7 texts for every kind of error `re.compile` raises
//! for a str pattern (expected values taken from running python3.11).

use pyregex::{compile, CompileError};

/// (pattern, exception kind ("ok", "error" for re.error, or the class name), str(exc))
const CASES: &[(&str, &str, &str)] = &[
    ("a**", "error", "multiple repeat at position 2"),
    ("a*+*", "error", "multiple repeat at position 3"),
    ("*", "error", "nothing to repeat at position 0"),
    ("a|*", "error", "nothing to repeat at position 2"),
    ("^*", "error", "nothing to repeat at position 1"),
    (r#"\b+"#, "error", "nothing to repeat at position 2"),
    ("x{2,1}", "error", "min repeat greater than max repeat at position 2"),
    ("a{4294967295}", "OverflowError", "the repetition number is too large"),
    ("a{,4294967295}", "OverflowError", "the repetition number is too large"),
    ("a{1,99999999999}", "OverflowError", "the repetition number is too large"),
    ("(", "error", "missing ), unterminated subpattern at position 0"),
    ("a)", "error", "unbalanced parenthesis at position 1"),
    ("())", "error", "unbalanced parenthesis at position 2"),
    ("(?P<a", "error", "missing >, unterminated name at position 4"),
    ("(?P<a>a", "error", "missing ), unterminated subpattern at position 0"),
    ("[a", "error", "unterminated character set at position 0"),
    ("[", "error", "unterminated character set at position 0"),
    ("[]", "error", "unterminated character set at position 0"),
    ("[^]", "error", "unterminated character set at position 0"),
    ("[a-", "error", "unterminated character set at position 0"),
    (r#"[\d-a]"#, "error", r#"bad character range \d-a at position 1"#),
    ("[a-Z]", "error", "bad character range a-Z at position 1"),
    ("[z-a]", "error", "bad character range z-a at position 1"),
    ("(?<=a*)", "error", "look-behind requires fixed-width pattern"),
    ("(?<=a|bc)", "error", "look-behind requires fixed-width pattern"),
    ("(?<!x+)", "error", "look-behind requires fixed-width pattern"),
    (r#"(a\1)"#, "error", "cannot refer to an open group at position 2"),
    ("(?P<a>(?P=a))", "error", "cannot refer to an open group at position 10"),
    (r#"(?<=(a)\1)"#, "error", "cannot refer to group defined in the same lookbehind subpattern at position 9"),
    (r#"\1"#, "error", "invalid group reference 1 at position 1"),
    (r#"(a)\2"#, "error", "invalid group reference 2 at position 4"),
    ("(?P=nope)", "error", "unknown group name 'nope' at position 4"),
    ("(?(nope)a)", "error", "unknown group name 'nope' at position 3"),
    ("(?P<a>x)(?P<a>y)", "error", "redefinition of group name 'a' as group 2; was group 1 at position 12"),
    ("(?P<1a>x)", "error", "bad character in group name '1a' at position 4"),
    ("(?P<a-b>x)", "error", "bad character in group name 'a-b' at position 4"),
    ("(?P<>x)", "error", "missing group name at position 4"),
    ("(?P=)", "error", "missing group name at position 4"),
    ("(?<x>a)", "error", "unknown extension ?<x at position 1"),
    ("(?x", "error", "missing -, : or ) at position 3"),
    ("(?i", "error", "missing -, : or ) at position 3"),
    ("a(?i)", "error", "global flags not at the start of the expression at position 1"),
    ("(?i)a(?m)", "error", "global flags not at the start of the expression at position 5"),
    ("(?a)(?u)", "ValueError", "ASCII and UNICODE flags are incompatible"),
    ("(?au)", "error", "bad inline flags: flags 'a', 'u' and 'L' are incompatible at position 4"),
    ("(?L)", "error", "bad inline flags: cannot use 'L' flag with a str pattern at position 3"),
    ("(?-a:x)", "error", "bad inline flags: cannot turn off flags 'a', 'u' and 'L' at position 4"),
    ("(?t:x)", "error", "bad inline flags: cannot turn on global flag at position 3"),
    ("(?-t:x)", "error", "bad inline flags: cannot turn off global flag at position 4"),
    ("(?i-i:x)", "error", "bad inline flags: flag turned on and off at position 5"),
    ("(?-", "error", "missing flag at position 3"),
    ("(?i-", "error", "missing flag at position 4"),
    ("(?z)", "error", "unknown extension ?z at position 1"),
    ("(?i-z:x)", "error", "unknown flag at position 4"),
    ("(?-1:x)", "error", "missing flag at position 3"),
    ("(?i-s", "error", "missing : at position 5"),
    ("(?", "error", "unexpected end of pattern at position 2"),
    ("(?P", "error", "unexpected end of pattern at position 3"),
    ("(?Px", "error", "unknown extension ?Px at position 1"),
    ("(?#", "error", "missing ), unterminated comment at position 0"),
    ("(?#abc", "error", "missing ), unterminated comment at position 0"),
    (r#"\"#, "error", "bad escape (end of pattern) at position 0"),
    (r#"a\"#, "error", "bad escape (end of pattern) at position 1"),
    (r#"\x"#, "error", r#"incomplete escape \x at position 0"#),
    (r#"\x1"#, "error", r#"incomplete escape \x1 at position 0"#),
    (r#"\u12"#, "error", r#"incomplete escape \u12 at position 0"#),
    (r#"\U0011ffff"#, "error", r#"bad escape \U0011ffff at position 0"#),
    (r#"\U001"#, "error", r#"incomplete escape \U001 at position 0"#),
    (r#"\N"#, "error", "missing { at position 2"),
    (r#"\N{"#, "error", "missing character name at position 3"),
    (r#"\N{}"#, "error", "missing character name at position 3"),
    (r#"\N{abc"#, "error", "missing }, unterminated name at position 3"),
    (r#"\N{NOT A NAME}"#, "error", "undefined character name 'NOT A NAME' at position 0"),
    (r#"\400"#, "error", r#"octal escape value \400 outside of range 0-0o377 at position 0"#),
    (r#"[\400]"#, "error", r#"octal escape value \400 outside of range 0-0o377 at position 1"#),
    (r#"\q"#, "error", r#"bad escape \q at position 0"#),
    (r#"[\q]"#, "error", r#"bad escape \q at position 1"#),
    (r#"[\A]"#, "error", r#"bad escape \A at position 1"#),
    (r#"[\8]"#, "error", r#"bad escape \8 at position 1"#),
    (r#"\8"#, "error", "invalid group reference 8 at position 1"),
    ("(?(0)a)", "error", "bad group number at position 3"),
    ("(?(-1)a)", "error", "bad character in group name '-1' at position 3"),
    ("(?(1)a|b|c)", "error", "conditional backref with more than two branches at position 8"),
    ("(?(1)a)", "error", "invalid group reference 1 at position 3"),
    ("(?(2)a)(b)", "error", "invalid group reference 2 at position 3"),
    ("(?(1_1)a)", "error", "invalid group reference 11 at position 3"), // warnings: [('DeprecationWarning', "bad character in group name '1_1' at position 3")]
    ("(a)(?(+1)b)", "ok", ""), // warnings: [('DeprecationWarning', "bad character in group name '+1' at position 6")]
    ("(?(1a)x)", "error", "bad character in group name '1a' at position 3"),
    ("(?((?P<a>)", "error", "bad character in group name '(?P<a>' at position 3"),
    ("(?(1", "error", "missing ), unterminated name at position 3"),
    ("(?(", "error", "missing group name at position 3"),
    ("(?P<a>(?(a)b))", "ok", ""),
    ("(?<=(?(1)a|b))", "error", "cannot refer to an open group at position 9"),
    ("(a)(?<=(?(1)a|bc))", "error", "look-behind requires fixed-width pattern"),
    ("(?<=(?P<a>x)(?P=a))", "error", "cannot refer to group defined in the same lookbehind subpattern at position 18"),
    ("(?<=a{4294967294}a{4294967294})", "error", "looks too much behind"),
    ("(?t)a*", "error", "internal: unsupported template operator MAX_REPEAT"),
    ("(?t)a+?", "error", "internal: unsupported template operator MIN_REPEAT"),
    ("(?t)a?+", "error", "internal: unsupported template operator POSSESSIVE_REPEAT"),
    ("a\nb)", "error", "unbalanced parenthesis at position 3 (line 2, column 2)"),
    ("a\n(?P<1>)", "error", "bad character in group name '1' at position 6 (line 2, column 5)"),
    ("\n\n[", "error", "unterminated character set at position 2 (line 3, column 1)"),
    (r#"(a)(b)(?<=\2)"#, "ok", ""),
    (r#"(?<=(a))(?<=\1)"#, "ok", ""),
    ("(?P<a>a)(?<=(?P=a))", "ok", ""),
];

fn outcome(p: &str) -> (String, String) {
    match compile(p) {
        Ok(_) => ("ok".to_string(), String::new()),
        Err((e, _)) => (e.kind().to_string(), e.python_text(p)),
    }
}

#[test]
fn error_messages_match_cpython() {
    let mut failures = Vec::new();
    for &(p, kind, text) in CASES {
        let got = outcome(p);
        if got != (kind.to_string(), text.to_string()) {
            failures.push(format!("{:?}: expected {}: {:?}, got {}: {:?}", p, kind, text, got.0, got.1));
        }
    }
    assert!(failures.is_empty(), "{} mismatches:\n{}", failures.len(), failures.join("\n"));
}

#[test]
fn error_structure() {
    let (e, _) = compile("a{2,1}").unwrap_err();
    assert_eq!(e, CompileError::Re { msg: "min repeat greater than max repeat".into(), pos: Some(2) });
    assert!(e.is_re_error());
    let (e, _) = compile("(?<=a*)").unwrap_err();
    assert_eq!(e.pos(), None);
    assert_eq!(e.python_text("(?<=a*)"), "look-behind requires fixed-width pattern");
    let (e, _) = compile("a{4294967295}").unwrap_err();
    assert!(!e.is_re_error());
    assert_eq!(e.kind(), "OverflowError");
    // positions are code points, not bytes
    let p = "é\u{1F600}(";
    let (e, _) = compile(p).unwrap_err();
    assert_eq!(e.python_text(p), "missing ), unterminated subpattern at position 2");
}

#[test]
fn int_conversion_limit_is_a_value_error() {
    let p = format!("a{{{}}}", "1".repeat(4301));
    let (e, _) = compile(&p).unwrap_err();
    assert_eq!(e.kind(), "ValueError");
    assert_eq!(
        e.python_text(&p),
        "Exceeds the limit (4300 digits) for integer string conversion: value has 4301 digits; \
         use sys.set_int_max_str_digits() to increase the limit"
    );
}

#[test]
fn deep_nesting_is_a_recursion_error_not_a_crash() {
    let ok = "(".repeat(495) + &")".repeat(495);
    assert!(compile(&ok).is_ok());
    let deep = "(".repeat(496) + &")".repeat(496);
    let (e, _) = compile(&deep).unwrap_err();
    assert_eq!(e.kind(), "RecursionError");
    assert_eq!(e.python_text(&deep), "maximum recursion depth exceeded");
    let very_deep = "(?:".repeat(100_000) + &")".repeat(100_000);
    let (e, _) = compile(&very_deep).unwrap_err();
    assert_eq!(e.kind(), "RecursionError");
    let cond = "(a)".to_string() + &"(?(1)".repeat(991) + &")".repeat(991);
    assert!(compile(&cond).is_ok());
    let cond = "(a)".to_string() + &"(?(1)".repeat(992) + &")".repeat(992);
    assert_eq!(compile(&cond).unwrap_err().0.kind(), "RecursionError");
}

fn warnings_of(p: &str) -> Vec<(String, String, usize)> {
    let w = match compile(p) {
        Ok((_, w)) => w,
        Err((_, w)) => w,
    };
    w.into_iter().map(|w| (w.category.to_string(), w.message, w.pos)).collect()
}

#[test]
fn warnings_match_cpython() {
    let fw = |m: &str, pos: usize| ("FutureWarning".to_string(), m.to_string(), pos);
    let dw = |m: &str, pos: usize| ("DeprecationWarning".to_string(), m.to_string(), pos);
    assert_eq!(warnings_of("[[a]"), vec![fw("Possible nested set at position 1", 1)]);
    assert_eq!(warnings_of("[a--b]"), vec![fw("Possible set difference at position 2", 2)]);
    assert_eq!(warnings_of("[a&&b]"), vec![fw("Possible set intersection at position 2", 2)]);
    assert_eq!(warnings_of("[a~~b]"), vec![fw("Possible set symmetric difference at position 2", 2)]);
    assert_eq!(warnings_of("[a||b]"), vec![fw("Possible set union at position 2", 2)]);
    assert_eq!(warnings_of("[a---]"), vec![fw("Possible set difference at position 2", 2)]);
    assert_eq!(warnings_of("[a-b--]"), vec![fw("Possible set difference at position 4", 4)]);
    assert_eq!(warnings_of("(a)(?(+1)b)"), vec![dw("bad character in group name '+1' at position 6", 6)]);
    assert_eq!(warnings_of("(a)(?(\u{661})b)"), vec![dw("bad character in group name '\u{661}' at position 6", 6)]);
    // warnings emitted before an error are reported too
    assert_eq!(warnings_of("(?(1_1)a)"), vec![dw("bad character in group name '1_1' at position 3", 3)]);
    assert_eq!(warnings_of("[a--b]").len(), 1);
    assert!(compile("[a--b]").is_err());
    assert!(warnings_of("[a-b]").is_empty());
}

#[test]
fn search_semantics() {
    let s = |p: &str, t: &str| compile(p).unwrap().0.search(t);
    assert!(s(r"^linalg\.", "linalg.svd"));
    assert!(!s(r"^linalg\.$", "linalg.svd"));
    assert!(s("sum$", "sum\n"));
    assert!(!s(r"sum\Z", "sum\n"));
    assert!(s("(?i)add", "ADD"));
    assert!(!s("(?i)straSSe", "straße"));
    assert!(s("(?i)\u{212A}", "k"));
    assert!(s(r"\d", "\u{661}"));
    assert!(!s(r"(?a)\d", "\u{661}"));
    assert!(s(r"\bmm\b", "mm"));
    assert!(!s(r"\B", ""));
    assert!(s(r"(a)(?(1)b|c)", "ab"));
    assert!(s(r"(?<=aten::)mul", "aten::mul.Tensor"));
    assert!(!s(r"(?>a+)a", "aaa"));
    assert!(!s(r"a++a", "aaa"));
    assert!(s(r"(a|b)*?c", "abac"));
    assert!(s(r"^(\w+\.)+\w+$", "nn.functional.conv2d"));
    assert!(!s(r"(?i)[\U00010400x]", "\u{10400}"));
    // CPython raises SystemError ("The span of capturing group is wrong")
    let (p, _) = compile("(?>.(n.??)|)*+").unwrap();
    assert_eq!(p.search_outcome("xnd", 1_000_000), pyregex::SearchOutcome::SystemError);
    assert_eq!(p.search_outcome("xn", 1_000_000), pyregex::SearchOutcome::Match);
    let (p, _) = compile("(a*)*b").unwrap();
    assert_eq!(p.search_bounded(&"a".repeat(30), 10), None);
    assert_eq!(p.search_bounded("aab", 1_000_000), Some(true));
}

/// What each CPython minor version says, copied from 3.10.13, 3.11.7, 3.12.1 and 3.13.0.
#[test]
fn each_version_answers_as_its_cpython() {
    use pyregex::PythonVersion::{V3_10, V3_11, V3_12, V3_13};
    let answer = |p: &str, py| {
        let (result, warnings) = match pyregex::compile_as(p, py) {
            Ok((_, w)) => ("ok".to_string(), w),
            Err((e, w)) => (format!("error: {}", e.python_text(p)), w),
        };
        let warnings: Vec<String> = warnings.iter().map(|w| format!("{}: {}", w.category, w.message)).collect();
        (result, warnings)
    };
    let ok = || ("ok".to_string(), Vec::<String>::new());
    let err = |m: &str| (format!("error: {m}"), Vec::<String>::new());
    assert_eq!(answer("^(?>add|mul)$", V3_10), err("unknown extension ?> at position 2"));
    assert_eq!(answer("^(?>add|mul)$", V3_11), ok());
    assert_eq!(answer("add*+", V3_10), err("multiple repeat at position 4"));
    assert_eq!(answer("add*+", V3_12), ok());
    assert_eq!(answer("(?(+1)a)(a)", V3_10), ok());
    assert_eq!(
        answer("(?(+1)a)(a)", V3_11),
        ("ok".to_string(), vec!["DeprecationWarning: bad character in group name '+1' at position 3".to_string()])
    );
    assert_eq!(answer("(?(+1)a)(a)", V3_12), err("bad character in group name '+1' at position 3"));
    assert_eq!(answer("(?(+1)a)(a)", V3_13), err("bad character in group name '+1' at position 3"));
    assert_eq!(
        answer("a(?i)b", V3_10),
        (
            "ok".to_string(),
            vec!["DeprecationWarning: Flags not at the start of the expression 'a(?i)b' but at position 1".to_string()]
        )
    );
    assert_eq!(answer("a(?i)b", V3_11), err("global flags not at the start of the expression at position 1"));
    assert_eq!(answer("(?t)a", V3_12), ok());
    assert_eq!(answer("(?t)a", V3_13), err("unknown extension ?t at position 1"));
    // Unicode 14.0 (3.11) added U+0870
    let alef = r"\N{ARABIC LETTER ALEF WITH ATTACHED FATHA}";
    assert_eq!(
        answer(alef, V3_10),
        err("undefined character name 'ARABIC LETTER ALEF WITH ATTACHED FATHA' at position 0")
    );
    assert_eq!(answer(alef, V3_11), ok());
    assert_eq!(answer("(?P<\u{870}>a)", V3_10), err("bad character in group name '\\u0870' at position 4"));
    assert_eq!(answer("(?P<\u{870}>a)", V3_13), ok());
    // 3.10 parses the whole pattern again in verbose mode when `(?x)` comes late
    assert!(pyregex::compile_as("a b(?x)", V3_10).unwrap().0.search("ab"));
}

#[test]
fn python_versions_parse() {
    use pyregex::PythonVersion;
    assert_eq!("3.12".parse::<PythonVersion>(), Ok(PythonVersion::V3_12));
    assert_eq!("3.10.13".parse::<PythonVersion>(), Ok(PythonVersion::V3_10));
    assert!("3.9".parse::<PythonVersion>().is_err());
    assert_eq!(PythonVersion::V3_13.to_string(), "3.13");
    assert_eq!(PythonVersion::default(), PythonVersion::V3_11);
    assert_eq!(PythonVersion::V3_12.unicode_version(), "15.0.0");
}
