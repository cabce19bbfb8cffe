//! The server's log: a line at or above the level (`torchcts.logLevel`, else
//! `$TORCHCTS_LSP_LOG_LEVEL`, else `info`) goes to the client (`window/logMessage`) and, when
//! a log file is set (`torchcts.logFile`, else `$TORCHCTS_LSP_LOG_FILE`), is appended to it
//! with the time and level. Lines the server writes on stderr (a panic caught) go to the
//! file too. Process-wide, as a process serves one client.

use std::io::Write;
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::Mutex;
use tower_lsp_server::ls_types::MessageType;

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Level {
    Error = 1,
    Warn = 2,
    Info = 3,
    Debug = 4,
}

impl Level {
    /// `error` | `warn` (`warning`) | `info` | `debug` (`trace`), any case; else `None`.
    pub fn parse(text: &str) -> Option<Level> {
        match text.trim().to_ascii_lowercase().as_str() {
            "error" => Some(Level::Error),
            "warn" | "warning" => Some(Level::Warn),
            "info" => Some(Level::Info),
            "debug" | "trace" => Some(Level::Debug),
            _ => None,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Level::Error => "error",
            Level::Warn => "warn",
            Level::Info => "info",
            Level::Debug => "debug",
        }
    }

    pub fn message_type(self) -> MessageType {
        match self {
            Level::Error => MessageType::ERROR,
            Level::Warn => MessageType::WARNING,
            Level::Info => MessageType::INFO,
            Level::Debug => MessageType::LOG,
        }
    }

    fn from_u8(n: u8) -> Level {
        match n {
            1 => Level::Error,
            2 => Level::Warn,
            4 => Level::Debug,
            _ => Level::Info,
        }
    }
}

static LEVEL: AtomicU8 = AtomicU8::new(Level::Info as u8);
/// The log file's path and handle; `None`: no file.
static FILE: Mutex<Option<(String, std::fs::File)>> = Mutex::new(None);

/// The level and file from the environment, read once at start (settings override them).
pub fn init_from_env() {
    let level = std::env::var("TORCHCTS_LSP_LOG_LEVEL").ok().and_then(|l| Level::parse(&l));
    let file = std::env::var("TORCHCTS_LSP_LOG_FILE").ok().filter(|f| !f.is_empty());
    if let Err(e) = configure(level, file.as_deref()) {
        eprintln!("torchcts-lsp: {e}");
    }
}

/// Sets the level (`None`: the environment's, else `info`) and the file (`None`: the
/// environment's, else none). `Err` names a file that cannot be opened (no file then).
pub fn configure(level: Option<Level>, file: Option<&str>) -> Result<(), String> {
    let env_level = std::env::var("TORCHCTS_LSP_LOG_LEVEL").ok().and_then(|l| Level::parse(&l));
    LEVEL.store(level.or(env_level).unwrap_or(Level::Info) as u8, Ordering::Relaxed);
    let env_file = std::env::var("TORCHCTS_LSP_LOG_FILE").ok().filter(|f| !f.is_empty());
    let path = file.map(str::to_string).or(env_file);
    let mut slot = FILE.lock().unwrap_or_else(|p| p.into_inner());
    if slot.as_ref().map(|(p, _)| p) == path.as_ref() {
        return Ok(());
    }
    *slot = None;
    let Some(path) = path else { return Ok(()) };
    let expanded = expand_home(&path);
    match std::fs::OpenOptions::new().create(true).append(true).open(&expanded) {
        Ok(f) => {
            *slot = Some((path, f));
            Ok(())
        }
        Err(e) => Err(format!("cannot open the log file {expanded}: {e}")),
    }
}

fn expand_home(path: &str) -> String {
    match (path.strip_prefix("~/"), std::env::var("HOME")) {
        (Some(rest), Ok(home)) => format!("{home}/{rest}"),
        _ => path.to_string(),
    }
}

pub fn level() -> Level {
    Level::from_u8(LEVEL.load(Ordering::Relaxed))
}

/// Whether a line at `level` is written.
pub fn enabled(level: Level) -> bool {
    level <= self::level()
}

/// Appends `message` to the log file, if any, when `level` is enabled.
pub fn to_file(level: Level, message: &str) {
    if !enabled(level) {
        return;
    }
    let mut slot = FILE.lock().unwrap_or_else(|p| p.into_inner());
    if let Some((_, file)) = slot.as_mut() {
        let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap_or_default();
        let _ = writeln!(file, "{}.{:03} {:5} {message}", now.as_secs(), now.subsec_millis(), level.name());
    }
}

/// A line on stderr (the client shows it in its server log), and in the log file.
pub fn stderr(message: &str) {
    eprintln!("torchcts-lsp: {message}");
    to_file(Level::Error, message);
}

#[cfg(test)]
mod tests {
    use super::Level;

    #[test]
    fn levels_parse_and_order() {
        assert_eq!(Level::parse(" DEBUG "), Some(Level::Debug));
        assert_eq!(Level::parse("warning"), Some(Level::Warn));
        assert_eq!(Level::parse("verbose"), None);
        assert!(Level::Error < Level::Info && Level::Info < Level::Debug);
    }
}
