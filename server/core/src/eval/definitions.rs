//! `def` and `class` statements: what Python evaluates when it runs them (decorators, then
//! parameter defaults, then annotations; a class's bases), whose exceptions are the module's.
//! The bodies are not run; the names they bind become values not known statically.

use super::{span, Evaluator};
use crate::fields::{Field, FieldChild};
use crate::value::{Value, ValueKind};
use std::collections::HashSet;
use tree_sitter::Node;

impl Evaluator<'_> {
    pub(super) fn definition(&mut self, node: Node) {
        let mut definition = node;
        if node.kind() == "decorated_definition" {
            let mut cursor = node.walk();
            let decorators: Vec<Node> = node.named_children(&mut cursor).filter(|c| c.kind() == "decorator").collect();
            for decorator in decorators {
                if let Some(expression) = decorator.named_child(0) {
                    let _ = self.expr(expression);
                }
                if self.model.load_error.is_some() {
                    return;
                }
            }
            match node.child_by_field_name("definition") {
                Some(inner) => definition = inner,
                None => return,
            }
        }
        let mut function = None;
        match definition.kind() {
            "function_definition" => {
                let defaults = self.function_header(definition);
                // A decorator may replace the function: only an undecorated one is run.
                if node.kind() == "function_definition" && self.model.load_error.is_none() {
                    function = self.simple_function(definition, defaults);
                }
            }
            "class_definition" => {
                if let Some(bases) = definition.child_by_field_name("superclasses") {
                    self.class_bases(bases);
                }
            }
            _ => {}
        }
        if self.model.load_error.is_some() {
            return;
        }
        let mut names = HashSet::new();
        super::names::collect_bound_names(node, self.text, &mut names);
        for name in names {
            let value = match node.kind() {
                "function_definition" => {
                    let function = ValueKind::Function { name: name.clone(), at: node.start_byte() };
                    self.sharing.new_object(Value::new(function, span(node)))
                }
                _ => Value::unknown(format!("`{name}` is a function or class"), span(node)),
            };
            self.env.insert(name.clone(), value);
        }
        match function {
            Some(f) => self.functions.insert(node.start_byte(), f),
            None => self.functions.remove(&node.start_byte()),
        };
    }

    /// `class C(A, metaclass=M)`: each base and keyword, left to right.
    fn class_bases(&mut self, bases: Node) {
        let mut cursor = bases.walk();
        let children: Vec<Node> = bases.named_children(&mut cursor).filter(|c| c.kind() != "comment").collect();
        for child in children {
            let expression = match child.kind() {
                "keyword_argument" => child.field(Field::Value),
                "list_splat" | "dictionary_splat" => child.named_child(0),
                _ => Some(child),
            };
            if let Some(expression) = expression {
                let _ = self.expr(expression);
            }
            if self.model.load_error.is_some() {
                return;
            }
        }
    }

    /// The defaults, left to right, then the annotations (kept as text under `from
    /// __future__ import annotations`); the defaults' values.
    fn function_header(&mut self, function: Node) -> Vec<Value> {
        let mut defaults = Vec::new();
        let Some(parameters) = function.child_by_field_name("parameters") else { return defaults };
        let mut cursor = parameters.walk();
        let parameters: Vec<Node> = parameters.named_children(&mut cursor).collect();
        for parameter in &parameters {
            if let Some(default) = parameter.field(Field::Value) {
                defaults.push(self.expr(default));
                if self.model.load_error.is_some() {
                    return defaults;
                }
            }
        }
        if self.future_annotations {
            return defaults;
        }
        let returns = function.child_by_field_name("return_type");
        let annotations = parameters.iter().filter_map(|p| p.field(Field::Type)).chain(returns);
        for annotation in annotations.collect::<Vec<_>>() {
            self.function_annotation(annotation);
            if self.model.load_error.is_some() {
                return defaults;
            }
        }
        defaults
    }
}
