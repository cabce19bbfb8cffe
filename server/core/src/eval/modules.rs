//! Which modules the manifest can import, as the caller read them (this crate reads no
//! folder): `import orch` certainly fails where the name is in no folder of the loading
//! Python's `sys.path` and in no standard library. Without that answer nothing is claimed.

use super::{span, Evaluator};
use crate::regex_check::PythonVersion;
use crate::value::{Callable, Operators, Span, Value, ValueKind};
use std::collections::{HashMap, HashSet};
use std::sync::OnceLock;
use tree_sitter::Node;

/// The top-level module names found in every folder of the loading Python's `sys.path`
/// (site-packages, the manifest's folder, ...), read by the IO layer. Only given when that
/// list is complete: a `.pth` that runs code, a `PYTHONPATH`, or system site-packages make
/// the answer unknown, and then none is given.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ImportableModules {
    pub names: HashSet<String>,
}

static STDLIB: &str = include_str!("../../data/stdlib_modules.txt");

/// In the standard library (or built in) of any CPython 3.10-3.13: importable whichever of
/// them loads the manifest.
pub fn in_stdlib(name: &str) -> bool {
    STDLIB.lines().any(|l| l == name)
}

/// What the loading Python's import system says of modules the analysis asked about
/// ([`super::ManifestModel::module_file_wanted`]), found without importing them
/// (`importlib.util.find_spec`): the file each is loaded from, as `from M import X` names
/// it when M lacks X (`cannot import name 'X' from 'M' (/usr/lib/python3.11/M.py)`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ModuleFiles {
    /// Module name -> its `__file__`; `None`: it has none (built in), which the error shows
    /// as `(unknown location)`. A module the Python could not find is not here.
    pub files: HashMap<String, Option<String>>,
    /// Module name -> its repr, as `_module_repr_from_spec` makes it (`<module 'torch' from
    /// '/venv/…/torch/__init__.py'>`, `<module 'os' (frozen)>`); none where it would show
    /// an address.
    pub reprs: HashMap<String, String>,
    /// A package's submodules (what `from torch import onnx` imports when torch has no
    /// `onnx` attribute yet); none for a plain module.
    pub submodules: HashMap<String, HashSet<String>>,
}

impl ModuleFiles {
    /// Adds what a later answer said.
    pub fn extend(&mut self, answer: ModuleFiles) {
        self.files.extend(answer.files);
        self.submodules.extend(answer.submodules);
        self.reprs.extend(answer.reprs);
    }

    /// Where the ImportError says `module` is: `(path)` or `(unknown location)`; None when
    /// not asked.
    pub fn location(&self, module: &str) -> Option<String> {
        let file = self.files.get(module)?;
        Some(match file {
            Some(path) => format!("({path})"),
            None => "(unknown location)".to_string(),
        })
    }
}

/// What the analysis knows of the Python that loads the manifest.
#[derive(Debug, Clone, Copy, Default)]
pub struct LoadingPython<'a> {
    /// The modules it can import, where all are known.
    pub importable: Option<&'a ImportableModules>,
    /// The files of the modules it was asked about.
    pub module_files: Option<&'a ModuleFiles>,
    /// Its version (3.11 where not known, as for the regexes).
    pub version: PythonVersion,
}

static ATTRIBUTES: &str = include_str!("../../data/module_attributes.txt");

/// Per module of [`ATTRIBUTES`]: the versions whose module has a `__getattr__`, and every
/// name it holds in any version.
type AttributeTable = HashMap<&'static str, (Vec<u32>, HashSet<&'static str>)>;

fn attribute_table() -> &'static AttributeTable {
    static TABLE: OnceLock<AttributeTable> = OnceLock::new();
    TABLE.get_or_init(|| {
        let mut table = HashMap::new();
        for line in ATTRIBUTES.lines().filter(|l| !l.starts_with('#')) {
            let mut words = line.split(' ');
            let Some(module) = words.next() else { continue };
            let (mut open_in, mut names) = (Vec::new(), HashSet::new());
            for word in words {
                match word.strip_prefix("!3.").and_then(|minor| minor.parse().ok()) {
                    Some(minor) => open_in.push(minor),
                    None => {
                        names.insert(word);
                    }
                }
            }
            table.insert(module, (open_in, names));
        }
        table
    })
}

