//! Methods that change a container in place (`list.append`, `dict.update`, `set.add`):
//! which they are, and their change applied to a value the evaluator holds, with what they
//! certainly raise (`KeyError` of `pop` or `set.remove`, `ValueError` of `list.remove`).

use super::items::Raised;
use super::sorting::{sort, Sorted};
use crate::regex_check::PythonVersion;
use crate::value::{py_eq, Dict, Span, Value, ValueKind};

/// Whether `method` changes a container of this kind in place (`list.pop`, `dict.update`,
/// `set.add`): [`apply_method`] applies the ones it knows; the others make it unknown.
pub(super) fn changes_in_place(container: &ValueKind, method: &str) -> bool {
    match container {
        ValueKind::List(_) => {
            matches!(method, "append" | "extend" | "insert" | "remove" | "pop" | "clear" | "sort" | "reverse")
        }
        ValueKind::Dict(_) => matches!(method, "update" | "setdefault" | "pop" | "popitem" | "clear"),
        ValueKind::Set(_) => matches!(
            method,
            "add"
                | "discard"
                | "remove"
                | "pop"
                | "clear"
                | "update"
                | "difference_update"
                | "intersection_update"
                | "symmetric_difference_update"
        ),
        _ => false,
    }
}

/// Whether `method` changes the container in place and gives None (every one of
/// [`changes_in_place`] but those that take something out: `pop`, `popitem`, `setdefault`).
pub(super) fn returns_none(container: &ValueKind, method: &str) -> bool {
    changes_in_place(container, method) && !matches!(method, "pop" | "popitem" | "setdefault")
}

/// `d.update(other)`: another dict's entries, or an iterable of pairs as `dict(pairs)`
/// reads it (what that raises goes to `raises`); keys not known leave `d` open.
fn update(d: &mut Dict, other: &Value, raises: &mut Option<Raised>) {
    match &other.kind {
        ValueKind::Dict(other) => {
            for e in other.entries.clone() {
                d.insert(e.key, e.value);
            }
            d.open |= other.open;
        }
        _ => match super::comprehensions::dict_of_pairs(other) {
            Some(Ok(built)) => built.entries.into_iter().for_each(|e| d.insert(e.key, e.value)),
            Some(Err(raised)) => *raises = Some(raised),
            None => d.open = true,
        },
    }
}

/// `method(args)` on a known container `current`; false when not understood. What it
/// certainly raises (`pop`/`del` of a missing key, `remove` of an absent item) goes to `raises`.
pub(super) fn apply_method(
    current: &mut Value,
    method: &str,
    args: &[Value],
    call_span: Span,
    raises: &mut Option<Raised>,
    python: PythonVersion,
) -> bool {
    match (&mut current.kind, method) {
        (ValueKind::Dict(d), "update") if args.len() == 1 => {
            update(d, &args[0], raises);
            true
        }
        (ValueKind::Dict(d), "setdefault") if !args.is_empty() => {
            if d.position(&args[0]).is_none() {
                let value = args.get(1).cloned().unwrap_or_else(|| Value::new(ValueKind::None, call_span));
                d.insert(args[0].clone(), value);
            }
            true
        }
        (ValueKind::Dict(d), "pop") if !args.is_empty() => {
            // `pop(key)` without a default raises where the key is missing.
            if !d.remove(&args[0]) && args.len() == 1 && !d.open && !args[0].contains_unknown() {
                *raises = Some((args[0].span.clone(), "KeyError", args[0].repr()));
            }
            true
        }
        (ValueKind::List(items), "append") if args.len() == 1 => {
            items.push(args[0].clone());
            true
        }
        (ValueKind::List(items), "extend") if args.len() == 1 => match &args[0].kind {
            ValueKind::List(more) | ValueKind::Tuple(more) => {
                items.extend(more.iter().cloned());
                true
            }
            _ => {
                let s = current.span.clone();
                // Still the same object: its copies become unknown too (`sharing.rs`).
                let identity = current.identity;
                *current = Value::unknown("extended with a value not known statically", s);
                current.identity = identity;
                true
            }
        },
        (ValueKind::List(items), "insert") if args.len() == 2 => {
            if let ValueKind::Int(i) = args[0].kind {
                let len = items.len() as i128;
                let at = if i < 0 { (i + len).max(0) } else { i.min(len) } as usize;
                items.insert(at, args[1].clone());
                return true;
            }
            false
        }
        (ValueKind::List(items), "remove") if args.len() == 1 => {
            let equal: Vec<Option<bool>> = items.iter().map(|v| py_eq(v, &args[0])).collect();
            match equal.iter().position(|e| *e == Some(true)) {
                // Only where every item before it is known to differ is it the one removed.
                Some(p) if equal[..p].iter().all(|e| *e == Some(false)) => {
                    items.remove(p);
                }
                Some(_) => {}
                None if equal.iter().all(|e| *e == Some(false)) => {
                    *raises = Some((call_span, "ValueError", "list.remove(x): x not in list".into()));
                }
                None => {}
            }
            true
        }
        // What an empty list or an index out of range raises, `methods.rs` says first.
        (ValueKind::Set(items), "add" | "discard" | "remove") if args.len() == 1 => {
            set_method(items, method, &args[0], raises)
        }
        (ValueKind::List(items), "pop") if args.len() <= 1 => {
            let len = items.len() as i128;
            let at = match args.first().map(|a| &a.kind) {
                None => len - 1,
                Some(ValueKind::Int(i)) if *i < 0 => *i + len,
                Some(ValueKind::Int(i)) => *i,
                _ => return false,
            };
            if (0..len).contains(&at) {
                items.remove(at as usize);
                true
            } else {
                false
            }
        }
        _ => emptied_or_reordered(current, method, args, call_span, raises, python),
    }
}

