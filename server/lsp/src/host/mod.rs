//! The host: everything that turns "this path or text in this folder" into the core's
//! analysis input by reading the world. The server, every CLI command and the Python API
//! call it; nothing else builds an [`AnalysisInput`].
//!
//! - [`environment`]: the Python environment (its version, torch and torchcts, the inventory
//!   they choose, the modules it imports);
//! - [`project`]: the project configuration and its `ignore` rule, the known-segfault ledger
//!   ([`project_config`], [`project_ledger`], [`ledger_warnings`]);
//! - [`evidence`]: all evidence IO (the result folders of a manifest, the runner's index and
//!   its cache, git blame line times, the notes);
//! - [`cpython`]: CPython's own `compile()` verdict for a manifest the emulation finds broken
//!   (a worker process, never executing the manifest);
//! - [`clock`]: the time, read nowhere else.
//!
//! What the callers still decide is which environment and configuration apply (flags,
//! editor settings, `[tool.torchcts-lsp]`): they pass them in, and [`Surroundings`] makes the
//! same input of them everywhere.

pub mod clock;
pub mod cpython;
pub mod environment;
pub mod evidence;
pub mod folder_stamps;
pub mod importable;
pub mod ledger_warnings;
pub mod project;
pub mod project_config;
pub mod project_ledger;
pub mod torch_env;

use std::path::{Path, PathBuf};
use std::sync::Arc;
use torchcts_core::accounting_view::Inventory;
use torchcts_core::analysis::analyze_parsed_owned;
use torchcts_core::eval::modules::{ImportableModules, ModuleFiles};
use torchcts_core::evidence::EvidenceNote;
use torchcts_core::regex_check::PythonVersion;
use torchcts_core::{Analysis, AnalysisInput, Cancel, Cancellable, Finding};

pub use environment::Environment;

/// Where the text to analyse comes from.
#[derive(Clone, Copy, Debug)]
pub enum Place<'a> {
    /// The manifest file at this path (its text may be the editor's): `custom_test_dirs`
    /// relative to its folder, SyntaxError naming it.
    File(&'a Path),
    /// Text with no folder at all (an untitled editor buffer): no file system is asked.
    Nowhere,
}

impl Place<'_> {
    /// The folder `custom_test_dirs` and imports are resolved in, absolute.
    pub fn folder(&self) -> Option<PathBuf> {
        match self {
            Place::File(path) => Some(absolute_parent(path)),
            Place::Nowhere => None,
        }
    }

    fn file_name(&self) -> Option<String> {
        match self {
            Place::File(path) => path.file_name().and_then(|n| n.to_str()).map(str::to_string),
            Place::Nowhere => None,
        }
    }
}

/// What the world around one manifest gives its analysis: owned, so the server keeps it
/// across threads and the CLI across its passes. Made by [`Surroundings::of`], the one
/// builder; [`Surroundings::analyze`] lends it to the core as an [`AnalysisInput`].
#[derive(Clone, Default)]
pub struct Surroundings {
    /// The manifest's folder, absolute: `custom_test_dirs` are checked relative to it.
    folder: Option<PathBuf>,
    /// The file's name as a Python SyntaxError shows it (`manifest.py` if unset).
    file_name: Option<String>,
    /// The Python whose `re` compiles the manifest's regexes.
    pub python: PythonVersion,
    /// The modules that Python imports, where the whole list is known.
    pub importable: Option<ImportableModules>,
    /// The evidence findings of earlier runs, placed on their entries by the analysis.
    pub evidence: Arc<Vec<EvidenceNote>>,
    /// The project configuration's `ignore` codes ([`project::ignores`]).
    pub ignored: Vec<String>,
    /// The CPython whose `compile()` may judge a text the emulation finds broken
    /// ([`cpython::interpreter`]); `None`: the emulation answers.
    pub compile_python: Option<PathBuf>,
    /// CPython's answer for a text (the server's, asked in the background); the core applies
    /// it only to the text it answers.
    pub compiled: Option<Arc<torchcts_core::cpython::CompileAnswer>>,
    /// The folders of the environment's `sys.path` and the manifest's, where `find_spec`
    /// looks for a module we say cannot be imported ([`importable::search_folders`]).
    pub module_folders: Vec<PathBuf>,
    /// The files of modules the analysis asked about (`from typing import X` where typing
    /// lacks X: the error names typing's file), from `compile_python`'s import system.
    pub module_files: Option<ModuleFiles>,
}

