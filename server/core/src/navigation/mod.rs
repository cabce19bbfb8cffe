//! Navigation over a manifest's module-level names (go to definition, find references,
//! rename, document highlight) and selection ranges, one file per feature, all on
//! [`scopes::module_names`]: which identifiers are module-level names, and in what role.
//!
//! Only module-level names are followed (`FP16_OPS = r"..."`, `import torch`,
//! `from m import y`): a name local to a function, class, lambda or comprehension has no
//! answer. Imports are definitions where they bind (`from x import y` defines `y` at the
//! import); what another module holds is not read.

pub mod definition;
pub mod highlight;
pub mod references;
pub mod rename;
pub mod scopes;
pub mod selection_range;

pub use scopes::{module_names, ImportForm, ModuleNames, Occurrence, Role};