/// `clear`, `reverse` and `sort` (without arguments); false when not understood. What
/// `sort` certainly raises goes to `raises`.
fn emptied_or_reordered(
    current: &mut Value,
    method: &str,
    args: &[Value],
    call_span: Span,
    raises: &mut Option<Raised>,
    python: PythonVersion,
) -> bool {
    match (&mut current.kind, method) {
        (ValueKind::List(items) | ValueKind::Set(items), "clear") if args.is_empty() => {
            items.clear();
            true
        }
        (ValueKind::Dict(d), "clear") if args.is_empty() => {
            *d = crate::value::Dict::default();
            true
        }
        (ValueKind::List(items), "reverse") if args.is_empty() => {
            items.reverse();
            true
        }
        (ValueKind::List(items), "sort") if args.is_empty() => match sort(items, python) {
            Sorted::Done(sorted) => {
                *items = sorted;
                true
            }
            Sorted::Raises((exception, message)) => {
                *raises = Some((call_span, exception, message));
                true
            }
            Sorted::NotKnown => false,
        },
        _ => false,
    }
}

/// `set.add`, `discard` and `remove` of one element: hashable, and known (an unknown one may
/// equal any other); false when not understood.
fn set_method(items: &mut Vec<Value>, method: &str, element: &Value, raises: &mut Option<Raised>) -> bool {
    if element.contains_unknown() || element.hashable().is_err() {
        return false;
    }
    let at = items.iter().position(|i| py_eq(i, element) == Some(true));
    match (method, at) {
        ("add", None) => items.push(element.clone()),
        ("discard" | "remove", Some(at)) => {
            items.remove(at);
        }
        ("remove", None) => *raises = Some((element.span.clone(), "KeyError", element.repr())),
        _ => {}
    }
    true
}

impl super::Evaluator<'_> {
    /// What `object.method(args)` gives where the method changes its object in place and
    /// gives None (`[].append(1) + 1` raises on None): None where it certainly succeeds
    /// (run on a copy: the object itself was changed by the caller), the exception where it
    /// certainly raises, not known otherwise.
    pub(super) fn in_place_result(
        &mut self,
        object: &Value,
        method: &str,
        arguments: &super::builtins::CallArguments,
        s: Span,
    ) -> Option<Value> {
        if self.model.load_error.is_some() || !returns_none(&object.kind, method) {
            return None;
        }
        if arguments.unpacked
            || !arguments.keywords.is_empty()
            || arguments.positional.iter().any(Value::contains_unknown)
        {
            return None;
        }
        let mut copy = object.clone();
        let mut raises = None;
        let understood =
            apply_method(&mut copy, method, &arguments.positional, s.clone(), &mut raises, self.loading.version);
        if let Some((at, exception, message)) = raises {
            self.fail(at, exception, message);
            return Some(Value::unknown("raises", s));
        }
        understood.then(|| Value::new(ValueKind::None, s))
    }
}
