//! The CPython 3.11 emulation: what `compile()` says about a manifest that does not
//! compile, for `check` parity.
//!
//! - [`lexer`]: the one Python tokenizer of the core, mirroring CPython's
//!   (`Parser/tokenizer.c`), with the errors its tokenizer raises.
//! - [`tokens`]: the tokens CPython's parser reads, and what the grammar asks of one.
//! - [`hints`]: the parser's specialised messages (its `invalid_*` grammar rules).
//! - [`targets`]: an expression reader for the messages about a bad `=` target.

pub mod hints;
pub mod lexer;
pub(crate) mod targets;
pub(crate) mod tokens;
