//! CPython's own verdict on a manifest that does not compile, asked safely of the
//! environment's interpreter: `python -I -S -B -X utf8 -c <compile_worker.py>` (no site, no
//! `.pth`, no user site, no `PYTHON*` variables, no bytecode written), the text on stdin,
//! `compile()` only (never executed), an answer within [`ANSWER_TIMEOUT`] or none. The same
//! worker answers whether a module can be found (`PathFinder.find_spec` on given folders: no
//! import executed).
//!
//! - The CLI (and the Python API) start one process, only when the emulation found a syntax
//!   error ([`Surroundings::analyze_whole`](super::Surroundings::analyze_whole)).
//! - The server keeps one long-lived [`Worker`] per interpreter ([`Workers`]), asked on the
//!   pool after the emulation's diagnostics are published; a dead or hung worker is started
//!   again at the next question.
//!
//! Which interpreter: the environment's (its `python` setting or project key, `$VIRTUAL_ENV`,
//! the workspace's `.venv`, else `python3`), only a CPython 3.10 or newer (its `pyvenv.cfg` or
//! `lib/pythonX.Y` when known, and what the worker says of itself), and never when the editor
//! or the project turned it off (`cpythonCompile: false`, `cpython-compile = false`; VS Code
//! sends false in an untrusted workspace) or `TORCHCTS_LSP_NO_CPYTHON` is set.

use super::folder_stamps::{stamps, Stamps};
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use torchcts_core::cpython::CompileAnswer;
use torchcts_core::eval::modules::ModuleFiles;

/// The worker's script, embedded in the binary.
const WORKER: &str = include_str!("compile_worker.py");

/// How long one answer may take (a 512 KiB manifest compiles in well under 100 ms; starting
/// an interpreter takes about 20 ms).
pub const ANSWER_TIMEOUT: Duration = Duration::from_secs(5);

/// Set (to anything but empty) to keep every command from starting a CPython.
pub const NO_CPYTHON_VARIABLE: &str = "TORCHCTS_LSP_NO_CPYTHON";

/// The interpreter whose `compile()` judges a manifest for this environment, if one may be
/// asked: a CPython 3.10+ (when its version is known without running it), `allowed` by the
/// caller's settings, and not turned off for the process.
pub fn interpreter(environment: &runner::environment::PythonEnvironment, allowed: bool) -> Option<PathBuf> {
    if !allowed || std::env::var_os(NO_CPYTHON_VARIABLE).is_some_and(|v| !v.is_empty()) {
        return None;
    }
    if environment.python_version.is_some_and(|v| v < (3, 10)) {
        return None;
    }
    Some(environment.python.clone())
}

/// One CPython worker process: requests in, answers out, one line each.
pub struct Worker {
    child: Child,
    stdin: ChildStdin,
    answers: Receiver<String>,
}

