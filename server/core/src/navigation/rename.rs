//! Rename a module-level name, and `prepareRename`'s check that it can be renamed.
//!
//! Conservative: a rename is refused, with the reason, wherever this analysis cannot prove
//! it finds every occurrence of the same binding ([`super::scopes`]'s doubts), where the
//! name is not bound in the file (a builtin or undefined), where the new name is no
//! identifier, a keyword, a builtin it would shadow, or a name the file already uses.

use super::scopes::{module_names, ImportForm, ModuleNames, Occurrence, Role};
use crate::actions::TextEdit;
use crate::value::Span;
use tree_sitter::Tree;

/// The name torchcts reads from the module.
const MANIFEST: &str = "manifest";

/// Why a rename cannot be done (shown to the user as is).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RenameError(pub String);

impl std::fmt::Display for RenameError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// `prepareRename`: the span of the name at `offset` and the name, or why it cannot be
/// renamed. `Ok(None)`: the cursor is on no module-level name.
pub fn prepare_rename(tree: &Tree, text: &str, offset: usize) -> Result<Option<(Span, String)>, RenameError> {
    let names = module_names(tree, text);
    let Some(at) = names.at(offset) else { return Ok(None) };
    renamable(&names, at)?;
    Ok(Some((at.span.clone(), at.name.clone())))
}

/// The edits that rename the module-level name at `offset` to `new_name`; `Ok(None)` when
/// the cursor is on no module-level name.
pub fn rename(tree: &Tree, text: &str, offset: usize, new_name: &str) -> Result<Option<Vec<TextEdit>>, RenameError> {
    let names = module_names(tree, text);
    let Some(at) = names.at(offset) else { return Ok(None) };
    renamable(&names, at)?;
    if new_name == at.name {
        return Ok(Some(Vec::new()));
    }
    check_new_name(&names, text, new_name)?;
    let edits = names
        .of(&at.name)
        .map(|o| TextEdit {
            span: o.span.clone(),
            new_text: match o.role {
                // `import x` -> `import x as new`; `from m import x` -> `from m import x as new`.
                Role::Import(ImportForm::Module | ImportForm::FromName) => format!("{} as {new_name}", o.name),
                _ => new_name.to_string(),
            },
        })
        .collect();
    Ok(Some(edits))
}

fn renamable(names: &ModuleNames, at: &Occurrence) -> Result<(), RenameError> {
    let name = &at.name;
    if let Some(why) = &names.file_doubt {
        return Err(RenameError(format!("Cannot rename `{name}`: {why}, so not every use can be found.")));
    }
    if let Some(why) = names.doubts.get(name) {
        return Err(RenameError(format!("Cannot rename `{name}`: {why}.")));
    }
    if name == MANIFEST {
        return Err(RenameError("Cannot rename `manifest`: it is the name torchcts reads from the file.".into()));
    }
    if !names.is_bound(name) {
        let what = if crate::eval::builtins::PYTHON_BUILTINS.contains(&name.as_str()) {
            "a builtin"
        } else {
            "not bound in this file"
        };
        return Err(RenameError(format!("Cannot rename `{name}`: it is {what}.")));
    }
    if names.of(name).any(|o| o.role == Role::Import(ImportForm::DottedModule)) {
        return Err(RenameError(format!(
            "Cannot rename `{name}`: `import {name}.…` binds it, and `import {name}.… as new` would bind the submodule instead."
        )));
    }
    Ok(())
}

fn check_new_name(names: &ModuleNames, text: &str, new_name: &str) -> Result<(), RenameError> {
    if !is_identifier(new_name) {
        return Err(RenameError(format!("`{new_name}` is not a Python identifier.")));
    }
    if crate::cpython::tokens::is_keyword(new_name) {
        return Err(RenameError(format!("`{new_name}` is a Python keyword.")));
    }
    if crate::eval::builtins::PYTHON_BUILTINS.contains(&new_name) {
        return Err(RenameError(format!("`{new_name}` would shadow the builtin `{new_name}`.")));
    }
    if new_name == MANIFEST {
        return Err(RenameError("`manifest` is the name torchcts reads from the file.".into()));
    }
    if let Some(&at) = names.all_names.get(new_name) {
        let line = text[..at].matches('\n').count() + 1;
        return Err(RenameError(format!("`{new_name}` is already used in this file (line {line}).")));
    }
    Ok(())
}

/// Python's `str.isidentifier` (Unicode XID_Start/XID_Continue, `_` first allowed).
/// Not mirrored: CPython NFKC-normalises a non-ASCII name first, so a few compatibility
/// characters (`ﬁ`) it would accept are refused here.
pub fn is_identifier(name: &str) -> bool {
    let mut chars = name.chars();
    match chars.next() {
        Some(c) if c == '_' || unicode_ident::is_xid_start(c) => {}
        _ => return false,
    }
    chars.all(unicode_ident::is_xid_continue)
}
