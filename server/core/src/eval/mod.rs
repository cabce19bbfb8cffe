//! Static evaluation of a manifest module with Python's meaning, without running it.
//!
//! Module-level statements run top to bottom in an environment of known names: imports of
//! `torch` (and aliases), constants, the `manifest = {...}` literal (also annotated), and
//! later `manifest["key"] = value`, `.update(...)`, `.append(...)` and `del` statements.
//! Expressions cover literals of every kind, raw and concatenated strings, `+` and friends
//! on known operands, `torch.<dtype>` attributes, `**splat` of a known dict and subscripts of
//! known containers.
//!
//! Anything else is [`ValueKind::Unknown`](crate::value::ValueKind::Unknown) with a reason, which becomes an information
//! note; it is never guessed. Where the module would certainly raise when executed (a name
//! that is never defined, an unhashable dict key, a missing key in a subscript), the
//! failure is recorded as a [`LoadError`], which is what `check-manifest` reports as
//! `Failed to parse manifest: ...`.

mod annotations;
mod augmented;
mod blocks;
mod branches;
mod builtin_arguments;
pub(crate) mod builtins;
mod calls;
mod class_creation;
mod comparisons;
mod compile_nesting;
mod comprehensions;
mod definitions;
mod expressions;
mod extremes;
mod fstrings;
mod functions;
mod huge_ints;
mod in_place;
mod integers;
mod items;
mod literals;
mod load_error;
mod methods;
mod misread_lines;
pub mod modules;
mod names;
mod number_strings;
mod operators;
mod printing;
mod sets;
mod sharing;
mod slices;
mod sorting;
mod statements;
#[cfg(test)]
mod tests;
mod unpacking;

pub use literals::decode_string_literal;
pub use load_error::{LoadError, SystemExit};

use crate::cancel::{uncancelled, Cancel, Cancellable, CHECK_EVERY};
use crate::codes::Code;
use crate::findings::{Finding, Origin, Severity};
use crate::syntax::node_text;
use crate::value::{Span, Value, ValueKind};
use names::collect_bound_names;
use std::collections::{HashMap, HashSet};
use tree_sitter::{Node, Tree};

/// What evaluating the module tells about `manifest`.
#[derive(Clone, Debug, Default)]
pub struct ManifestModel {
    /// The value bound to `manifest` when the module finishes, if it is ever bound.
    pub manifest: Option<Value>,
    /// The `manifest` name in the assignment that bound it (for module-level findings).
    pub name_span: Option<Span>,
    /// The first exception executing the module would certainly raise.
    pub load_error: Option<LoadError>,
    /// Notes on what could not be evaluated, and hints found while evaluating.
    pub notes: Vec<Finding>,
    /// Whether `torch` is imported at module level (the real loader needs it for dtypes).
    pub imports_torch: bool,
    /// The module whose file the loading Python should be asked for (`from M import X`
    /// where M lacks X: the error names M's file, [`modules::ModuleFiles`]).
    pub module_file_wanted: Option<String>,
    /// Where a `manifest = {` was read from a broken part of the tree (its entries are the
    /// ones tree-sitter still reads): a half-typed file's, or one tree-sitter misreads.
    pub recovered: Option<Span>,
    /// What the module's `print()` calls write to stdout while it loads (`printing.rs`).
    pub printed: String,
    /// The first code evaluated as tree-sitter's syntax error (its place and line): where
    /// the text compiles, tree-sitter misread it, and what Python runs there is not known.
    pub misread: Option<(Span, usize)>,
}

/// Runs the module statically, top to bottom, and says what `manifest` ends up holding.
pub fn evaluate(tree: &Tree, text: &str) -> ManifestModel {
    uncancelled(|cancel| evaluate_until(tree, text, cancel))
}

/// [`evaluate`], given up once `cancel` is set (checked per statement and per
/// [`CHECK_EVERY`] entries of a literal).
pub fn evaluate_until(tree: &Tree, text: &str, cancel: &Cancel) -> Cancellable<ManifestModel> {
    evaluate_with(tree, text, cancel, modules::LoadingPython::default())
}

