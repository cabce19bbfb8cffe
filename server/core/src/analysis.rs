//! One immutable analysis of one version of a manifest: the snapshot every feature reads.

use crate::cancel::{uncancelled, Cancel, Cancellable};
use crate::check::CheckOutcome;
use crate::codes::Code;
use crate::cpython::{python_syntax_error, PythonSyntaxError};
use crate::eval::{evaluate_with, ManifestModel};
use crate::findings::{Finding, Origin, Severity};
use crate::fix_data::{FixData, SyntaxRepair};
use crate::line_index::LineIndex;
use crate::syntax::{parse, syntax_findings};
use crate::validate::{lsp_hints, validate_manifest, with_suggestion, ValidationContext};
use crate::value::ValueKind;
use tree_sitter::Tree;

/// Syntax errors beyond this many are not reported one by one.
const MAX_SYNTAX_FINDINGS: usize = 20;

/// What the analysis needs besides the text.
#[derive(Default)]
pub struct AnalysisInput<'a> {
    /// The previous tree, edited to match the new text, for incremental parsing.
    pub old_tree: Option<&'a Tree>,
    /// Whether a `custom_test_dirs` entry exists, relative to the manifest's folder.
    pub dir_exists: Option<&'a dyn Fn(&str) -> bool>,
    /// The suite inventory, for hints only it can give (regexes that match all or no
    /// operators, unknown operator names).
    pub inventory: Option<&'a crate::accounting_view::Inventory>,
    /// The file's name as a Python SyntaxError shows it (the base name); `manifest.py` if unset.
    pub file_name: Option<&'a str>,
    /// The Python torchcts runs on, whose `re` compiles the manifest's regexes (3.11 if unset).
    pub python: crate::regex_check::PythonVersion,
    /// The modules the Python that loads the manifest can import, where the IO layer could
    /// read all of them (`import orch` then fails as it would: `No module named 'orch'`).
    pub importable: Option<&'a crate::eval::modules::ImportableModules>,
    /// Findings from the runs' evidence ([`crate::evidence::notes`]), placed on their
    /// entries in this text (a note whose entry is gone is dropped) before suppression
    /// comments apply.
    pub evidence: Option<&'a [crate::entry_notes::EvidenceNote]>,
    /// A real CPython's `compile()` of this text (the host asks one where it may): its
    /// verdict replaces the emulation's. Ignored unless it is the answer for this text.
    pub compiled: Option<&'a crate::cpython::CompileAnswer>,
    /// The files of modules the loading Python was asked about ([`ManifestModel::module_file_wanted`]).
    pub module_files: Option<&'a crate::eval::modules::ModuleFiles>,
}

pub struct Analysis {
    pub text: String,
    /// The file's name as a Python SyntaxError shows it (`manifest.py` unless given).
    pub file_name: String,
    pub line_index: LineIndex,
    pub tree: Tree,
    pub model: ManifestModel,
    /// Everything to show in the editor, in the order the real tool reports its part.
    pub findings: Vec<Finding>,
    /// Our findings a suppression comment silenced (not shown; `check --fix` says why it
    /// left them).
    pub silenced: Vec<Finding>,
    /// What `torchcts check-manifest` would print.
    pub check: CheckOutcome,
    /// The Python whose `re` answered for the regexes.
    pub python: crate::regex_check::PythonVersion,
    /// The syntax error `compile()` raises (CPython's, or the emulation's), if any.
    pub syntax_error: Option<PythonSyntaxError>,
    /// Who judged whether the text compiles.
    pub syntax_judge: crate::cpython::SyntaxJudge,
}

impl Analysis {
    /// The lines `torchcts check-manifest` prints (banner excluded), in order: the
    /// outcome's, with what the manifest's `print()` calls wrote to stdout after the stderr
    /// lines and before `Manifest is valid!` (a terminal shows them first; each stream
    /// keeps its order). Empty lines are left out, as the parity corpus leaves them.
    pub fn check_lines(&self) -> Vec<(crate::check::Stream, String)> {
        let mut lines = self.check.lines();
        if self.syntax_error.is_some() || self.model.printed.is_empty() {
            return lines;
        }
        let printed = self.model.printed.split('\n').filter(|l| !l.is_empty());
        let at = lines.iter().position(|(stream, _)| *stream == crate::check::Stream::Stdout).unwrap_or(lines.len());
        let printed: Vec<_> = printed.map(|l| (crate::check::Stream::Stdout, l.to_string())).collect();
        lines.splice(at..at, printed);
        lines
    }

