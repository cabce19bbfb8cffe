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

/// A function the manifest defines whose call can be run: its parameters and where its
/// return expression is.
#[derive(Clone, Debug)]
pub(super) struct Function {
    parameters: Vec<Parameter>,
    returns: Span,
}

/// The simple functions by where their `def` starts (as [`ValueKind::Function`] names it).
pub(super) type Functions = HashMap<usize, Function>;

impl Evaluator<'_> {
    /// The function a `def` (not decorated) defines, where it is simple; `defaults` are its
    /// parameters' defaults in order, evaluated.
    pub(super) fn simple_function(&self, definition: Node, defaults: Vec<Value>) -> Option<Function> {
        let body = definition.child_by_field_name("body")?;
        let mut cursor = body.walk();
        let statements: Vec<Node> = body.named_children(&mut cursor).filter(|c| c.kind() != "comment").collect();
        let returned = match statements.as_slice() {
            [only] => *only,
            [doc, only] if doc.kind() == "expression_statement" && doc.named_child(0)?.kind() == "string" => *only,
            _ => return None,
        };
        let value = returned.named_child(0).filter(|_| returned.kind() == "return_statement")?;
        // `:=` binds a local, `yield` makes a generator: not a plain expression.
        let text = &self.text[value.byte_range()];
        if text.contains(":=") || text.contains("yield") || text.contains("await") {
            return None;
        }
        let parameters = definition.child_by_field_name("parameters")?;
        let mut defaults = defaults.into_iter();
        let mut keyword_only = false;
        let mut out = Vec::new();
        let mut cursor = parameters.walk();
        for p in parameters.named_children(&mut cursor).filter(|c| c.kind() != "comment") {
            let name_of = |n: Node| Some(self.t(n).to_string());
            match p.kind() {
                "identifier" => out.push(Parameter::Named { name: name_of(p)?, default: None, keyword_only }),
                "typed_parameter" if p.named_child(0)?.kind() == "identifier" => {
                    out.push(Parameter::Named { name: name_of(p.named_child(0)?)?, default: None, keyword_only })
                }
                "default_parameter" | "typed_default_parameter" => {
                    let name = name_of(p.field(Field::Name)?)?;
                    out.push(Parameter::Named { name, default: Some(defaults.next()?), keyword_only });
                }
                "list_splat_pattern" | "typed_parameter"
                    if p.named_child(0)?.kind() == "list_splat_pattern" || p.kind() == "list_splat_pattern" =>
                {
                    let inner = if p.kind() == "list_splat_pattern" { p } else { p.named_child(0)? };
                    out.push(Parameter::Rest(name_of(inner.named_child(0)?)?));
                    keyword_only = true;
                }
                "dictionary_splat_pattern" => out.push(Parameter::Keywords(name_of(p.named_child(0)?)?)),
                "keyword_separator" => keyword_only = true,
                // Positional-only parameters take no keyword: not modelled.
                _ => return None,
            }
        }
        Some(Function { parameters: out, returns: span(value) })
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
        let bound = bind_arguments(&function.parameters, positional, keywords, s.clone())?;
        let root = self.root?;
        let returns = root.descendant_for_byte_range(function.returns.start, function.returns.end)?;
        // The parameters are the function's own names; every other name is the module's, as
        // it is when the call runs.
        let saved: Vec<(String, Option<Value>)> =
            bound.iter().map(|(name, _)| (name.clone(), self.env.remove(name))).collect();
        for (name, value) in bound {
            self.env.insert(name, value);
        }
        self.call_depth += 1;
        let mut value = self.expr(returns);
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

/// Each parameter's value for a call, where the arguments bind exactly.
fn bind_arguments(
    parameters: &[Parameter],
    positional: &[Value],
    keywords: &[(Value, Value)],
    s: Span,
) -> Option<Vec<(String, Value)>> {
    let mut bound: Vec<(String, Value)> = Vec::new();
    let mut given = positional.iter();
    let mut extra_keywords = Dict::default();
    let mut keywords_left: Vec<&(Value, Value)> = keywords.iter().collect();
    for parameter in parameters {
        match parameter {
            Parameter::Named { name, default, keyword_only } => {
                let by_position = if *keyword_only { None } else { given.next().cloned() };
                let by_keyword = keywords_left.iter().position(|(k, _)| k.as_str() == Some(name.as_str()));
                let value = match (by_position, by_keyword) {
                    (Some(_), Some(_)) => return None,
                    (Some(v), None) => v,
                    (None, Some(at)) => keywords_left.remove(at).1.clone(),
                    (None, None) => default.clone()?,
                };
                bound.push((name.clone(), value));
            }
            Parameter::Rest(name) => {
                let rest: Vec<Value> = given.by_ref().cloned().collect();
                bound.push((name.clone(), Value::new(ValueKind::Tuple(rest), s.clone())));
            }
            Parameter::Keywords(name) => {
                for (k, v) in keywords_left.drain(..) {
                    extra_keywords.insert(k.clone(), v.clone());
                }
                bound.push((name.clone(), Value::new(ValueKind::Dict(std::mem::take(&mut extra_keywords)), s.clone())));
            }
        }
    }
    (given.next().is_none() && keywords_left.is_empty()).then_some(bound)
}
