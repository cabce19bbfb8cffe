//! Pure analysis core of torchcts-lsp.
//!
//! Data flows one way: text -> syntax tree ([`syntax`]) -> manifest model ([`eval`]) ->
//! findings ([`validate`]) and the `check-manifest` emulation ([`check`], with CPython's
//! syntax errors from [`cpython`]). Nothing here knows LSP or tokio, or reads files, the
//! environment or the clock: callers pass what the analysis needs (such as whether a
//! directory exists) and get plain data back. [`analysis::analyze`] is the entry point;
//! [`line_index`] is the one place that converts byte offsets to positions.

pub mod accounting_view;
pub mod actions;
pub mod analysis;
pub mod cancel;
pub mod check;
pub mod codes;
pub mod completion;
pub mod cpython;
pub mod edit_distance;
pub mod entry_notes;
pub mod eval;
pub mod evidence;
mod fields;
pub mod findings;
pub mod fix_data;
pub mod hover;
pub mod key_docs;
pub mod lexer;
pub mod line_index;
pub mod locate;
pub mod markdown;
pub mod navigation;
pub mod regex_check;
pub mod review_diff;
pub mod runnable;
pub mod schema;
pub mod size_limit;
pub mod support_record;
pub mod suppress;
pub mod symbols;
pub mod syntax;
pub mod validate;
pub mod value;

/// The lexer's old path (`size_limit.rs` and outside callers read `crate::lex`).
pub use lexer as lex;

pub use analysis::{analyze, Analysis, AnalysisInput};
pub use cancel::{Cancel, Cancellable, Cancelled};
pub use findings::{Finding, Origin, Severity};
pub use line_index::{LineCol, LineIndex, PositionEncoding};
