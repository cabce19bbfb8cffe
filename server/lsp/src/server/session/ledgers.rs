//! The project known-segfault ledgers (`known_segfaults.json` beside a manifest), read once
//! per file and torchcts release until `workspace/didChangeWatchedFiles` reports a change.

use crate::host::project_ledger::LedgerProblem;
use accounting::ledger::LedgerEntry;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

pub type LedgerRead = Result<Vec<LedgerEntry>, LedgerProblem>;

#[derive(Default)]
pub struct ProjectLedgers {
    read: HashMap<(PathBuf, String), LedgerRead>,
    /// Ledger files whose problem was published from a manifest (cleared once they read well).
    pub flagged: Vec<PathBuf>,
}

impl ProjectLedgers {
    /// The ledger at `file` for `torchcts` (its packaged ids may not repeat): no entries
    /// when there is no such file.
    pub fn get(&mut self, file: &Path, torchcts: &str) -> LedgerRead {
        self.read
            .entry((file.to_path_buf(), torchcts.to_string()))
            .or_insert_with(|| Self::read(file, torchcts))
            .clone()
    }

    /// Reads the ledger at `file` (file IO: callers keep it off the session's lock). Only a
    /// regular file is read: a FIFO or a device (a link to `/dev/stdin`) would wait forever,
    /// so it is no ledger, as a `pyproject.toml` that is no file is none.
    pub fn read(file: &Path, torchcts: &str) -> LedgerRead {
        if !file.is_file() {
            return Ok(Vec::new());
        }
        match std::fs::read(file) {
            Ok(bytes) => crate::host::project_ledger::parse(file, &bytes, torchcts),
            Err(_) => Ok(Vec::new()),
        }
    }

    /// Whether the ledger at `file` for `torchcts` is kept already.
    pub fn is_kept(&self, file: &Path, torchcts: &str) -> bool {
        self.read.contains_key(&(file.to_path_buf(), torchcts.to_string()))
    }

    /// Keeps a ledger read elsewhere ([`ProjectLedgers::read`] on the blocking pool); one
    /// kept already stays.
    pub fn keep(&mut self, file: &Path, torchcts: &str, read: LedgerRead) {
        self.read.entry((file.to_path_buf(), torchcts.to_string())).or_insert(read);
    }

    pub fn forget(&mut self) {
        self.read.clear();
    }
}
