//! Slices: `x[start:stop:step]` makes a `slice` (unhashable in 3.11, so never a dict key),
//! and a sequence read through one is its items from `start` to `stop`, as
//! `PySlice_AdjustIndices` picks them (messages checked against `python3.11 -c`).

use super::{span, Evaluator};
use crate::value::{Value, ValueKind};
use tree_sitter::Node;

/// An exception: its type and `str()` of it.
type Raise = (&'static str, String);

const NOT_AN_INDEX: &str = "slice indices must be integers or None or have an __index__ method";

impl Evaluator<'_> {
    /// The `slice` node of a subscript: its parts evaluated left to right.
    pub(super) fn slice(&mut self, node: Node) -> Value {
        let s = span(node);
        let mut parts: [Option<Value>; 3] = [None, None, None];
        let mut colons = 0;
        let mut cursor = node.walk();
        let children: Vec<Node> = node.children(&mut cursor).filter(|c| c.kind() != "comment").collect();
        for child in children {
            if !child.is_named() {
                colons += usize::from(child.kind() == ":");
                continue;
            }
            let value = self.expr(child);
            if self.model.load_error.is_some() {
                return Value::unknown("raises", s);
            }
            if let Some(part) = parts.get_mut(colons) {
                *part = Some(value);
            }
        }
        let none = || Value::new(ValueKind::None, s.clone());
        let [start, stop, step] = parts.map(|p| p.unwrap_or_else(none));
        Value::new(ValueKind::Slice(Box::new([start, stop, step])), s)
    }
}

/// Whether `container[...]` through a slice reads items (a list, tuple, str or bytes).
pub(super) fn sliceable(container: &Value) -> bool {
    matches!(container.kind, ValueKind::List(_) | ValueKind::Tuple(_) | ValueKind::Str(_) | ValueKind::Bytes(_))
}

/// The slice's (start, stop, step) as integers, checked as CPython checks them (the step
/// first); `Ok(None)` where a part is not known.
pub(super) fn slice_bounds(parts: &[Value; 3]) -> Result<Option<[Option<i128>; 3]>, Raise> {
    let mut out = [None; 3];
    for p in [2, 0, 1] {
        out[p] = match &parts[p].kind {
            ValueKind::None => None,
            // Bounds are clamped to the sequence: a big int is as good as the largest.
            ValueKind::Int(_) | ValueKind::BigInt(_) => parts[p].int_clamped(),
            ValueKind::Bool(b) => Some((*b).into()),
            ValueKind::Unknown(_) => return Ok(None),
            _ => return Err(("TypeError", NOT_AN_INDEX.into())),
        };
        if p == 2 && out[2] == Some(0) {
            return Err(("ValueError", "slice step cannot be zero".into()));
        }
    }
    Ok(Some(out))
}

/// The positions a slice picks from a sequence of `len` items.
fn picked(len: usize, [start, stop, step]: [Option<i128>; 3]) -> Vec<usize> {
    let len = len as i128;
    let step = step.unwrap_or(1);
    let (lower, upper) = if step < 0 { (-1, len - 1) } else { (0, len) };
    let adjust = |bound: Option<i128>, default: i128| match bound {
        None => default,
        Some(b) if b < 0 => (b + len).max(lower),
        Some(b) => b.min(upper),
    };
    let (mut at, stop) = if step < 0 {
        (adjust(start, upper), adjust(stop, lower))
    } else {
        (adjust(start, lower), adjust(stop, upper))
    };
    let mut out = Vec::new();
    while (step > 0 && at < stop) || (step < 0 && at > stop) {
        out.push(at as usize);
        at += step;
    }
    out
}

/// `container[slice]` for a sequence; `Ok(None)` where the slice is not known.
pub(super) fn slice_of(container: &Value, parts: &[Value; 3], s: crate::value::Span) -> Result<Option<Value>, Raise> {
    let Some(bounds) = slice_bounds(parts)? else { return Ok(None) };
    let kind = match &container.kind {
        ValueKind::List(items) => {
            ValueKind::List(picked(items.len(), bounds).into_iter().map(|i| items[i].clone()).collect())
        }
        ValueKind::Tuple(items) => {
            ValueKind::Tuple(picked(items.len(), bounds).into_iter().map(|i| items[i].clone()).collect())
        }
        ValueKind::Str(text) => {
            let chars: Vec<char> = text.chars().collect();
            ValueKind::Str(picked(chars.len(), bounds).into_iter().map(|i| chars[i]).collect())
        }
        ValueKind::Bytes(bytes) => {
            ValueKind::Bytes(picked(bytes.len(), bounds).into_iter().map(|i| bytes[i]).collect())
        }
        _ => return Ok(None),
    };
    Ok(Some(Value::new(kind, s)))
}

/// `items[slice] = value` (`Some`) or `del items[slice]` (`None`) on a list: `Ok(false)`
/// where what it leaves is not modelled (an extended slice assigned, an unknown part).
pub(super) fn change_list_through_slice(
    items: &mut Vec<Value>,
    parts: &[Value; 3],
    value: Option<&Value>,
) -> Result<bool, Raise> {
    let Some(bounds) = slice_bounds(parts)? else { return Ok(false) };
    let Some(value) = value else {
        let mut positions = picked(items.len(), bounds);
        positions.sort_unstable();
        for p in positions.into_iter().rev() {
            items.remove(p);
        }
        return Ok(true);
    };
    let new_items: Vec<Value> = match &value.kind {
        ValueKind::List(more) | ValueKind::Tuple(more) => more.clone(),
        ValueKind::Str(text) => {
            text.chars().map(|c| Value::new(ValueKind::Str(c.into()), value.span.clone())).collect()
        }
        _ if value.not_iterable() => return Err(("TypeError", "can only assign an iterable".into())),
        _ => return Ok(false),
    };
    if bounds[2].unwrap_or(1) != 1 {
        return Ok(false);
    }
    // A simple slice: the items from `start` (clamped) to `stop` (at least `start`) replaced.
    let len = items.len() as i128;
    let clamp = |b: Option<i128>, default: i128| match b {
        None => default,
        Some(b) if b < 0 => (b + len).max(0),
        Some(b) => b.min(len),
    };
    let start = clamp(bounds[0], 0) as usize;
    let stop = (clamp(bounds[1], len) as usize).max(start);
    items.splice(start..stop, new_items);
    Ok(true)
}
