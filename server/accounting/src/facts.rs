//! The evaluated manifest as the accounting engine sees it.
//!
//! [`ManifestFacts`] is a plain description of the manifest dict after static
//! evaluation: ordered key/value pairs with Python values ([`PyValue`]). The
//! engine applies Python's meaning to them (truthiness, `is True`, dict lookup of
//! dtype objects versus strings), so the caller must not pre-interpret values.

/// A Python value as far as the collection rules look at it.
#[derive(Debug, Clone, PartialEq)]
pub enum PyValue {
    None,
    Bool(bool),
    Int(i64),
    Float(f64),
    Str(String),
    List(Vec<PyValue>),
    Tuple(Vec<PyValue>),
    Dict(Vec<(PyValue, PyValue)>),
    /// A `torch.<dtype>` attribute, by canonical name (`"torch.float32"`; aliases
    /// like `torch.float` or `torch.half` are canonicalised by [`canonical_dtype`]).
    Dtype(String),
    /// Anything else (a call, an unknown name): its source text or repr.
    Other(String),
}

impl PyValue {
    /// Python truthiness. `Other` values are objects, truthy by default.
    pub fn truthy(&self) -> bool {
        match self {
            PyValue::None => false,
            PyValue::Bool(b) => *b,
            PyValue::Int(i) => *i != 0,
            PyValue::Float(f) => *f != 0.0,
            PyValue::Str(s) => !s.is_empty(),
            PyValue::List(v) | PyValue::Tuple(v) => !v.is_empty(),
            PyValue::Dict(v) => !v.is_empty(),
            PyValue::Dtype(_) | PyValue::Other(_) => true,
        }
    }

    /// `value is True`.
    pub fn is_true(&self) -> bool {
        matches!(self, PyValue::Bool(true))
    }

    /// `value is False`.
    pub fn is_false(&self) -> bool {
        matches!(self, PyValue::Bool(false))
    }

    pub fn as_str(&self) -> Option<&str> {
        match self {
            PyValue::Str(s) => Some(s),
            _ => None,
        }
    }

    /// Python `repr()` for the simple cases (used in detail texts).
    pub fn repr(&self) -> String {
        match self {
            PyValue::None => "None".into(),
            PyValue::Bool(true) => "True".into(),
            PyValue::Bool(false) => "False".into(),
            PyValue::Int(i) => i.to_string(),
            PyValue::Float(f) => crate::pyfmt::float_repr(*f),
            PyValue::Str(s) => crate::pyfmt::str_repr(s),
            PyValue::List(v) => format!("[{}]", v.iter().map(|x| x.repr()).collect::<Vec<_>>().join(", ")),
            PyValue::Tuple(v) if v.len() == 1 => format!("({},)", v[0].repr()),
            PyValue::Tuple(v) => format!("({})", v.iter().map(|x| x.repr()).collect::<Vec<_>>().join(", ")),
            PyValue::Dict(v) => format!(
                "{{{}}}",
                v.iter().map(|(k, x)| format!("{}: {}", k.repr(), x.repr())).collect::<Vec<_>>().join(", ")
            ),
            PyValue::Dtype(d) => d.clone(),
            PyValue::Other(s) => s.clone(),
        }
    }

    /// Python `str()` (differs from repr for strings only, here).
    pub fn str_(&self) -> String {
        match self {
            PyValue::Str(s) => s.clone(),
            other => other.repr(),
        }
    }

    /// `d.get(key)` on a `Dict` value with a string key (last duplicate wins).
    pub fn dict_get(&self, key: &str) -> Option<&PyValue> {
        match self {
            PyValue::Dict(items) => {
                items.iter().rev().find(|(k, _)| matches!(k, PyValue::Str(s) if s == key)).map(|(_, v)| v)
            }
            _ => None,
        }
    }
}

/// Canonical name of a `torch.<attr>` dtype attribute, resolving aliases.
/// Returns `None` for names that are not dtypes.
pub fn canonical_dtype(attr: &str) -> Option<&'static str> {
    let name = attr.strip_prefix("torch.").unwrap_or(attr);
    Some(match name {
        "float32" | "float" => "torch.float32",
        "float64" | "double" => "torch.float64",
        "float16" | "half" => "torch.float16",
        "bfloat16" => "torch.bfloat16",
        "int64" | "long" => "torch.int64",
        "int32" | "int" => "torch.int32",
        "int16" | "short" => "torch.int16",
        "int8" => "torch.int8",
        "uint8" => "torch.uint8",
        "uint16" => "torch.uint16",
        "uint32" => "torch.uint32",
        "uint64" => "torch.uint64",
        "bool" => "torch.bool",
        "complex32" | "chalf" => "torch.complex32",
        "complex64" | "cfloat" => "torch.complex64",
        "complex128" | "cdouble" => "torch.complex128",
        "float8_e4m3fn" => "torch.float8_e4m3fn",
        "float8_e5m2" => "torch.float8_e5m2",
        "float8_e4m3fnuz" => "torch.float8_e4m3fnuz",
        "float8_e5m2fnuz" => "torch.float8_e5m2fnuz",
        "float8_e8m0fnu" => "torch.float8_e8m0fnu",
        "qint8" => "torch.qint8",
        "quint8" => "torch.quint8",
        "qint32" => "torch.qint32",
        "quint4x2" => "torch.quint4x2",
        "quint2x4" => "torch.quint2x4",
        _ => return None,
    })
}

