//! Command-line entry points: thin wrappers that read files, call the core and print.

pub mod analyze;
pub mod check;
pub mod inventory;
pub mod skips;

use std::path::Path;

/// Reads a manifest for a command, with a clear message instead of a panic.
pub fn read_manifest(path: &Path) -> Result<String, String> {
    match std::fs::read(path) {
        Ok(bytes) => String::from_utf8(bytes).map_err(|e| {
            format!(
                "Failed to parse manifest: {} is not valid UTF-8 (byte {})",
                path.display(),
                e.utf8_error().valid_up_to()
            )
        }),
        Err(_) => Err(format!("Manifest file not found: {}", path.display())),
    }
}

/// `custom_test_dirs` existence, relative to the manifest's folder like torchcts.
pub fn dir_exists_relative_to(base: &Path) -> impl Fn(&str) -> bool + '_ {
    move |entry: &str| {
        let p = Path::new(entry);
        let full = if p.is_absolute() { p.to_path_buf() } else { base.join(p) };
        full.is_dir()
    }
}

/// Writes to stdout, ignoring a closed pipe (`| head`) instead of panicking like `print!`.
pub fn print_stdout(text: &str) {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    let _ = out.write_all(text.as_bytes());
    let _ = out.flush();
}
