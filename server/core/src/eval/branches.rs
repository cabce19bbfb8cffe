//! Expressions with branches: `a and b`, `a or b`, `x if c else y`, the branch Python takes
//! evaluated where the condition is known. Where it is not, a branch without effects
//! beyond raising (no call, walrus, comprehension, ...) is evaluated aside: where it
//! certainly raises, loading may end there, so nothing after it is claimed
//! ([`Evaluator::stopped`]). Its notes are dropped: it may not run.

use super::{span, Evaluator};
use crate::fields::{Field, FieldChild};
use crate::value::{Value, ValueKind};
use tree_sitter::Node;

/// Nodes whose evaluation may change what the evaluator holds (a name bound, a list
/// changed, a module imported), or run code: a branch holding one is not evaluated aside.
const EFFECTS: [&str; 11] = [
    "call",
    "named_expression",
    "list_comprehension",
    "set_comprehension",
    "dictionary_comprehension",
    "generator_expression",
    "lambda",
    "yield",
    "await",
    "ERROR",
    "MISSING",
];

impl Evaluator<'_> {
    pub(super) fn boolean_operator(&mut self, node: Node) -> Value {
        let s = span(node);
        let (Some(l), Some(r), Some(op)) =
            (node.field(Field::Left), node.field(Field::Right), node.field(Field::Operator))
        else {
            return Value::unknown("incomplete expression", s);
        };
        let left = self.expr(l);
        let is_and = self.t(op) == "and";
        match left.truthy() {
            Some(t) if t == is_and => self.expr(r),
            Some(_) => left,
            None => {
                self.branches_may_raise(&left, &[r]);
                Value::unknown("boolean expression of a value not known statically", s)
            }
        }
    }

    pub(super) fn conditional_expression(&mut self, node: Node) -> Value {
        let s = span(node);
        let mut cursor = node.walk();
        let parts: Vec<Node> = node.named_children(&mut cursor).collect();
        if parts.len() != 3 {
            return Value::unknown("incomplete conditional expression", s);
        }
        let condition = self.expr(parts[1]);
        match condition.truthy() {
            Some(true) => self.expr(parts[0]),
            Some(false) => self.expr(parts[2]),
            None => {
                self.branches_may_raise(&condition, &[parts[0], parts[2]]);
                Value::unknown("conditional expression whose condition is not known statically", s)
            }
        }
    }

    /// Evaluates each of `branches`, taken or not as `condition` decides, aside (see the
    /// module's comment).
    fn branches_may_raise(&mut self, condition: &Value, branches: &[Node]) {
        for &branch in branches {
            if self.model.load_error.is_some() || self.stopped.is_some() || has_effects(branch) {
                continue;
            }
            let notes = self.model.notes.len();
            let _ = self.expr(branch);
            for dropped in self.model.notes.split_off(notes) {
                self.noted.remove(&(dropped.span, dropped.message));
            }
            if let Some(error) = self.model.load_error.take() {
                let line = branch.start_position().row + 1;
                let code: String = self.t(branch).chars().take(60).collect();
                // Where the machine or the command line decides, the reason says so.
                let decided_by = match &condition.kind {
                    ValueKind::Unknown(why) if crate::value::environment_decides(why) => format!(": {}", why.why),
                    _ => String::new(),
                };
                let why = format!(
                    "line {line}: `{code}` raises {} ({}) where it runs, and whether it runs is only known when Python runs it{decided_by}",
                    error.exception, error.message
                );
                self.stopped.get_or_insert(why);
            }
        }
    }
}

/// Whether `node` holds an [`EFFECTS`] node (or is one).
fn has_effects(node: Node) -> bool {
    let mut pending = vec![node];
    while let Some(n) = pending.pop() {
        if EFFECTS.contains(&n.kind()) || n.is_missing() {
            return true;
        }
        let mut cursor = n.walk();
        pending.extend(n.children(&mut cursor));
    }
    false
}