/// The manifest dict, evaluated. Missing keys are empty / `None`, as the rules
/// read them with `.get(key, default)`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ManifestFacts {
    /// `supported_dtypes` in source order: keys are `PyValue::Dtype` for
    /// `torch.<dtype>` attributes, `PyValue::Str` for string keys.
    pub supported_dtypes: Vec<(PyValue, PyValue)>,
    /// `capabilities` in source order.
    pub capabilities: Vec<(String, PyValue)>,
    /// `skip_ops` entries (only strings can equal an operator name).
    pub skip_ops: Vec<String>,
    /// `device_count`; `None` when absent (default 1).
    pub device_count: Option<PyValue>,
    /// `device_name`; `None` when absent (default `"auto"`).
    pub device_name: Option<String>,
    /// `hardware` in source order.
    pub hardware: Vec<(String, PyValue)>,
    /// `resource_limits` in source order.
    pub resource_limits: Vec<(String, PyValue)>,
    /// `supported_container_formats` in source order.
    pub supported_container_formats: Vec<(String, PyValue)>,
    /// `custom_container_decoders` in source order.
    pub custom_container_decoders: Vec<(String, PyValue)>,
    /// `semantic_level`; `None` when absent.
    pub semantic_level: Option<PyValue>,
    /// `custom_test_dirs` is non-empty: user tests the inventory cannot know.
    pub has_custom_test_dirs: bool,
    /// How a real run names its tests (not a manifest key: where the run happens). pytest
    /// roots node ids at the common folder of the working directory and the torchcts
    /// package; when that is `/`, at the package itself. [`RunLayout::default`] is the usual
    /// layout (a venv and a manifest under one home or project folder).
    pub layout: RunLayout,
    /// The Python the run uses (not a manifest key either): its `re` compiles and matches
    /// `skip_ops` and the other regexes.
    pub python: pyregex::PythonVersion,
    /// The project's own `known_segfaults.json` in the run's folder (not a manifest key
    /// either), validated by the caller (`ledger::read_project_ledger`).
    pub project_ledger: crate::ledger::ProjectLedger,
    /// `dtype_filter` (what `--dtype` sets; a manifest may hold it too): with one entry it
    /// is the `dtype` the known-segfault ledger sees on parametrized tests without a dtype
    /// parameter.
    pub dtype_filter: Option<PyValue>,
}

/// Where pytest roots the node ids of a real run, which decides two things show-skips
/// prints: whether torchcts' known-segfault ledger can match (its `nodeid_glob`
/// constraints name `torchcts/...` paths, which only ids rooted above the package contain)
/// and the path in details that quote a node id (`tv/lib/python3.11/site-packages/torchcts/stress/...`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub struct RunLayout {
    /// pytest roots node ids at the package: ids are package-relative, the ledger never fires.
    pub rooted_at_package: bool,
    /// The path from pytest's root folder to the package, ending in `/` (empty: unknown).
    pub node_prefix: String,
}

impl RunLayout {
    /// pytest's choice for a run of show-skips in `working_dir` with torchcts installed in
    /// `package_dir` (both absolute): the common folder of the two, or the package when that
    /// is the file-system root. (An ini file in the package's parents, which would move the
    /// root, is not looked for.)
    pub fn for_paths(working_dir: &std::path::Path, package_dir: &std::path::Path) -> RunLayout {
        let common: std::path::PathBuf = working_dir
            .components()
            .zip(package_dir.components())
            .take_while(|(a, b)| a == b)
            .map(|(a, _)| a)
            .collect();
        let at_root = common.parent().is_none();
        if at_root {
            return RunLayout { rooted_at_package: true, node_prefix: String::new() };
        }
        let relative = package_dir.strip_prefix(&common).unwrap_or(package_dir);
        let mut node_prefix: String =
            relative.components().map(|c| c.as_os_str().to_string_lossy().into_owned()).collect::<Vec<_>>().join("/");
        if !node_prefix.is_empty() {
            node_prefix.push('/');
        }
        RunLayout { rooted_at_package: false, node_prefix }
    }
}