static ATTRIBUTE_TYPES: &str = include_str!("../../data/module_attribute_types.txt");

/// Per `(module, attribute)` of [`ATTRIBUTE_TYPES`]: its type's name, one for every CPython
/// or one per CPython of the header's (`-` for none).
struct AttributeTypes {
    minors: Vec<u32>,
    types: HashMap<(&'static str, &'static str), Vec<&'static str>>,
}

fn attribute_types() -> &'static AttributeTypes {
    static TABLE: OnceLock<AttributeTypes> = OnceLock::new();
    TABLE.get_or_init(|| {
        let mut lines = ATTRIBUTE_TYPES.lines();
        // `# ...: CPython 3.10 3.11 3.12 3.13 on linux; ...`
        let header = lines.next().unwrap_or("");
        let versions = header.split("CPython ").nth(1).and_then(|rest| rest.split(" on ").next()).unwrap_or("");
        let minors = versions.split(' ').filter_map(|v| v.strip_prefix("3.")?.parse().ok()).collect();
        let mut types = HashMap::new();
        for line in lines {
            let mut words = line.split(' ');
            if let (Some(module), Some(attr)) = (words.next(), words.next()) {
                types.insert((module, attr), words.collect());
            }
        }
        AttributeTypes { minors, types }
    })
}

/// The type of `module.attr` under `python` where that type defines no arithmetic operator
/// but `|` (`json.dumps` is a 'function', `typing.Any` an '_AnyMeta' from 3.11 on), and
/// whether it can be called: what it is otherwise is not known, but `-json.dumps` raises.
/// Made by `tools/cpython/module_attribute_types.py`; torch's for the schema's torch.
pub fn module_attribute_type(
    module: &str,
    attr: &str,
    python: PythonVersion,
) -> Option<(&'static str, Operators, Callable, bool)> {
    let table = attribute_types();
    let types = table.types.get(&(module, attr))?;
    let name = match types.as_slice() {
        [one] => one,
        per_version => per_version.get(table.minors.iter().position(|m| *m == python.minor())?)?,
    };
    if *name == "-" {
        return None;
    }
    // `~`: `iter()` of it raises.
    let (name, not_iterable) = match name.strip_suffix('~') {
        Some(name) => (name, true),
        None => (*name, false),
    };
    let (name, callable) = match name.strip_suffix('!') {
        Some(name) => (name, Callable::No),
        None => (name, Callable::Maybe),
    };
    match name.strip_suffix('|') {
        Some(name) => Some((name, Operators::OnlyOr, callable, not_iterable)),
        None => Some((name, Operators::NoneDefined, callable, not_iterable)),
    }
}

/// `module.attr` of a type [`module_attribute_type`] knows, else not known.
pub(super) fn typed_module_attribute(module: &str, attr: &str, python: PythonVersion, s: Span) -> Value {
    let why = format!("`{module}.{attr}` is not evaluated statically");
    match module_attribute_type(module, attr, python) {
        Some((type_name, operators, callable, not_iterable)) => {
            let value = Value::unknown_of_type(type_name, operators, callable, why, s);
            match not_iterable {
                true => value.that_does_not_iterate(),
                false => value,
            }
        }
        None => Value::unknown(why, s),
    }
}

static TORCH_SUBMODULES: &str = include_str!("../../data/torch_submodules.txt");

/// The `__name__` of the module `torch.attr` is, where it is one (`torch.onnx`, `torch.os`
/// is `os`) in the schema's torch (`data/torch_submodules.txt`, made by
/// `tools/cpython/module_attributes.py --torch`).
pub fn torch_submodule(attr: &str) -> Option<&'static str> {
    let line = TORCH_SUBMODULES.lines().find(|l| !l.starts_with('#'))?;
    line.split(' ').find_map(|pair| pair.split_once('=').filter(|(a, _)| *a == attr).map(|(_, name)| name))
}

