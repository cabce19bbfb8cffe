//! The order CPython iterates a small set of ints in (its repr and what unpacking it
//! gives), where the hashes make it certain.

use super::{Value, ValueKind};

/// Whether CPython iterates these set elements in a known order (see [`set_iteration_order`]).
pub(super) fn set_order_is_known(items: &[Value]) -> bool {
    items.len() <= 1 || set_iteration_order(items).is_some()
}

/// The elements in the order CPython iterates them, where [`set_order_is_known`].
pub(super) fn set_order(items: &[Value]) -> Vec<Value> {
    set_iteration_order(items).unwrap_or_else(|| items.to_vec())
}

/// CPython 3.11's `hash()` of an int or bool, as the unsigned `size_t` a set probes with;
/// `None` for other values (a str's hash changes from run to run).
fn set_hash(v: &Value) -> Option<u64> {
    const MODULUS: i128 = (1 << 61) - 1;
    let n = match v.kind {
        ValueKind::Bool(b) => i128::from(b),
        ValueKind::Int(i) => i,
        _ => return Option::None,
    };
    let reduced = if n < 0 { -((-n) % MODULUS) } else { n % MODULUS };
    let hash = if reduced == -1 { -2 } else { reduced } as i64;
    Some(hash as u64)
}

/// The order CPython iterates a set made by adding `items` one by one to an empty set:
/// slot order in its 8-slot table, probing as `set_add_entry` does (no linear probes in a
/// table that small; `perturb` shifted by 5). Only for up to 4 elements (the fifth resizes
/// the table) whose hashes are known.
pub fn set_iteration_order(items: &[Value]) -> Option<Vec<Value>> {
    if items.len() > 4 {
        return Option::None;
    }
    let mut table: [Option<&Value>; 8] = [Option::None; 8];
    for item in items {
        let hash = set_hash(item)?;
        let (mut perturb, mut i) = (hash, (hash & 7) as usize);
        while table[i].is_some() {
            perturb >>= 5;
            i = ((i as u64).wrapping_mul(5).wrapping_add(1).wrapping_add(perturb) & 7) as usize;
        }
        table[i] = Some(item);
    }
    Some(table.into_iter().flatten().cloned().collect())
}