    /// Whether CPython's own `compile()` should judge this text (where one may be asked):
    /// the emulation found a syntax error, or tree-sitter found one the emulation did not
    /// name, or we report an error loading the module (which CPython raises only for a text
    /// that compiles), or a line ends on an operator (tree-sitter joins it to the next:
    /// `ce.` then a line break reads as `ce.manifest = ...`), or the text holds a construct
    /// whose compiler checks the emulation does not model (`global`, `try`, `match`:
    /// `cpython::doubt`), and no CPython answered yet.
    pub fn syntax_in_doubt(&self) -> bool {
        self.syntax_judge == crate::cpython::SyntaxJudge::Emulation
            && (self.syntax_error.is_some()
                || self.tree.root_node().has_error()
                || self.model.load_error.is_some()
                || crate::cpython::doubt::line_ends_on_operator(&self.text)
                || crate::cpython::doubt::compiler_checks_not_modelled(&self.tree, &self.text))
    }
}

pub fn analyze(text: &str, input: &AnalysisInput) -> Analysis {
    let tree = parse(text, input.old_tree);
    uncancelled(|cancel| analyze_parsed(text, tree, input, cancel))
}

/// [`analyze`] of a text whose tree the caller already parsed (the language server parses
/// its rope's chunks itself); `input.old_tree` is not used. Given up once `cancel` is set
/// (checked between phases and inside the long ones).
pub fn analyze_parsed(text: &str, tree: Tree, input: &AnalysisInput, cancel: &Cancel) -> Cancellable<Analysis> {
    analyze_parsed_owned(text.to_string(), tree, input, cancel)
}

/// [`analyze_parsed`] of a text the caller materialised for this analysis (the language
/// server, from its rope): the [`Analysis`] keeps it, so it is not copied again.
pub fn analyze_parsed_owned(text: String, tree: Tree, input: &AnalysisInput, cancel: &Cancel) -> Cancellable<Analysis> {
    let owned = text;
    let text = owned.as_str();
    // A caller's parser reads some texts otherwise than CPython (a lone CR as a space, ...):
    // `parse` gives tree-sitter a copy that reads as CPython reads the text.
    let tree = if crate::syntax::needs_own_parse(&tree, text) { parse(text, None) } else { tree };
    let model = evaluate_with(
        &tree,
        text,
        cancel,
        crate::eval::modules::LoadingPython {
            importable: input.importable,
            module_files: input.module_files,
            version: input.python,
        },
    )?;
    let line_index = LineIndex::new(text);
    let mut findings = Vec::new();

    let emulated = python_syntax_error(&tree, text);
    cancel.check()?;
    let (python_error, syntax_judge) = match input.compiled.filter(|answer| answer.answers(text)) {
        Some(answer) => (answer.applied_to(emulated), crate::cpython::SyntaxJudge::CPython),
        None => (emulated, crate::cpython::SyntaxJudge::Emulation),
    };
    let file_name = input.file_name.unwrap_or("manifest.py");
    if let Some(err) = &python_error {
        syntax_error_findings(err, &tree, text, &line_index, file_name, &mut findings);
    }
    if let Some(load) = &model.load_error {
        let (severity, message) = match &load.system_exit {
            Some(exit) => (
                if exit.status == 0 { Severity::Warning } else { Severity::Error },
                crate::check::system_exit_message(exit),
            ),
            None => (Severity::Error, format!("Failed to parse manifest: {}", load.message)),
        };
        findings.push(Finding::new(load.span.clone(), severity, message, Code::LoadError, Origin::Torchcts));
    }

    let validated = manifest_findings(&model, python_error.is_some(), input, &line_index, &mut findings, cancel)?;
    findings.extend(model.notes.iter().cloned());
    if let Some(notes) = input.evidence {
        findings.extend(crate::entry_notes::findings(&model, text, notes));
    }
    let silenced = crate::suppress::apply(text, &tree, &line_index, &mut findings);

    let check =
        CheckOutcome::from_parts(python_error.as_ref(), file_name, model.load_error.as_ref(), &model, validated);
    Ok(Analysis {
        text: owned,
        file_name: file_name.to_string(),
        line_index,
        tree,
        model,
        findings,
        silenced,
        check,
        python: input.python,
        syntax_error: python_error,
        syntax_judge,
    })
}

