//! `torchcts-lsp check [FILE] [--format text|json|github]`.
//!
//! Text output is exactly `torchcts check-manifest --manifest FILE` without its banner
//! (same lines, streams and exit code). JSON adds every finding, ours included, with
//! 1-based line and column ranges (columns in Unicode code points), sorted by position;
//! `github` prints the same findings as GitHub Actions annotations.

use super::analyze_file;
use super::output::{errln, outln};
use serde::Serialize;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use torchcts_core::check::{CheckOutcome, Stream};
use torchcts_core::fix_data::FixData;
use torchcts_core::{Analysis, Finding, Origin, PositionEncoding, Severity};

const CHECK_HELP: &str = "\
Output (--format):
  text    What `torchcts check-manifest --manifest FILE` prints, without its banner:
          `Warning: ...` and `Error: ...` on stderr, `Manifest is valid!` on stdout.
          Lines starting with `Note:` (stderr) are ours: values that cannot be known
          without running Python (check-manifest would run them).
  json    {file, exit_code, check_manifest_output: [{stream, text}], findings}: every
          finding, check-manifest's (origin `torchcts`) and ours (origin `lsp`: duplicate
          keys, stale names, inventory hints), with severity, message, code and a 1-based
          range (columns in Unicode code points), sorted by position.
  github  One GitHub Actions annotation per finding, the same findings and ranges as json:
          ::error file=F,line=L,col=C,endLine=L2,endColumn=C2,title=CODE::message
          (warnings as ::warning, information as ::notice).

Exit code: check-manifest's in every format (0 valid, 1 errors or an unreadable file);
2 for a usage error.";

#[derive(clap::Args, Debug)]
// Our own usage line: after a typo clap would print the option it suggests as if required.
#[command(
    override_usage = "torchcts-lsp check [OPTIONS] [FILE]",
    about = "What `torchcts check-manifest --manifest FILE` prints, with its exit code",
    after_help = CHECK_HELP
)]
pub struct CheckArgs {
    /// The manifest [default: ./manifest.py, as check-manifest]
    #[arg(value_name = "FILE")]
    pub file: Option<PathBuf>,
    /// The manifest, in check-manifest's spelling (the same as FILE)
    #[arg(long, value_name = "FILE", conflicts_with = "file")]
    pub manifest: Option<PathBuf>,
    /// Output format
    #[arg(long, value_enum, default_value_t = CheckFormat::Text)]
    pub format: CheckFormat,
}

#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum CheckFormat {
    /// check-manifest's lines, on its streams
    Text,
    /// the check-manifest lines and every finding with its range
    Json,
    /// GitHub Actions annotations, one per finding
    Github,
}

pub fn run(args: &CheckArgs) -> ExitCode {
    // Like the real command, default to ./manifest.py.
    let path = args.file.clone().or_else(|| args.manifest.clone()).unwrap_or_else(|| PathBuf::from("manifest.py"));
    // The text output is the real tool's; only the others carry our inventory hints.
    let inventory = (args.format != CheckFormat::Text).then(torchcts_core::accounting_view::Inventory::embedded);
    let analysis = match analyze_file(&path, inventory) {
        Ok(analysis) => analysis,
        Err(message) => {
            if args.format == CheckFormat::Github {
                outln!(
                    "::error file={}::{}",
                    annotation_property(&path.display().to_string()),
                    annotation_data(&message)
                );
            }
            errln!("{message}");
            return ExitCode::from(1);
        }
    };
    let code = analysis.check.exit_code();
    match args.format {
        CheckFormat::Json => super::output::write_json_stdout(&report(&path, &analysis)),
        CheckFormat::Github => print_annotations(&path, &analysis),
        CheckFormat::Text => print_text(&analysis),
    }
    left_to_the_exit(analysis);
    ExitCode::from(code as u8)
}

/// The command ends after this: freeing an analysis value by value is left to the process's
/// exit (for a 50,000-entry literal it took about 0.4 s, a tenth of the whole command).
pub(super) fn left_to_the_exit(analysis: Analysis) {
    std::mem::forget(analysis);
}

fn print_text(analysis: &Analysis) {
    for (stream, line) in analysis.check.lines() {
        match stream {
            Stream::Stdout => outln!("{line}"),
            Stream::Stderr => errln!("{line}"),
        }
    }
    if matches!(analysis.check, CheckOutcome::Validated { .. }) {
        for note in analysis.findings.iter().filter(|f| f.code == "not-evaluated") {
            let pos = analysis.line_index.position(&analysis.text, note.span.start, PositionEncoding::Utf32);
            errln!("Note: line {}: {}", pos.line + 1, note.message);
        }
    }
}

