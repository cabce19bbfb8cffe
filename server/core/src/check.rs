//! What `torchcts check-manifest --manifest FILE` prints, computed without Python.
//!
//! The real command executes manifest.py (`Failed to parse manifest: ...` when that
//! raises), requires a dict named `manifest`, then prints `Warning:` lines, `Error:` lines
//! and `Manifest is valid!`, exiting 1 when there are errors. Python's own warnings
//! (from `re.compile`) go to stderr through the warnings module; they are not part of
//! this output.

use crate::cpython::PythonSyntaxError;
use crate::eval::{LoadError, ManifestModel};
use crate::findings::{Finding, Severity};
use crate::fix_data::FixData;
use crate::value::{Value, ValueKind};

#[derive(Clone, Debug)]
pub enum CheckOutcome {
    /// Executing the module would raise; the text is what follows `Failed to parse manifest: `.
    ParseFailed { message: String },
    /// `manifest` is missing or not a dict.
    NotADict,
    /// `manifest` itself cannot be evaluated statically.
    NotStatic { reason: String },
    /// `validate_manifest` raised; the line is the traceback's last line (`TypeError: ...`).
    Crashed { exception_line: String },
    /// `validate_manifest` ran; these are its findings, warnings and errors in emission order.
    Validated { findings: Vec<Finding> },
    /// Loading called `sys.exit`: Python ends with this status, printing `printed` (a code
    /// that is no int) to stderr.
    Exited { status: i32, printed: Option<String> },
}

/// What the editor says where `sys.exit` ends loading (check-manifest itself prints only
/// a code that is no int): `sys.exit ends check-manifest here with exit status 3`.
pub fn system_exit_message(exit: &crate::eval::SystemExit) -> String {
    let mut message = format!("sys.exit ends check-manifest here with exit status {}", exit.status);
    if let Some(printed) = &exit.printed {
        message.push_str(&format!(", printing {printed:?}"));
    }
    message
}

/// Which stream a line of output goes to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Stream {
    Stdout,
    Stderr,
}

impl CheckOutcome {
    pub fn from_parts(
        syntax: Option<&PythonSyntaxError>,
        file_name: &str,
        load: Option<&LoadError>,
        model: &ManifestModel,
        validated: Option<Vec<Finding>>,
    ) -> CheckOutcome {
        if let Some(err) = syntax {
            // Line 0: an error CPython raises before reading any line (a NUL byte).
            let message = if err.line == 0 {
                err.message.clone()
            } else {
                format!("{} ({file_name}, line {})", err.message, err.line)
            };
            return CheckOutcome::ParseFailed { message };
        }
        // Code tree-sitter misread in a text that compiles, before anything raised: what
        // Python runs there may raise, or give another value.
        if let Some((at, line)) = &model.misread {
            if load.is_none_or(|err| err.span.start >= at.start) {
                let reason = format!(
                    "line {line}: tree-sitter reads it otherwise than Python, so what runs there is not evaluated statically"
                );
                return CheckOutcome::NotStatic { reason };
            }
        }
        if let Some(exit) = load.and_then(|err| err.system_exit.as_ref()) {
            return CheckOutcome::Exited { status: exit.status, printed: exit.printed.clone() };
        }
        if let Some(err) = load {
            return CheckOutcome::ParseFailed { message: err.message.clone() };
        }
        let recovered =
            model.recovered.is_some() && model.recovered.as_ref() == model.manifest.as_ref().map(|m| &m.span);
        match model.manifest.as_ref().map(|v| &v.kind) {
            // The text compiles, but tree-sitter misread the manifest: what it read of it
            // is not what Python runs.
            Some(ValueKind::Dict(_)) if recovered => CheckOutcome::NotStatic {
                reason: "tree-sitter reads `manifest = {...}` otherwise than Python, so it is not evaluated statically"
                    .into(),
            },
            Some(ValueKind::Dict(_)) => {
                let findings = validated.unwrap_or_default();
                let crash = findings.iter().find(|f| f.code == "check-crash").and_then(|f| match &f.data {
                    Some(FixData::CheckCrash { exception_line }) => Some(exception_line.clone()),
                    _ => None,
                });
                match crash {
                    Some(exception_line) => CheckOutcome::Crashed { exception_line },
                    None => CheckOutcome::Validated { findings },
                }
            }
            // `manifest = range(3)`: no dict, whatever its value.
            Some(ValueKind::Unknown(why)) => match model.manifest.as_ref().and_then(Value::schema_stand_in) {
                Some(_) => CheckOutcome::NotADict,
                None => CheckOutcome::NotStatic { reason: why.why.clone() },
            },
            _ => CheckOutcome::NotADict,
        }
    }

