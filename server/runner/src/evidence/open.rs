//! Opening a results file without ever waiting (issue 35, item 1): only a regular file is
//! read. A FIFO, a socket or a device (a symlink to `/dev/stdin` committed under `results/`)
//! would block a read forever, or until someone writes; so the target's type is checked
//! before the open (`stat`, following links), the open itself is non-blocking (opening a
//! FIFO for reading otherwise waits for a writer), and the opened descriptor is checked
//! again (`fstat`: the path may have been replaced between the two).

use std::fs::File;
use std::path::Path;

/// What a path is, in words for a problem's message.
fn kind(meta: &std::fs::Metadata) -> &'static str {
    let ty = meta.file_type();
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if ty.is_fifo() {
            return "a FIFO";
        }
        if ty.is_char_device() || ty.is_block_device() {
            return "a device";
        }
        if ty.is_socket() {
            return "a socket";
        }
    }
    if ty.is_dir() {
        "a folder"
    } else {
        "not a regular file"
    }
}

/// The file open for reading, and its length, when `path` (links followed) is a regular
/// file; else why not, in words (`not read: a FIFO`).
pub(crate) fn open_regular(path: &Path) -> Result<(File, u64), String> {
    let meta = std::fs::metadata(path).map_err(|e| format!("cannot read: {e}"))?;
    if !meta.is_file() {
        return Err(format!("not read: {} (only regular files are results)", kind(&meta)));
    }
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        // Non-blocking: a FIFO swapped in after the check does not wait for a writer; no
        // controlling terminal from a tty swapped in. No effect on a regular file's reads.
        options.custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY);
    }
    let file = options.open(path).map_err(|e| format!("cannot read: {e}"))?;
    let meta = file.metadata().map_err(|e| format!("cannot read: {e}"))?;
    if !meta.is_file() {
        return Err(format!("not read: {} (only regular files are results)", kind(&meta)));
    }
    Ok((file, meta.len()))
}
