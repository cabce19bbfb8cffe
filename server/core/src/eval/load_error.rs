//! Exceptions the module certainly raises when executed (what `check-manifest` reports as
//! `Failed to parse manifest: ...`).

use super::Evaluator;
use crate::value::Span;

/// An exception the module raises when executed, as `str(exc)` prints it.
#[derive(Clone, Debug, PartialEq)]
pub struct LoadError {
    pub span: Span,
    /// `NameError`, `TypeError`, `KeyError`, ...
    pub exception: &'static str,
    /// `str(exc)`, the text after `Failed to parse manifest: `.
    pub message: String,
}
impl Evaluator<'_> {
    /// Records the first exception; later ones never happen because loading stops there.
    pub(super) fn fail(&mut self, span: Span, exception: &'static str, message: String) {
        if self.model.load_error.is_none() {
            self.model.load_error = Some(LoadError { span, exception, message });
        }
    }
}
