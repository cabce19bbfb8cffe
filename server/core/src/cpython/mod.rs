//! The CPython 3.11 emulation: what `compile()` says about a manifest that does not
//! compile, for `check` parity ([`python_syntax_error`]).
//!
//! - [`lexer`]: the one Python tokenizer of the core, mirroring CPython's
//!   (`Parser/tokenizer.c`), with the errors its tokenizer raises; [`numbers`]: where a number
//!   literal ends and its errors.
//! - [`tokens`]: the tokens CPython's parser reads, and what the grammar asks of one.
//! - [`tokenizer_errors`]: the tokenizer's first error, atom errors, unexpected indents.
//! - [`escapes`]: string and bytes escape errors, `\N{name}` lookups; [`fstrings`]: an
//!   f-string's structure errors (`f-string: single '}' is not allowed`, ...).
//! - [`hints`]: the parser's specialised messages (its `invalid_*` grammar rules).
//! - [`targets`]: an expression reader for the messages about a bad `=` target.
//! - [`arguments`]: call arguments out of order, a keyword repeated.
//! - [`compiler`]: the compiler's errors for a file that parses (`return` outside a
//!   function, a parameter named twice, ...).
//! - [`source_bytes`]: a file's bytes decoded as CPython decodes them (coding cookie,
//!   UTF-8, bytes that are not UTF-8 in comments, strings and names); [`codec_names`]: the
//!   codecs CPython's registry knows (a cookie naming another is `unknown encoding`).
//! - [`leniencies`]: shapes tree-sitter accepts and CPython's parser refuses (`a: b: c`,
//!   `x <> y`, a trailing comma after `import a`).
//! - [`doubt`]: shapes tree-sitter reads leniently where CPython ends a statement (they ask
//!   for CPython's own verdict).
//! - [`estimate`]: which of those CPython reports first; [`error`]: the result type.

mod arguments;
mod codec_names;
mod compiler;
pub mod doubt;
pub mod error;
pub mod escapes;
mod estimate;
mod fstrings;
pub mod hints;
mod leniencies;
mod named_expressions;
pub mod source_bytes;
mod statement_shapes;
pub(crate) mod targets;
mod tokenizer_errors;
pub(crate) mod tokens;
mod walrus_places;

pub use error::{CompileAnswer, PythonSyntaxError, SyntaxFix, SyntaxJudge};
pub use estimate::python_syntax_error;
