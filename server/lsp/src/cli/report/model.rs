//! The support record's IO side: the runs' records read from the evidence index as the
//! core's [`RecordedRuns`] (paths relative, messages cut to a line without machine paths).
//! The record itself, its types and its joining of accounting and evidence, is the core's
//! (`torchcts_core::support_record`); the renderers read it through this module.

pub use torchcts_core::support_record::*;

use runner::evidence::{EvidenceIndex, RunInfo};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// An error text in the record: at most this many characters of its first line.
const ERROR_CHARS: usize = 200;

/// The records of `index` (read from `folders`) as the core's record takes them.
pub fn recorded_runs(index: &EvidenceIndex, folders: &[PathBuf]) -> RecordedRuns {
    let run_position: HashMap<*const RunInfo, usize> =
        index.runs().iter().enumerate().map(|(i, r)| (Arc::as_ptr(r), i)).collect();
    let records = index
        .records()
        .map(|(id, e)| {
            let test = RecordedTest {
                status: crate::host::evidence::test_status(e.status),
                message: e.error.as_deref().or(e.skip_reason.as_deref()).map(clean_message),
                run: run_position.get(&Arc::as_ptr(&e.run)).copied().unwrap_or(0),
                partial: e.run.partial,
            };
            (id.to_string(), test)
        })
        .collect();
    RecordedRuns {
        folders: folders.iter().map(|f| relative(f)).collect(),
        runs: run_rows(index, folders),
        records,
        problems: index.problems().iter().map(|p| (relative(&p.path), clean_message(&p.message))).collect(),
        omitted: index.omitted(),
    }
}

fn run_rows(index: &EvidenceIndex, folders: &[PathBuf]) -> Vec<RunRow> {
    let mut newest: HashMap<*const RunInfo, usize> = HashMap::new();
    for (_, e) in index.records() {
        *newest.entry(Arc::as_ptr(&e.run)).or_default() += 1;
    }
    index
        .runs()
        .iter()
        .map(|run| RunRow {
            artifact: artifact_name(&run.path, folders),
            timestamp: run.timestamp.clone(),
            torch: run.torch_version.clone(),
            hardware: run.hardware_key.clone(),
            partial: run.partial,
            level: run
                .semantic_level_selection
                .as_ref()
                .and_then(|s| s.get("label"))
                .and_then(|l| l.as_str())
                .map(str::to_string),
            tests: run.tests,
            newest_records: newest.get(&Arc::as_ptr(run)).copied().unwrap_or(0),
        })
        .collect()
}

/// An entry's tally as the record shows it: artifacts and reports relative to their results
/// folder, error texts cut to their first line without machine paths.
pub fn without_machine_paths(tally: &mut torchcts_core::evidence::Tally, folders: &[PathBuf]) {
    let relative_run = |run: &mut torchcts_core::evidence::EvidenceRun| {
        run.artifact = artifact_name(Path::new(&run.artifact), folders);
        run.report = run.report.as_deref().map(|r| artifact_name(Path::new(r), folders));
    };
    if let Some(run) = tally.newest.as_mut() {
        relative_run(run);
    }
    for failure in &mut tally.failures {
        relative_run(&mut failure.run);
        failure.error = failure.error.as_deref().map(clean_message);
    }
}

/// An artifact's path from its results folder's parent (`results/cpu_history/x.json`).
pub fn artifact_name(path: &Path, folders: &[PathBuf]) -> String {
    for folder in folders {
        if let Ok(rest) = path.strip_prefix(folder) {
            let name = folder.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
            return format!("{name}/{}", rest.display());
        }
    }
    relative(path)
}

