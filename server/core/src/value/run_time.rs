//! Values the run itself decides, not the text or the environment: the same manifest loads
//! or raises with the command line it is checked with (`sys.argv`).

use super::{Span, Value, ValueKind};

/// Why such a value is not known.
pub const ONLY_AT_RUN_TIME: &str = "depends on the command line check-manifest runs with";

/// Why `torch.__version__` is not known: the environment's torch decides it (`2.12.1+cpu`,
/// `2.12.1+cu130`), as it decides which modules import.
pub const INSTALLED_TORCH: &str = "is the installed torch's version, which only the environment knows";

impl Value {
    /// `sys.argv`: a list of str whose length the command line decides (unknown, but a
    /// list: `+sys.argv` raises as any list's would).
    pub fn run_time_list(name: &str, s: Span) -> Value {
        Value::unknown_of_type(
            "list",
            super::Operators::NotModelled,
            super::Callable::No,
            format!("`{name}` is a list that {ONLY_AT_RUN_TIME}"),
            s,
        )
    }

    /// A value of this one's type where only the type is known ([`Value::run_time_list`]):
    /// what its type errors are judged on.
    pub fn type_known(&self) -> Option<Value> {
        let empty = match self.known_type()? {
            "list" => ValueKind::List(Vec::new()),
            "set" => ValueKind::Set(Vec::new()),
            _ => return None,
        };
        Some(Value::new(empty, self.span.clone()))
    }
}