impl Surroundings {
    /// The surroundings of the manifest at `place`, analysed by `environment`'s Python (none:
    /// CPython 3.11's `re`, no list of importable modules), under the project configuration
    /// `config`. Evidence is added by [`Surroundings::with_evidence`] (reading it needs an
    /// analysis first).
    pub fn of(
        place: Place,
        environment: Option<&Environment>,
        config: Option<&project_config::ProjectConfig>,
    ) -> Surroundings {
        let folder = place.folder();
        let importable = environment.zip(folder.as_deref()).and_then(|(env, folder)| env.importable(folder));
        let module_folders = environment
            .zip(folder.as_deref())
            .map(|(env, folder)| importable::search_folders(&env.found, folder))
            .unwrap_or_default();
        let compile_allowed = config.is_none_or(|c| c.cpython_compile_allowed());
        Surroundings {
            file_name: place.file_name(),
            python: environment.map(|env| env.regex_python().0).unwrap_or_default(),
            importable,
            folder,
            evidence: Arc::default(),
            ignored: config.map(|c| c.ignored_codes().to_vec()).unwrap_or_default(),
            compile_python: environment.and_then(|env| cpython::interpreter(&env.found, compile_allowed)),
            compiled: None,
            module_folders,
            module_files: None,
        }
    }

    /// Nothing of the world but the file's name and its Python: an analysis that asks no
    /// file system (what a fix is checked against).
    pub fn bare(file_name: &str, python: PythonVersion) -> Surroundings {
        Surroundings { file_name: Some(file_name.to_string()), python, ..Surroundings::default() }
    }

    pub fn with_evidence(mut self, notes: Arc<Vec<EvidenceNote>>) -> Surroundings {
        self.evidence = notes;
        self
    }

    /// The analysis of `text` in these surroundings, `inventory` giving its hints. Parses
    /// reusing `old_tree` (edited to match) where given; `Err` once `cancel` is set.
    pub fn analyze(
        &self,
        text: &str,
        old_tree: Option<&tree_sitter::Tree>,
        inventory: Option<&Inventory>,
        cancel: &Cancel,
    ) -> Cancellable<Analysis> {
        let tree = parse_text(text, old_tree, cancel).ok_or(torchcts_core::Cancelled)?;
        self.analyze_tree(text.to_string(), tree, inventory, cancel)
    }