impl Worker {
    /// Starts the worker; `Err` when it cannot start or is not a CPython 3.10 or newer.
    pub fn start(python: &Path) -> Result<Worker, String> {
        let mut child = Command::new(python)
            .args(["-I", "-S", "-B", "-X", "utf8", "-c", WORKER])
            .current_dir(std::env::temp_dir())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| format!("cannot start {}: {e}", python.display()))?;
        let stdin = child.stdin.take().ok_or("no stdin")?;
        let stdout = child.stdout.take().ok_or("no stdout")?;
        let (sender, answers) = std::sync::mpsc::channel();
        // A reader thread, so that a question can time out without blocking on the pipe.
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if sender.send(line).is_err() {
                    break;
                }
            }
        });
        let mut worker = Worker { child, stdin, answers };
        let hello = worker.receive()?;
        let hello: serde_json::Value = serde_json::from_str(&hello).map_err(|e| format!("{e}"))?;
        let version = (hello["version"][0].as_u64().unwrap_or(0), hello["version"][1].as_u64().unwrap_or(0));
        if hello["implementation"] != "cpython" || version < (3, 10) {
            return Err(format!("{} is not a CPython 3.10 or newer ({hello})", python.display()));
        }
        Ok(worker)
    }

    fn receive(&mut self) -> Result<String, String> {
        match self.answers.recv_timeout(ANSWER_TIMEOUT) {
            Ok(line) => Ok(line),
            Err(RecvTimeoutError::Timeout) => {
                let _ = self.child.kill();
                Err(format!("no answer within {} s", ANSWER_TIMEOUT.as_secs()))
            }
            Err(RecvTimeoutError::Disconnected) => Err("the worker ended".into()),
        }
    }

    fn ask(&mut self, request: &serde_json::Value) -> Result<serde_json::Value, String> {
        let mut line = serde_json::to_string(request).map_err(|e| e.to_string())?;
        line.push('\n');
        self.stdin.write_all(line.as_bytes()).and_then(|()| self.stdin.flush()).map_err(|e| e.to_string())?;
        let answer = self.receive()?;
        serde_json::from_str(&answer).map_err(|e| e.to_string())
    }

    /// `compile(source, file_name, "exec")` of the file's bytes, as the answer for `text`
    /// (the bytes decoded: the same string for a UTF-8 file).
    pub fn compile(&mut self, source: &[u8], file_name: &str, text: &str) -> Result<CompileAnswer, String> {
        // One char per byte (Latin-1): any bytes travel in a JSON string.
        let source: String = source.iter().map(|&b| char::from(b)).collect();
        let answer = self.ask(&serde_json::json!({"op": "compile", "source": source, "filename": file_name}))?;
        match answer["ok"].as_bool() {
            Some(true) => Ok(CompileAnswer::new(text, None)),
            Some(false) => {
                let message = answer["message"].as_str().unwrap_or_default().to_string();
                let line = answer["line"].as_u64().unwrap_or(0) as usize;
                Ok(CompileAnswer::new(text, Some((message, line))))
            }
            None => Err(format!("unexpected answer {answer}")),
        }
    }

    /// For each name, whether `PathFinder.find_spec(name, paths)` finds a module (`None`: it
    /// raised).
    pub fn find_spec(&mut self, names: &[String], paths: &[PathBuf]) -> Result<Vec<Option<bool>>, String> {
        let paths: Vec<String> = paths.iter().map(|p| p.to_string_lossy().into_owned()).collect();
        let answer = self.ask(&serde_json::json!({"op": "find_spec", "names": names, "paths": paths}))?;
        Ok(names.iter().map(|n| answer["found"][n].as_bool()).collect())
    }

    /// The file of each of `names` (top-level modules) as the module's `__file__` will be
    /// (none: built in), from the standard library, else `paths`; a module it does not find
    /// is left out. No module is imported.
    pub fn module_files(&mut self, names: &[String], paths: &[PathBuf]) -> Result<ModuleFiles, String> {
        let paths: Vec<String> = paths.iter().map(|p| p.to_string_lossy().into_owned()).collect();
        let answer = self.ask(&serde_json::json!({"op": "module_file", "names": names, "paths": paths}))?;
        let mut files = ModuleFiles::default();
        for name in names {
            let entry = &answer["files"][name];
            // A package whose submodules could not be listed is left out too.
            let submodules = entry["submodules"].as_array();
            if entry["found"].as_bool() == Some(true) && submodules.is_some() {
                files.files.insert(name.clone(), entry["file"].as_str().map(str::to_string));
                if let Some(repr) = entry["repr"].as_str() {
                    files.reprs.insert(name.clone(), repr.to_string());
                }
                let listed = submodules.into_iter().flatten().filter_map(|s| s.as_str().map(str::to_string));
                files.submodules.insert(name.clone(), listed.collect());
            }
        }
        Ok(files)
    }
}

