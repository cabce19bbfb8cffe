//! Calls of the manifest's own simple functions: a `def` whose body is one `return` (after
//! a docstring, if any), called with arguments that bind exactly (`caps("inference")`),
//! runs its return expression with the parameters bound over the module's names, as
//! Python runs it at the call. Anything else is a call not evaluated statically.

use super::{span, Evaluator};
use crate::fields::{Field, FieldChild};
use crate::value::{Dict, Span, Value, ValueKind};
use std::collections::HashMap;
use tree_sitter::Node;

/// How deep calls of the manifest's functions go before a call is left not known (a
/// function that calls itself).
const MAX_CALL_DEPTH: usize = 16;

/// A parameter of a simple function, its default evaluated where the `def` ran.
#[derive(Clone, Debug)]
pub(super) enum Parameter {
    /// Positional or keyword (before `*`), or keyword only (after it).
    Named { name: String, default: Option<Value>, keyword_only: bool },
    /// `*args`
    Rest(String),
    /// `**kwargs`
    Keywords(String),
}

/// A function the manifest defines (not decorated): its parameters, and what it returns where
/// its body is that simple.
#[derive(Clone, Debug)]
pub(super) struct Function {
    name: String,
    parameters: Vec<Parameter>,
    /// What it returns: the span of its return expression, `Some(None)` for None (a body of
    /// docstrings and `pass`), None where the body does more (the call binds its arguments,
    /// and is not evaluated).
    returns: Option<Option<Span>>,
    /// The names, attributes and items the body reads as statements of their own before it
    /// returns (`ret` of a `ret#urn` typo): each is read at the call, for what it raises.
    reads: Vec<Span>,
}

/// The simple functions by where their `def` starts (as [`ValueKind::Function`] names it).
pub(super) type Functions = HashMap<usize, Function>;

