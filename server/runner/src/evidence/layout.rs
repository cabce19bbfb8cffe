//! The names and references of torchcts's results folders (`results.rs` describes the
//! files): the format names, `_reference_target`'s rule, the per-worker file names.

use std::path::{Path, PathBuf};

pub(crate) const COMPACT_FORMAT: &str = "torchcts_compact_results";
pub(crate) const REFERENCE_FORMAT: &str = "torchcts_result_reference";
pub(crate) const MAX_REFERENCE_DEPTH: usize = 8;

/// `_reference_target`: the file a reference names, by the parts of its `artifact` path
/// (`PurePosixPath`: `a/b.json/` and `a/./b.json` are `a/b.json`), never leaving the
/// reference's folder. `version_one`: its `format_version == 1` in Python's sense.
pub(crate) fn reference_path(reference: &Path, version_one: bool, artifact: Option<&str>) -> Result<PathBuf, String> {
    if !version_one {
        return Err("unsupported result reference version".into());
    }
    let artifact =
        artifact.filter(|a| !a.is_empty()).ok_or("result reference artifact must be a non-empty relative path")?;
    let parts: Vec<&str> = artifact.split('/').filter(|p| !p.is_empty() && *p != ".").collect();
    if artifact.starts_with('/') || parts.contains(&"..") {
        return Err(format!("result reference escapes its directory: {artifact:?}"));
    }
    let mut target = reference.parent().unwrap_or(Path::new(".")).to_path_buf();
    target.extend(parts);
    Ok(target)
}

/// Whether `name` is a per-worker results file of a run under pytest-xdist:
/// `<hardware>_latest.gw<K>.json`, plain JSON each worker rewrites after every test. The
/// controller merges them into `<hardware>_latest.json` and deletes them when the session
/// ends; a run that was killed leaves them (and the next run merges them first).
pub fn is_worker_artifact(name: &str) -> bool {
    name.strip_suffix(".json")
        .and_then(|n| n.rsplit_once("_latest.gw"))
        .is_some_and(|(hardware, k)| !hardware.is_empty() && !k.is_empty() && k.bytes().all(|b| b.is_ascii_digit()))
}