    /// [`Surroundings::analyze`] that nothing cancels (the CLI, the Python API). Where our
    /// parsers find a syntax error ([`Analysis::syntax_in_doubt`]) and a CPython may be
    /// asked, one process judges it ([`cpython`]): its `compile()` of the text, and, for a
    /// text that compiles but that we say cannot import a module (`No module named 'X'`,
    /// from the listing of the environment's folders), `PathFinder.find_spec` of X on those
    /// folders, module after module while it finds them; the text is analysed again with
    /// what it says. (The server asks the same questions of its long-lived worker,
    /// `server/cpython.rs`, and ends at the same analysis.)
    pub fn analyze_whole(&self, text: &str, inventory: Option<&Inventory>) -> Analysis {
        let tree = torchcts_core::syntax::parse(text, None);
        let analyse = |surroundings: &Surroundings| {
            torchcts_core::cancel::uncancelled(|cancel| {
                surroundings.analyze_tree(text.to_string(), tree.clone(), inventory, cancel)
            })
        };
        let analysis = analyse(self);
        let file_wanted = analysis.model.module_file_wanted.is_some();
        // Once: it walks the tree (`cpython::doubt`).
        let in_doubt = analysis.syntax_in_doubt();
        let Some(python) = self.compile_python.as_deref().filter(|_| in_doubt || file_wanted) else {
            return analysis;
        };
        let Ok(mut worker) = cpython::Worker::start(python) else { return analysis };
        let mut judged = self.clone();
        let (mut analysis, compiles) = if in_doubt {
            let name = self.file_name.as_deref().unwrap_or("manifest.py");
            let Ok(answer) = worker.compile(text.as_bytes(), name, text) else { return analysis };
            let (compiles, agrees) = (answer.error.is_none(), answer.agrees_with(analysis.syntax_error.as_ref()));
            judged.compiled = Some(Arc::new(answer));
            let analysis = if agrees {
                Analysis { syntax_judge: torchcts_core::cpython::SyntaxJudge::CPython, ..analysis }
            } else {
                analyse(&judged)
            };
            (analysis, compiles)
        } else {
            (analysis, true)
        };
        // Each answer settles one `from M import X`: as many rounds as the text has.
        while let Some(module) = analysis.model.module_file_wanted.clone() {
            if !judged.add_module_file(&mut worker, module) {
                break;
            }
            analysis = analyse(&judged);
        }
        // Each confirmation adds a name the text imports: as many rounds as it has imports.
        while let Some(module) = missing_module(&analysis).filter(|_| compiles) {
            let found = worker.find_spec(std::slice::from_ref(&module), &self.module_folders);
            if !matches!(found.as_deref(), Ok([Some(true)])) || !judged.confirm_importable([module]) {
                break;
            }
            analysis = analyse(&judged);
        }
        analysis
    }

    /// Asks `worker` for `module`'s file and keeps it; false where it gave no new answer.
    pub fn add_module_file(&mut self, worker: &mut cpython::Worker, module: String) -> bool {
        let files = self.module_files.get_or_insert_with(ModuleFiles::default);
        if files.files.contains_key(&module) {
            return false;
        }
        match worker.module_files(std::slice::from_ref(&module), &self.module_folders) {
            Ok(found) if !found.files.is_empty() => {
                files.extend(found);
                true
            }
            _ => false,
        }
    }

    /// Adds `modules` (CPython's `find_spec` found them) to the importable modules, where
    /// the listing is complete enough to claim any missing; true if one was new.
    pub fn confirm_importable(&mut self, modules: impl IntoIterator<Item = String>) -> bool {
        let Some(importable) = self.importable.as_mut() else { return false };
        let before = importable.names.len();
        importable.names.extend(modules);
        importable.names.len() > before
    }

    /// The analysis of `text` parsed as `tree`. The [`Analysis`] keeps `text` (the server
    /// materialises it from its rope once per analysis, after parsing the rope's chunks;
    /// nothing copies it again).
    pub fn analyze_tree(
        &self,
        text: String,
        tree: tree_sitter::Tree,
        inventory: Option<&Inventory>,
        cancel: &Cancel,
    ) -> Cancellable<Analysis> {
        self.with_input(inventory, |input| analyze_parsed_owned(text, tree, input, cancel))
    }

    /// The core's fix-all engine (`check --fix`, `--diff`, the editor's
    /// `source.fixAll.torchcts`) on `text`, which it analyses in these surroundings after
    /// each round. `Err` once `cancel` is set.
    pub fn fix_all(
        &self,
        text: &str,
        inventory: Option<&Inventory>,
        unsafe_fixes: bool,
        cancel: &Cancel,
    ) -> Cancellable<torchcts_core::actions::FixAll> {
        self.with_input(inventory, |input| torchcts_core::actions::fix_all(text, input, unsafe_fixes, cancel))
    }