/// The standard-library module `module` certainly has no attribute `attr` under `python`
/// (`data/module_attributes.txt`, made by `tools/cpython/module_attributes.py`): it is a
/// plain module (not a package, whose submodules become attributes once imported) that no
/// CPython 3.10-3.13 gives that name, and it has no `__getattr__` in that version. And
/// `torch` (the schema's version): its `vars()`, `dir()` and what its `__getattr__` answers
/// (`torch.onnx`, imported lazily).
pub fn module_lacks(module: &str, attr: &str, python: PythonVersion) -> bool {
    if module == "torch" && crate::schema::schema().torch_attributes.iter().any(|a| a == attr) {
        return false;
    }
    match attribute_table().get(module) {
        Some((open_in, names)) => !open_in.contains(&python.minor()) && !names.contains(attr),
        None => false,
    }
}

impl Evaluator<'_> {
    /// `module.attr` on an imported module: AttributeError where it certainly lacks it, and
    /// `os.path` (a module); None where not known.
    /// `module.attr` as the manifest set it (a statement run before): its value, unless
    /// code not evaluated may have set it since (`setattr`, a block, a function).
    pub(super) fn assigned_module_attribute(&mut self, module: &str, attr: &str, s: Span) -> Value {
        let key = (module.to_string(), attr.to_string());
        let unseen = self.module_attribute_changed_unseen(attr);
        match self.module_attributes.get(&key) {
            Some(value) if !unseen => Value { span: s, ..value.clone() },
            _ => Value::unknown(format!("`{module}.{attr}` may be set by code not evaluated statically"), s),
        }
    }

    /// Whether code the evaluator does not run may set `.attr`: a dynamic setter anywhere,
    /// an assignment to `.attr` inside a block or a function (or a `del`), or one to an
    /// object not known statically. A plain assignment at module level to a module's
    /// attribute is run in its turn ([`Self::assigned_module_attribute`]): before, it has not
    /// set anything yet.
    ///
    /// The text is scanned once per attribute name (kept in `unseen_setters`): a manifest
    /// that reads `sys.x` on every line costs one scan, not one per read.
    pub(super) fn module_attribute_changed_unseen(&mut self, attr: &str) -> bool {
        if self.attributes_set_on_unknown.contains(attr) {
            return true;
        }
        if let Some(&known) = self.unseen_setters.get(attr) {
            return known;
        }
        let unseen = |line: &str| {
            let first_word = line.split(|c: char| !c.is_ascii_alphanumeric() && c != '_').next().unwrap_or("");
            line.starts_with([' ', '\t']) || COMPOUND_KEYWORDS.contains(&first_word) || first_word == "del"
        };
        let found = DYNAMIC_SETTERS.iter().any(|d| self.text.contains(d))
            || self.text.lines().any(|line| unseen(line) && line_may_set(line, attr));
        self.unseen_setters.insert(attr.to_string(), found);
        found
    }

    pub(super) fn module_attribute(&mut self, module: &str, attr: &str, s: Span) -> Option<Value> {
        if module == "os" && attr == "path" {
            // The platform's path module, by whose name its errors call it (`module
            // 'posixpath' has no attribute 'sp'`).
            let path_module = if cfg!(windows) { "ntpath" } else { "posixpath" };
            return Some(self.module_value(path_module, s));
        }
        if self.module_attribute_changed_unseen(attr) {
            return None;
        }
        if module == "sys" && matches!(attr, "argv" | "orig_argv") {
            // `torchcts check-manifest` has two items, `--manifest m.py` four.
            return Some(Value::run_time_list(&format!("sys.{attr}"), s));
        }
        if module == "sys" && attr == SYS_EXIT {
            return Some(Value::new(ValueKind::Builtin(SYS_EXIT), s));
        }
        if let Some(constant) = path_constant(module, attr) {
            return Some(Value::new(constant, s));
        }
        if !module_lacks(module, attr, self.loading.version) {
            return Some(typed_module_attribute(module, attr, self.loading.version, s));
        }
        self.fail(s.clone(), "AttributeError", format!("module '{module}' has no attribute '{attr}'"));
        Some(Value::unknown(format!("`{module}` has no attribute `{attr}`"), s))
    }

    /// `torch.attr` that is no dtype: a submodule, a function (one object, whose repr is
    /// known but for its address), or a value known by its type.
    pub(super) fn torch_attribute(&self, attr: &str, s: Span) -> Value {
        if let Some(name) = torch_submodule(attr) {
            return self.module_value(name, s);
        }
        match crate::value::torch_functions::torch_function(attr) {
            Some((name, type_name)) => {
                Value::new(ValueKind::Method { name, type_name, owner: crate::value::torch_functions::TORCH }, s)
            }
            None => typed_module_attribute("torch", attr, self.loading.version, s),
        }
    }

    /// The module `name` (`torch`, `torch.nn`), with the repr the loading Python gives it
    /// where that was asked.
    pub(super) fn module_value(&self, name: &str, s: Span) -> Value {
        let name = name.split('.').map(str::trim).collect::<Vec<_>>().join(".");
        let repr = self.loading.module_files.and_then(|f| f.reprs.get(&name)).map(|r| std::sync::Arc::from(r.as_str()));
        Value::new(ValueKind::Module { name, repr }, s)
    }

    /// Asks the loading Python for the file of the first module `shown` shows that it was
    /// not asked about yet: a module's repr names it, and a message may show that repr.
    pub(super) fn want_module_reprs(&mut self, shown: &Value) {
        let asked = |name: &str| self.loading.module_files.is_some_and(|f| f.files.contains_key(name));
        if let Some(name) = shown.modules_lacking_repr().into_iter().find(|name| !asked(name)) {
            self.model.module_file_wanted.get_or_insert_with(|| name.to_string());
        }
    }

    /// `from module import name` where the module certainly lacks it: the ImportError names
    /// the module's file, which only the loading Python knows. Asked for where not given
    /// ([`super::ManifestModel::module_file_wanted`]) and noted as not known meanwhile.
    /// True when loading stops here.
    pub(super) fn imported_name_missing(&mut self, node: Node, module: &str, name: &str) -> bool {
        // A submodule not imported yet is imported (checked below, where the files are known).
        if name.is_empty() || !module_lacks(module, name, self.loading.version) || may_set_attribute(self.text, name) {
            return false;
        }
        let files = self.loading.module_files;
        if files.and_then(|f| f.submodules.get(module)).is_some_and(|subs| subs.contains(name)) {
            return false;
        }
        match files.and_then(|files| files.location(module)) {
            Some(location) => {
                let message = format!("cannot import name '{name}' from '{module}' {location}");
                self.fail(span(node), "ImportError", message);
                true
            }
            None => {
                self.model.module_file_wanted.get_or_insert_with(|| module.to_string());
                self.note(
                    span(node),
                    format!("whether `{module}.{name}` can be imported is only known when Python loads the manifest (check-manifest fails if it cannot)"),
                );
                false
            }
        }
    }
    /// `import a.b` (or `from a.b import c`) where the package `a`, found by the loading
    /// Python, has no submodule `b` in its folders: `No module named 'a.b'`. Where its
    /// submodules are not known they are asked for, and the import noted as not known
    /// meanwhile. True when loading stops here.
    pub(super) fn submodule_import_fails(&mut self, node: Node, module: &str) -> bool {
        let parts: Vec<&str> = module.split('.').map(str::trim).collect();
        let [top, sub, deeper @ ..] = parts.as_slice() else { return false };
        // A module its package puts in `sys.modules` under its name (`os` sets `os.path`).
        if *top == "os" && *sub == "path" && deeper.is_empty() {
            return false;
        }
        let unknown_note = |this: &mut Self| {
            this.note(
                span(node),
                format!("whether `{module}` can be imported is only known when Python loads the manifest (check-manifest fails if it cannot)"),
            );
        };
        match self.loading.module_files.and_then(|f| f.submodules.get(*top)) {
            Some(subs) if subs.contains(*sub) => {
                if !deeper.is_empty() {
                    unknown_note(self);
                }
                false
            }
            // An empty list is also a plain module's (whose error adds "is not a package"),
            // and a name the package's own code may register is left to Python.
            Some(subs) if !subs.is_empty() && module_lacks(top, sub, self.loading.version) => {
                self.fail(span(node), "ModuleNotFoundError", format!("No module named '{top}.{sub}'"));
                true
            }
            Some(_) => {
                unknown_note(self);
                false
            }
            // An attribute of the package is most often its submodule (`torch.nn`).
            None if !module_lacks(top, sub, self.loading.version) => false,
            None => {
                self.model.module_file_wanted.get_or_insert_with(|| top.to_string());
                unknown_note(self);
                false
            }
        }
    }
}

