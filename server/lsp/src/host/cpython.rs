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

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use torchcts_core::cpython::CompileAnswer;

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
/// question at a time); a worker that failed is started again at the next question.
#[derive(Default)]
pub struct Workers {
    workers: Mutex<std::collections::HashMap<PathBuf, Arc<Mutex<Option<Worker>>>>>,
}

impl Workers {
    /// [`Worker::compile`] on `python`'s worker, started if needed.
    pub fn compile(&self, python: &Path, text: &str, file_name: &str) -> Result<CompileAnswer, String> {
        let slot = {
            let mut workers = self.workers.lock().unwrap_or_else(|p| p.into_inner());
            workers.entry(python.to_path_buf()).or_default().clone()
        };
        let mut worker = slot.lock().unwrap_or_else(|p| p.into_inner());
        if worker.is_none() {
            *worker = Some(Worker::start(python)?);
        }
        let answer = worker.as_mut().map(|w| w.compile(text.as_bytes(), file_name, text));
        match answer {
            Some(Ok(answer)) => Ok(answer),
            Some(Err(e)) => {
                *worker = None;
                Err(e)
            }
            None => Err("no worker".into()),
        }
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
        assert_eq!(worker.find_spec(&["json".into()], &[stdlib]).unwrap(), vec![Some(true)]);
        // The one-shot form the CLI uses.
        let once = compile_once(&python, b"x = (\n", "m.py", "x = (\n").unwrap();
        assert_eq!(once.error, Some(("'(' was never closed".to_string(), 1)));
    }
}
