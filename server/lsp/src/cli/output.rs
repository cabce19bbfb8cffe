//! Printing for the CLI commands. `println!` panics when the reader has gone
//! (`torchcts-lsp analyze FILE | head -1`: EPIPE); these write until the stream fails, then
//! drop the rest silently, so the command still ends with its own exit code.
//!
//! The process keeps Rust's default of ignoring SIGPIPE (a write returns EPIPE instead of
//! killing the process): `run_main` also runs inside a Python process through the Python
//! package, where changing the signal disposition would reach beyond this command.

use std::io::Write;
use std::sync::atomic::{AtomicBool, Ordering};

static STDOUT_CLOSED: AtomicBool = AtomicBool::new(false);
static STDERR_CLOSED: AtomicBool = AtomicBool::new(false);

/// `-o/--output-file`: what the command writes to stdout goes to this file instead.
static OUTPUT_FILE: std::sync::OnceLock<std::sync::Mutex<std::io::BufWriter<std::fs::File>>> =
    std::sync::OnceLock::new();

/// Sends the command's stdout to `path` (created or truncated). `Err` says why it cannot.
pub fn redirect_stdout_to(path: &std::path::Path) -> Result<(), String> {
    let file = std::fs::File::create(path).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    OUTPUT_FILE
        .set(std::sync::Mutex::new(std::io::BufWriter::new(file)))
        .map_err(|_| "the output file is already set".to_string())
}

/// Runs `f` on the command's stdout: the output file when one is set.
fn with_stdout<R>(f: impl FnOnce(&mut dyn Write) -> R) -> R {
    match OUTPUT_FILE.get() {
        Some(file) => {
            let mut file = file.lock().unwrap_or_else(|e| e.into_inner());
            f(&mut *file)
        }
        None => f(&mut std::io::stdout().lock()),
    }
}

/// Writes to stdout unless an earlier write failed (closed pipe, full disk).
pub fn write_stdout(args: std::fmt::Arguments) {
    with_stdout(|out| write_unless_closed(out, &STDOUT_CLOSED, args));
}

/// Writes to stderr unless an earlier write failed.
pub fn write_stderr(args: std::fmt::Arguments) {
    write_unless_closed(&mut std::io::stderr().lock(), &STDERR_CLOSED, args);
}

/// Writes `value` to stdout as pretty JSON and a line break, streamed through a buffer:
/// a large report (50k findings: some 23 MB) is never held as one string.
pub fn write_json_stdout(value: &impl serde::Serialize) {
    if STDOUT_CLOSED.load(Ordering::Relaxed) {
        return;
    }
    with_stdout(|out| {
        let mut writer = std::io::BufWriter::with_capacity(64 * 1024, out);
        let written = serde_json::to_writer_pretty(&mut writer, value).is_ok() && writer.write_all(b"\n").is_ok();
        if !written || writer.flush().is_err() {
            STDOUT_CLOSED.store(true, Ordering::Relaxed);
        }
    })
}

/// Writes `value` to stdout as one line of compact JSON (JSON Lines: one object per file).
pub fn write_json_line_stdout(value: &impl serde::Serialize) {
    if STDOUT_CLOSED.load(Ordering::Relaxed) {
        return;
    }
    with_stdout(|out| {
        let mut writer = std::io::BufWriter::with_capacity(64 * 1024, out);
        let written = serde_json::to_writer(&mut writer, value).is_ok() && writer.write_all(b"\n").is_ok();
        if !written || writer.flush().is_err() {
            STDOUT_CLOSED.store(true, Ordering::Relaxed);
        }
    })
}

/// Runs `write` on stdout through a buffer, as text is made: a show-skips report can be far
/// larger than what it reports (a regex printed in each of thousands of records).
pub fn write_text_stdout(write: impl FnOnce(&mut dyn std::fmt::Write) -> std::fmt::Result) {
    if STDOUT_CLOSED.load(Ordering::Relaxed) {
        return;
    }
    struct Stream<W: Write>(W);
    impl<W: Write> std::fmt::Write for Stream<W> {
        fn write_str(&mut self, s: &str) -> std::fmt::Result {
            self.0.write_all(s.as_bytes()).map_err(|_| std::fmt::Error)
        }
    }
    with_stdout(|out| {
        let mut stream = Stream(std::io::BufWriter::with_capacity(64 * 1024, out));
        if write(&mut stream).is_err() || stream.0.flush().is_err() {
            STDOUT_CLOSED.store(true, Ordering::Relaxed);
        }
    })
}

/// Flushes stdout at the end of a command (a failure there is the same closed pipe).
pub fn flush_stdout() {
    if !STDOUT_CLOSED.load(Ordering::Relaxed) && with_stdout(|out| out.flush()).is_err() {
        STDOUT_CLOSED.store(true, Ordering::Relaxed);
    }
}

fn write_unless_closed(stream: &mut (impl Write + ?Sized), closed: &AtomicBool, args: std::fmt::Arguments) {
    if closed.load(Ordering::Relaxed) {
        return;
    }
    if stream.write_fmt(args).is_err() {
        closed.store(true, Ordering::Relaxed);
    }
}

/// `println!` that survives a closed stdout.
macro_rules! outln {
    () => { $crate::cli::output::write_stdout(format_args!("\n")) };
    ($($arg:tt)*) => { $crate::cli::output::write_stdout(format_args!("{}\n", format_args!($($arg)*))) };
}

/// `print!` that survives a closed stdout.
macro_rules! out {
    ($($arg:tt)*) => { $crate::cli::output::write_stdout(format_args!($($arg)*)) };
}

/// `eprintln!` that survives a closed stderr.
macro_rules! errln {
    ($($arg:tt)*) => { $crate::cli::output::write_stderr(format_args!("{}\n", format_args!($($arg)*))) };
}

pub(crate) use {errln, out, outln};

/// `one` for 1, else `many`: "1 finding", "2 findings".
pub(super) fn plural<'a>(n: usize, one: &'a str, many: &'a str) -> &'a str {
    if n == 1 {
        one
    } else {
        many
    }
}
