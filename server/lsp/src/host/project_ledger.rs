//! The project's own known-segfault ledger, `known_segfaults.json` beside the manifest
//! (the folder `torchcts show-skips` and `run` are run from), read here (IO) and handed to
//! the pure `accounting::ledger` as bytes; and what the machine says of itself for
//! hardware-specific entries. Shared by the CLI and the server.

use accounting::ledger::{HostFacts, LedgerEntry, ProjectLedger, PROJECT_LEDGER_FILE};
use std::path::{Path, PathBuf};

/// A ledger torchcts refuses: show-skips and run stop with `Exit: <message>`.
#[derive(Debug, Clone, PartialEq)]
pub struct LedgerProblem {
    pub file: PathBuf,
    pub message: String,
    /// Byte range in the file's text where the finding goes.
    pub range: std::ops::Range<usize>,
}

/// The ledger file of a manifest's folder.
pub fn file_for(manifest: &Path) -> PathBuf {
    let folder = std::path::absolute(manifest).ok().and_then(|m| m.parent().map(Path::to_path_buf));
    folder.unwrap_or_else(|| PathBuf::from(".")).join(PROJECT_LEDGER_FILE)
}

/// Whether `path` names a project ledger.
pub fn is_ledger_file(path: &Path) -> bool {
    path.file_name().is_some_and(|n| n == PROJECT_LEDGER_FILE)
}

/// The path torchcts names in its messages: `os.getcwd()` (links resolved) joined with the
/// file name.
fn shown_path(file: &Path) -> String {
    let folder = file.parent().unwrap_or(Path::new("."));
    let folder = std::fs::canonicalize(folder).unwrap_or_else(|_| folder.to_path_buf());
    folder.join(PROJECT_LEDGER_FILE).display().to_string()
}

/// `bytes` as torchcts reads the file at `file`, the packaged ledger of `torchcts` first.
pub fn parse(file: &Path, bytes: &[u8], torchcts: &str) -> Result<Vec<LedgerEntry>, LedgerProblem> {
    let packaged = accounting::ledger::packaged_ledger(torchcts);
    accounting::ledger::read_project_ledger(bytes, &shown_path(file), &packaged).map_err(|e| LedgerProblem {
        file: file.to_path_buf(),
        message: e.message,
        range: e.range,
    })
}

/// The project ledger beside `manifest` for a run with `torchcts` and `torch`: empty when
/// there is none (or it cannot be read: torchcts only loads one that exists).
pub fn read(manifest: &Path, torchcts: &str, torch: &str) -> Result<ProjectLedger, LedgerProblem> {
    let file = file_for(manifest);
    let entries = match std::fs::read(&file) {
        Ok(bytes) => parse(&file, &bytes, torchcts)?,
        Err(_) => Vec::new(),
    };
    Ok(ProjectLedger { entries, torch: torch.to_string(), host: host_facts() })
}

/// `platform.node()` and the machine's memory in GiB (`psutil`), where the system says them
/// without running anything (Linux's `/proc`); read once.
pub fn host_facts() -> HostFacts {
    static HOST: std::sync::OnceLock<HostFacts> = std::sync::OnceLock::new();
    HOST.get_or_init(|| {
        let node = std::fs::read_to_string("/proc/sys/kernel/hostname").ok().map(|s| s.trim_end().to_string());
        let memory_gb = std::fs::read_to_string("/proc/meminfo").ok().and_then(|info| {
            let line = info.lines().find(|l| l.starts_with("MemTotal:"))?;
            let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
            Some(kib * 1024 / (1 << 30))
        });
        HostFacts { node, memory_gb }
    })
    .clone()
}

/// Line and column (1-based, in characters) of a byte offset in `text`.
pub fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let before = &text[..offset.min(text.len())];
    let line = before.matches('\n').count() + 1;
    let col = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    (line, col)
}

impl LedgerProblem {
    /// `FILE:LINE:COL: error: MESSAGE`, the file's text read again for the place.
    pub fn located(&self) -> String {
        let text = std::fs::read(&self.file).map(|b| String::from_utf8_lossy(&b).into_owned()).unwrap_or_default();
        let (line, col) = line_col(&text, self.range.start);
        format!("{}:{line}:{col}: error: {}", self.file.display(), self.message)
    }
}