    /// The lines the real command prints (banner excluded), in order.
    pub fn lines(&self) -> Vec<(Stream, String)> {
        match self {
            CheckOutcome::ParseFailed { message } => {
                vec![(Stream::Stderr, format!("Failed to parse manifest: {message}"))]
            }
            CheckOutcome::NotADict => {
                vec![(Stream::Stderr, "Error: 'manifest' must be a dictionary in manifest.py.".to_string())]
            }
            CheckOutcome::Exited { printed, .. } => {
                printed.iter().flat_map(|p| p.split('\n')).map(|l| (Stream::Stderr, l.to_string())).collect()
            }
            CheckOutcome::Crashed { exception_line } => vec![
                (Stream::Stderr, "Traceback (most recent call last):".to_string()),
                (
                    Stream::Stderr,
                    "  (raised inside torchcts validate_manifest; reproduced statically by torchcts-lsp)".to_string(),
                ),
                (Stream::Stderr, exception_line.clone()),
            ],
            CheckOutcome::NotStatic { reason } => vec![(
                Stream::Stderr,
                format!("Note: 'manifest' cannot be evaluated statically ({reason}); run torchcts check-manifest"),
            )],
            CheckOutcome::Validated { findings } => {
                let mut lines: Vec<(Stream, String)> = findings
                    .iter()
                    .filter(|f| f.severity == Severity::Warning)
                    .map(|f| (Stream::Stderr, format!("Warning: {}", f.message)))
                    .collect();
                let errors: Vec<(Stream, String)> = findings
                    .iter()
                    .filter(|f| f.severity == Severity::Error)
                    .map(|f| (Stream::Stderr, format!("Error: {}", f.message)))
                    .collect();
                if errors.is_empty() {
                    lines.push((Stream::Stdout, "Manifest is valid!".to_string()));
                } else {
                    lines.extend(errors);
                }
                lines
            }
        }
    }

