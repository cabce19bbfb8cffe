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
    /// A container that holds itself, and the copy of it that stands where it recurs.
    self_copies: Vec<(u32, u32)>,
}

/// Why a container's self-reference is not known: Python's repr of it is cut short.
const HOLDS_ITSELF: &str = "a container that holds itself (its repr is cut short)";

/// Why a container a block not evaluated may change is not known.
const BLOCK_MAY_CHANGE: &str = "may be changed by a block that is not evaluated statically";

impl Sharing {
    /// `value`, about to be put into the container `identity` by `apply` (`d["k"] = [d]`),
    /// with each reference to the container replaced by a copy of the container as it will
    /// be, one level down: `d["self"] = d` makes `{'self': {'self': <unknown>}}`. That is
    /// what check-manifest reads of it (its keys, its type), not its repr. The copy's
    /// identity comes with it, for [`Sharing::record_self_copy`] once the change is made.
    /// None where `apply` on a copy fails.
    pub(super) fn unroll_self_reference(
        &mut self,
        container: &Value,
        value: &Value,
        apply: impl FnOnce(&mut Value, Value) -> bool,
    ) -> Option<(Value, u32)> {
        let identity = container.identity;
        let mut cut = value.clone();
        replace_identity(&mut cut, identity, &Value::unknown(HOLDS_ITSELF, value.span.clone()));
        let mut copy = container.clone();
        if !apply(&mut copy, cut) {
            return None;
        }
        self.last += 1;
        copy.identity = self.last;
        let mut unrolled = value.clone();
        replace_identity(&mut unrolled, identity, &copy);
        Some((unrolled, copy.identity))
    }

    /// The container `holder` now holds `copy` where it holds itself: a later change to
    /// either forgets the copy.
    pub(super) fn record_self_copy(&mut self, holder: u32, copy: u32) {
        self.self_copies.push((holder, copy));
    }

    /// The containers to forget once the container `changed` changed in place: a copy
    /// standing for a container that holds itself no longer equals it, and a change made
    /// through the copy is one to the container itself.
    fn stale_self_copies(&mut self, changed: u32) -> HashSet<u32> {
        let mut stale = HashSet::new();
        for (holder, copy) in &self.self_copies {
            if changed == *holder {
                stale.insert(*copy);
            } else if changed == *copy {
                stale.extend([*holder, *copy]);
            }
        }
        stale
    }
    /// `value`, a new object (a function: `==` compares functions by identity), with an
    /// identity of its own.
    pub(super) fn new_object(&mut self, mut value: Value) -> Value {
        self.last += 1;
        value.identity = self.last;
        value
    }

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
        let identity = self.at_path(&root, &path).map_or(0, |v| v.identity);
        let stale = if identity == 0 { HashSet::new() } else { sharing.stale_self_copies(identity) };
        self.sharing = sharing;
        if let Some(changed) = changed {
            for value in self.env.values_mut() {
                replace_copies(value, &changed);
            }
        }
        if !stale.is_empty() {
            for value in self.env.values_mut() {
                forget_copies(value, &stale, HOLDS_ITSELF);
            }
        }
    }
}

/// Replaces each container of identity `identity` in `value` by `with`, where it stands.
fn replace_identity(value: &mut Value, identity: u32, with: &Value) {
    if value.identity == identity {
        *value = Value { span: value.span.clone(), ..with.clone() };
        return;
    }
    match &mut value.kind {
        ValueKind::List(items) | ValueKind::Tuple(items) => {
            items.iter_mut().for_each(|v| replace_identity(v, identity, with))
        }
        ValueKind::Dict(d) => d.entries.iter_mut().for_each(|e| replace_identity(&mut e.value, identity, with)),
        _ => {}
    }
}

/// Replaces every container in `value` with `changed`'s identity by `changed`.
fn replace_copies(value: &mut Value, changed: &Value) {
    replace_identity(value, changed.identity, changed);
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
                    d.entries.iter_mut().for_each(|e| forget_copies(&mut e.value, &identities, BLOCK_MAY_CHANGE));
                }
                _ => forget_copies(value, &identities, BLOCK_MAY_CHANGE),
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

/// Makes every container in `value` with one of `identities` unknown, for the reason `why`.
fn forget_copies(value: &mut Value, identities: &HashSet<u32>, why: &str) {
    if identities.contains(&value.identity) {
        *value = Value::unknown(why, value.span.clone());
        return;
    }
    match &mut value.kind {
        ValueKind::List(items) | ValueKind::Tuple(items) => {
            items.iter_mut().for_each(|v| forget_copies(v, identities, why))
        }
        ValueKind::Dict(d) => d.entries.iter_mut().for_each(|e| forget_copies(&mut e.value, identities, why)),
        _ => {}
    }
}