/// A path to show: relative to the working folder when under it, else as given when relative,
/// else its last two components (no absolute path of this machine in the record).
pub fn relative(path: &Path) -> String {
    if path.is_relative() {
        return path.display().to_string().trim_start_matches("./").to_string();
    }
    if let Some(rest) = std::env::current_dir().ok().and_then(|cwd| path.strip_prefix(cwd).ok().map(Path::to_path_buf))
    {
        return rest.display().to_string();
    }
    let parts: Vec<String> =
        path.components().rev().take(2).map(|c| c.as_os_str().to_string_lossy().into_owned()).collect();
    parts.into_iter().rev().collect::<Vec<_>>().join("/")
}

/// The first non-empty line of a message, without absolute paths, at most [`ERROR_CHARS`].
pub fn clean_message(text: &str) -> String {
    let line = text.lines().map(str::trim).find(|l| !l.is_empty()).unwrap_or("");
    let cleaned = strip_paths(line);
    match cleaned.char_indices().nth(ERROR_CHARS) {
        Some((at, _)) => format!("{}…", &cleaned[..at]),
        None => cleaned,
    }
}

/// Replaces each absolute path (`/a/b/c.py`, `C:\a\b`) by its part inside the torchcts
/// package or site-packages, else by its file name.
pub fn strip_paths(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(start) = find_absolute(rest) {
        out.push_str(&rest[..start]);
        let tail = &rest[start..];
        let end = tail.find(|c: char| c.is_whitespace() || "'\"`,;:()[]<>".contains(c)).unwrap_or(tail.len());
        // A Windows drive's colon is part of the path.
        let end = if tail.as_bytes().get(1) == Some(&b':') {
            2 + tail[2..].find(|c: char| c.is_whitespace() || "'\"`,;()[]<>".contains(c)).unwrap_or(tail.len() - 2)
        } else {
            end
        };
        out.push_str(&short_path(&tail[..end]));
        rest = &tail[end..];
    }
    out.push_str(rest);
    out
}

/// Where the next absolute path starts: a `/` or `X:\` at the start of a word, followed by
/// a name and another separator.
fn find_absolute(text: &str) -> Option<usize> {
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        let at_word_start = i == 0 || !(bytes[i - 1].is_ascii_alphanumeric() || b"._-/\\".contains(&bytes[i - 1]));
        if at_word_start {
            let unix = bytes[i] == b'/'
                && text[i + 1..].contains('/')
                && bytes.get(i + 1).is_some_and(|b| b.is_ascii_alphanumeric() || *b == b'_' || *b == b'.');
            let windows = bytes[i].is_ascii_alphabetic()
                && bytes.get(i + 1) == Some(&b':')
                && matches!(bytes.get(i + 2), Some(b'\\') | Some(b'/'));
            if unix || windows {
                return Some(i);
            }
        }
        i += 1;
    }
    None
}

fn short_path(path: &str) -> String {
    let unified = path.replace('\\', "/");
    for marker in ["/site-packages/", "/torchcts/"] {
        if let Some(i) = unified.rfind(marker) {
            return unified[i + 1..].to_string();
        }
    }
    unified.rsplit('/').find(|p| !p.is_empty()).unwrap_or("").to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn machine_paths_are_taken_out() {
        assert_eq!(
            strip_paths("AssertionError at /home/ci/venv/lib/python3.11/site-packages/torchcts/opinfo/x.py:12"),
            "AssertionError at site-packages/torchcts/opinfo/x.py:12"
        );
        assert_eq!(strip_paths("cannot open '/tmp/run-1/out.bin'"), "cannot open 'out.bin'");
        assert_eq!(strip_paths("ratio 1/2 and a/b stay"), "ratio 1/2 and a/b stay");
        assert_eq!(strip_paths(r"see C:\Users\me\torchcts\core\x.py"), "see torchcts/core/x.py");
    }

    #[test]
    fn messages_are_one_line_and_bounded() {
        assert_eq!(clean_message("\n  first line\nsecond"), "first line");
        let long = "x".repeat(500);
        assert_eq!(clean_message(&long).chars().count(), ERROR_CHARS + 1);
    }
}
