//! Names that share one list or dict: `a = []; m = {"x": a}; a.append(1)` changes `m["x"]`
//! too. The evaluator holds values, not objects, so a container read through a name gets an
//! identity, kept by every copy of it; a change made in place to a container whose identity
//! was copied is then made to every copy in the environment (exact aliasing).
//!
//! Only containers read through a name can have copies, so only those are labelled, and a
//! change to a container never read costs nothing more.

use super::Evaluator;
use crate::value::{Value, ValueKind};
use std::collections::HashSet;

/// Identities given out, and those that have been copied.
#[derive(Default)]
pub(super) struct Sharing {
    last: u32,
    copied: HashSet<u32>,
}

impl Sharing {
    /// Gives every list and dict in `value` an identity (keeping those it has) and records
    /// them as copied: the caller is about to copy `value`.
    pub(super) fn label(&mut self, value: &mut Value) {
        if matches!(value.kind, ValueKind::List(_) | ValueKind::Dict(_)) {
            if value.identity == 0 {
                self.last += 1;
                value.identity = self.last;
            }
            self.copied.insert(value.identity);
        }
        match &mut value.kind {
            ValueKind::List(items) | ValueKind::Tuple(items) => items.iter_mut().for_each(|v| self.label(v)),
            ValueKind::Dict(d) => d.entries.iter_mut().for_each(|e| self.label(&mut e.value)),
            _ => {}
        }
    }
}

impl Evaluator<'_> {
    /// A copy of the value bound to `name`, sharing identities with it.
    pub(super) fn read_shared(&mut self, name: &str) -> Option<Value> {
        let value = self.env.get_mut(name)?;
        self.sharing.label(value);
        Some(value.clone())
    }

    /// The container at `path` under the name `root` was changed in place: every copy of
    /// it elsewhere in the environment becomes what it now is.
    pub(super) fn changed_in_place(&mut self, root: String, path: Vec<Value>) {
        // Taken out while the environment is borrowed, and put back.
        let mut sharing = std::mem::take(&mut self.sharing);
        let changed = match self.at_path(&root, &path) {
            Some(changed) if changed.identity != 0 && sharing.copied.contains(&changed.identity) => {
                // What it now holds is copied too.
                sharing.label(changed);
                Some(changed.clone())
            }
            _ => None,
        };
        self.sharing = sharing;
        let Some(changed) = changed else { return };
        for value in self.env.values_mut() {
            replace_copies(value, &changed);
        }
    }
}

/// Replaces every container in `value` with `changed`'s identity by `changed`.
fn replace_copies(value: &mut Value, changed: &Value) {
    if value.identity == changed.identity {
        let span = value.span.clone();
        *value = changed.clone();
        value.span = span;
        return;
    }
    match &mut value.kind {
        ValueKind::List(items) | ValueKind::Tuple(items) => items.iter_mut().for_each(|v| replace_copies(v, changed)),
        ValueKind::Dict(d) => d.entries.iter_mut().for_each(|e| replace_copies(&mut e.value, changed)),
        _ => {}
    }
}

impl Evaluator<'_> {
    /// A block that is not evaluated (`if`, `for`, ...) may change in place any list or dict
    /// a name it mentions holds: every copy of those becomes unknown, with a note. (Blocks
    /// that mention `manifest` itself are assumed not to change it, with a note of their own;
    /// its top-level dict is only marked open.)
    pub(super) fn block_may_change_shared(&mut self, block: tree_sitter::Node) {
        let copied = &self.sharing.copied;
        let mut identities = HashSet::new();
        let mut names: Vec<&String> = Vec::new();
        for (name, value) in &self.env {
            let mut held = HashSet::new();
            collect_copied(value, copied, &mut held);
            if name != "manifest" && !held.is_empty() && super::names::mentions_name(block, self.text, name) {
                identities.extend(held);
                names.push(name);
            }
        }
        if identities.is_empty() {
            return;
        }
        let mut names: Vec<String> = names.into_iter().map(|n| format!("`{n}`")).collect();
        names.sort();
        for (name, value) in self.env.iter_mut() {
            match (&mut value.kind, name == "manifest" && identities.contains(&value.identity)) {
                (ValueKind::Dict(d), true) => {
                    d.open = true;
                    d.entries.iter_mut().for_each(|e| forget_copies(&mut e.value, &identities));
                }
                _ => forget_copies(value, &identities),
            }
        }
        let message = format!(
            "this block is not evaluated statically and may change lists or dicts that {} share with other names; those are not known statically",
            names.join(", ")
        );
        self.note(super::first_line_span(block, self.text), message);
    }
}

/// The copied identities of the containers in `value`.
fn collect_copied(value: &Value, copied: &HashSet<u32>, out: &mut HashSet<u32>) {
    if copied.contains(&value.identity) {
        out.insert(value.identity);
    }
    match &value.kind {
        ValueKind::List(items) | ValueKind::Tuple(items) => items.iter().for_each(|v| collect_copied(v, copied, out)),
        ValueKind::Dict(d) => d.entries.iter().for_each(|e| collect_copied(&e.value, copied, out)),
        _ => {}
    }
}

/// Makes every container in `value` with one of `identities` unknown.
fn forget_copies(value: &mut Value, identities: &HashSet<u32>) {
    if identities.contains(&value.identity) {
        *value = Value::unknown("may be changed by a block that is not evaluated statically", value.span.clone());
        return;
    }
    match &mut value.kind {
        ValueKind::List(items) | ValueKind::Tuple(items) => items.iter_mut().for_each(|v| forget_copies(v, identities)),
        ValueKind::Dict(d) => d.entries.iter_mut().for_each(|e| forget_copies(&mut e.value, identities)),
        _ => {}
    }
}
