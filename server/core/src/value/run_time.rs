//! Values the run itself decides, not the text or the environment: the same manifest loads
//! or raises with the command line it is checked with (`sys.argv`).

use super::{Span, Value, ValueKind};

/// Why such a value is not known.
pub const ONLY_AT_RUN_TIME: &str = "depends on the command line check-manifest runs with";

/// Why what torch says of the machine is not known (`torch.cuda.is_available()`): the
/// machine check-manifest runs on decides it, its devices and its torch build.
pub const ON_THE_MACHINE: &str = "depends on the machine check-manifest runs on";

/// Whether `why` a value is not known is that the environment running check-manifest
/// decides it: its command line, its torch, its machine.
pub fn environment_decides(why: &str) -> bool {
    [ONLY_AT_RUN_TIME, INSTALLED_TORCH, ON_THE_MACHINE].iter().any(|marker| why.contains(marker))
}

/// The torch functions whose answer is the machine's ([`ON_THE_MACHINE`]), as a manifest
/// calls them to choose what it declares.
pub const MACHINE_QUERIES: [&str; 12] = [
    "torch.cuda.is_available",
    "torch.cuda.device_count",
    "torch.cuda.is_bf16_supported",
    "torch.cuda.get_device_name",
    "torch.cuda.get_device_capability",
    "torch.backends.mps.is_available",
    "torch.backends.mps.is_built",
    "torch.backends.cudnn.is_available",
    "torch.xpu.is_available",
    "torch.xpu.device_count",
    "torch.accelerator.is_available",
    "torch.accelerator.device_count",
];

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
            "tuple" => ValueKind::Tuple(Vec::new()),
            "set" => ValueKind::Set(Vec::new()),
            // Only its type: `%` formats by what the str holds (see `Value::formats_unknown_text`).
            "str" => ValueKind::Str(String::new()),
            // Its type errors only: what an operator makes of a number's stand-in is no value.
            "int" => ValueKind::Int(0),
            "bool" => ValueKind::Bool(false),
            "float" => ValueKind::Float(0.0),
            _ => return None,
        };
        Some(Value::new(empty, self.span.clone()))
    }

    /// `x % y` with `x` a str or bytes known by its type only: what it raises depends on
    /// the `%` it holds, so the stand-in of [`Value::type_known`] does not answer it.
    pub fn formats_unknown_text(&self, op: &str) -> bool {
        op == "%" && matches!(self.known_type(), Some("str" | "bytes"))
    }
}
