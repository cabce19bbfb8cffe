//! What CPython says about a file that does not compile, and the repairs offered for it.

/// What CPython would say for a file that does not compile: its message and 1-based line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PythonSyntaxError {
    pub message: String,
    pub line: usize,
    /// Likely repairs (the likeliest first), for CPython's specialised messages.
    pub fixes: Vec<SyntaxFix>,
}

/// Replace `span` (bytes) with `text`: the repair a quick fix offers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SyntaxFix {
    pub span: std::ops::Range<usize>,
    pub text: &'static str,
    pub title: &'static str,
}

impl SyntaxFix {
    pub(crate) fn insert(at: usize, text: &'static str, title: &'static str) -> Option<SyntaxFix> {
        Some(SyntaxFix { span: at..at, text, title })
    }
}

/// The 1-based line of byte `offset`, with universal newlines (a lone CR ends a line too).
pub(crate) fn line_at(text: &str, offset: usize) -> usize {
    let before = &text.as_bytes()[..offset];
    let lone_crs = before.windows(2).filter(|w| w[0] == b'\r' && w[1] != b'\n').count()
        + usize::from(before.last() == Some(&b'\r') && text.as_bytes().get(offset) != Some(&b'\n'));
    before.iter().filter(|&&b| b == b'\n').count() + lone_crs + 1
}

/// CPython's own answer to `compile()` of one text, asked by the host of a real interpreter
/// (`-I -S`, the text on stdin, never run). It replaces the emulation's answer for that
/// text only: it carries the text's length and hash, so an answer for another version of
/// the document is never applied.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CompileAnswer {
    text_len: usize,
    text_hash: u64,
    /// `None`: it compiles. Else the exception's message and its 1-based line (0: CPython
    /// named no line, as for a ValueError, whose text is then printed alone).
    pub error: Option<(String, usize)>,
}

impl CompileAnswer {
    pub fn new(text: &str, error: Option<(String, usize)>) -> CompileAnswer {
        CompileAnswer { text_len: text.len(), text_hash: text_hash(text), error }
    }

    /// Whether this is the answer for `text`.
    pub fn answers(&self, text: &str) -> bool {
        self.text_len == text.len() && self.text_hash == text_hash(text)
    }

    /// The syntax error CPython reports, keeping the emulation's repairs where it put the
    /// error on the same line.
    pub fn applied_to(&self, emulated: Option<PythonSyntaxError>) -> Option<PythonSyntaxError> {
        let (message, line) = self.error.clone()?;
        let fixes = emulated.filter(|e| e.line == line).map(|e| e.fixes).unwrap_or_default();
        Some(PythonSyntaxError { message, line, fixes })
    }

    /// Whether CPython says what `emulated` says (the same message and line, or no error).
    pub fn agrees_with(&self, emulated: Option<&PythonSyntaxError>) -> bool {
        match (&self.error, emulated) {
            (None, None) => true,
            (Some((message, line)), Some(e)) => *message == e.message && *line == e.line,
            _ => false,
        }
    }
}

fn text_hash(text: &str) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    text.hash(&mut hasher);
    hasher.finish()
}

/// Who said whether the text compiles.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum SyntaxJudge {
    /// torchcts-lsp's emulation of CPython 3.11 (`cpython::python_syntax_error`).
    #[default]
    Emulation,
    /// A real CPython's `compile()` ([`CompileAnswer`]).
    CPython,
}