/// The value of `key` in a dict's entries, the last one winning as in a dict display.
pub(crate) fn last_value<'a>(pairs: &'a [(String, PyValue)], key: &str) -> Option<&'a PyValue> {
    pairs.iter().rev().find(|(k, _)| k == key).map(|(_, v)| v)
}

impl ManifestFacts {
    pub fn capability(&self, name: &str) -> Option<&PyValue> {
        last_value(&self.capabilities, name)
    }
    pub fn hardware_value(&self, name: &str) -> Option<&PyValue> {
        last_value(&self.hardware, name)
    }
    pub fn resource_limit(&self, name: &str) -> Option<&PyValue> {
        last_value(&self.resource_limits, name)
    }
    pub fn container_format(&self, name: &str) -> Option<&PyValue> {
        last_value(&self.supported_container_formats, name)
    }
    pub fn container_decoder(&self, name: &str) -> Option<&PyValue> {
        last_value(&self.custom_container_decoders, name)
    }

    /// Build from the tagged JSON rendering of a manifest dict written by
    /// `tests/parity/skips/regenerate.py` (see docs/inventory.md).
    pub fn from_tagged_json(value: &serde_json::Value) -> Result<ManifestFacts, String> {
        let root = tagged_to_py(value)?;
        Ok(ManifestFacts::from_dict(&root))
    }

    /// Build from an evaluated manifest dict.
    pub fn from_dict(root: &PyValue) -> ManifestFacts {
        let mut f = ManifestFacts::default();
        let items: &[(PyValue, PyValue)] = match root {
            PyValue::Dict(items) => items,
            _ => &[],
        };
        let str_pairs = |v: &PyValue| -> Vec<(String, PyValue)> {
            match v {
                PyValue::Dict(items) => {
                    items.iter().filter_map(|(k, x)| k.as_str().map(|s| (s.to_string(), x.clone()))).collect()
                }
                _ => Vec::new(),
            }
        };
        for (k, v) in items {
            let Some(key) = k.as_str() else { continue };
            match key {
                "supported_dtypes" => {
                    f.supported_dtypes = match v {
                        PyValue::Dict(items) => items.clone(),
                        _ => Vec::new(),
                    }
                }
                "capabilities" => f.capabilities = str_pairs(v),
                "skip_ops" => {
                    f.skip_ops = match v {
                        PyValue::List(xs) | PyValue::Tuple(xs) => {
                            xs.iter().filter_map(|x| x.as_str().map(str::to_string)).collect()
                        }
                        _ => Vec::new(),
                    }
                }
                "device_count" => f.device_count = Some(v.clone()),
                "device_name" => f.device_name = Some(v.str_()),
                "hardware" => f.hardware = str_pairs(v),
                "resource_limits" => f.resource_limits = str_pairs(v),
                "supported_container_formats" => f.supported_container_formats = str_pairs(v),
                "custom_container_decoders" => f.custom_container_decoders = str_pairs(v),
                "semantic_level" => f.semantic_level = Some(v.clone()),
                "custom_test_dirs" => f.has_custom_test_dirs = v.truthy(),
                "dtype_filter" => f.dtype_filter = Some(v.clone()),
                _ => {}
            }
        }
        f
    }

    /// The device `show-skips` uses: `--device X` unless `auto`, else the
    /// manifest's `device_name`, where `auto` means `cpu` (no detection happens in
    /// collect-only mode).
    pub fn resolve_device(&self, cli_device: Option<&str>) -> String {
        if let Some(d) = cli_device {
            if d != "auto" {
                return d.to_string();
            }
        }
        match self.device_name.as_deref() {
            None | Some("auto") => "cpu".to_string(),
            Some(d) => d.to_string(),
        }
    }
}