impl Drop for Worker {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// One question to a fresh process (the CLI): started, asked, ended.
pub fn compile_once(python: &Path, source: &[u8], file_name: &str, text: &str) -> Result<CompileAnswer, String> {
    Worker::start(python)?.compile(source, file_name, text)
}

/// The server's long-lived workers, one per interpreter, each behind its own lock (a
/// question at a time); a worker that failed is started again at the next question. With
/// them, what `find_spec` said ([`FoundModules`]), so a keystroke never asks twice.
#[derive(Default)]
pub struct Workers {
    workers: Mutex<std::collections::HashMap<PathBuf, Arc<Mutex<Option<Worker>>>>>,
    found: FoundModules,
    /// Per interpreter, the module files asked of it (and the modules asked, found or not).
    files: Mutex<std::collections::HashMap<PathBuf, (ModuleFiles, std::collections::HashSet<String>)>>,
}

impl Workers {
    /// `work` on `python`'s worker, started if needed; a worker that fails is dropped (the
    /// next question starts another).
    fn with_worker<R>(&self, python: &Path, work: impl FnOnce(&mut Worker) -> Result<R, String>) -> Result<R, String> {
        let slot = {
            let mut workers = self.workers.lock().unwrap_or_else(|p| p.into_inner());
            workers.entry(python.to_path_buf()).or_default().clone()
        };
        let mut worker = slot.lock().unwrap_or_else(|p| p.into_inner());
        if worker.is_none() {
            *worker = Some(Worker::start(python)?);
        }
        let answer = worker.as_mut().map_or_else(|| Err("no worker".into()), work);
        if answer.is_err() {
            *worker = None;
        }
        answer
    }

    /// [`Worker::compile`] on `python`'s worker.
    pub fn compile(&self, python: &Path, text: &str, file_name: &str) -> Result<CompileAnswer, String> {
        self.with_worker(python, |worker| worker.compile(text.as_bytes(), file_name, text))
    }

    /// Whether `python`'s `PathFinder.find_spec` finds the top-level `module` in `folders`:
    /// the answer kept for them while no folder changed, else asked of the worker (and kept).
    pub fn find_spec(&self, python: &Path, module: &str, folders: &[PathBuf]) -> Result<FindSpec, String> {
        if let Some(found) = self.found.known(python, folders, module) {
            return Ok(FindSpec { found, asked: false });
        }
        // The folders as they were before the question: a change while it is asked is not
        // taken as answered.
        let before = stamps(folders);
        let names = [module.to_string()];
        let found = self.with_worker(python, |worker| worker.find_spec(&names, folders))?;
        let found = found.first().copied().flatten();
        self.found.keep(python, folders, before, module, found);
        Ok(FindSpec { found, asked: true })
    }

    /// The modules `python`'s `find_spec` found in `folders` (as they are now): importable,
    /// whatever the listing of those folders says.
    pub fn found_modules(&self, python: &Path, folders: &[PathBuf]) -> Vec<String> {
        self.found.found(python, folders)
    }

    /// Forgets every `find_spec` and module file answer (the environment changed).
    pub fn forget_found_modules(&self) {
        self.found.forget();
        self.files.lock().unwrap_or_else(|p| p.into_inner()).clear();
    }

    /// [`Worker::module_files`] of `module` on `python`'s worker, asked once per
    /// interpreter (until [`Workers::forget_found_modules`]); true when it answered now.
    pub fn ask_module_file(&self, python: &Path, module: &str, folders: &[PathBuf]) -> Result<bool, String> {
        let asked = |files: &std::collections::HashMap<PathBuf, (ModuleFiles, _)>| {
            files.get(python).is_some_and(|(_, asked): &(_, std::collections::HashSet<String>)| asked.contains(module))
        };
        if asked(&self.files.lock().unwrap_or_else(|p| p.into_inner())) {
            return Ok(false);
        }
        let names = [module.to_string()];
        let found = self.with_worker(python, |worker| worker.module_files(&names, folders))?;
        let mut files = self.files.lock().unwrap_or_else(|p| p.into_inner());
        let (known, asked) = files.entry(python.to_path_buf()).or_default();
        asked.insert(module.to_string());
        let answered = !found.files.is_empty();
        known.extend(found);
        Ok(answered)
    }