/// [`evaluate_until`], knowing what `loading` tells of the Python that loads the manifest
/// (which modules it can import: where not known, no import is claimed to fail).
pub fn evaluate_with<'a>(
    tree: &'a Tree,
    text: &'a str,
    cancel: &'a Cancel,
    loading: modules::LoadingPython<'a>,
) -> Cancellable<ManifestModel> {
    let mut ev = Evaluator {
        loading,
        text,
        env: HashMap::new(),
        model: ManifestModel::default(),
        bound_before: HashSet::new(),
        depth: 0,
        cancel,
        noted: HashSet::new(),
        future_annotations: false,
        sharing: sharing::Sharing::default(),
        module_attributes: HashMap::new(),
        attributes_set_on_unknown: HashSet::new(),
        unseen_setters: HashMap::new(),
        loop_work: 0,
        root: Some(tree.root_node()),
        functions: functions::Functions::new(),
        call_depth: 0,
        absorbed_until: 0,
        stopped: None,
    };
    // CPython compiles the whole module before running any of it.
    if let Some(node) = compile_nesting::too_deeply_nested(tree, text, cancel)? {
        ev.fail(span(node), "RecursionError", compile_nesting::MESSAGE.to_string());
        return Ok(ev.model);
    }
    let root = tree.root_node();
    // Error recovery may wrap intact statements in an ERROR node; evaluate them anyway.
    let mut statements = Vec::new();
    // Where a misread assignment's target is no name (`[*[]] = 3`): unpacking may raise.
    let mut misread_unpacking = None;
    let mut read_again = HashMap::new();
    let mut pending = vec![root];
    while let Some(node) = pending.pop() {
        let mut cursor = node.walk();
        let children: Vec<Node> = node.named_children(&mut cursor).collect();
        for child in children.into_iter().rev() {
            if crate::syntax::recovered_manifest_pairs(child, text).is_some() {
                statements.push(child);
            } else if child.kind() == "ERROR" {
                pending.push(child);
                if misread_targets(child, text, &mut ev.bound_before) {
                    misread_unpacking.get_or_insert(child.start_position().row + 1);
                }
            } else if let Some(again) = child.has_error().then(|| misread_lines::read_again(child, text)).flatten() {
                // `*~x,`, `limits, [*[]] = 3`: simple statements tree-sitter misreads, read
                // again line by line as Python reads them.
                again.bound_names(text, &mut ev.bound_before);
                read_again.insert(child.id(), again);
                statements.push(child);
            } else {
                // A misread assignment inside a statement read otherwise, not read again.
                if child.has_error() && nested_misread_targets(child, text, &mut ev.bound_before) {
                    misread_unpacking.get_or_insert(child.start_position().row + 1);
                }
                statements.push(child);
            }
        }
    }
    // Keep source order: ERROR contents are expanded where they stand (one sort, not one per
    // ERROR node: a file of many is no quadratic).
    statements.sort_by_key(|n| n.start_byte());
    for statement in statements {
        if ev.model.load_error.is_some() || ev.stopped.is_some() {
            break;
        }
        cancel.check()?;
        // An assignment tree-sitter read with an error between its parts, in a text that
        // compiles: what Python runs there is not what we read (`y, *1` then `manifest = {}`:
        // one assignment to tree-sitter). Evaluated for the editor, not claimed for
        // check-manifest. (An annotation's errors are read as CPython reads them:
        // `annotations.rs`.)
        if let Some(again) = read_again.get(&statement.id()) {
            ev.run_read_again(again);
        } else {
            if misread_assignment(statement) {
                ev.model.misread.get_or_insert((span(statement), statement.start_position().row + 1));
            }
            ev.statement(statement);
        }
        cancel.check()?;
        // A compound statement records what it binds itself: a branch not taken binds
        // nothing (`if 3 > 21: name = ...` leaves `name` undefined).
        let compound = matches!(
            statement.kind(),
            "if_statement"
                | "for_statement"
                | "while_statement"
                | "try_statement"
                | "with_statement"
                | "match_statement"
        );
        if !compound {
            collect_bound_names(statement, text, &mut ev.bound_before);
        }
    }
    // A literal given up half-way is not a value.
    cancel.check()?;
    // Taken, not cloned: the environment ends here, and a large manifest is the largest value.
    ev.model.manifest = ev.env.remove("manifest");
    if ev.model.manifest.is_none() && ev.bound_before.contains("manifest") && root.has_error() {
        // Bound in lines tree-sitter misreads (a file that compiles has no ERROR node).
        let why = "`manifest` is assigned in lines tree-sitter reads otherwise than Python";
        ev.model.manifest = Some(Value::unknown(why, 0..0));
    }
    // What loading the module does is not known past an assignment not read.
    if let (Some(line), None) = (misread_unpacking, &ev.model.load_error) {
        let why = format!(
            "line {line} assigns to a target tree-sitter reads otherwise than Python: unpacking there may raise when torchcts loads the manifest"
        );
        ev.model.manifest = Some(Value::unknown(why, 0..0));
    }
    if let (Some(why), None) = (ev.stopped.take(), &ev.model.load_error) {
        ev.model.manifest = Some(Value::unknown(why, 0..0));
    }
    if let Some(manifest) = ev.model.manifest.take().filter(|_| ev.model.load_error.is_none()) {
        ev.note_unknowns_inside(&manifest);
        // Validation's messages show the repr of what the manifest holds.
        ev.want_module_reprs(&manifest);
        ev.model.manifest = Some(manifest);
    }
    Ok(ev.model)
}

