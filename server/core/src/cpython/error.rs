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