    /// The module files `python` gave so far ([`Workers::ask_module_file`]).
    pub fn module_files(&self, python: &Path) -> Option<ModuleFiles> {
        self.files.lock().unwrap_or_else(|p| p.into_inner()).get(python).map(|(files, _)| files.clone())
    }
}

/// One `find_spec` answer: `found` (`None`: it raised), and whether the worker was asked
/// now (`false`: the answer kept from an earlier question).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FindSpec {
    pub found: Option<bool>,
    pub asked: bool,
}

/// `find_spec` answers per interpreter and folders, valid while each folder's modification
/// time is what it was when they were asked: installing or removing a module adds or
/// removes an entry of the folder that holds it (its top-level name is all we ask), so the
/// answers go with it, while a keystroke costs one `stat` per folder at most.
#[derive(Default)]
struct FoundModules {
    answers: Mutex<std::collections::HashMap<(PathBuf, Vec<PathBuf>), FolderAnswers>>,
}

struct FolderAnswers {
    stamps: Stamps,
    found: std::collections::HashMap<String, Option<bool>>,
}

impl FoundModules {
    /// The answers for `python` and `folders` if no folder changed since they were asked
    /// (stale ones are dropped).
    fn current<R>(&self, python: &Path, folders: &[PathBuf], read: impl FnOnce(&FolderAnswers) -> R) -> Option<R> {
        let mut answers = self.answers.lock().unwrap_or_else(|p| p.into_inner());
        let key = (python.to_path_buf(), folders.to_vec());
        let kept = answers.get(&key)?;
        if kept.stamps != stamps(folders) {
            answers.remove(&key);
            return None;
        }
        Some(read(kept))
    }

    fn known(&self, python: &Path, folders: &[PathBuf], module: &str) -> Option<Option<bool>> {
        self.current(python, folders, |kept| kept.found.get(module).copied()).flatten()
    }

    fn found(&self, python: &Path, folders: &[PathBuf]) -> Vec<String> {
        let found = |kept: &FolderAnswers| {
            kept.found.iter().filter(|(_, found)| **found == Some(true)).map(|(name, _)| name.clone()).collect()
        };
        self.current(python, folders, found).unwrap_or_default()
    }

    /// Keeps `found` for `module`, asked while the folders had `asked_at`.
    fn keep(&self, python: &Path, folders: &[PathBuf], asked_at: Stamps, module: &str, found: Option<bool>) {
        let mut answers = self.answers.lock().unwrap_or_else(|p| p.into_inner());
        let kept = answers
            .entry((python.to_path_buf(), folders.to_vec()))
            .or_insert_with(|| FolderAnswers { stamps: asked_at.clone(), found: Default::default() });
        if kept.stamps != asked_at {
            *kept = FolderAnswers { stamps: asked_at, found: Default::default() };
        }
        kept.found.insert(module.to_string(), found);
    }

