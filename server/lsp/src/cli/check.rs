//! `torchcts-lsp check [FILE] [--format text|json|github]`.
//!
//! Text output is `torchcts check-manifest --manifest FILE` without its banner (same lines,
//! streams, order and exit code), then torchcts-lsp's own findings (and check-manifest's
//! where we say more: a misspelt key's "did you mean"), one `PATH:LINE:COL: CODE message` line
//! each on stderr (`--check-manifest-only` leaves them out, `--quiet` prints errors only), then at most one note on the Python that judged the regexes, for the whole
//! command and only where the Python's version can change an answer. JSON adds every finding, ours included, with
//! 1-based line and column ranges (columns in Unicode code points), sorted by position;
//! `github` prints the same findings as GitHub Actions annotations.

use super::formats::{self, Reported};
use super::inputs::{Input, InputArgs, Inputs};
use super::output::{errln, outln, plural};
use super::places::{one_based_range, sorted_findings};
use super::OutputArgs;
use serde::Serialize;
use serde_json::Value;
use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use torchcts_core::check::{CheckOutcome, Stream};
use torchcts_core::codes;
use torchcts_core::fix_data::FixData;
use torchcts_core::{Analysis, Origin, PositionEncoding, Severity};

/// One file's exit code: check-manifest's, 1 for a diff or an unreadable file. A manifest's
/// `sys.exit` status is check-manifest's for one file; among several it counts as a failure
/// unless it is 0.
fn file_exit_code(outcome: &Result<Analysis, String>, diff: bool, single: bool) -> u8 {
    match outcome {
        Ok(_) if diff => 1,
        Ok(analysis) if !single && matches!(analysis.check, CheckOutcome::Exited { .. }) => {
            u8::from(analysis.check.exit_code() != 0)
        }
        Ok(analysis) => analysis.check.exit_code() as u8,
        Err(_) => 1,
    }
}

const CHECK_HELP: &str = "\
Files: one FILE (or `-` for stdin) prints exactly what check-manifest prints. Several
FILEs or a DIR (searched for manifest.py files and the project's `manifests` globs,
skipping .git, .torchcts-lsp, virtual environments and what git ignores): text is one
block per file under `== PATH`, json one compact object per line, and the exit code is
the highest of the files'. `--manifest FILE` is check-manifest's spelling of one FILE.

Fixes: --fix applies the safe quick fixes in place (CPython's one missing comma or colon,
a capability torchcts renamed to one name, a string dtype key written as the dtype
selection matches: 'half' -> torch.float16), prints `PATH:LINE: fixed [CODE] title`
and what is left on stderr (and what a suppression comment kept from being fixed), then
reports as without it. --unsafe-fixes adds the fixes that pick among several candidates
or change other entries' tests (a misspelt key renamed, keeping its value, to the name
its finding suggests: did you mean 'capabilities'?). --diff prints the fixes as a
unified diff and writes nothing. With `-`, --fix prints the fixed text. A fixed text
that would not load or has a new finding is not kept.

Suppression: `# torchcts-lsp: ignore[CODE]` at the end of a line silences torchcts-lsp's
own finding CODE that starts on that line (`ignore-file[CODE]`: anywhere in the file); a
check-manifest finding cannot be silenced (the real tool, and CI, still report it).
pyproject.toml `[tool.torchcts-lsp] ignore = [CODE, ...]` silences codes project-wide.

Output (--format):
  text    What `torchcts check-manifest --manifest FILE` prints, without its banner:
          `Warning: ...` and `Error: ...` on stderr, `Manifest is valid!` on stdout,
          byte for byte and in its order. After them, on stderr, ours: `Note: line N:`
          for values that cannot be known without running Python (check-manifest would
          run them), then torchcts-lsp's own findings, one line each:
            PATH:LINE:COL: CODE message
          (duplicate keys, string dtype keys, stale names, skip_ops that skip nothing,
          evidence with --results; silence one with `# torchcts-lsp: ignore[CODE]`),
          and, at its place, a check-manifest finding we say more about (a misspelt
          key: `Unknown top-level manifest key 'capabilites' (did you mean
          'capabilities'?)`).
          Last, once for the command: which Python's `re` judged the regexes, only when
          a manifest has a regex that Python versions judge differently.
          --check-manifest-only prints check-manifest's lines and the `Note: line N:`
          lines only; --quiet prints errors only (check-manifest's `Error:` lines and
          tracebacks, our errors) and nothing for a valid manifest.
  json    {file, exit_code, check_manifest_output: [{stream, text}], findings}: every
          finding, check-manifest's (origin `torchcts`) and ours (origin `lsp`: duplicate
          keys, stale names, inventory hints), with severity, message, code and a 1-based
          range (columns in Unicode code points), sorted by position.
  github  One GitHub Actions annotation per finding, the same findings and ranges as json:
          ::error file=F,line=L,col=C,endLine=L2,endColumn=C2,title=CODE::message
          (warnings as ::warning, information as ::notice).
  sarif   One SARIF 2.1.0 log for all files (GitHub code scanning): a rule per code,
          a result per finding with its region, unreadable files as notifications.