/// The path constants of `os` and its path module, as the platform this runs on has them
/// (the loading Python runs there too): `os.sep`, `os.path.sep`, `os.linesep`, ...
fn path_constant(module: &str, attr: &str) -> Option<ValueKind> {
    let windows = cfg!(windows);
    let text = |s: &str| Some(ValueKind::Str(s.to_string()));
    match (module, attr) {
        ("os" | "posixpath" | "ntpath", "sep") => text(if windows { "\\" } else { "/" }),
        ("os" | "posixpath" | "ntpath", "altsep") if windows => text("/"),
        ("os" | "posixpath" | "ntpath", "altsep") => Some(ValueKind::None),
        ("os" | "posixpath" | "ntpath", "pathsep") => text(if windows { ";" } else { ":" }),
        ("os" | "posixpath" | "ntpath", "extsep" | "curdir") => text("."),
        ("os" | "posixpath" | "ntpath", "pardir") => text(".."),
        ("os" | "posixpath" | "ntpath", "devnull") => text(if windows { "nul" } else { "/dev/null" }),
        ("os", "linesep") => text(if windows { "\r\n" } else { "\n" }),
        ("os", "name") => text(if windows { "nt" } else { "posix" }),
        _ => None,
    }
}

/// Whether the text may give a module the attribute `attr` (`sys.foo = 1`, `del sys.foo`,
/// `for sys.foo in ...`, or any `setattr`, `exec(...)`, `__dict__`): then it is not claimed
/// missing. A scan of the text, strings and comments included (more doubt, never a wrong
/// claim), made only where a claim is about to be made.
pub(super) fn may_set_attribute(text: &str, attr: &str) -> bool {
    if DYNAMIC_SETTERS.iter().any(|d| text.contains(d)) {
        return true;
    }
    text.lines().any(|line| line_may_set(line, attr))
}

