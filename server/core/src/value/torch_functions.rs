//! The functions torch holds at its top level, with their reprs (`torch.complex`: `<built-in
//! method complex of type object at 0x…>`), from `data/torch_attribute_reprs.txt`
//! (`tools/cpython/torch_attribute_reprs.py`, on the schema's torch). Each is one object: a
//! [`super::ValueKind::Method`] whose owner is [`TORCH`].

use std::collections::HashMap;
use std::sync::OnceLock;

/// The owner of a torch function's [`super::ValueKind::Method`].
pub const TORCH: &str = "torch";

static TABLE: &str = include_str!("../../data/torch_attribute_reprs.txt");

/// `torch.name`'s name (static, as a [`super::ValueKind::Method`] holds it) and type name,
/// where it is a function; its repr is [`torch_function_repr`].
pub fn torch_function(name: &str) -> Option<(&'static str, &'static str)> {
    table().get(name).map(|&(name, type_name, _)| (name, type_name))
}

/// The repr of the torch function `name` (one [`torch_function`] gave).
pub fn torch_function_repr(name: &str) -> String {
    match table().get(name) {
        Some((_, "builtin_function_or_method", "")) => format!("<built-in method {name} of type object at 0x\u{2026}>"),
        Some((_, "function", "")) => format!("<function {name} at 0x\u{2026}>"),
        Some((_, _, repr)) => repr.to_string(),
        None => format!("<function {name}>"),
    }
}

/// Name -> (name, type name, repr; empty where the line gives the common shape).
fn table() -> &'static HashMap<&'static str, (&'static str, &'static str, &'static str)> {
    static PARSED: OnceLock<HashMap<&'static str, (&'static str, &'static str, &'static str)>> = OnceLock::new();
    PARSED.get_or_init(|| {
        let mut out = HashMap::new();
        for line in TABLE.lines().filter(|l| !l.starts_with('#') && !l.is_empty()) {
            let mut parts = line.splitn(3, ' ');
            let Some(name) = parts.next() else { continue };
            let entry = match (parts.next(), parts.next()) {
                (None, _) => ("builtin_function_or_method", ""),
                (Some("def"), None) => ("function", ""),
                (Some(type_name), Some(repr)) => (type_name, repr),
                (Some(_), None) => continue,
            };
            out.insert(name, (name, entry.0, entry.1));
        }
        out
    })
}