    /// The exit code of the real command; 2 when the answer needs Python.
    pub fn exit_code(&self) -> i32 {
        match self {
            CheckOutcome::ParseFailed { .. } | CheckOutcome::NotADict | CheckOutcome::Crashed { .. } => 1,
            CheckOutcome::NotStatic { .. } => 2,
            CheckOutcome::Exited { status, .. } => *status,
            CheckOutcome::Validated { findings } => {
                if findings.iter().any(|f| f.severity == Severity::Error) {
                    1
                } else {
                    0
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    //! Shapes where the emulation once differed from the real check-manifest (found by the
    //! differential test, server/lsp/tests/check_differential.rs); the expected lines are torchcts 0.4.1's.

    use crate::{analyze, AnalysisInput};

    fn check_lines(text: &str) -> (i32, Vec<String>) {
        let analysis = analyze(text, &AnalysisInput::default());
        (analysis.check.exit_code(), analysis.check_lines().into_iter().map(|(_, line)| line).collect())
    }

    fn parse_failure(text: &str) -> String {
        let (code, lines) = check_lines(text);
        assert_eq!(code, 1, "{lines:?}");
        assert_eq!(lines.len(), 1, "{lines:?}");
        lines[0].strip_prefix("Failed to parse manifest: ").unwrap_or(&lines[0]).to_string()
    }

    /// Where CPython says the text compiles but tree-sitter read part of an evaluated
    /// statement as a syntax error, what runs there is not known: no claim, unless something
    /// raised before it. (Seed 913027 was one, an f-string field's `:=>6` read as a walrus,
    /// since read as CPython does, `syntax/leniency.rs`; here CPython's answer is made up
    /// for a text tree-sitter reads an ERROR in.)
    #[test]
    fn code_tree_sitter_misreads_in_a_text_that_compiles_is_not_claimed() {
        let text =
            "manifest = {'manifest_version': (1 2), 'device_name': 'cpu', 'capabilities': {'inference': True}}\n";
        let compiled = crate::cpython::CompileAnswer::new(text, None);
        let analysis = analyze(text, &AnalysisInput { compiled: Some(&compiled), ..AnalysisInput::default() });
        assert_eq!(analysis.check.exit_code(), 2, "{:?}", analysis.check_lines());
        let before = format!("x = {{}}['k']\n{text}");
        let compiled = crate::cpython::CompileAnswer::new(&before, None);
        let analysis = analyze(&before, &AnalysisInput { compiled: Some(&compiled), ..AnalysisInput::default() });
        assert_eq!(analysis.check_lines()[0].1, "Failed to parse manifest: 'k'");
    }

    /// A statement tree-sitter reads with an error, in a text that compiles: nothing raised
    /// there is claimed (seed 913161's neighbour `y, *1` then `manifest = {}`, one assignment
    /// to tree-sitter, raised `not enough values to unpack`; CPython raises NameError for
    /// `y`). `*sorted,` alone is a tuple (the real check-manifest's message).
    #[test]
    fn a_statement_read_with_an_error_is_not_claimed() {
        let text = "y, *1\nmanifest = {}\n";
        let compiled = crate::cpython::CompileAnswer::new(text, None);
        let analysis = analyze(text, &AnalysisInput { compiled: Some(&compiled), ..AnalysisInput::default() });
        assert_eq!(analysis.check.exit_code(), 2, "{:?}", analysis.check_lines());
        assert_eq!(
            parse_failure("*sorted,\nmanifest = {}\n"),
            "Value after * must be an iterable, not builtin_function_or_method"
        );
        // Seed 1006290: tree-sitter reads `*torch.extra_ops` as the attribute of `*torch`.
        assert_eq!(parse_failure("import torch\n*torch.extra_ops, "), "module 'torch' has no attribute 'extra_ops'");
    }

    /// A torch function is one object whose repr names its address: as a dtype key it is
    /// invalid (seed 1006069: `torch.complex128` typed as `torch.complex`; the real
    /// check-manifest printed the line with the run's address where `0x…` stands), and
    /// `-torch.load` raises for its type.
    #[test]
    fn a_torch_function_is_an_object_with_its_repr() {
        let text = "import torch\nmanifest = {'manifest_version': 1, 'device_name': 'cpu', 'capabilities': {'inference': True}, \
                    'supported_dtypes': {torch.complex: True}}\n";
        let expected = "Error: Invalid supported_dtypes key <built-in method complex of type object at 0x\u{2026}>";
        assert_eq!(check_lines(text), (1, vec![expected.to_string()]));
        let text = "import torch\nmanifest = {'manifest_version': [torch.zeros == torch.zeros, torch.zeros == 1, -torch.load]}\n";
        assert_eq!(check_lines(text).1, ["Failed to parse manifest: bad operand type for unary -: 'function'"]);
    }

    /// What `print()` wrote goes to stdout: after the stderr lines, before `Manifest is
    /// valid!`, empty lines left out (the real check-manifest's lines, stderr then stdout,
    /// as the parity corpus and the differential's oracle keep them; seed 913016).
    #[test]
    fn printed_lines_are_stdouts() {
        let valid = "print('hello')
print()
manifest = {'manifest_version': 1, 'device_name': 'auto', 'capabilities': {'inference': True}}
";
        assert_eq!(check_lines(valid), (0, vec!["hello".to_string(), "Manifest is valid!".to_string()]));
        let invalid = "manifest = {'manifest_version': 1, 'device_name': 'auto', 'capabilities': {'inference': True}, \
                       'custom_test_dirs': print('missing_a', 'missing_b')}\n";
        let expected = ["Error: 'custom_test_dirs' must be a list of strings", "missing_a missing_b"];
        assert_eq!(check_lines(invalid), (1, expected.map(str::to_string).to_vec()));
        assert_eq!(check_lines("print('x')\nraise ValueError('y')\n").1, ["Failed to parse manifest: y", "x"]);
    }

    /// A value known only by a type the schema does not take fails its `isinstance` checks
    /// (the real check-manifest printed each of these lines).
    #[test]
    fn values_known_only_by_type_fail_the_schema_checks() {
        let text = "import json\nmanifest = {'manifest_version': 1, 'device_name': json.dumps, 'capabilities': zip(), \
                    'skip_ops': map(str, [1]), 'show_traceback': print, 'semantic_level': range(1, 4)}\n";
        let (code, lines) = check_lines(text);
        assert_eq!(code, 1);
        for line in [
            "Error: 'device_name' must be a string",
            "Error: 'show_traceback' must be a boolean",
            "Error: 'capabilities' must be a dictionary",
            "Error: 'skip_ops' must be a list of strings",
            "Error: semantic_level must be an integer from 1 to 8",
        ] {
            assert!(lines.iter().any(|l| l == line), "{line}: {lines:?}");
        }
        assert_eq!(check_lines("manifest = range(3)\n").1, ["Error: 'manifest' must be a dictionary in manifest.py."]);
        // `sys.argv` is a list, `torch.__version__` a str: not judged without their values.
        let (_, lines) = check_lines("import sys\nmanifest = {'manifest_version': 1, 'device_name': 'x', 'capabilities': {}, 'skip_ops': sys.argv}\n");
        assert!(!lines.iter().any(|l| l.contains("skip_ops")), "{lines:?}");
    }

    #[test]
    fn decoders_without_any_capabilities_dict_warn() {
        let text = "manifest = {\n    'manifest_version': 1,\n    'device_name': 'x',\n    \
                    'supported_container_formats': {'nf4': True},\n    \
                    'custom_container_decoders': {'nf4': 'm:f'},\n}\n";
        assert_eq!(
            check_lines(text),
            (
                1,
                vec![
                    "Warning: custom_container_decoders is set but capabilities.custom_quantized_decode is false"
                        .to_string(),
                    "Error: Missing required key 'capabilities'".to_string(),
                ]
            )
        );
        let _ = parse_failure;
    }

    #[test]
    fn two_hundred_nested_brackets_load_and_one_more_does_not() {
        let nested = |depth: usize| format!("{}1{}", "[".repeat(depth), "]".repeat(depth));
        let text =
            format!("manifest = {{'manifest_version': {}, 'device_name': 'x', 'capabilities': {{}}}}\n", nested(199));
        let (code, lines) = check_lines(&text);
        assert_eq!(code, 0);
        assert_eq!(lines[0], format!("Warning: Unexpected manifest_version {}; expected 1", nested(199)));
        let text = format!("x = {}\nmanifest = {{}}\n", nested(201));
        assert_eq!(parse_failure(&text), "too many nested parentheses (manifest.py, line 1)");
    }

    #[test]
    fn deep_expressions_do_not_exhaust_the_stack() {
        // Run in a test thread (2 MiB of stack, like the server's workers), in debug builds too.
        for piece in ["1 + ", "-", "not ", "(", "{'a': ", "f(", "x.y["] {
            let text = format!("manifest = {}1\n", piece.repeat(300));
            let _ = check_lines(&text);
        }
    }

    #[test]
    fn loads_cpython_refuses() {
        assert_eq!(parse_failure("manifest = {}\0\n"), "source code string cannot contain null bytes");
        let digits = "7".repeat(4301);
        assert_eq!(
            parse_failure(&format!("manifest = {{\n  'a': {digits},\n}}\n")),
            "Exceeds the limit (4300 digits) for integer string conversion: value has 4301 digits; use \
             sys.set_int_max_str_digits() to increase the limit - Consider hexadecimal for huge integer literals to \
             avoid decimal conversion limits. (manifest.py, line 2)"
        );
        // Escapes: positions count each non-ASCII character as its 10-byte `\UXXXXXXXX`.
        assert_eq!(
            parse_failure("manifest = {'é\\u12': 1}\n"),
            "(unicode error) 'unicodeescape' codec can't decode bytes in position 10-13: truncated \\uXXXX escape \
             (manifest.py, line 1)"
        );
        assert_eq!(
            parse_failure("manifest = {\n 'a': 'x\\N{NOT A NAME}',\n}\n"),
            "(unicode error) 'unicodeescape' codec can't decode bytes in position 1-14: unknown Unicode character \
             name (manifest.py, line 2)"
        );
        // The error is raised once the token after the string is read: here on line 3.
        assert_eq!(
            parse_failure("x = ('a'\n'\\x4'\n)\nmanifest = {}\n"),
            "(unicode error) 'unicodeescape' codec can't decode bytes in position 0-2: truncated \\xXX escape \
             (manifest.py, line 3)"
        );
        assert_eq!(
            parse_failure("x = b'\\x4'\n"),
            "(value error) invalid \\x escape at position 0 (manifest.py, line 1)"
        );
        assert_eq!(parse_failure("x = 12abc\n"), "invalid decimal literal (manifest.py, line 1)");
        assert_eq!(parse_failure("x = -'a'\n"), "bad operand type for unary -: 'str'");
        assert_eq!(
            parse_failure("manifest = dict(a=1,\n  a=2)\n"),
            "keyword argument repeated: a (manifest.py, line 2)"
        );
    }

    #[test]
    fn valid_named_escapes_and_raw_strings_load() {
        let text = "manifest = {'manifest_version': 1, 'device_name': '\\N{EM DASH}\\N{em dash}', \
                    'capabilities': {}, r'\\u12': 1}\n";
        let (code, lines) = check_lines(text);
        assert_eq!((code, lines), (1, vec!["Error: Unknown top-level manifest key '\\u12'".to_string()]));
    }

    #[test]
    fn lone_carriage_returns_are_line_breaks() {
        let text = "# c\rmanifest = {\r 'manifest_version': 1, 'device_name': 'x', 'capabilities': {}}\r";
        assert_eq!(check_lines(text), (0, vec!["Manifest is valid!".to_string()]));
        assert_eq!(parse_failure("x = 1\ry = (\r"), "'(' was never closed (manifest.py, line 2)");
    }
}