    fn forget(&self) {
        self.answers.lock().unwrap_or_else(|p| p.into_inner()).clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn python() -> Option<PathBuf> {
        let python = std::env::var_os("TORCHCTS_PYTHON").map(PathBuf::from).unwrap_or_else(|| "python3".into());
        Worker::start(&python).ok().map(|_| python)
    }

    /// CPython's own words (3.10-3.13 say the same of these), a text that compiles, bytes
    /// that are not UTF-8 in a comment, and `find_spec` on given folders only.
    #[test]
    fn a_worker_answers_compile_and_find_spec() {
        let Some(python) = python() else {
            println!("SKIPPED: no CPython 3.10+ (TORCHCTS_PYTHON or python3)");
            return;
        };
        let mut worker = Worker::start(&python).unwrap();
        let text = "manifest = {\n    \"a\" 1,\n}\n";
        let answer = worker.compile(text.as_bytes(), "manifest.py", text).unwrap();
        let (message, line) = answer.error.clone().unwrap();
        assert_eq!(line, 2);
        assert_eq!(message, "invalid syntax. Perhaps you forgot a comma?");
        assert!(answer.answers(text) && !answer.answers("manifest = {}\n"));
        assert_eq!(worker.compile(b"manifest = {}\n", "manifest.py", "manifest = {}\n").unwrap().error, None);
        assert_eq!(worker.compile(b"# caf\xe9\nmanifest = {}\n", "manifest.py", "x").unwrap().error, None);
        let found = worker.find_spec(&["json".into(), "no_such_module_here".into()], &[]).unwrap();
        assert_eq!(found, vec![Some(false), Some(false)], "PathFinder on no folder finds nothing");
        let stdlib = PathBuf::from(
            std::process::Command::new(&python)
                .args(["-I", "-S", "-c", "import os; print(os.path.dirname(os.__file__))"])
                .output()
                .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
                .unwrap(),
        );
        assert_eq!(worker.find_spec(&["json".into()], std::slice::from_ref(&stdlib)).unwrap(), vec![Some(true)]);
        // Files as `from M import X` names them: the source, none for a built-in module.
        let names = ["typing".to_string(), "sys".into(), "os".into(), "no_such_module_here".into()];
        let files = worker.module_files(&names, &[]).unwrap().files;
        assert_eq!(files["typing"].as_deref(), Some(stdlib.join("typing.py").to_str().unwrap()));
        assert_eq!(files["os"].as_deref(), Some(stdlib.join("os.py").to_str().unwrap()));
        assert_eq!(files["sys"], None);
        assert!(!files.contains_key("no_such_module_here"));
        let json = &worker.module_files(&["json".into()], &[]).unwrap().submodules["json"];
        assert!(json.contains("decoder") && !json.contains("nope"), "{json:?}");
        // Reprs as the same Python prints the imported modules (a submodule's found in its
        // package's folders, the package not imported).
        let names = ["json".to_string(), "sys".into(), "os".into(), "json.decoder".into(), "json.nope".into()];
        let reprs = worker.module_files(&names, &[]).unwrap().reprs;
        let printed = std::process::Command::new(&python)
            .args([
                "-I",
                "-S",
                "-c",
                "import json, sys, os, json.decoder; print(json, sys, os, json.decoder, sep='\\n')",
            ])
            .output()
            .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
            .unwrap();
        let ours: Vec<&str> = names[..4].iter().map(|n| reprs[n].as_str()).collect();
        assert_eq!(ours.join("\n"), printed);
        assert!(!reprs.contains_key("json.nope"));
        // The one-shot form the CLI uses.
        let once = compile_once(&python, b"x = (\n", "m.py", "x = (\n").unwrap();
        assert_eq!(once.error, Some(("'(' was never closed".to_string(), 1)));
    }

    /// The server's `find_spec`: asked once per module and folders, answered from what was
    /// kept while the folders stay as they were, asked again once one changes (a module
    /// installed), forgotten with the environment.
    #[test]
    fn find_spec_answers_are_kept_while_the_folders_stay_as_they_were() {
        let Some(python) = python() else {
            println!("SKIPPED: no CPython 3.10+ (TORCHCTS_PYTHON or python3)");
            return;
        };
        let dir = std::env::temp_dir().join(format!("torchcts-lsp-found-modules-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let folders = [dir.clone()];
        let workers = Workers::default();
        let ask = |module: &str| workers.find_spec(&python, module, &folders).unwrap();
        assert_eq!(ask("orch"), FindSpec { found: Some(false), asked: true });
        assert_eq!(ask("orch"), FindSpec { found: Some(false), asked: false });
        assert!(workers.found_modules(&python, &folders).is_empty());
        // Installed: a new entry of the folder (its time moves on; a coarse clock may need
        // a moment to show it).
        std::thread::sleep(Duration::from_millis(20));
        std::fs::write(dir.join("orch.py"), "").unwrap();
        assert_eq!(ask("orch"), FindSpec { found: Some(true), asked: true });
        assert_eq!(ask("orch"), FindSpec { found: Some(true), asked: false });
        assert_eq!(workers.found_modules(&python, &folders), vec!["orch".to_string()]);
        assert!(workers.found_modules(&python, &[]).is_empty(), "other folders, other answers");
        workers.forget_found_modules();
        assert!(workers.found_modules(&python, &folders).is_empty());
        assert_eq!(ask("orch"), FindSpec { found: Some(true), asked: true });
        let _ = std::fs::remove_dir_all(&dir);
    }
}
