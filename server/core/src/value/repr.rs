//! Python's `repr()` and `str()` of the values we know, and whether they are exactly what
//! the loading Python prints (a module's names its file, a function's its address).

use super::{float_repr, is_builtin_class, set_order, set_order_is_known, str_repr, Value, ValueKind};

impl Value {
    /// Python's `repr()`.
    pub fn repr(&self) -> String {
        match &self.kind {
            ValueKind::None => "None".into(),
            ValueKind::Bool(true) => "True".into(),
            ValueKind::Bool(false) => "False".into(),
            ValueKind::Int(i) => i.to_string(),
            ValueKind::BigInt(b) => b.to_string(),
            ValueKind::Float(f) => float_repr(*f),
            ValueKind::Str(s) => str_repr(s),
            ValueKind::Bytes(b) => bytes_repr(b),
            ValueKind::List(items) => format!("[{}]", join_reprs(items)),
            ValueKind::Tuple(items) if items.len() == 1 => format!("({},)", items[0].repr()),
            ValueKind::Tuple(items) => format!("({})", join_reprs(items)),
            ValueKind::Dict(d) => {
                let parts: Vec<String> =
                    d.entries.iter().map(|e| format!("{}: {}", e.key.repr(), e.value.repr())).collect();
                format!("{{{}}}", parts.join(", "))
            }
            ValueKind::Dtype { canonical, .. } => canonical.clone(),
            ValueKind::Module { repr: Some(repr), .. } => repr.to_string(),
            // Built into every CPython; another module's repr names its file, which only the
            // loading Python knows (asked where the repr is shown, `eval/modules.rs`).
            ValueKind::Module { name, .. } if is_always_built_in(name) => format!("<module '{name}' (built-in)>"),
            ValueKind::Module { name, .. } => format!("<module '{name}' from '\u{2026}'>"),
            ValueKind::Builtin(name) if is_builtin_class(name) => format!("<class '{name}'>"),
            ValueKind::Builtin(name) => format!("<built-in function {name}>"),
            ValueKind::Method { name, owner: super::torch_functions::TORCH, .. } => {
                super::torch_functions::torch_function_repr(name)
            }
            ValueKind::Method { name, type_name: "builtin_function_or_method", .. } => {
                format!("<built-in method {name}>")
            }
            ValueKind::Method { name, type_name, .. } => format!("<{type_name} {name}>"),
            // The address is the run's: shown as one not known.
            ValueKind::Function { name, .. } => format!("<function {name} at 0x\u{2026}>"),
            ValueKind::TypeForm(form) => form.repr(),
            ValueKind::Slice(parts) => format!("slice({})", join_reprs(parts.as_slice())),
            ValueKind::Set(items) if items.is_empty() => "set()".into(),
            ValueKind::Set(items) => format!("{{{}}}", join_reprs(&set_order(items))),
            ValueKind::Unknown(_) => "<unknown>".into(),
        }
    }

    /// The modules this value shows whose repr only the loading Python knows (their file).
    pub fn modules_lacking_repr(&self) -> Vec<&str> {
        let mut found = Vec::new();
        self.collect_modules_lacking_repr(&mut found);
        found
    }

    fn collect_modules_lacking_repr<'a>(&'a self, found: &mut Vec<&'a str>) {
        let items: &[Value] = match &self.kind {
            ValueKind::Module { name, repr: None } if !is_always_built_in(name) => {
                found.push(name);
                return;
            }
            ValueKind::List(items) | ValueKind::Tuple(items) | ValueKind::Set(items) => items,
            ValueKind::Slice(parts) => parts.as_slice(),
            ValueKind::Dict(d) => {
                for e in &d.entries {
                    e.key.collect_modules_lacking_repr(found);
                    e.value.collect_modules_lacking_repr(found);
                }
                return;
            }
            _ => return,
        };
        items.iter().for_each(|item| item.collect_modules_lacking_repr(found));
    }

    /// Whether [`Value::repr`] (and [`Value::py_str`]) is exactly what Python prints: not for
    /// a module (Python names its file), an unknown value, or a dict with unknown entries.
    pub fn repr_is_exact(&self) -> bool {
        self.repr_known(false)
    }

    /// Whether [`Value::repr`] is Python's but for the addresses of the functions it shows
    /// (`<function f at 0x…>`: the run decides them).
    pub fn repr_is_exact_but_addresses(&self) -> bool {
        self.repr_known(true)
    }

    fn repr_known(&self, addresses: bool) -> bool {
        let known = |v: &Value| v.repr_known(addresses);
        match &self.kind {
            ValueKind::Function { .. } => addresses,
            ValueKind::Module { name, repr } => repr.is_some() || is_always_built_in(name),
            // A torch function: its repr names an address, or not (`<built-in function f>`).
            ValueKind::Method { name, owner: super::torch_functions::TORCH, .. } => {
                addresses || !super::torch_functions::torch_function_repr(name).contains("0x")
            }
            ValueKind::Method { .. } | ValueKind::Unknown(_) => false,
            ValueKind::BigInt(_) => !self.exceeds_str_digits(),
            ValueKind::List(items) | ValueKind::Tuple(items) => items.iter().all(known),
            ValueKind::Slice(parts) => parts.iter().all(known),
            ValueKind::Set(items) => set_order_is_known(items) && items.iter().all(known),
            ValueKind::Dict(d) => !d.open && d.entries.iter().all(|e| known(&e.key) && known(&e.value)),
            _ => true,
        }
    }

    /// Python's `str()`, as f-strings use it.
    pub fn py_str(&self) -> String {
        match &self.kind {
            ValueKind::Str(s) => s.clone(),
            _ => self.repr(),
        }
    }
}

/// Modules built into every CPython build (`sys.builtin_module_names` varies by build
/// beyond these).
fn is_always_built_in(module: &str) -> bool {
    matches!(module, "sys" | "builtins")
}

fn join_reprs(items: &[Value]) -> String {
    items.iter().map(Value::repr).collect::<Vec<_>>().join(", ")
}

fn bytes_repr(b: &[u8]) -> String {
    let quote = if b.contains(&b'\'') && !b.contains(&b'"') { '"' } else { '\'' };
    let mut out = format!("b{quote}");
    for &byte in b {
        match byte {
            b'\\' => out.push_str("\\\\"),
            b'\n' => out.push_str("\\n"),
            b'\r' => out.push_str("\\r"),
            b'\t' => out.push_str("\\t"),
            c if c as char == quote => {
                out.push('\\');
                out.push(c as char);
            }
            0x20..=0x7e => out.push(byte as char),
            _ => out.push_str(&format!("\\x{byte:02x}")),
        }
    }
    out.push(quote);
    out
}
