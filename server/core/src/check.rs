//! What `torchcts check-manifest --manifest FILE` prints, computed without Python.
//!
//! The real command executes manifest.py (`Failed to parse manifest: ...` when that
//! raises), requires a dict named `manifest`, then prints `Warning:` lines, `Error:` lines
//! and `Manifest is valid!`, exiting 1 when there are errors. Python's own warnings
//! (from `re.compile`) go to stderr through the warnings module; they are not part of
//! this output.

use crate::eval::{LoadError, ManifestModel};
use crate::findings::{Finding, Severity};
use crate::syntax::PythonSyntaxError;
use crate::value::ValueKind;

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
        if let Some(err) = load {
            return CheckOutcome::ParseFailed { message: err.message.clone() };
        }
        match model.manifest.as_ref().map(|v| &v.kind) {
            Some(ValueKind::Dict(_)) => {
                let findings = validated.unwrap_or_default();
                let crash = findings
                    .iter()
                    .find(|f| f.code == "check-crash")
                    .and_then(|f| f.data.as_ref().and_then(|d| d["exception_line"].as_str()).map(str::to_string));
                match crash {
                    Some(exception_line) => CheckOutcome::Crashed { exception_line },
                    None => CheckOutcome::Validated { findings },
                }
            }
            Some(ValueKind::Unknown(why)) => CheckOutcome::NotStatic { reason: why.clone() },
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
    //! differential test, tests/check_differential.rs); the expected lines are torchcts 0.4.1's.

    use crate::{analyze, AnalysisInput};

    fn check_lines(text: &str) -> (i32, Vec<String>) {
        let analysis = analyze(text, &AnalysisInput::default());
        (analysis.check.exit_code(), analysis.check.lines().into_iter().map(|(_, line)| line).collect())
    }

    fn parse_failure(text: &str) -> String {
        let (code, lines) = check_lines(text);
        assert_eq!(code, 1, "{lines:?}");
        assert_eq!(lines.len(), 1, "{lines:?}");
        lines[0].strip_prefix("Failed to parse manifest: ").unwrap_or(&lines[0]).to_string()
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
}