/// `line` may bind `<something>.attr`: as an assignment's target (plain, augmented, in a
/// tuple), a `del`, a `for` or `as` target.
fn line_may_set(line: &str, attr: &str) -> bool {
    let line = code_part(line);
    let bytes = line.as_bytes();
    let code = line.trim_start();
    let binds_targets =
        code.starts_with("for ") || code.starts_with("async ") || code.starts_with("del") || has_as_keyword(line);
    // A `for` binds its targets, before its ` in `: what it iterates is only read.
    let loop_targets_end = match code.starts_with("for ") || code.starts_with("async for ") {
        true => line.find(" in ").unwrap_or(line.len()),
        false => line.len(),
    };
    let mut at = 0;
    while let Some(dot) = bytes[at..].iter().position(|&b| b == b'.').map(|p| at + p) {
        at = dot + 1;
        let mut i = dot + 1;
        while i < bytes.len() && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'_' || bytes[i] >= 0x80) {
            i += 1;
        }
        if &line[dot + 1..i] != attr {
            continue;
        }
        while i < bytes.len() && (bytes[i] == b' ' || bytes[i] == b'\t') {
            i += 1;
        }
        // In a tuple of targets (`sys.a, sys.b = 1, 2`) the `=` comes later on the line.
        let in_tuple = matches!(bytes.get(i), Some(b',' | b')' | b']')) && has_assignment(bytes, i);
        if binds_targets && dot < loop_targets_end || in_tuple || assignment_at(bytes, i) {
            return true;
        }
    }
    false
}