/// Convert the tagged JSON form (`{"bool": true}`, `{"dict": [[k, v], ...]}`, ...).
pub fn tagged_to_py(v: &serde_json::Value) -> Result<PyValue, String> {
    let obj = v.as_object().ok_or_else(|| format!("expected tagged object, got {v}"))?;
    let (tag, x) = obj.iter().next().ok_or("empty tagged object")?;
    let list = |x: &serde_json::Value| -> Result<Vec<PyValue>, String> {
        x.as_array().ok_or("expected array")?.iter().map(tagged_to_py).collect()
    };
    Ok(match tag.as_str() {
        "none" => PyValue::None,
        "bool" => PyValue::Bool(x.as_bool().ok_or("bad bool")?),
        "int" => PyValue::Int(x.as_i64().ok_or("bad int")?),
        "float" => PyValue::Float(x.as_f64().ok_or("bad float")?),
        "str" => PyValue::Str(x.as_str().ok_or("bad str")?.to_string()),
        "dtype" => {
            let s = x.as_str().ok_or("bad dtype")?;
            PyValue::Dtype(canonical_dtype(s).map(str::to_string).unwrap_or_else(|| s.to_string()))
        }
        "list" => PyValue::List(list(x)?),
        "tuple" => PyValue::Tuple(list(x)?),
        "dict" => PyValue::Dict(
            x.as_array()
                .ok_or("bad dict")?
                .iter()
                .map(|pair| {
                    let p = pair.as_array().ok_or("bad dict pair")?;
                    Ok((tagged_to_py(&p[0])?, tagged_to_py(&p[1])?))
                })
                .collect::<Result<_, String>>()?,
        ),
        "other" => PyValue::Other(x.as_str().unwrap_or_default().to_string()),
        t => return Err(format!("unknown tag {t}")),
    })
}

/// Which semantic levels are selected (`--level`, `--level-exact`, `--level-range`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LevelSelection {
    /// `--level N` or the manifest's `semantic_level`: levels 1..=N.
    Cumulative(u8),
    /// `--level-exact N`.
    Exact(u8),
    /// `--level-range A:B` (inclusive; `A == B` behaves as `Exact`).
    Range(u8, u8),
}

impl LevelSelection {
    /// The selection `show-skips` uses without level flags: the manifest's
    /// `semantic_level` (an int 1..8, bool rejected), default 3. `Err` with
    /// torchcts' message where pytest would exit.
    pub fn from_manifest(facts: &ManifestFacts) -> Result<LevelSelection, String> {
        match &facts.semantic_level {
            None => Ok(LevelSelection::Cumulative(3)),
            Some(PyValue::Int(i)) if (1..=8).contains(i) => Ok(LevelSelection::Cumulative(*i as u8)),
            Some(PyValue::Int(_)) => Err("semantic_level must be from 1 to 8".into()),
            Some(_) => Err("semantic_level must be an integer from 1 to 8".into()),
        }
    }

    /// The selection from `show-skips` flags (`--level`, `--level-exact`,
    /// `--level-range`), falling back to the manifest; `Err` with torchcts'
    /// message where pytest would exit.
    pub fn from_cli(
        level: Option<i64>,
        level_exact: Option<i64>,
        level_range: Option<&str>,
        facts: &ManifestFacts,
    ) -> Result<LevelSelection, String> {
        let given = [level.is_some(), level_exact.is_some(), level_range.is_some()].iter().filter(|b| **b).count();
        if given > 1 {
            return Err("Use only one of --level, --level-exact, or --level-range".into());
        }
        let check = |v: i64, field: &str| -> Result<u8, String> {
            if (1..=8).contains(&v) {
                Ok(v as u8)
            } else {
                Err(format!("{field} must be from 1 to 8"))
            }
        };
        if let Some(n) = level_exact {
            return Ok(LevelSelection::Exact(check(n, "--level-exact")?));
        }
        if let Some(text) = level_range {
            let field = "--level-range";
            let text = text.trim();
            let sep = if text.contains(':') {
                Some(':')
            } else if text.contains('-') {
                Some('-')
            } else {
                None
            };
            let parse = |t: &str| -> Result<i64, String> {
                t.trim().parse::<i64>().map_err(|_| format!("{field} must be formatted as MIN:MAX with integer levels"))
            };
            let (lo, hi) = match sep {
                Some(c) => {
                    let (a, b) = text.split_once(c).unwrap_or((text, ""));
                    (parse(a)?, parse(b)?)
                }
                None => {
                    let v = parse(text)?;
                    (v, v)
                }
            };
            let lo = check(lo, &format!("{field} minimum"))?;
            let hi = check(hi, &format!("{field} maximum"))?;
            if lo > hi {
                return Err(format!("{field} minimum must be <= maximum"));
            }
            return Ok(LevelSelection::Range(lo, hi));
        }
        if let Some(n) = level {
            return Ok(LevelSelection::Cumulative(check(n, "--level")?));
        }
        LevelSelection::from_manifest(facts)
    }

    pub(crate) fn normalized(self) -> (Mode, u8, u8) {
        match self {
            LevelSelection::Cumulative(n) => (Mode::Cumulative, 1, n),
            LevelSelection::Exact(n) => (Mode::Exact, n, n),
            LevelSelection::Range(a, b) if a == b => (Mode::Exact, a, b),
            LevelSelection::Range(a, b) => (Mode::Range, a, b),
        }
    }

