//! The CPython 3.11 emulation: what `compile()` says about a manifest that does not
//! compile, for `check` parity.
//!
//! - [`lexer`]: the one Python tokenizer of the core, mirroring CPython's
//!   (`Parser/tokenizer.c`), with the errors its tokenizer raises.

pub mod lexer;
