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
            if let Some(error) = self.raised_aside(branch) {
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

impl Evaluator<'_> {
    /// What evaluating `expression` (without effects) raises, evaluated aside: its notes
    /// dropped, no load error kept.
    fn raised_aside(&mut self, expression: Node) -> Option<super::LoadError> {
        let notes = self.model.notes.len();
        let _ = self.expr(expression);
        for dropped in self.model.notes.split_off(notes) {
            self.noted.remove(&(dropped.span, dropped.message));
        }
        self.model.load_error.take()
    }

    /// A block not evaluated (its header not known): its first statement that certainly
    /// raises where it runs (an expression, or an assignment's value, without effects;
    /// the names the block binds are already not known) is said in an information note,
    /// as a `raise` there is (`blocks.rs`): the findings assume it does not run.
    pub(super) fn block_may_raise(&mut self, block: Node, decided_by: Option<&str>) {
        if self.model.load_error.is_some() || self.stopped.is_some() {
            return;
        }
        let body = ["consequence", "body"].into_iter().find_map(|f| block.child_by_field_name(f)).unwrap_or(block);
        let mut cursor = body.walk();
        let statements: Vec<Node> = body.named_children(&mut cursor).collect();
        for statement in statements {
            let name_target = |a: &Node| a.field(Field::Left).is_some_and(|t| t.kind() == "identifier");
            let value = match statement.named_child(0).filter(|_| statement.kind() == "expression_statement") {
                Some(a) if a.kind() == "assignment" && name_target(&a) => a.field(Field::Right),
                Some(a) if a.kind() == "assignment" => None,
                expression => expression,
            };
            let Some(value) = value.filter(|v| !has_effects(*v)) else { return };
            if let Some(error) = self.raised_aside(value) {
                let code: String = self.t(statement).lines().next().unwrap_or("").chars().take(60).collect();
                let header = decided_by.map(|why| format!(" ({why})")).unwrap_or_default();
                let message = format!(
                    "`{code}` raises {} ({}) where it runs, and whether it runs is only known when Python runs it{header}; the findings assume it does not",
                    error.exception, error.message
                );
                self.note(span(statement), message);
                return;
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
