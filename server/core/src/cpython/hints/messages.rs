//! CPython's specialised parser messages, and a [`Hint`]: one of them placed in the file.

use crate::cpython::error::SyntaxFix;

/// A hint: CPython's message, the 1-based line it reports, and the byte offset the
/// offending construct starts at (to order it against other errors).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Hint {
    pub message: std::borrow::Cow<'static, str>,
    pub line: usize,
    pub offset: usize,
    /// Edits that likely repair it, the likeliest first.
    pub fixes: Vec<SyntaxFix>,
    /// Read by CPython's second pass wherever tree-sitter saw the first error: the value of
    /// an assignment whose target is bad (and that target's own message).
    pub reached: bool,
    /// CPython's parser reads no token past it (a statement's keyword in a bracket, an '='
    /// with nothing before it), so an unclosed bracket opened on its line loses to it.
    pub stops_parser: bool,
}

pub const FORGOT_COMMA: &str = "invalid syntax. Perhaps you forgot a comma?";

pub const COLON_EXPECTED: &str = "':' expected after dictionary key";

pub const VALUE_EXPECTED: &str = "expression expected after dictionary key and ':'";

/// `invalid_kwarg`: `f(a.b=1)`, `f(+x=1)`.
pub const ASSIGNMENT_IN_ARGUMENT: &str = "expression cannot contain assignment, perhaps you meant \"==\"?";

pub const EXPECTED_COLON: &str = "expected ':'";

pub const INVALID: &str = "invalid syntax";

pub(crate) const STARRED_GROUP: &str = "cannot use starred expression here";

pub(crate) const STARRED_VALUE: &str = "cannot use a starred expression in a dictionary value";
