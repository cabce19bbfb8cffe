//! One file per LSP request or notification, named after it: convert the parameters in,
//! call the core, convert the result out (through [`super::to_proto`]). The routing is
//! `impl LanguageServer for Backend` in `server/mod.rs`, one line per method.

pub mod code_action;
pub mod code_lens;
pub mod completion;
pub mod definition;
pub mod did_change;
pub mod did_change_configuration;
pub mod did_change_watched_files;
pub mod did_change_workspace_folders;
pub mod did_close;
pub mod did_open;
pub mod did_save;
pub mod document_highlight;
pub mod document_symbol;
pub mod execute_command;
pub mod folding_range;
pub mod hover;
pub mod initialize;
pub mod inlay_hint;
pub mod prepare_rename;
pub mod references;
pub mod rename;
pub mod selection_range;