Evidence: --results DIR (repeatable; pyproject.toml `results` adds its folders) reads
the records of earlier `torchcts run`s there (an artifact downloaded from CI) and reports,
on the manifest's entries: `run-evidence` (a claimed dtype or capability whose tests failed
or errored in the newest records), `skip-op-passes` (a skip_ops item whose operator's tests
passed in a run without it), `stale-evidence` (records older than the entry's last change)
and `evidence-other-torch` (records of another torch release), as findings in every format
(text: `PATH:LINE:COL: CODE message` lines with our others). Only the folders named are read.

Exit code: check-manifest's in every format, our own findings never change it (0 valid, 1 errors or an unreadable file,
a manifest's sys.exit status), the highest of the files' (where a file's sys.exit status is not 0, it counts as 1); with --diff, 1 when there is a diff; 2 for a usage error or
a project configuration (pyproject.toml) that cannot be used.

Finding codes (* check-manifest's own: the real tool's verdict, which a comment or
`ignore` cannot silence; docs/codes.md has each):
";

/// [`CHECK_HELP`] and the registry's list of codes.
fn check_help() -> String {
    format!("{CHECK_HELP}{}", codes::help_list().trim_end())
}

#[derive(clap::Args, Debug)]
// Our own usage line: after a typo clap would print the option it suggests as if required.
#[command(
    override_usage = "torchcts-lsp check [OPTIONS] [FILE|DIR|-]...",
    about = "What `torchcts check-manifest --manifest FILE` prints, with its exit code; then torchcts-lsp's own findings",
    after_help = check_help()
)]
pub struct CheckArgs {
    #[command(flatten)]
    pub inputs: InputArgs,
    /// The manifest, in check-manifest's spelling (one file; a folder reads as check-manifest reads it)
    #[arg(long, value_name = "FILE", conflicts_with = "files")]
    pub manifest: Option<PathBuf>,
    /// Output format
    #[arg(long, value_enum, default_value_t = CheckFormat::Text)]
    pub format: CheckFormat,
    /// Apply the safe quick fixes in place and say what changed; then report what is left
    #[arg(long)]
    pub fix: bool,
    /// With --fix or --diff: also the fixes that pick among several candidates or change other entries' tests
    #[arg(long)]
    pub unsafe_fixes: bool,
    /// Print the fixes as a unified diff and write nothing (exit 1 when there is one)
    #[arg(long, conflicts_with = "fix")]
    pub diff: bool,
    /// Text: only check-manifest's lines (and notes on values known only by running Python), not torchcts-lsp's own findings
    #[arg(long)]
    pub check_manifest_only: bool,
    /// Text: errors only (check-manifest's and ours); nothing for a valid manifest; the same exit code
    #[arg(short, long, conflicts_with = "check_manifest_only")]
    pub quiet: bool,
    #[command(flatten)]
    pub results: super::evidence::ResultsArgs,
    #[command(flatten)]
    pub output: OutputArgs,
}

#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum CheckFormat {
    /// check-manifest's lines, on its streams
    Text,
    /// the check-manifest lines and every finding with its range
    Json,
    /// GitHub Actions annotations, one per finding
    Github,
    /// SARIF 2.1.0 (GitHub code scanning), one log for every file
    Sarif,
}

