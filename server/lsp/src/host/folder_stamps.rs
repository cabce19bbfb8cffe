//! Whether folders changed, at one `stat` each: installing or removing a module adds or
//! removes an entry of the folder that holds it (we only ever ask about top-level names), so
//! the folder's modification time changes with it. What is kept of a listing of folders
//! (`host::importable::Listing`) or of CPython's answers about them (`host::cpython`) lapses
//! when it does.

use std::path::PathBuf;
use std::time::SystemTime;

/// Each folder's modification time (`None`: not there, or not readable).
pub type Stamps = Vec<Option<SystemTime>>;

pub fn stamps(folders: &[PathBuf]) -> Stamps {
    folders.iter().map(|folder| std::fs::metadata(folder).and_then(|m| m.modified()).ok()).collect()
}