/// The names an ERROR node's own `name =` children assign: tree-sitter read no assignment
/// there, but Python may (a misread file that compiles), so reading one is not claimed to
/// raise NameError. True where such a target is no name (`[*[]] =`).
fn misread_targets(error: Node, text: &str, out: &mut HashSet<String>) -> bool {
    let mut unpacking = false;
    let mut cursor = error.walk();
    let children: Vec<Node> = error.children(&mut cursor).collect();
    for pair in children.windows(2) {
        if pair[1].kind() != "=" {
            continue;
        }
        // The name just before the `=`: the last leaf of what precedes it (`x in y\nDTYPES`
        // read as one comparison ends on it).
        let mut last = pair[0];
        while let Some(child) = last.child(last.child_count().saturating_sub(1)) {
            last = child;
        }
        if last.kind() == "identifier" {
            out.insert(crate::syntax::node_text(last, text).to_string());
        } else if matches!(pair[0].kind(), "list" | "tuple" | "parenthesized_expression") {
            unpacking = true;
        }
    }
    unpacking
}

/// Whether `statement` is an assignment (not annotated) with an ERROR among its own parts.
fn misread_assignment(statement: Node) -> bool {
    let Some(assignment) = statement.named_child(0).filter(|a| a.kind() == "assignment") else { return false };
    let mut cursor = assignment.walk();
    let parts: Vec<Node> = assignment.children(&mut cursor).collect();
    parts.iter().any(|p| p.kind() == "ERROR") && !parts.iter().any(|p| p.kind() == ":")
}

/// [`misread_targets`] of each ERROR node inside `statement` (one that holds an error).
fn nested_misread_targets(statement: Node, text: &str, out: &mut HashSet<String>) -> bool {
    let mut unpacking = false;
    let mut pending = vec![statement];
    while let Some(node) = pending.pop() {
        if node.kind() == "ERROR" && node != statement {
            unpacking |= misread_targets(node, text, out);
        }
        let mut cursor = node.walk();
        pending.extend(node.children(&mut cursor).filter(Node::has_error));
    }
    unpacking
}