/// Said once, after the text output, when a syntax error was the emulation's: no CPython
/// 3.10+ could be asked (`host::cpython`), so its wording or line may differ from CPython's.
pub const EMULATED_SYNTAX_NOTE: &str =
    "Note: the syntax error above is torchcts-lsp's emulation of CPython 3.11's compile(): \
     no CPython 3.10 or newer was asked (none found for the manifest, `cpython-compile = false`, or \
     TORCHCTS_LSP_NO_CPYTHON); CPython may word it differently or name another line";

pub fn run(args: &CheckArgs) -> ExitCode {
    if args.unsafe_fixes && !(args.fix || args.diff) {
        errln!("error: --unsafe-fixes goes with --fix or --diff\n\nUsage: torchcts-lsp check --fix --unsafe-fixes [FILE|DIR|-]...");
        return ExitCode::from(2);
    }
    let given = match &args.manifest {
        // check-manifest's spelling keeps check-manifest's reading of the one path.
        Some(manifest) => {
            Inputs { inputs: vec![Input { path: manifest.clone(), stdin: false, empty_folder: false }], single: true }
        }
        None => match args.inputs.expand("manifest.py") {
            Ok(inputs) => inputs,
            Err(e) => return super::input_error("check", e),
        },
    };
    let configs = match super::configs_for("check", &given.inputs) {
        Ok(configs) => configs,
        Err(code) => return code,
    };
    // Our inventory hints are warnings: text leaves them out where it shows none of ours.
    let own_warnings = args.format != CheckFormat::Text || !(args.check_manifest_only || args.quiet);
    let embedded = own_warnings.then(torchcts_core::accounting_view::Inventory::embedded);
    let mut python_notes = super::regex_note::PythonNotes::default();
    let mut emulated_syntax = false;
    let mut worst = 0u8;
    let mut kept: Vec<(String, Result<Analysis, String>)> = Vec::new();
    for (input, config) in given.inputs.iter().zip(&configs) {
        let shown = input.shown();
        let flags = super::AccountingArgs::default().for_manifest(config.as_ref());
        let surroundings = flags.surroundings(&input.path, config.as_ref());
        let counted = embedded.and_then(|_| hints_inventory(&flags, &input.path));
        let inventory = counted.as_deref().or(embedded);
        let (outcome, changed) = checked(args, input, config.as_ref(), &flags, inventory, &surroundings);
        worst = worst.max(file_exit_code(&outcome, args.diff && changed, given.single));
        if args.diff || (args.fix && input.stdin) {
            if let Err(message) = &outcome {
                errln!("{message}");
            }
            continue;
        }
        match args.format {
            CheckFormat::Sarif => {
                kept.push((shown, outcome));
                continue;
            }
            CheckFormat::Json if given.single => match &outcome {
                Ok(analysis) => super::output::write_json_stdout(&report(&input.path, analysis)),
                Err(message) => errln!("{message}"),
            },
            CheckFormat::Json => match &outcome {
                Ok(analysis) => super::output::write_json_line_stdout(&report(&input.path, analysis)),
                Err(message) => super::output::write_json_line_stdout(&serde_json::json!({
                    "error": message, "exit_code": 1, "file": shown,
                })),
            },
            CheckFormat::Github => {
                let reported = Reported { path: shown, outcome: outcome.as_ref().map_err(String::as_str) };
                formats::print_annotations(&reported);
                if let Err(message) = &outcome {
                    errln!("{message}");
                }
            }
            CheckFormat::Text => {
                if !given.single {
                    outln!("== {shown}");
                }
                match &outcome {
                    Ok(analysis) => {
                        print_text(analysis, &shown, args);
                        if !args.quiet && super::regex_note::answer_depends_on_python(analysis) {
                            python_notes.add(&shown, &flags.environment(&input.path).found);
                        }
                        emulated_syntax |= analysis.syntax_error.is_some()
                            && analysis.syntax_judge == torchcts_core::cpython::SyntaxJudge::Emulation;
                    }
                    Err(message) => errln!("{message}"),
                }
            }
        }
        if let Ok(analysis) = outcome {
            left_to_the_exit(analysis);
        }
    }
    python_notes.print();
    if emulated_syntax && !args.quiet {
        errln!("{EMULATED_SYNTAX_NOTE}");
    }
    if args.format == CheckFormat::Sarif {
        print_sarif(&kept);
    }
    ExitCode::from(worst)
}

