//! The host: everything that turns "this path or text in this folder" into the core's
//! analysis input by reading the world (the Python environment, the project's files, the
//! evidence on disk, the clock). The server, every CLI command and the Python API call it.

pub mod evidence_io;
pub mod importable;
pub mod ledger_warnings;
pub mod project_config;
pub mod project_ledger;
pub mod torch_env;