impl Evaluator<'_> {
    /// The function a `def` (not decorated) defines, where it is simple; `defaults` are its
    /// parameters' defaults in order, evaluated.
    pub(super) fn simple_function(&self, definition: Node, defaults: Vec<Value>) -> Option<Function> {
        let returns = self.returned_expression(definition);
        let parameters = definition.child_by_field_name("parameters")?;
        let mut defaults = defaults.into_iter();
        let mut keyword_only = false;
        let mut out = Vec::new();
        let mut cursor = parameters.walk();
        for p in parameters.named_children(&mut cursor).filter(|c| c.kind() != "comment") {
            let name_of = |n: Node| Some(self.t(n).to_string());
            // `x: int`, `*args: int`, `**kw: int`: the annotation does not change the binding.
            let p = if p.kind() == "typed_parameter" { p.named_child(0)? } else { p };
            match p.kind() {
                "identifier" => out.push(Parameter::Named { name: name_of(p)?, default: None, keyword_only }),
                "default_parameter" | "typed_default_parameter" => {
                    let name = name_of(p.field(Field::Name)?)?;
                    out.push(Parameter::Named { name, default: Some(defaults.next()?), keyword_only });
                }
                "list_splat_pattern" => {
                    out.push(Parameter::Rest(name_of(p.named_child(0)?)?));
                    keyword_only = true;
                }
                "dictionary_splat_pattern" => out.push(Parameter::Keywords(name_of(p.named_child(0)?)?)),
                "keyword_separator" => keyword_only = true,
                // Positional-only parameters take no keyword: not modelled.
                _ => return None,
            }
        }
        let name = self.t(definition.child_by_field_name("name")?).to_string();
        let (reads, returns) = match returns {
            Some((reads, returns)) => (reads, Some(returns)),
            None => (Vec::new(), None),
        };
        Some(Function { name, parameters: out, returns, reads })
    }

    /// What a simple body reads and returns: the first `return` after nothing but docstrings,
    /// `pass` and reads (`x`, `a.b`, `a[k]` as statements); `None` as what it returns where
    /// there is no return at all. None for any other body.
    fn returned_expression(&self, definition: Node) -> Option<(Vec<Span>, Option<Span>)> {
        let body = definition.child_by_field_name("body")?;
        // A definition tree-sitter read with an error: its body is not what Python runs.
        if definition.has_error() {
            return None;
        }
        // A generator or a coroutine returns itself, unrun.
        if holds_any(body, &["yield"]) || self.t(definition).starts_with("async") {
            return None;
        }
        let mut cursor = body.walk();
        let statements: Vec<Node> = body.named_children(&mut cursor).filter(|c| c.kind() != "comment").collect();
        // A docstring, not an f-string: its fields are evaluated (`f"{suffix}"` may raise).
        let inert = |n: &Node| {
            n.kind() == "pass_statement"
                || n.kind() == "expression_statement"
                    && n.named_child(0).is_some_and(|c| {
                        matches!(c.kind(), "string" | "concatenated_string") && !holds_any(c, &["interpolation"])
                    })
        };
        // An expression statement that runs no code of its own (no call): only what it
        // raises matters (`x`, `a.b`, `+"""doc"""`).
        let read = |n: &Node| {
            n.kind() == "expression_statement"
                && n.named_child_count() == 1
                && n.named_child(0).is_some_and(|c| !inert(n) && runs_no_code(c))
        };
        let reads: Vec<Span> = statements
            .iter()
            .take_while(|n| inert(n) || read(n))
            .filter(|n| read(n))
            .filter_map(|n| n.named_child(0))
            .map(|n| span(n))
            .collect();
        let Some(first) = statements.iter().position(|n| !inert(n) && !read(n)) else { return Some((reads, None)) };
        let returned = statements[first];
        if returned.kind() != "return_statement" {
            return None;
        }
        let Some(value) = returned.named_child(0) else { return Some((reads, None)) };
        // `:=` binds a local, `yield` makes a generator: not a plain expression. (Read from
        // the tree: a name may hold `await`, a string `yield`.)
        if holds_any(value, &["named_expression", "yield", "await"]) {
            return None;
        }
        Some((reads, Some(span(value))))
    }

    /// The value of calling the manifest's function `callee` (the value its name holds) with
    /// `positional` and `keywords`; None where it is not a simple function, or the
    /// arguments do not bind exactly (what Python raises then is not claimed).
    pub(super) fn call_function(
        &mut self,
        callee: &Value,
        positional: &[Value],
        keywords: &[(Value, Value)],
        s: Span,
    ) -> Option<Value> {
        let ValueKind::Function { at, .. } = callee.kind else { return None };
        if self.call_depth >= MAX_CALL_DEPTH {
            return None;
        }
        let function = self.functions.get(&at)?.clone();
        let bound = match bind_arguments(&function.name, &function.parameters, positional, keywords, s.clone())? {
            Ok(bound) => bound,
            Err(message) => {
                self.fail(s.clone(), "TypeError", message);
                return Some(Value::unknown("raises", s));
            }
        };
        let returns = match function.returns? {
            None => None,
            Some(returns) => Some(self.root?.descendant_for_byte_range(returns.start, returns.end)?),
        };
        let reads: Vec<Node> = function
            .reads
            .iter()
            .map(|r| self.root.and_then(|root| root.descendant_for_byte_range(r.start, r.end)))
            .collect::<Option<_>>()?;
        // The parameters are the function's own names; every other name is the module's, as
        // it is when the call runs.
        let saved: Vec<(String, Option<Value>)> =
            bound.iter().map(|(name, _)| (name.clone(), self.env.remove(name))).collect();
        for (name, mut value) in bound {
            value.forget_passing_items();
            self.env.insert(name, value);
        }
        self.call_depth += 1;
        for read in reads {
            let _ = self.expr(read);
            if self.model.load_error.is_some() {
                break;
            }
        }
        let mut value = match returns {
            Some(returns) if self.model.load_error.is_none() => self.expr(returns),
            Some(_) => Value::unknown("raises", s.clone()),
            None => Value::new(ValueKind::None, s.clone()),
        };
        self.call_depth -= 1;
        for (name, previous) in saved {
            match previous {
                Some(v) => self.env.insert(name, v),
                None => self.env.remove(&name),
            };
        }
        value.span = s;
        Some(value)
    }
}

