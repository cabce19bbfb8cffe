//! List, set and dict comprehensions, run item by item as Python runs them where every
//! iterable and condition is known (`{dt: True for dt in DTYPES}`); anything else is not
//! known, and only what certainly runs is read for the errors it raises
//! (`Evaluator::comprehension_reached`).

use super::blocks::MAX_LOOP_WORK;
use super::names::{collect_target_names, mentions_name};
use super::{span, Evaluator};
use crate::fields::{Field, FieldChild};
use crate::value::{Dict, Value, ValueKind};
use std::collections::HashSet;
use tree_sitter::Node;

/// What a comprehension has built so far.
enum Built {
    Items(Vec<Value>),
    /// A set's distinct elements, in the order added.
    Distinct(Vec<Value>),
    Entries(Dict),
}

/// Why a comprehension was left not known part of the way.
struct NotKnown(String);

impl Evaluator<'_> {
    /// A comprehension's value; a generator (lazy), one holding `:=` (it binds outside) or
    /// one whose clauses read a variable before it is bound is read for names only.
    pub(super) fn comprehension(&mut self, node: Node) -> Value {
        let s = span(node);
        let mut cursor = node.walk();
        let parts: Vec<Node> = node.named_children(&mut cursor).filter(|c| c.kind() != "comment").collect();
        let Some(first) = parts.iter().position(|p| p.kind() == "for_in_clause") else {
            self.scan_names(node);
            return Value::unknown("an incomplete comprehension", s);
        };
        let (body, clauses) = (&parts[..first], &parts[first..]);
        let mut names = HashSet::new();
        for clause in clauses.iter().filter(|c| c.kind() == "for_in_clause") {
            if let Some(target) = clause.field(Field::Left) {
                collect_target_names(target, self.text, &mut names);
            }
        }
        let walrus = super::functions::holds_any(node, &["named_expression"]);
        if node.kind() == "generator_expression"
            || walrus
            || body.len() != 1
            || self.reads_before_bound(clauses, &names)
        {
            self.scan_names(node);
            return Value::unknown(
                format!("{} expressions are not evaluated statically", node.kind().replace('_', " ")),
                s,
            );
        }
        // The first iterable is the enclosing scope's; the variables are the comprehension's.
        let Some(iterable) = clauses[0].field(Field::Right) else {
            return Value::unknown("an incomplete comprehension", s);
        };
        let first_items = self.expr(iterable);
        if self.model.load_error.is_some() {
            return Value::unknown("raises", s);
        }
        let saved: Vec<(String, Option<Value>)> = names.iter().map(|n| (n.clone(), self.env.remove(n))).collect();
        let mut built = match node.kind() {
            "dictionary_comprehension" => Built::Entries(Dict::default()),
            "set_comprehension" => Built::Distinct(Vec::new()),
            _ => Built::Items(Vec::new()),
        };
        let outcome = self.run_clauses(clauses, Some(first_items), body[0], &mut built);
        for (name, value) in saved {
            match value {
                Some(v) => self.env.insert(name, v),
                None => self.env.remove(&name),
            };
        }
        match (outcome, built) {
            _ if self.model.load_error.is_some() => Value::unknown("raises", s),
            (Err(NotKnown(why)), _) => Value::unknown(why, s),
            (Ok(()), Built::Entries(d)) => Value::new(ValueKind::Dict(d), s),
            (Ok(()), Built::Distinct(items)) => Value::new(ValueKind::Set(items), s),
            (Ok(()), Built::Items(items)) => Value::new(ValueKind::List(items), s),
        }
    }

    /// Whether a clause reads a variable of its own loop or a later one (Python raises
    /// there, with messages that differ between versions). The first iterable is not the
    /// comprehension's: it is read in the enclosing scope (`[n for n in n]` reads the n
    /// outside).
    fn reads_before_bound(&self, clauses: &[Node], names: &HashSet<String>) -> bool {
        let mut bound: HashSet<String> = HashSet::new();
        if let Some(target) = clauses.first().and_then(|c| c.field(Field::Left)) {
            collect_target_names(target, self.text, &mut bound);
        }
        for clause in clauses.iter().skip(1) {
            let read = match clause.kind() {
                "for_in_clause" => clause.field(Field::Right),
                _ => clause.named_child(0),
            };
            let unbound = names.iter().filter(|n| !bound.contains(*n));
            if read.is_some_and(|r| unbound.clone().any(|n| mentions_name(r, self.text, n))) {
                return true;
            }
            if let Some(target) = clause.field(Field::Left).filter(|_| clause.kind() == "for_in_clause") {
                collect_target_names(target, self.text, &mut bound);
            }
        }
        false
    }

    /// Runs `clauses` (the first one's iterable given where already evaluated), then the
    /// body once per item that passes them all.
    fn run_clauses(
        &mut self,
        clauses: &[Node],
        iterable: Option<Value>,
        body: Node,
        built: &mut Built,
    ) -> Result<(), NotKnown> {
        let Some((clause, rest)) = clauses.split_first() else { return self.add_element(body, built) };
        if clause.kind() == "if_clause" {
            let condition = clause.named_child(0).map(|c| self.expr(c));
            if self.model.load_error.is_some() {
                return Ok(());
            }
            return match condition.and_then(|c| c.truthy()) {
                Some(true) => self.run_clauses(rest, None, body, built),
                Some(false) => Ok(()),
                None => Err(NotKnown("a comprehension condition not known statically".into())),
            };
        }
        let (Some(target), Some(right)) = (clause.field(Field::Left), clause.field(Field::Right)) else {
            return Err(NotKnown("an incomplete comprehension".into()));
        };
        let iterable = match iterable {
            Some(v) => v,
            None => self.expr(right),
        };
        if self.model.load_error.is_some() {
            return Ok(());
        }
        if iterable.not_iterable() {
            let message = format!("'{}' object is not iterable", iterable.exception_type_name());
            self.fail(span(right), "TypeError", message);
            return Ok(());
        }
        let Some(items) = iterable.iterated() else {
            return Err(NotKnown("a comprehension over a value not known statically".into()));
        };
        // Each item runs the clauses after this one and the body: charged before any runs,
        // so that nested loops stop within the file's budget.
        let per_item = 1 + body.byte_range().len() + rest.iter().map(|c| c.byte_range().len()).sum::<usize>();
        let work = items.len().saturating_mul(per_item);
        if self.loop_work.saturating_add(work) > MAX_LOOP_WORK {
            return Err(NotKnown("a comprehension too long to run statically".into()));
        }
        self.loop_work += work;
        for item in items {
            self.bind(target, item);
            if self.model.load_error.is_some() {
                return Ok(());
            }
            self.run_clauses(rest, None, body, built)?;
            if self.model.load_error.is_some() {
                return Ok(());
            }
        }
        Ok(())
    }

    /// One element, entry or set item.
    fn add_element(&mut self, body: Node, built: &mut Built) -> Result<(), NotKnown> {
        match built {
            Built::Entries(d) => {
                if !self.dict_entry(body, d) || d.open {
                    return match self.model.load_error.is_some() {
                        true => Ok(()),
                        false => Err(NotKnown("a dict comprehension with a key not known statically".into())),
                    };
                }
            }
            Built::Items(items) => {
                let element = self.expr(body);
                if self.model.load_error.is_some() {
                    return Ok(());
                }
                items.push(element);
            }
            Built::Distinct(items) => {
                let element = self.expr(body);
                if self.model.load_error.is_some() {
                    return Ok(());
                }
                if let Err(t) = element.hashable() {
                    self.fail(element.span.clone(), "TypeError", format!("unhashable type: '{t}'"));
                    return Ok(());
                }
                let mut equal = items.iter().map(|i| crate::value::py_eq(i, &element));
                match equal.try_fold(false, |found, e| e.map(|e| found || e)) {
                    Some(true) => {}
                    Some(false) => items.push(element),
                    None => return Err(NotKnown("a set comprehension with an element not known statically".into())),
                }
            }
        }
        Ok(())
    }
}