    pub fn contains(self, level: u8) -> bool {
        let (_, lo, hi) = self.normalized();
        lo <= level && level <= hi
    }

    /// torchcts' `SemanticLevelSelection.label`.
    pub fn label(self) -> String {
        let (mode, lo, hi) = self.normalized();
        match mode {
            Mode::Cumulative => format!("requested <= {hi}"),
            Mode::Exact => format!("requested == {lo}"),
            Mode::Range => format!("requested {lo}-{hi}"),
        }
    }

    pub fn max_level(self) -> u8 {
        self.normalized().2
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Mode {
    Cumulative,
    Exact,
    Range,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn level_selection_labels_match_torchcts() {
        assert_eq!(LevelSelection::Cumulative(4).label(), "requested <= 4");
        assert_eq!(LevelSelection::Exact(4).label(), "requested == 4");
        assert_eq!(LevelSelection::Range(2, 5).label(), "requested 2-5");
        assert_eq!(LevelSelection::Range(3, 3).label(), "requested == 3");
        assert!(LevelSelection::Range(2, 5).contains(5));
        assert!(!LevelSelection::Cumulative(2).contains(3));
    }

    #[test]
    fn cli_selection_like_torchcts() {
        let f = ManifestFacts::default();
        assert_eq!(LevelSelection::from_cli(None, None, Some("2:5"), &f), Ok(LevelSelection::Range(2, 5)));
        assert_eq!(LevelSelection::from_cli(None, None, Some("3"), &f), Ok(LevelSelection::Range(3, 3)));
        assert_eq!(LevelSelection::from_cli(Some(4), None, None, &f), Ok(LevelSelection::Cumulative(4)));
        assert!(LevelSelection::from_cli(Some(4), Some(4), None, &f).is_err());
        assert!(LevelSelection::from_cli(None, None, Some("5:2"), &f).is_err());
    }

    #[test]
    fn manifest_level_defaults_and_rejects_bool() {
        let mut f = ManifestFacts::default();
        assert_eq!(LevelSelection::from_manifest(&f), Ok(LevelSelection::Cumulative(3)));
        f.semantic_level = Some(PyValue::Bool(true));
        assert!(LevelSelection::from_manifest(&f).is_err());
        f.semantic_level = Some(PyValue::Int(9));
        assert!(LevelSelection::from_manifest(&f).is_err());
    }

    #[test]
    fn device_resolution_follows_collect_only_mode() {
        let mut f = ManifestFacts::default();
        assert_eq!(f.resolve_device(None), "cpu");
        assert_eq!(f.resolve_device(Some("auto")), "cpu");
        f.device_name = Some("mps".into());
        assert_eq!(f.resolve_device(Some("auto")), "mps");
        assert_eq!(f.resolve_device(Some("cuda")), "cuda");
    }

    #[test]
    fn dtype_aliases_are_canonical() {
        assert_eq!(canonical_dtype("torch.half"), Some("torch.float16"));
        assert_eq!(canonical_dtype("torch.float"), Some("torch.float32"));
        assert_eq!(canonical_dtype("torch.nn"), None);
    }

    #[test]
    fn truthiness_is_pythons() {
        assert!(!PyValue::Str(String::new()).truthy());
        assert!(PyValue::Str("x".into()).truthy());
        assert!(!PyValue::List(vec![]).truthy());
        assert!(!PyValue::Int(0).truthy());
        assert!(PyValue::Other("object()".into()).truthy());
    }

    #[test]
    fn run_layout_follows_pytests_rootdir_rule() {
        use std::path::Path;
        let under_tmp =
            RunLayout::for_paths(Path::new("/tmp/proj"), Path::new("/tmp/tv/lib/python3.11/site-packages/torchcts"));
        assert_eq!(
            under_tmp,
            RunLayout { rooted_at_package: false, node_prefix: "tv/lib/python3.11/site-packages/torchcts/".into() }
        );
        let venv_inside = RunLayout::for_paths(
            Path::new("/home/u/p"),
            Path::new("/home/u/p/.venv/lib/python3.12/site-packages/torchcts"),
        );
        assert_eq!(venv_inside.node_prefix, ".venv/lib/python3.12/site-packages/torchcts/");
        // Only `/` in common: pytest roots at the package and the ledger cannot match.
        let apart = RunLayout::for_paths(
            Path::new("/tmp/proj"),
            Path::new("/work/tv/venv/lib/python3.11/site-packages/torchcts"),
        );
        assert!(apart.rooted_at_package);
        assert!(!RunLayout::default().rooted_at_package);
    }
}