/// `sys.exit`, a `builtin_function_or_method` named `exit` (the builtins' `exit` is site's
/// `Quitter`, not this).
pub(super) const SYS_EXIT: &str = "exit";

pub use crate::value::{environment_decides, INSTALLED_TORCH, ONLY_AT_RUN_TIME, ON_THE_MACHINE};

/// What may set any attribute of a module, unseen.
const DYNAMIC_SETTERS: [&str; 6] = ["setattr", "__dict__", "vars(", "exec(", "eval(", "globals("];

/// The first words of lines whose statement the evaluator does not run (a one-line
/// `if c: sys.x = 1`).
const COMPOUND_KEYWORDS: [&str; 14] = [
    "if", "elif", "else", "for", "while", "with", "try", "except", "finally", "def", "class", "async", "match", "case",
];

/// Whether `line` (a comment cut off) holds ` as ` outside its strings (`with a as b`, not
/// `"sup as ported"`).
fn has_as_keyword(line: &str) -> bool {
    first_outside_strings(line, |rest| rest.starts_with(" as ")).is_some()
}

/// The line without its comment (a `#` outside the quotes the line opens and closes).
fn code_part(line: &str) -> &str {
    first_outside_strings(line, |rest| rest.starts_with('#')).map_or(line, |at| &line[..at])
}

/// The first position of `line` outside its strings where `found` holds of the rest.
fn first_outside_strings(line: &str, found: impl Fn(&str) -> bool) -> Option<usize> {
    let mut quote: Option<u8> = None;
    let bytes = line.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        match (bytes[i], quote) {
            (b'\\', Some(_)) => i += 1,
            (b'"' | b'\'', None) => quote = Some(bytes[i]),
            (q, Some(open)) if q == open => quote = None,
            (_, None) if line.is_char_boundary(i) && found(&line[i..]) => return Some(i),
            _ => {}
        }
        i += 1;
    }
    None
}

/// Whether an assignment (`=` or an augmented operator) starts right at `i`.
fn assignment_at(bytes: &[u8], i: usize) -> bool {
    let mut j = i;
    // An augmented operator (`+=`, `//=`, `**=`, `>>=`, ...) before the `=`.
    while j < bytes.len() && j < i + 3 && b"+-*/%@&|^<>:".contains(&bytes[j]) {
        j += 1;
    }
    let assigns = bytes.get(j) == Some(&b'=') && bytes.get(j + 1) != Some(&b'=');
    // `x.y<=z` and `x.y>=z` compare: `<`/`>` alone before `=` is no assignment.
    let compares = j > i && matches!(bytes[j - 1], b'<' | b'>') && !(j >= i + 2 && bytes[j - 2] == bytes[j - 1]);
    assigns && !compares
}

/// Whether a `=` that is neither `==` nor a comparison appears at or after `from`.
fn has_assignment(bytes: &[u8], from: usize) -> bool {
    (from..bytes.len()).any(|j| {
        bytes[j] == b'='
            && bytes.get(j + 1) != Some(&b'=')
            && (j == 0 || !matches!(bytes[j - 1], b'=' | b'<' | b'>' | b'!'))
    })
}

impl ImportableModules {
    /// The top-level module of `module` (`a` of `a.b.c`) certainly cannot be imported.
    pub fn certainly_missing(&self, module: &str) -> Option<String> {
        let top = module.split('.').next().unwrap_or(module).trim();
        if top.is_empty() || in_stdlib(top) || self.names.contains(top) {
            return None;
        }
        Some(top.to_string())
    }
}