/// The most items a range is listed into (`range(10**9)` is not).
const MAX_ITEMS: i128 = 10_000;

/// What iterating `range(...)`, `enumerate(x)` or `zip(...)` of known arguments gives; None
/// where an argument is not known, or a range is too long to list.
pub(super) fn builtin_items(name: &str, values: &[Value], s: crate::value::Span) -> Option<Vec<Value>> {
    let at = |v: ValueKind| Value::new(v, s.clone());
    if values.iter().any(Value::contains_unknown_but_items) {
        return None;
    }
    match (name, values) {
        ("range", _) => range_items(values, s.clone()).ok().flatten(),
        ("enumerate", [x]) => x.iterated().map(|items| {
            items
                .into_iter()
                .enumerate()
                .map(|(i, v)| at(ValueKind::Tuple(vec![at(ValueKind::Int(i as i128)), v])))
                .collect()
        }),
        ("zip", _) => values.iter().map(Value::iterated).collect::<Option<Vec<_>>>().map(|columns| {
            let rows = columns.iter().map(Vec::len).min().unwrap_or(0);
            (0..rows).map(|r| at(ValueKind::Tuple(columns.iter().map(|c| c[r].clone()).collect()))).collect()
        }),
        _ => None,
    }
}

/// The dict `dict(pairs)` or `d.update(pairs)` makes of a known iterable of pairs, as
/// `dict` reads it (CPython 3.10-3.13 alike): `Err` what it raises, None where an item is
/// not known.
pub(super) fn dict_of_pairs(pairs: &Value) -> Option<Result<Dict, super::items::Raised>> {
    let raise = |exception: &'static str, message: String| Some(Err((pairs.span.clone(), exception, message)));
    if pairs.not_iterable() {
        return raise("TypeError", format!("'{}' object is not iterable", pairs.exception_type_name()));
    }
    // A set's first element is any of them: where none iterates, the first raises.
    if let ValueKind::Set(items) = &pairs.kind {
        if !items.is_empty() && items.iter().all(Value::not_iterable) {
            return raise("TypeError", "cannot convert dictionary update sequence element #0 to a sequence".into());
        }
    }
    // A str known but for the addresses it shows (`f"{f}"`): its first item is a
    // one-character str.
    if pairs.known_type() == Some("str") && pairs.shown().is_some_and(|text| !text.is_empty()) {
        return raise("ValueError", "dictionary update sequence element #0 has length 1; 2 is required".into());
    }
    let items = pairs.iterated()?;
    let mut d = Dict::default();
    for (i, item) in items.iter().enumerate() {
        if item.is_unknown() {
            return None;
        }
        if item.not_iterable() {
            return raise("TypeError", format!("cannot convert dictionary update sequence element #{i} to a sequence"));
        }
        let pair = item.iterated()?;
        if pair.len() != 2 {
            let message = format!("dictionary update sequence element #{i} has length {}; 2 is required", pair.len());
            return raise("ValueError", message);
        }
        let (key, value) = (pair[0].clone(), pair[1].clone());
        if let Err(t) = key.hashable() {
            return raise("TypeError", format!("unhashable type: '{t}'"));
        }
        if key.contains_unknown() {
            return None;
        }
        d.insert(key, value);
    }
    Some(Ok(d))
}

/// `range(...)`'s items for known arguments: `Err` what it raises (a non-int argument, a
/// zero step), `Ok(None)` where not unrolled (too many items).
fn range_items(values: &[Value], s: crate::value::Span) -> Result<Option<Vec<Value>>, (&'static str, String)> {
    let at = |v: ValueKind| Value::new(v, s.clone());
    if let Some(error) = super::builtins::range_error(values) {
        return Err(error);
    }
    let ints: Option<Vec<i128>> = values
        .iter()
        .map(|v| match v.kind {
            ValueKind::Int(i) => Some(i),
            ValueKind::Bool(b) => Some(b as i128),
            _ => None,
        })
        .collect();
    let Some(ints) = ints else { return Ok(None) };
    let (start, stop, step) = match ints.as_slice() {
        [stop] => (0, *stop, 1),
        [start, stop] => (*start, *stop, 1),
        [start, stop, step] => (*start, *stop, *step),
        _ => return Ok(None),
    };
    let count = if step > 0 { (stop - start + step - 1) / step } else { (start - stop - step - 1) / -step };
    if count > MAX_ITEMS {
        return Ok(None);
    }
    Ok(Some((0..count.max(0)).map(|k| at(ValueKind::Int(start + k * step))).collect()))
}