/// Each parameter's value for a call as CPython binds it (positional arguments, then
/// keywords in order, then what is missing): `Err` the TypeError's message where binding
/// fails; None where a keyword is not a str.
fn bind_arguments(
    name: &str,
    parameters: &[Parameter],
    positional: &[Value],
    keywords: &[(Value, Value)],
    s: Span,
) -> Option<Result<Vec<(String, Value)>, String>> {
    let named: Vec<(&String, &Option<Value>, bool)> = parameters
        .iter()
        .filter_map(|p| match p {
            Parameter::Named { name, default, keyword_only } => Some((name, default, *keyword_only)),
            _ => None,
        })
        .collect();
    let rest = parameters.iter().find_map(|p| if let Parameter::Rest(n) = p { Some(n) } else { None });
    let extra = parameters.iter().find_map(|p| if let Parameter::Keywords(n) = p { Some(n) } else { None });
    let by_position: Vec<usize> = (0..named.len()).filter(|&i| !named[i].2).collect();
    let mut values: Vec<Option<Value>> = vec![None; named.len()];
    for (slot, value) in by_position.iter().zip(positional) {
        values[*slot] = Some(value.clone());
    }
    let surplus: Vec<Value> = positional.iter().skip(by_position.len()).cloned().collect();
    let mut extra_keywords = Dict::default();
    for (key, value) in keywords {
        let key_name = key.as_str()?;
        match named.iter().position(|(n, _, _)| n.as_str() == key_name) {
            Some(i) if values[i].is_some() => {
                return Some(Err(format!("{name}() got multiple values for argument '{key_name}'")))
            }
            Some(i) => values[i] = Some(value.clone()),
            None if extra.is_some() => extra_keywords.insert(key.clone(), value.clone()),
            None => return Some(Err(format!("{name}() got an unexpected keyword argument '{key_name}'"))),
        }
    }
    if !surplus.is_empty() && rest.is_none() {
        // CPython's `too_many_positional`, keyword-only arguments given counted apart.
        let keyword_only_given = named.iter().zip(&values).filter(|((_, _, only), v)| *only && v.is_some()).count();
        let plural = |n: usize| if n == 1 { "" } else { "s" };
        let most = by_position.len();
        let least = by_position.iter().filter(|&&i| named[i].1.is_none()).count();
        let takes = match least == most {
            true => format!("{most} positional argument{}", plural(most)),
            false => format!("from {least} to {most} positional arguments"),
        };
        let given = positional.len();
        let also = match keyword_only_given {
            0 => String::new(),
            k => format!(" positional argument{} (and {k} keyword-only argument{})", plural(given), plural(k)),
        };
        let verb = if given == 1 && keyword_only_given == 0 { "was" } else { "were" };
        return Some(Err(format!("{name}() takes {takes} but {given}{also} {verb} given")));
    }
    for keyword_only in [false, true] {
        let missing: Vec<String> = (0..named.len())
            .filter(|&i| named[i].2 == keyword_only && values[i].is_none() && named[i].1.is_none())
            .map(|i| format!("'{}'", named[i].0))
            .collect();
        if !missing.is_empty() {
            let kind = if keyword_only { "keyword-only" } else { "positional" };
            let plural = if missing.len() == 1 { "" } else { "s" };
            let listed = match missing.as_slice() {
                [one] => one.clone(),
                [a, b] => format!("{a} and {b}"),
                [init @ .., last] => format!("{}, and {last}", init.join(", ")),
                [] => String::new(),
            };
            return Some(Err(format!("{name}() missing {} required {kind} argument{plural}: {listed}", missing.len())));
        }
    }
    let mut bound: Vec<(String, Value)> = Vec::new();
    for parameter in parameters {
        match parameter {
            Parameter::Named { name, default, .. } => {
                let i = named.iter().position(|(n, _, _)| *n == name)?;
                bound.push((name.clone(), values[i].clone().or_else(|| default.clone())?));
            }
            Parameter::Rest(n) => bound.push((n.clone(), Value::new(ValueKind::Tuple(surplus.clone()), s.clone()))),
            Parameter::Keywords(n) => {
                bound.push((n.clone(), Value::new(ValueKind::Dict(std::mem::take(&mut extra_keywords)), s.clone())))
            }
        }
    }
    Some(Ok(bound))
}

/// Whether evaluating `expression` calls nothing and binds nothing (no call, `:=`, lambda,
/// `yield` or `await` inside): as a statement, what it raises is all it does.
fn runs_no_code(expression: Node) -> bool {
    !holds_any(expression, &["call", "named_expression", "lambda", "yield", "await", "ERROR"])
}

/// Whether `expression` is, or holds, a node of one of `kinds`.
pub(super) fn holds_any(expression: Node, kinds: &[&str]) -> bool {
    let mut pending = vec![expression];
    while let Some(node) = pending.pop() {
        if kinds.contains(&node.kind()) {
            return true;
        }
        let mut cursor = node.walk();
        pending.extend(node.named_children(&mut cursor));
    }
    false
}