struct Evaluator<'a> {
    text: &'a str,
    loading: modules::LoadingPython<'a>,
    env: HashMap<String, Value>,
    model: ManifestModel,
    /// Names bound anywhere (including in blocks we do not evaluate) by earlier statements.
    bound_before: HashSet<String>,
    depth: usize,
    cancel: &'a Cancel,
    /// The (place, message) of every note so far.
    noted: HashSet<(Span, String)>,
    /// `from __future__ import annotations` was evaluated: annotations stay text.
    future_annotations: bool,
    /// Which lists and dicts are copies of one another.
    sharing: sharing::Sharing,
    /// `module.attr = value` statements run so far, by module and attribute.
    module_attributes: HashMap<(String, String), Value>,
    /// Attribute names assigned on an object not known statically (it may be a module).
    attributes_set_on_unknown: HashSet<String>,
    /// Per attribute name: whether code not run may set it (a scan of the text, done once).
    unseen_setters: HashMap<String, bool>,
    /// The loop blocks run so far, in bytes (`blocks.rs` bounds it).
    loop_work: usize,
    /// The module's tree: where a function's return expression is found at its call.
    root: Option<Node<'a>>,
    /// The manifest's simple functions (`functions.rs`).
    functions: functions::Functions,
    /// How many of those calls are running.
    call_depth: usize,
    /// Where the statements an annotation took in end (`annotations.rs`): tree-sitter read
    /// them as statements of their own.
    absorbed_until: usize,
    /// Why loading stops at a statement whose exception is not known statically (`raise`
    /// of an object not evaluated): nothing past it is claimed.
    stopped: Option<String>,
}

fn span(node: Node) -> Span {
    node.start_byte()..node.end_byte()
}

impl<'a> Evaluator<'a> {
    /// Whether to stop the `index`th item of a long literal: the caller gave up (checked
    /// every [`CHECK_EVERY`] items; what is left half-evaluated is thrown away).
    fn given_up(&self, index: usize) -> bool {
        index.is_multiple_of(CHECK_EVERY) && self.cancel.is_cancelled()
    }

    fn t(&self, node: Node) -> &'a str {
        node_text(node, self.text)
    }

    /// A note at each value inside `manifest` not known statically (a dict's entry has
    /// its note from the literal; an item of a list, or a value set later, has not): what
    /// check-manifest says of it is not claimed, and the user is told so.
    fn note_unknowns_inside(&mut self, manifest: &Value) {
        // Each value with whether it is a dict's key: a value (not a key) known by a type the
        // schema judges (`range(3)`, `validate::common::with_stand_ins`) needs no note.
        let mut stack = vec![(manifest, false)];
        while let Some((value, key)) = stack.pop() {
            match &value.kind {
                ValueKind::Unknown(why)
                    if !std::ptr::eq(value, manifest)
                        && !why.contains("not defined")
                        && !why.starts_with("syntax error")
                        && (key || value.schema_stand_in().is_none()) =>
                {
                    self.note(value.span.clone(), format!("Not evaluated statically: {why}"));
                }
                ValueKind::List(items) | ValueKind::Tuple(items) | ValueKind::Set(items) => {
                    stack.extend(items.iter().rev().map(|i| (i, false)))
                }
                ValueKind::Dict(d) => {
                    stack.extend(d.entries.iter().rev().flat_map(|e| [(&e.value, false), (&e.key, true)]))
                }
                _ => {}
            }
        }
    }

    fn note(&mut self, span: Span, message: String) {
        // One note per place is enough; repeated evaluation of the same constant would
        // otherwise duplicate it.
        // A set, not a scan of the notes: a literal with N unevaluated values has N notes.
        if !self.noted.insert((span.clone(), message.clone())) {
            return;
        }
        self.model.notes.push(Finding::new(span, Severity::Information, message, Code::NotEvaluated, Origin::Lsp));
    }
}

fn first_named(node: Node) -> Option<Node> {
    let mut cursor = node.walk();
    let found = node.named_children(&mut cursor).find(|c| c.kind() != "comment");
    found
}

fn first_line_span(node: Node, text: &str) -> Span {
    let start = node.start_byte();
    let end = text[start..node.end_byte()].find(['\n', '\r']).map(|i| start + i).unwrap_or(node.end_byte());
    start..end
}
