//! `torchcts_lsp._native`: the Python binding of torchcts-lsp (pyo3, abi3, built by maturin).
//!
//! A thin layer over the Rust crate: the command line and the server (`run_main`), and the
//! reports of `check` / `skips --format json` (`torchcts_lsp::api`) turned into Python dicts
//! and lists. The Python package (`python/torchcts_lsp`) wraps these in typed objects.
//!
//! Every call releases the GIL while Rust works and catches panics, so a bug surfaces as a
//! `RuntimeError` instead of taking the interpreter down.

use pyo3::exceptions::{PyFileNotFoundError, PyRuntimeError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyList, PyString};
use serde_json::Value;
use std::io::Write;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::PathBuf;
use std::process::ExitCode;
use torchcts_lsp::api::{self, ApiError, LevelOptions, SkipsOptions, Source};

/// Runs `work` without the GIL; a panic becomes a `RuntimeError`.
fn detached<T: Send>(py: Python<'_>, what: &str, work: impl FnOnce() -> T + Send) -> PyResult<T> {
    py.detach(|| catch_unwind(AssertUnwindSafe(work))).map_err(|panic| {
        let detail = panic
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| panic.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "unknown panic".to_string());
        PyRuntimeError::new_err(format!("torchcts-lsp internal error in {what}: {detail} (please report it)"))
    })
}

fn to_py_err(error: ApiError) -> PyErr {
    match error {
        ApiError::NotFound(m) => PyFileNotFoundError::new_err(m),
        ApiError::Invalid(m) => PyValueError::new_err(m),
    }
}

/// A JSON value as plain Python objects (dict, list, str, int, float, bool, None).
fn to_python<'py>(py: Python<'py>, value: &Value) -> PyResult<Bound<'py, PyAny>> {
    Ok(match value {
        Value::Null => py.None().into_bound(py),
        Value::Bool(b) => PyBool::new(py, *b).to_owned().into_any(),
        Value::Number(n) => match (n.as_i64(), n.as_u64()) {
            (Some(i), _) => i.into_pyobject(py)?.into_any(),
            (None, Some(u)) => u.into_pyobject(py)?.into_any(),
            _ => n.as_f64().unwrap_or(f64::NAN).into_pyobject(py)?.into_any(),
        },
        Value::String(s) => PyString::new(py, s).into_any(),
        Value::Array(items) => {
            let list = PyList::empty(py);
            for item in items {
                list.append(to_python(py, item)?)?;
            }
            list.into_any()
        }
        Value::Object(map) => {
            let dict = PyDict::new(py);
            for (k, v) in map {
                dict.set_item(k, to_python(py, v)?)?;
            }
            dict.into_any()
        }
    })
}

/// A manifest given from Python: a `str` with a line break is manifest text; any other `str`
/// or an `os.PathLike` is a path.
enum OwnedSource {
    Path(PathBuf),
    Text(String),
}

impl OwnedSource {
    fn extract(value: &Bound<'_, PyAny>) -> PyResult<OwnedSource> {
        if let Ok(s) = value.cast::<PyString>() {
            let text = s.to_str()?;
            if text.contains('\n') {
                return Ok(OwnedSource::Text(text.to_string()));
            }
        }
        value.extract::<PathBuf>().map(OwnedSource::Path).map_err(|_| {
            PyTypeError::new_err(format!(
                "expected a path (str or os.PathLike) or manifest text (str with a line break), got {}",
                value.get_type().name().map(|n| n.to_string()).unwrap_or_default()
            ))
        })
    }

    fn source(&self) -> Source<'_> {
        match self {
            OwnedSource::Path(p) => Source::Path(p),
            OwnedSource::Text(t) => Source::Text(t),
        }
    }
}

/// An optional level argument: an `int` (not a `bool`).
fn level_arg(name: &str, value: Option<&Bound<'_, PyAny>>) -> PyResult<Option<i64>> {
    match value {
        None => Ok(None),
        Some(v) if v.is_none() => Ok(None),
        Some(v) if v.is_instance_of::<PyBool>() => {
            Err(PyValueError::new_err(format!("{name} must be an integer from 1 to 8, got a bool")))
        }
        Some(v) => v.extract::<i64>().map(Some).map_err(|_| {
            PyValueError::new_err(format!(
                "{name} must be an integer from 1 to 8, got {}",
                v.repr().map(|r| r.to_string()).unwrap_or_default()
            ))
        }),
    }
}