    /// The one place an [`AnalysisInput`] is made: `work` runs with it.
    fn with_input<R>(&self, inventory: Option<&Inventory>, work: impl FnOnce(&AnalysisInput) -> R) -> R {
        let dir_exists = self.folder.as_deref().map(runner::environment::dir_exists_relative_to);
        let input = AnalysisInput {
            old_tree: None,
            dir_exists: dir_exists.as_ref().map(|f| f as &dyn Fn(&str) -> bool),
            inventory,
            file_name: self.file_name.as_deref(),
            python: self.python,
            importable: self.importable.as_ref(),
            evidence: Some(&self.evidence),
            compiled: self.compiled.as_deref(),
            module_files: self.module_files.as_ref(),
        };
        work(&input)
    }

    /// Whether the project's `ignore` silences `finding` ([`project::ignores`]).
    pub fn ignores(&self, finding: &Finding) -> bool {
        project::ignores(&self.ignored, finding)
    }

    /// `analysis`'s findings without those the project's `ignore` silences.
    pub fn drop_ignored(&self, analysis: &mut Analysis) {
        analysis.findings.retain(|f| !self.ignores(f));
    }
}

/// The module `analysis` says cannot be imported (its load error `No module named 'X'`).
pub fn missing_module(analysis: &Analysis) -> Option<String> {
    let load = analysis.model.load_error.as_ref().filter(|e| e.exception == "ModuleNotFoundError")?;
    let name = load.message.strip_prefix("No module named '")?.strip_suffix('\'')?;
    Some(name.to_string())
}

/// Parses `text`, reusing `old_tree` (edited to match) where it can; `None` once `cancel`
/// is set (tree-sitter checks it as it goes).
pub fn parse_text(text: &str, old_tree: Option<&tree_sitter::Tree>, cancel: &Cancel) -> Option<tree_sitter::Tree> {
    let mut parser = tree_sitter::Parser::new();
    parser.set_language(&tree_sitter_python::LANGUAGE.into()).ok()?;
    let bytes = text.as_bytes();
    let mut read = |byte: usize, _: tree_sitter::Point| -> &[u8] { bytes.get(byte..).unwrap_or(&[]) };
    let mut stop = |_: &tree_sitter::ParseState| cancel.is_cancelled();
    parser.parse_with_options(&mut read, old_tree, Some(tree_sitter::ParseOptions::new().progress_callback(&mut stop)))
}

/// `path` made absolute against the working folder (no links followed).
fn absolute(path: &Path) -> PathBuf {
    std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf())
}

/// The folder of `path` made absolute (`os.path.dirname(os.path.abspath(path))`).
fn absolute_parent(path: &Path) -> PathBuf {
    absolute(path).parent().map(Path::to_path_buf).unwrap_or_else(|| PathBuf::from("/"))
}

#[cfg(test)]
mod tests {
    use super::*;

    const MANIFEST: &str = "manifest = {\"manifest_version\": 1, \"device_name\": \"cpu\", \"supported_dtypes\": {}, \"semantic_level\": 1, \"capabilities\": {}, \"custom_test_dirs\": [\"tests_here\"]}\n";

