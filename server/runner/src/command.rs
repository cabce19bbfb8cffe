//! The command lines of a run: which Python, the probe that finds the torchcts package, and
//! the `python -m torchcts run ...` argv.
//!
//! Invariants: argv entries are built from values, never parsed from a string, and no shell
//! is involved, so a manifest value cannot inject a command. Long options take their value in
//! the same entry (`--device=VALUE`), so a value that starts with `-` cannot become an option
//! either; node ids are made absolute (they start with `/`) for the same reason.
//!
//! Why the extra pytest options (all forwarded by torchcts's `run`, which hands every argument
//! after `run` to `pytest.main`, appending `--tb=no` and, when no test path is given, the
//! default suite folders):
//! - `--rootdir=PKG --confcutdir=PARENT`: with node ids from one folder pytest would take that
//!   folder as rootdir and never load torchcts's `conftest.py`, failing with "unrecognized
//!   arguments: --device". With them, node ids in results are relative to the package, as in
//!   the inventory (the same options `tools/inventory/extract_inventory.py` uses).
//! - `-pno:cacheprovider`: the rootdir is the installed package; do not write
//!   `.pytest_cache` into the user's site-packages.
//! - `-v -rfE --color=no`: one line per test (`<location> PASSED [ 33%]`) for progress, a
//!   short summary of failures, no ANSI escapes.
//! - `-n N` (two entries: torchcts's `run` recognises only that form for its parallel-mode
//!   notice) when the request asks for more than one worker: pytest-xdist runs the tests in N
//!   processes; torchcts gives each worker its own `<hardware>_latest.gwK.json` and merges them
//!   at the end of the session (`output.rs` reads xdist's `[gwK] [ NN%] PASSED <location>`).
//! - `-ptorchcts_lsp_isolate` (with the package's rootdir): our pytest plugin
//!   (`server/runner/python/torchcts_lsp_isolate.py`, put on `PYTHONPATH` by `process.rs`)
//!   that gives torchcts's isolated child processes an absolute node id and the same rootdir;
//!   without it every isolated test fails to collect (see the plugin's docstring).
//!   `--subprocess-per-test` when the request asks for isolation.

use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};

use super::{LevelSelection, RunRequest, Selection};

/// Set by the Python package `torchcts_lsp` to the interpreter that runs the server
/// (`sys.executable`): the user installed the package into that environment.
pub const PACKAGE_PYTHON_ENV: &str = "TORCHCTS_LSP_PYTHON";

/// The interpreter for runs: the `setting` if given; else `$VIRTUAL_ENV/bin/python`; else
/// `<workspace>/.venv/bin/python`; else the Python package's interpreter
/// (`$TORCHCTS_LSP_PYTHON`); else `python3` (looked up on PATH when the run starts).
/// The two venv candidates are used only if the file exists.
pub fn find_python(setting: Option<&Path>, workspace: Option<&Path>) -> PathBuf {
    let package_python = std::env::var_os(PACKAGE_PYTHON_ENV);
    find_python_with(setting, workspace, std::env::var_os("VIRTUAL_ENV").as_deref(), package_python.as_deref())
}

/// [`find_python`] with `$VIRTUAL_ENV` and `$TORCHCTS_LSP_PYTHON` passed in (tests must not
/// mutate the environment).
pub fn find_python_with(
    setting: Option<&Path>,
    workspace: Option<&Path>,
    virtual_env: Option<&OsStr>,
    package_python: Option<&OsStr>,
) -> PathBuf {
    if let Some(setting) = setting.filter(|s| !s.as_os_str().is_empty()) {
        return setting.to_path_buf();
    }
    if let Some(venv) = virtual_env.filter(|v| !v.is_empty()) {
        let candidate = Path::new(venv).join("bin").join("python");
        if candidate.is_file() {
            return candidate;
        }
    }
    if let Some(workspace) = workspace {
        let candidate = workspace.join(".venv").join("bin").join("python");
        if candidate.is_file() {
            return candidate;
        }
    }
    if let Some(python) = package_python.filter(|p| !p.is_empty()) {
        return PathBuf::from(python);
    }
    PathBuf::from("python3")
}

