//! `sorted(x)` and `list.sort()`: what they give, or what they raise. On fewer than 64
//! items CPython 3.10-3.12 count a run from the start (reversing a descending one), then
//! binary-insert the rest: the whole of timsort below its minimum run. That is run here
//! comparison by comparison, so the first comparison that raises is CPython's, its
//! operands in CPython's order (`sorted(["b", "a", 3])`: `'<' not supported between
//! instances of 'int' and 'str'`). Checked against CPython 3.10-3.12 by logging every
//! `__lt__` call on 20,000 random lists; 3.13 changed the run counting, so there (and from
//! 64 items) only the first comparison and a sort of only strs or only numbers are claimed.

use super::comparisons::{order, Raise};
use crate::regex_check::PythonVersion;
use crate::value::{Value, ValueKind};
use std::cmp::Ordering;

/// What sorting gives.
pub(super) enum Sorted {
    Done(Vec<Value>),
    Raises(Raise),
    NotKnown,
}

/// Sorts `items` as `list.sort()` does in CPython `version`.
pub(super) fn sort(items: &[Value], version: PythonVersion) -> Sorted {
    if items.len() < 64 && version < PythonVersion::V3_13 {
        return match small_sort(items) {
            Ok(Some(sorted)) => Sorted::Done(sorted),
            Ok(None) => Sorted::NotKnown,
            Err(raise) => Sorted::Raises(raise),
        };
    }
    if let [first, second, ..] = items {
        if let Err(raise) = order(second, first, "<") {
            return Sorted::Raises(raise);
        }
    }
    // Only strs, or only numbers (not NaN): an order every Python agrees on, stable.
    let mut sorted = items.to_vec();
    if items.iter().all(|i| matches!(i.kind, ValueKind::Str(_))) {
        sorted.sort_by(|a, b| a.as_str().cmp(&b.as_str()));
    } else if items.iter().all(|i| i.as_number().is_some_and(|n| !n.is_nan())) {
        sorted.sort_by(|a, b| a.as_number().partial_cmp(&b.as_number()).unwrap_or(Ordering::Equal));
    } else {
        return Sorted::NotKnown;
    }
    Sorted::Done(sorted)
}

/// What sorting a set whose order is not known (str keys: it follows the run's hash seed)
/// raises, where every order raises: its items are of exactly two types that never order
/// with each other, each ordering among its own (`{"aten.mul", b"aten.add"}`, `{1, "a"}`). A
/// sort compares every pair that ends up adjacent, so it compares the two types at some
/// point, and raises there; which type is on the left follows the order (the real tool's
/// runs differ too), so the message puts them as the written order's first comparison.
pub(super) fn set_sort_raises(items: &[Value]) -> Option<Raise> {
    // The types whose instances order among their own without raising. Not `NoneType`:
    // `{None, 1.5}` has one order in CPython 3.12+ (None's hash is a constant there).
    const SELF_ORDERED: [&str; 5] = ["str", "bytes", "int", "float", "bool"];
    let first = items.first()?.type_name();
    let second = items.iter().map(Value::type_name).find(|t| *t != first)?;
    let numbers = |t: &str| matches!(t, "int" | "float" | "bool");
    let two_types = items.iter().all(|i| [first, second].contains(&i.type_name()));
    (two_types
        && SELF_ORDERED.contains(&first)
        && SELF_ORDERED.contains(&second)
        && !(numbers(first) && numbers(second)))
    .then(|| ("TypeError", format!("'<' not supported between instances of '{second}' and '{first}'")))
}

/// CPython 3.10-3.12's `count_run` then `binarysort` (listobject.c); None where a
/// comparison's answer is not known.
fn small_sort(items: &[Value]) -> Result<Option<Vec<Value>>, Raise> {
    let mut a = items.to_vec();
    let n = a.len();
    if n < 2 {
        return Ok(Some(a));
    }
    // `ISLT(x, y)`: `x < y`, x on the left as in the TypeError.
    let less =
        |x: &Value, y: &Value| -> Result<Option<bool>, Raise> { Ok(order(x, y, "<")?.map(|o| o == Ordering::Less)) };
    let mut run = 2;
    let Some(descending) = less(&a[1], &a[0])? else { return Ok(None) };
    while run < n {
        let Some(lower) = less(&a[run], &a[run - 1])? else { return Ok(None) };
        if lower != descending {
            break;
        }
        run += 1;
    }
    if descending {
        a[..run].reverse();
    }
    for start in run..n {
        let pivot = a[start].clone();
        let (mut l, mut r) = (0, start);
        while l < r {
            let p = l + ((r - l) >> 1);
            let Some(lower) = less(&pivot, &a[p])? else { return Ok(None) };
            if lower {
                r = p;
            } else {
                l = p + 1;
            }
        }
        a[l..=start].rotate_right(1);
    }
    Ok(Some(a))
}