    fn codes(analysis: &Analysis) -> Vec<&'static str> {
        analysis.findings.iter().map(|f| f.code).collect()
    }

    /// `custom_test_dirs` are checked in the manifest's folder, and only where there is one.
    #[test]
    fn the_place_decides_the_folder_and_the_file_name() {
        let dir = std::env::temp_dir().join(format!("torchcts-lsp-host-place-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let manifest = dir.join("my_manifest.py");
        let in_file = Surroundings::of(Place::File(&manifest), None, None);
        assert!(codes(&in_file.analyze_whole(MANIFEST, None)).contains(&"missing-dir"));
        std::fs::create_dir_all(dir.join("tests_here")).unwrap();
        assert!(!codes(&in_file.analyze_whole(MANIFEST, None)).contains(&"missing-dir"));
        let nowhere = Surroundings::of(Place::Nowhere, None, None);
        std::fs::remove_dir_all(&dir).unwrap();
        assert!(!codes(&nowhere.analyze_whole(MANIFEST, None)).contains(&"missing-dir"), "no folder is asked");
        // SyntaxError names the file as Python would.
        let broken = in_file.analyze_whole("manifest = {\n", None);
        assert_eq!(broken.file_name, "my_manifest.py");
        assert_eq!(nowhere.analyze_whole("manifest = {\n", None).file_name, "manifest.py");
    }

    /// A module we would say is missing (the listing) that CPython's `PathFinder.find_spec`
    /// finds in the folders is not claimed; one it does not find stays `No module named`,
    /// now judged by CPython (needs a CPython 3.10+: `TORCHCTS_PYTHON` or `python3`).
    #[test]
    fn find_spec_confirms_a_missing_module() {
        let python = std::env::var_os("TORCHCTS_PYTHON").map(PathBuf::from).unwrap_or_else(|| "python3".into());
        let python = runner::environment::PythonEnvironment::of_python(&python).python;
        if cpython::Worker::start(&python).is_err() {
            println!("SKIPPED: no CPython 3.10+");
            return;
        }
        let dir = std::env::temp_dir().join(format!("torchcts-lsp-host-find-spec-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("pkg_here")).unwrap();
        std::fs::write(dir.join("pkg_here/__init__.py"), "").unwrap();
        let surroundings = Surroundings {
            importable: Some(ImportableModules::default()),
            module_folders: vec![dir.clone()],
            compile_python: Some(python),
            ..Surroundings::default()
        };
        let load_error = |text: &str| {
            let analysis = surroundings.analyze_whole(text, None);
            (analysis.model.load_error.map(|e| e.message), analysis.syntax_judge)
        };
        let manifest = "manifest = {}\n";
        assert_eq!(load_error(&format!("import pkg_here\n{manifest}")).0, None);
        // Module after module: each one the listing misses and find_spec finds.
        std::fs::write(dir.join("also_here.py"), "").unwrap();
        assert_eq!(load_error(&format!("import pkg_here\nimport also_here\n{manifest}")).0, None);
        assert_eq!(
            load_error(&format!("import pkg_here\nimport not_here\nimport also_here\n{manifest}")).0,
            Some("No module named 'not_here'".into())
        );
        assert_eq!(
            load_error(&format!("import not_here\n{manifest}")),
            (Some("No module named 'not_here'".into()), torchcts_core::cpython::SyntaxJudge::CPython)
        );
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// The one `ignore` rule: our codes go, check-manifest's stay and are named once.
    #[test]
    fn ignore_silences_only_our_own_codes() {
        let ours = Finding::new(
            0..1,
            torchcts_core::Severity::Warning,
            "a",
            torchcts_core::codes::Code::DuplicateKey,
            torchcts_core::Origin::Lsp,
        );
        let theirs = Finding::new(
            0..1,
            torchcts_core::Severity::Error,
            "b",
            torchcts_core::codes::Code::UnknownKey,
            torchcts_core::Origin::Torchcts,
        );
        let ignored = vec!["duplicate-key".to_string(), "unknown-key".to_string()];
        assert!(project::ignores(&ignored, &ours));
        assert!(!project::ignores(&ignored, &theirs));
        let findings = [ours.clone(), theirs.clone(), theirs.clone()];
        assert_eq!(project::ignored_but_kept(&ignored, &findings), vec!["unknown-key"]);
        let surroundings = Surroundings { ignored, ..Surroundings::default() };
        let mut analysis = Surroundings::default().analyze_whole("manifest = {}\n", None);
        analysis.findings = findings.to_vec();
        surroundings.drop_ignored(&mut analysis);
        assert_eq!(codes(&analysis), vec!["unknown-key", "unknown-key"]);
    }
}