/// The top-level name a folder entry can be imported as: a folder (a package, or a
/// namespace package), a source, bytecode or extension module (`name.py`,
/// `name.cpython-311-x86_64-linux-gnu.so`); None for anything else.
pub fn module_name_of_entry(file_name: &str, is_dir: bool) -> Option<&str> {
    if is_dir {
        return (!file_name.contains('.')).then_some(file_name);
    }
    let (stem, _) = file_name.split_once('.')?;
    let suffix = file_name.rsplit('.').next().unwrap_or("");
    matches!(suffix, "py" | "pyc" | "so" | "pyd" | "pyw").then_some(stem)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stdlib_names_of_every_version_and_entries_by_their_import_name() {
        assert!(in_stdlib("os") && in_stdlib("distutils") && in_stdlib("tomllib") && in_stdlib("sys"));
        assert!(!in_stdlib("orch"));
        assert_eq!(module_name_of_entry("numpy", true), Some("numpy"));
        assert_eq!(module_name_of_entry("numpy-2.4.6.dist-info", true), None);
        assert_eq!(module_name_of_entry("six.py", false), Some("six"));
        assert_eq!(module_name_of_entry("_cffi_backend.cpython-311-x86_64-linux-gnu.so", false), Some("_cffi_backend"));
        assert_eq!(module_name_of_entry("README.txt", false), None);
        let m = ImportableModules { names: ["numpy".to_string()].into() };
        assert_eq!(m.certainly_missing("orch.sub"), Some("orch".into()));
        assert_eq!(m.certainly_missing("numpy.linalg"), None);
        assert_eq!(m.certainly_missing("json"), None);
    }

    #[test]
    fn attributes_of_plain_stdlib_modules_in_every_version() {
        let v311 = PythonVersion::V3_11;
        assert!(module_lacks("sys", "ex", v311) && module_lacks("os", "pathx", v311));
        assert!(!module_lacks("sys", "exit", v311) && !module_lacks("os", "path", v311));
        // Only some versions have it: not claimed missing.
        assert!(!module_lacks("typing", "override", v311) && !module_lacks("math", "cbrt", v311));
        // A package, a module nobody listed, and a module with a `__getattr__` (3.13).
        assert!(!module_lacks("json", "nope", v311) && !module_lacks("numpy", "nope", v311));
        assert!(module_lacks("typing", "A", v311) && !module_lacks("typing", "A", PythonVersion::V3_13));
        assert!(module_lacks("torch", "Float32", v311) && module_lacks("torch", "contrib", v311));
        assert!(!module_lacks("torch", "float32", v311) && !module_lacks("torch", "__version__", v311));
        assert!(!module_lacks("torch", "onnx", v311) && !module_lacks("torch", "nn", v311));
        let files = ModuleFiles {
            files: [("sys".into(), None), ("typing".into(), Some("/t.py".into()))].into(),
            ..ModuleFiles::default()
        };
        assert_eq!(files.location("sys").as_deref(), Some("(unknown location)"));
        assert_eq!(files.location("typing").as_deref(), Some("(/t.py)"));
        assert_eq!(files.location("os"), None);
        for text in [
            "sys.foo = 1",
            "sys.foo += 1",
            "x.foo //= 2",
            "sys.a, sys.foo = 1, 2",
            "for sys.foo in []: pass",
            "setattr(sys, 'bar', 1)",
            "del sys.foo",
            "exec('')",
        ] {
            assert!(may_set_attribute(text, "foo"), "{text}");
        }
        for text in [
            "x = sys.foo",
            "if sys.foo == 1: pass",
            "a = x.foo <= 2",
            "a = x.foo >= 2",
            "b = x.foo != 3",
            "del m['foo']",
            "sys.food = 1",
            "sys.bar = sys.foo",
            "x = sys.foo, 1",
            "d = 'model.x'",
        ] {
            assert!(!may_set_attribute(text, "foo"), "{text}");
        }
    }
}