/// `level_range`: `(min, max)` or `"min:max"`, as the `--level-range` text.
fn level_range_arg(value: Option<&Bound<'_, PyAny>>) -> PyResult<Option<String>> {
    let Some(v) = value.filter(|v| !v.is_none()) else { return Ok(None) };
    if let Ok(s) = v.cast::<PyString>() {
        return Ok(Some(s.to_str()?.to_string()));
    }
    let pair: (Bound<'_, PyAny>, Bound<'_, PyAny>) = v
        .extract()
        .map_err(|_| PyValueError::new_err("level_range must be a (min, max) pair or a 'min:max' string"))?;
    match (level_arg("level_range", Some(&pair.0))?, level_arg("level_range", Some(&pair.1))?) {
        (Some(a), Some(b)) => Ok(Some(format!("{a}:{b}"))),
        _ => Err(PyValueError::new_err("level_range must be a (min, max) pair of integers")),
    }
}

/// Runs the torchcts-lsp command line (`args` without the program name; none: the language
/// server on stdio) and returns its exit code. Output goes to the process's stdout/stderr.
#[pyfunction]
fn run_main(py: Python<'_>, args: Vec<String>) -> PyResult<i32> {
    let code = detached(py, "run_main", move || {
        let code = torchcts_lsp::run_main(args);
        let _ = std::io::stdout().flush();
        code
    })?;
    // `ExitCode` hides its number; it compares equal to the `ExitCode` made from it.
    Ok((0..=255u8).find(|n| ExitCode::from(*n) == code).map_or(1, i32::from))
}

/// The report of `torchcts-lsp check FILE --format json` as a dict.
#[pyfunction]
fn check<'py>(py: Python<'py>, path_or_text: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
    let source = OwnedSource::extract(path_or_text)?;
    let report = detached(py, "check", || api::check_report(source.source()))?.map_err(to_py_err)?;
    to_python(py, &report)
}

/// The report of `torchcts-lsp skips FILE --format json` as a dict.
#[pyfunction]
#[pyo3(signature = (path, level=None, level_exact=None, level_range=None, device=None, inventory=None, torch=None))]
#[allow(clippy::too_many_arguments)]
fn skips<'py>(
    py: Python<'py>,
    path: &Bound<'py, PyAny>,
    level: Option<&Bound<'py, PyAny>>,
    level_exact: Option<&Bound<'py, PyAny>>,
    level_range: Option<&Bound<'py, PyAny>>,
    device: Option<String>,
    inventory: Option<PathBuf>,
    torch: Option<String>,
) -> PyResult<Bound<'py, PyAny>> {
    let options = SkipsOptions {
        levels: LevelOptions {
            level: level_arg("level", level)?,
            level_exact: level_arg("level_exact", level_exact)?,
            level_range: level_range_arg(level_range)?,
        },
        device,
        inventory,
        torch,
    };
    let source = OwnedSource::extract(path)?;
    let report = detached(py, "skips", || api::skips_report(source.source(), &options))?.map_err(to_py_err)?;
    to_python(py, &report)
}

/// The report of `torchcts-lsp report FILE --format json` (the support record) as a dict.
#[pyfunction]
#[pyo3(signature = (path, level=None, device=None, results=None, inventory=None, torch=None))]
#[allow(clippy::too_many_arguments)]
fn report<'py>(
    py: Python<'py>,
    path: PathBuf,
    level: Option<&Bound<'py, PyAny>>,
    device: Option<String>,
    results: Option<Vec<PathBuf>>,
    inventory: Option<PathBuf>,
    torch: Option<String>,
) -> PyResult<Bound<'py, PyAny>> {
    let options = SkipsOptions {
        levels: LevelOptions { level: level_arg("level", level)?, ..LevelOptions::default() },
        device,
        inventory,
        torch,
    };
    let results = results.unwrap_or_default();
    let record = detached(py, "report", || api::support_record(&path, &options, &results))?.map_err(to_py_err)?;
    to_python(py, &record)
}

/// The embedded inventory's (or the file's) `torchcts`, `torch` and `extracted_at`.
#[pyfunction]
#[pyo3(signature = (path=None))]
fn inventory_info<'py>(py: Python<'py>, path: Option<PathBuf>) -> PyResult<Bound<'py, PyAny>> {
    let meta = detached(py, "inventory_info", || match &path {
        Some(p) => api::load_inventory(p).map(|inv| api::inventory_meta(&inv)),
        None => Ok(api::inventory_meta(torchcts_lsp::api::embedded_inventory())),
    })?
    .map_err(to_py_err)?;
    to_python(py, &meta)
}

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add_function(wrap_pyfunction!(run_main, m)?)?;
    m.add_function(wrap_pyfunction!(check, m)?)?;
    m.add_function(wrap_pyfunction!(skips, m)?)?;
    m.add_function(wrap_pyfunction!(report, m)?)?;
    m.add_function(wrap_pyfunction!(inventory_info, m)?)?;
    Ok(())
}
