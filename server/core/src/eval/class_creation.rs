//! `type(name, bases, dict)`: the class CPython 3.10-3.13 make, or what they raise, in their
//! order: the arguments' types (`type.__new__() argument 2 must be tuple, not torch.dtype`:
//! `type` typed before a 3-tuple), a base that is no class (metaclass conflict), a name with
//! a NUL, `__qualname__` no str, then keywords, which `object.__init_subclass__` refuses.

use super::builtin_arguments::CallArguments;
use super::Evaluator;
use crate::value::{Callable, Operators, Span, Value, ValueKind};

/// The module a class made while the manifest loads names (torchcts loads `manifest.py` as
/// the module `manifest`: `spec_from_file_location("manifest", ...)`).
const MANIFEST_MODULE: &str = "manifest";

impl Evaluator<'_> {
    /// The class `type(name, bases, dict)` makes (known by its type, its repr kept as what
    /// `str()` shows), or raising; None where which is not known.
    pub(super) fn type_with_three_arguments(&mut self, args: &CallArguments, s: Span) -> Option<Value> {
        let [name, bases, namespace] = args.positional.as_slice() else { return None };
        for (position, value, wanted) in [(1, name, "str"), (2, bases, "tuple"), (3, namespace, "dict")] {
            let type_name = match &value.kind {
                ValueKind::Unknown(_) => value.known_type()?,
                _ => value.type_name(),
            };
            if type_name != wanted {
                let message =
                    format!("type.__new__() argument {position} must be {wanted}, not {}", value.exception_type_name());
                return Some(self.raises("TypeError", message, s));
            }
        }
        let (ValueKind::Str(name), ValueKind::Tuple(bases), ValueKind::Dict(namespace)) =
            (&name.kind, &bases.kind, &namespace.kind)
        else {
            return None;
        };
        // Every base's metaclass must be a subclass of the others': an instance's class
        // (`int` for `1`) is none of `type`'s.
        if bases.iter().any(is_instance_of_builtin) {
            let message = "metaclass conflict: the metaclass of a derived class must be a (non-strict) subclass of the metaclasses of all its bases";
            return Some(self.raises("TypeError", message.to_string(), s));
        }
        // A base class (`int`, `bool`: not an acceptable base type), a namespace whose
        // `__slots__` or values CPython acts on: not followed.
        if !bases.is_empty() || namespace.open || namespace.entries.iter().any(|e| e.value.contains_unknown()) {
            return None;
        }
        if name.contains('\0') {
            return Some(self.raises("ValueError", "type name must not contain null characters".to_string(), s));
        }
        let dunder = |key: &str| {
            let named = |e: &&crate::value::Entry| matches!(&e.key.kind, ValueKind::Str(k) if k == key);
            namespace.entries.iter().find(named).map(|e| &e.value)
        };
        if ["__slots__", "__classcell__"].iter().any(|k| dunder(k).is_some()) {
            return None;
        }
        let qualname = match dunder("__qualname__").map(|v| &v.kind) {
            None => name.as_str(),
            Some(ValueKind::Str(qualname)) => qualname.as_str(),
            Some(_) => {
                let type_name = dunder("__qualname__").map_or("object", Value::exception_type_name);
                return Some(self.raises("TypeError", format!("type __qualname__ must be a str, not {type_name}"), s));
            }
        };
        if !args.keywords.is_empty() {
            let message = format!("{qualname}.__init_subclass__() takes no keyword arguments");
            return Some(self.raises("TypeError", message, s));
        }
        // The module is the loading module's `__name__`, unless the namespace names one.
        let module = match dunder("__module__").map(|v| &v.kind) {
            None if self.env.contains_key("__name__") || self.bound_before.contains("__name__") => None,
            None => Some(Some(MANIFEST_MODULE)),
            Some(ValueKind::Str(module)) if module == "builtins" => Some(None),
            Some(ValueKind::Str(module)) => Some(Some(module.as_str())),
            Some(ValueKind::None | ValueKind::Int(_) | ValueKind::Bool(_) | ValueKind::Float(_)) => Some(None),
            Some(_) => None,
        };
        let why = "a class `type(name, bases, dict)` makes is known by its type only";
        // Its metaclass is `type`, which has no `__iter__`: iterating the class raises.
        let mut class =
            Value::unknown_of_type("type", Operators::NotModelled, Callable::Maybe, why, s).that_does_not_iterate();
        class.set_shown(module.map(|module| match module {
            Some(module) => format!("<class '{module}.{qualname}'>"),
            // CPython shows the class's name there, not its qualified name.
            None => format!("<class '{name}'>"),
        }));
        Some(class)
    }

    fn raises(&mut self, exception: &'static str, message: String, s: Span) -> Value {
        self.fail(s.clone(), exception, message);
        Value::unknown("raises", s)
    }
}

/// A value known to be no class: its class (`int` for `1`) is no metaclass.
fn is_instance_of_builtin(value: &Value) -> bool {
    match value.kind {
        ValueKind::Builtin(name) => !crate::value::is_builtin_class(name),
        ValueKind::Method { type_name, .. } => type_name != "type",
        ValueKind::Dtype { .. } | ValueKind::Module { .. } | ValueKind::Function { .. } => true,
        _ => value.is_builtin_instance(),
    }
}