/// `check --format json`: the check-manifest lines and every finding; `analyze --format
/// json` embeds the same object. Typed, and written out directly rather than built as a
/// `serde_json::Value` tree first: for 50k findings the tree alone took some 350 MB. Every
/// struct here lists its fields in alphabetical order, the order the `Value` form printed.
#[derive(Serialize)]
pub struct CheckReport<'a> {
    check_manifest_output: Vec<OutputLine>,
    exit_code: i32,
    file: String,
    findings: Vec<FindingReport<'a>>,
}

#[derive(Serialize)]
struct OutputLine {
    stream: Stream,
    text: String,
}

/// A [`Finding`] as the JSON reports write it, with its 1-based range.
#[derive(Serialize)]
struct FindingReport<'a> {
    code: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    data: Option<&'a FixData>,
    message: &'a str,
    origin: Origin,
    range: RangeReport,
    severity: Severity,
}

#[derive(Serialize)]
struct RangeReport {
    end: PositionReport,
    start: PositionReport,
}

/// 1-based; the column counts code points.
#[derive(Serialize)]
struct PositionReport {
    column: u32,
    line: u32,
}

pub fn report<'a>(path: &Path, analysis: &'a Analysis) -> CheckReport<'a> {
    let findings = sorted_findings(analysis)
        .into_iter()
        .map(|f| {
            let ((start_line, start_col), (end_line, end_col)) = one_based_range(analysis, f);
            FindingReport {
                code: f.code,
                data: f.data.as_ref(),
                message: &f.message,
                origin: f.origin,
                range: RangeReport {
                    end: PositionReport { column: end_col, line: end_line },
                    start: PositionReport { column: start_col, line: start_line },
                },
                severity: f.severity,
            }
        })
        .collect();
    let lines = analysis.check.lines().into_iter().map(|(stream, text)| OutputLine { stream, text }).collect();
    CheckReport {
        check_manifest_output: lines,
        exit_code: analysis.check.exit_code(),
        file: path.display().to_string(),
        findings,
    }
}

/// [`report`] as a JSON value, for callers that add to it or hand it on.
pub fn report_json(path: &Path, analysis: &Analysis) -> Value {
    serde_json::to_value(report(path, analysis)).unwrap_or_default()
}

/// Findings by start position (the core lists them rule by rule); at the same start, in
/// the core's order.
pub(super) fn sorted_findings(analysis: &Analysis) -> Vec<&Finding> {
    let mut findings: Vec<&Finding> = analysis.findings.iter().collect();
    findings.sort_by_key(|f| f.span.start);
    findings
}

/// `((line, column), (line, column))`, 1-based, columns in code points; the end is exclusive.
fn one_based_range(analysis: &Analysis, finding: &Finding) -> ((u32, u32), (u32, u32)) {
    let at = |offset| {
        let p = analysis.line_index.position(&analysis.text, offset, PositionEncoding::Utf32);
        (p.line + 1, p.col + 1)
    };
    (at(finding.span.start), at(finding.span.end))
}

/// GitHub Actions workflow commands, one per finding.
fn print_annotations(path: &Path, analysis: &Analysis) {
    let file = annotation_property(&path.display().to_string());
    for f in sorted_findings(analysis) {
        let ((line, col), (end_line, end_col)) = one_based_range(analysis, f);
        let command = match f.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Information | Severity::Hint => "notice",
        };
        outln!(
            "::{command} file={file},line={line},col={col},endLine={end_line},endColumn={end_col},title={}::{}",
            annotation_property(f.code),
            annotation_data(&f.message)
        );
    }
}

/// Escapes a workflow command's message (GitHub's `escapeData`).
fn annotation_data(text: &str) -> String {
    text.replace('%', "%25").replace('\r', "%0D").replace('\n', "%0A")
}

/// Escapes a workflow command's property value (GitHub's `escapeProperty`).
fn annotation_property(text: &str) -> String {
    annotation_data(text).replace(':', "%3A").replace(',', "%2C")
}

#[cfg(test)]
mod tests {
    use super::{annotation_data, annotation_property};

    #[test]
    fn annotations_escape_what_ends_a_workflow_command() {
        assert_eq!(annotation_data("50% of\r\nit: a, b"), "50%25 of%0D%0Ait: a, b");
        assert_eq!(annotation_property("dir,a/b:c%.py"), "dir%2Ca/b%3Ac%25.py");
    }
}