/// The inventory the hints of `manifest` come from: the one `analyze` counts with (the
/// project's `inventory`, `torch`, `torchcts`, else the environment's torch); `None` (the
/// embedded one) when it cannot load, said in a note.
fn hints_inventory(flags: &super::AccountingArgs, manifest: &std::path::Path) -> Option<super::SelectedInventory> {
    flags.load_inventory(manifest).map_err(|e| errln!("Note: {e}; hints from the embedded inventory")).ok()
}

/// One SARIF log for every file, then the messages of those that could not be read.
fn print_sarif(kept: &[(String, Result<Analysis, String>)]) {
    let reported: Vec<Reported> = kept
        .iter()
        .map(|(path, outcome)| Reported { path: path.clone(), outcome: outcome.as_ref().map_err(String::as_str) })
        .collect();
    super::output::write_json_stdout(&formats::sarif(&reported));
    for (_, outcome) in kept {
        if let Err(message) = outcome {
            errln!("{message}");
        }
    }
}

/// One input analysed as `check` reports it, and whether `--fix`/`--diff` changed its text:
/// the (fixed) text's analysis with what `analyze` adds to the core's findings (the runs'
/// evidence, the project's `ignore`), so that the count of what is left is `analyze`'s.
fn checked(
    args: &CheckArgs,
    input: &Input,
    config: Option<&crate::host::project_config::ProjectConfig>,
    flags: &super::AccountingArgs,
    inventory: Option<&torchcts_core::accounting_view::Inventory>,
    surroundings: &crate::host::Surroundings,
) -> (Result<Analysis, String>, bool) {
    let finish = |analysis: &mut Analysis| {
        super::evidence::apply(&args.results, input, config, flags, analysis, inventory, surroundings);
        super::ignore_configured(analysis, surroundings, config);
    };
    match super::analyze_input(input, inventory, surroundings).map(|(_, a)| a) {
        Ok(analysis) if args.fix || args.diff => {
            match fix_one(args, input, &analysis, inventory, surroundings, &finish) {
                Ok((fixed, changed)) => (Ok(fixed), changed),
                Err(message) => (Err(message), false),
            }
        }
        Ok(mut analysis) => {
            finish(&mut analysis);
            (Ok(analysis), false)
        }
        Err(message) => (Err(message), false),
    }
}

/// `--fix` / `--diff` on one manifest, having written the file (`--fix`), printed the text
/// (`--fix` on stdin) or the diff (`--diff`), and said on stderr what changed and what is
/// left, and why: the fixed text's analysis, `finish`ed (evidence, the project's `ignore`),
/// and whether the text changed.
fn fix_one(
    args: &CheckArgs,
    input: &Input,
    analysis: &Analysis,
    inventory: Option<&torchcts_core::accounting_view::Inventory>,
    surroundings: &crate::host::Surroundings,
    finish: &dyn Fn(&mut Analysis),
) -> Result<(Analysis, bool), String> {
    let shown = input.shown();
    let original = analysis.text.clone();
    let fixed = super::fix::fix(surroundings, &original, inventory, args.unsafe_fixes);
    for a in &fixed.applied {
        errln!("{shown}:{}: fixed [{}] {}", a.line, a.code, a.title);
    }
    let changed = fixed.text != original;
    if args.diff {
        super::output::write_text_stdout(|out| {
            out.write_str(&super::fix::unified_diff(&shown, &original, &fixed.text))
        });
    } else if input.stdin {
        super::output::write_text_stdout(|out| out.write_str(&fixed.text));
    } else if changed {
        std::fs::write(&input.path, &fixed.text).map_err(|e| format!("cannot write {shown}: {e}"))?;
    }
    let mut after = fixed.analysis;
    finish(&mut after);
    let left = after.findings.len();
    let verb = if args.diff { "would fix" } else { "fixed" };
    let mut summary = format!(
        "{shown}: {verb} {} {}, {left} {} left",
        fixed.findings_fixed,
        plural(fixed.findings_fixed, "finding", "findings"),
        plural(left, "finding", "findings"),
    );
    if fixed.unsafe_left > 0 {
        summary.push_str(&format!(
            " ({} more {} with --unsafe-fixes)",
            fixed.unsafe_left,
            plural(fixed.unsafe_left, "fix", "fixes")
        ));
    }
    if !after.silenced.is_empty() {
        summary.push_str(&format!("; {}", silenced_note(&after)));
    }
    errln!("{summary}");
    Ok((after, changed))
}