/// The finding of CPython's syntax error (`err`) on its line, with its repairs, and
/// tree-sitter's syntax findings on other lines.
fn syntax_error_findings(
    err: &PythonSyntaxError,
    tree: &Tree,
    text: &str,
    line_index: &LineIndex,
    file_name: &str,
    findings: &mut Vec<Finding>,
) {
    let line = err.line.saturating_sub(1);
    let start = line_start(line_index, text, line);
    // Skip indentation so the squiggle starts at the code.
    let start = start + text[start..].len() - text[start..].trim_start_matches([' ', '\t']).len();
    let end = text[start..].find(['\n', '\r']).map(|i| start + i).unwrap_or(text.len());
    let mut finding = Finding::new(
        start..end,
        Severity::Error,
        // Line 0: raised before any line is read (a NUL byte), so CPython names none.
        match err.line {
            0 => format!("Failed to parse manifest: {}", err.message),
            line => format!("Failed to parse manifest: {} ({}, line {})", err.message, file_name, line),
        },
        Code::SyntaxError,
        Origin::Torchcts,
    );
    if !err.fixes.is_empty() {
        let fixes = err
            .fixes
            .iter()
            .map(|f| SyntaxRepair {
                start: f.span.start,
                end: f.span.end,
                text: f.text.to_string(),
                title: f.title.to_string(),
            })
            .collect();
        finding = finding.with_data(FixData::SyntaxRepairs { fixes });
    }
    findings.push(finding);
    let python_line = line;
    findings.extend(
        syntax_findings(tree, text, MAX_SYNTAX_FINDINGS)
            .into_iter()
            .filter(|f| line_index.line_of(f.span.start) != python_line),
    );
}

/// The findings about the `manifest` value: validation with its hints where it is a dict
/// (returned too, for `check`), else why nothing is validated. `python_error`: the file
/// does not compile.
fn manifest_findings(
    model: &ManifestModel,
    python_error: bool,
    input: &AnalysisInput,
    line_index: &LineIndex,
    findings: &mut Vec<Finding>,
    cancel: &Cancel,
) -> Cancellable<Option<Vec<Finding>>> {
    let module_span = model.name_span.clone().unwrap_or(0..0);
    let mut validated = None;
    match model.manifest.as_ref().map(|v| &v.kind) {
        Some(ValueKind::Dict(dict)) => {
            let ctx = ValidationContext { dir_exists: input.dir_exists, python: input.python };
            let result = validate_manifest(dict, module_span.clone(), &ctx);
            // check-manifest's lines come from `result`, as the real tool words them; the
            // findings shown add what a misspelt key probably stands for.
            findings.extend(result.iter().cloned().map(with_suggestion));
            cancel.check()?;
            let line_of = |offset: usize| line_index.line_of(offset);
            findings.extend(lsp_hints(dict, &line_of, input.python));
            cancel.check()?;
            if let Some(inventory) = input.inventory {
                findings.extend(crate::accounting_view::inventory_hints(dict, inventory, input.python));
                cancel.check()?;
            }
            validated = Some(result);
        }
        // `manifest = range(3)`: no dict, whatever its value (the arm after this one).
        Some(ValueKind::Unknown(why))
            if model.manifest.as_ref().and_then(crate::value::Value::schema_stand_in).is_none() =>
        {
            findings.push(Finding::new(
                module_span.clone(),
                Severity::Information,
                format!("`manifest` is not known statically ({why}); nothing to validate"),
                Code::NotEvaluated,
                Origin::Lsp,
            ));
        }
        _ if model.load_error.is_none() && !python_error => {
            findings.push(Finding::new(
                module_span.clone(),
                Severity::Error,
                "'manifest' must be a dictionary in manifest.py.",
                Code::NotADict,
                Origin::Torchcts,
            ));
        }
        _ => {}
    }
    Ok(validated)
}

fn line_start(index: &LineIndex, text: &str, line: usize) -> usize {
    index.offset(
        text,
        crate::line_index::LineCol { line: line as u32, col: 0 },
        crate::line_index::PositionEncoding::Utf8,
    )
}