/// The folder torchcts runs in: the manifest's.
pub fn manifest_dir(req: &RunRequest) -> PathBuf {
    match req.manifest_path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

/// `results_dir`, absolute when the manifest path is.
pub fn results_dir(req: &RunRequest) -> PathBuf {
    if req.results_dir.is_absolute() {
        req.results_dir.clone()
    } else {
        manifest_dir(req).join(&req.results_dir)
    }
}

/// Python run before the real command, in the manifest's folder, to learn where `torchcts`
/// is imported from (node ids and `--rootdir` need it) and the working directory as Python
/// sees it (pytest prints locations relative to it). `find_spec` does not import the package;
/// the script runs no workspace code. Prints one JSON object.
pub const PROBE_SCRIPT: &str = "import importlib.util, json, os\n\
s = importlib.util.find_spec('torchcts')\n\
d = list(s.submodule_search_locations)[0] if s is not None and s.submodule_search_locations else None\n\
t = importlib.util.find_spec('torch')\n\
v = None\n\
try:\n    v = open(os.path.join(list(t.submodule_search_locations)[0], 'version.py')).read().split(\"__version__ = '\", 1)[1].split(\"'\", 1)[0]\n\
except Exception:\n    pass\n\
print(json.dumps({'package_dir': os.path.abspath(d) if d else None, 'cwd': os.getcwd(), 'torch_version': v}))\n";

/// The module name of our pytest plugin and its source.
pub const PLUGIN_MODULE: &str = "torchcts_lsp_isolate";
pub const PLUGIN_SOURCE: &str = include_str!("../python/torchcts_lsp_isolate.py");

/// The folder the plugin is written to (and put on `PYTHONPATH`): in the results folder,
/// which is ours.
pub fn plugin_dir(req: &RunRequest) -> PathBuf {
    results_dir(req).join(".torchcts-lsp-plugin")
}

pub fn probe_command(req: &RunRequest) -> (PathBuf, Vec<OsString>) {
    (req.python.clone(), vec![OsString::from("-c"), OsString::from(PROBE_SCRIPT)])
}

/// `python -m torchcts run --device=D --non-interactive --results-dir=DIR [--rootdir=PKG
/// --confcutdir=PARENT] -pno:cacheprovider --color=no -v -rfE [-n N] [--level=N |
/// --level-exact=N | --level-range=A:B] [--dtype=X]... [-k EXPR] [NODE...]`, to be run in
/// [`manifest_dir`]. `-n N` only with `workers` above 1; whether pytest-xdist is there to
/// take it is the caller's check.
///
/// `package_dir` is the torchcts package folder from the probe; without it relative node ids
/// are resolved against the manifest's folder and pytest picks its own rootdir.
pub fn command_line(req: &RunRequest, package_dir: Option<&Path>) -> (PathBuf, Vec<OsString>) {
    let mut args: Vec<OsString> = ["-m", "torchcts", "run"].iter().map(OsString::from).collect();
    args.push(joined("--device=", req.device.as_ref()));
    args.push("--non-interactive".into());
    args.push(joined("--results-dir=", results_dir(req).as_os_str()));
    if let Some(pkg) = package_dir {
        args.push(joined("--rootdir=", pkg.as_os_str()));
        let parent = pkg.parent().unwrap_or(pkg);
        args.push(joined("--confcutdir=", parent.as_os_str()));
        args.push(format!("-p{PLUGIN_MODULE}").into());
    }
    if req.isolate {
        args.push("--subprocess-per-test".into());
    }
    for fixed in ["-pno:cacheprovider", "--color=no", "-v", "-rfE"] {
        args.push(fixed.into());
    }
    if req.workers > 1 {
        args.push("-n".into());
        args.push(req.workers.to_string().into());
    }
    match &req.selection {
        Selection::Nodes(ids) => {
            let base = manifest_dir(req);
            for id in ids {
                args.push(resolve_node_id(id, package_dir, &base));
            }
        }
        Selection::Filters { level, dtypes, keyword } => {
            args.push(match level {
                LevelSelection::Cumulative(n) => format!("--level={n}").into(),
                LevelSelection::Exact(n) => format!("--level-exact={n}").into(),
                LevelSelection::Range(a, b) => format!("--level-range={a}:{b}").into(),
            });
            for dtype in dtypes {
                args.push(joined("--dtype=", dtype.as_ref()));
            }
            if let Some(keyword) = keyword {
                args.push("-k".into());
                args.push(keyword.into());
            }
        }
    }
    (req.python.clone(), args)
}

/// A node id as an argument: absolute ids as they are; relative ones under the torchcts
/// package (or, without it, the manifest's folder). Only the path before `::` is joined.
pub fn resolve_node_id(id: &str, package_dir: Option<&Path>, manifest_dir: &Path) -> OsString {
    if Path::new(id).is_absolute() {
        return id.into();
    }
    let base = package_dir.unwrap_or(manifest_dir);
    let mut out = base.as_os_str().to_os_string();
    if !out.is_empty() && !out.to_string_lossy().ends_with('/') {
        out.push("/");
    }
    out.push(id.trim_start_matches("./"));
    out
}

fn joined(prefix: &str, value: &OsStr) -> OsString {
    let mut out = OsString::from(prefix);
    out.push(value);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn req(selection: Selection) -> RunRequest {
        RunRequest {
            python: "/venv/bin/python".into(),
            manifest_path: "/work/proj/manifest.py".into(),
            device: "cpu".into(),
            selection,
            results_dir: "results".into(),
            timeout: Duration::from_secs(60),
            workers: 0,
            isolate: false,
            env: Vec::new(),
        }
    }

    fn strings(args: &[OsString]) -> Vec<String> {
        args.iter().map(|a| a.to_string_lossy().into_owned()).collect()
    }

    #[test]
    fn node_ids_are_made_absolute_under_the_package() {
        let r = req(Selection::Nodes(vec![
            "opinfo/test_opinfo_forward.py::test_op_forward[clean-add-torch.float32]".into(),
            "/abs/test_x.py::test_y".into(),
        ]));
        let (program, args) = command_line(&r, Some(Path::new("/site/torchcts")));
        assert_eq!(program, PathBuf::from("/venv/bin/python"));
        assert_eq!(
            strings(&args),
            [
                "-m",
                "torchcts",
                "run",
                "--device=cpu",
                "--non-interactive",
                "--results-dir=/work/proj/results",
                "--rootdir=/site/torchcts",
                "--confcutdir=/site",
                "-ptorchcts_lsp_isolate",
                "-pno:cacheprovider",
                "--color=no",
                "-v",
                "-rfE",
                "/site/torchcts/opinfo/test_opinfo_forward.py::test_op_forward[clean-add-torch.float32]",
                "/abs/test_x.py::test_y",
            ]
        );
    }

    #[test]
    fn filters_become_torchcts_options() {
        for (level, flag) in [
            (LevelSelection::Cumulative(3), "--level=3"),
            (LevelSelection::Exact(8), "--level-exact=8"),
            (LevelSelection::Range(2, 4), "--level-range=2:4"),
        ] {
            let r = req(Selection::Filters {
                level,
                dtypes: vec!["float32".into(), "bfloat16".into()],
                keyword: Some("add and not addmm".into()),
            });
            let args = strings(&command_line(&r, None).1);
            let tail = &args[args.len() - 5..];
            assert_eq!(tail, [flag, "--dtype=float32", "--dtype=bfloat16", "-k", "add and not addmm"]);
            assert!(!args.iter().any(|a| a.starts_with("--rootdir")));
        }
    }

    #[test]
    fn workers_become_xdist_processes() {
        let mut r = req(Selection::Nodes(vec!["a.py::t".into()]));
        let without = strings(&command_line(&r, Some(Path::new("/site/torchcts"))).1);
        r.workers = 1;
        assert_eq!(strings(&command_line(&r, Some(Path::new("/site/torchcts"))).1), without, "one worker: no -n");
        r.workers = 4;
        let args = strings(&command_line(&r, Some(Path::new("/site/torchcts"))).1);
        let at = args.iter().position(|a| a == "-n").expect("-n");
        assert_eq!(args[at + 1], "4");
        assert_eq!(args.last().map(String::as_str), Some("/site/torchcts/a.py::t"), "the node ids stay last");
    }

    #[test]
    fn hostile_values_stay_single_arguments() {
        let mut r = req(Selection::Filters {
            level: LevelSelection::Cumulative(1),
            dtypes: vec!["float32 --collect-only".into()],
            keyword: Some("x or $(touch /tmp/pwned)".into()),
        });
        r.device = "cpu; touch /tmp/pwned".into();
        let args = strings(&command_line(&r, None).1);
        assert!(args.contains(&"--device=cpu; touch /tmp/pwned".to_string()));
        assert!(args.contains(&"--dtype=float32 --collect-only".to_string()));
        assert!(args.contains(&"x or $(touch /tmp/pwned)".to_string()));
        assert!(!args.contains(&"--collect-only".to_string()));
    }

    #[test]
    fn python_lookup_order() {
        let dir = std::env::temp_dir().join(format!("torchcts-lsp-findpy-{}", std::process::id()));
        let venv = dir.join("venv");
        let ws = dir.join("ws");
        std::fs::create_dir_all(venv.join("bin")).unwrap();
        std::fs::create_dir_all(ws.join(".venv/bin")).unwrap();
        std::fs::write(venv.join("bin/python"), "").unwrap();
        std::fs::write(ws.join(".venv/bin/python"), "").unwrap();
        let setting = Path::new("/opt/py/bin/python3.12");
        assert_eq!(find_python_with(Some(setting), Some(&ws), Some(venv.as_os_str()), None), setting);
        assert_eq!(
            find_python_with(None, Some(&ws), Some(venv.as_os_str()), Some(OsStr::new("/pkg/bin/python"))),
            venv.join("bin/python")
        );
        assert_eq!(find_python_with(None, Some(&ws), None, None), ws.join(".venv/bin/python"));
        assert_eq!(
            find_python_with(None, Some(&ws), Some(OsStr::new("/nonexistent")), None),
            ws.join(".venv/bin/python")
        );
        assert_eq!(find_python_with(None, Some(&dir), None, None), PathBuf::from("python3"));
        assert_eq!(find_python_with(None, None, None, None), PathBuf::from("python3"));
        // The Python package's interpreter comes after the two venvs, before `python3`.
        let package = OsStr::new("/pkg/bin/python");
        assert_eq!(find_python_with(None, Some(&dir), None, Some(package)), PathBuf::from("/pkg/bin/python"));
        assert_eq!(find_python_with(None, Some(&ws), None, Some(package)), ws.join(".venv/bin/python"));
        assert_eq!(find_python_with(Some(setting), None, None, Some(package)), setting);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