/// Why the silenced findings were neither fixed nor counted: "2 silenced by a suppression
/// comment, not fixed (line 4: stale-capability, line 9: duplicate-key)".
fn silenced_note(analysis: &Analysis) -> String {
    let places: Vec<String> = analysis
        .silenced
        .iter()
        .map(|f| {
            let line = analysis.line_index.position(&analysis.text, f.span.start, PositionEncoding::Utf32).line + 1;
            format!("line {line}: {}", f.code)
        })
        .collect();
    format!("{} silenced by a suppression comment, not fixed ({})", places.len(), places.join(", "))
}

/// The command ends after this: freeing an analysis value by value is left to the process's
/// exit (for a 50,000-entry literal it took about 0.4 s, a tenth of the whole command).
pub(super) fn left_to_the_exit(analysis: Analysis) {
    std::mem::forget(analysis);
}

/// One manifest's text output: check-manifest's lines as it prints them, then ours on stderr.
fn print_text(analysis: &Analysis, shown: &str, args: &CheckArgs) {
    for (stream, line) in analysis.check_lines() {
        match stream {
            Stream::Stdout if !args.quiet => outln!("{line}"),
            Stream::Stderr if !(args.quiet && line.starts_with("Warning: ")) => errln!("{line}"),
            _ => {}
        }
    }
    let more = saying_more_than_check_manifest(analysis);
    let ours = |f: &&torchcts_core::Finding| {
        (f.origin == Origin::Lsp && f.code != "not-evaluated")
            || (f.origin == Origin::Torchcts && more.contains(&(f.span.start, f.code)))
    };
    if args.quiet {
        for f in sorted_findings(analysis).into_iter().filter(ours).filter(|f| f.severity == Severity::Error) {
            errln!("{}", own_line(analysis, shown, f));
        }
        return;
    }
    if matches!(analysis.check, CheckOutcome::Validated { .. }) {
        for note in analysis.findings.iter().filter(|f| f.code == "not-evaluated") {
            let pos = analysis.line_index.position(&analysis.text, note.span.start, PositionEncoding::Utf32);
            errln!("Note: line {}: {}", pos.line + 1, note.message);
        }
    }
    if args.check_manifest_only {
        return;
    }
    // Ours, after check-manifest's lines (which stay as the real tool prints them).
    for f in sorted_findings(analysis).into_iter().filter(ours) {
        errln!("{}", own_line(analysis, shown, f));
    }
}

/// The check-manifest findings whose message says more than their line in check-manifest's
/// output (a misspelt key's "did you mean"), by position: printed with our findings, at
/// their place, since the real tool's line stays as it is.
fn saying_more_than_check_manifest(analysis: &Analysis) -> HashSet<(usize, &'static str)> {
    let CheckOutcome::Validated { findings } = &analysis.check else { return HashSet::new() };
    let as_printed: HashSet<(usize, &str, &str)> =
        findings.iter().map(|f| (f.span.start, f.code, f.message.as_str())).collect();
    analysis
        .findings
        .iter()
        .filter(|f| f.origin == Origin::Torchcts && f.data.is_some())
        .filter(|f| !as_printed.contains(&(f.span.start, f.code, f.message.as_str())))
        .map(|f| (f.span.start, f.code))
        .collect()
}

/// `PATH:LINE:COL: CODE message`, as ruff and compilers print a finding (1-based, columns in
/// code points), so editors and terminals link it to the place.
fn own_line(analysis: &Analysis, shown: &str, finding: &torchcts_core::Finding) -> String {
    let ((line, column), _) = one_based_range(analysis, finding);
    format!("{shown}:{line}:{column}: {} {}", finding.code, finding.message)
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
    /// The CPython minor version whose `re` answered for the regexes (`"3.12"`).
    python: String,
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
    let lines = analysis.check_lines().into_iter().map(|(stream, text)| OutputLine { stream, text }).collect();
    CheckReport {
        check_manifest_output: lines,
        exit_code: analysis.check.exit_code(),
        file: path.display().to_string(),
        findings,
        python: analysis.python.to_string(),
    }
}

/// [`report`] as a JSON value, for callers that add to it or hand it on.
pub fn report_json(path: &Path, analysis: &Analysis) -> Value {
    serde_json::to_value(report(path, analysis)).unwrap_or_default()
}
