#!/usr/bin/env python3
"""Regenerate / verify the `check-manifest` parity corpus.

For every folder tests/parity/check/cases/<name>/ holding a manifest.py this
script runs the real tool

    torchcts check-manifest --manifest <absolute path of manifest.py>

and records what it printed in <name>/expected.json (see README.md for the
fields).  Modes:

    regenerate.py [--torchcts EXE]              write expected.json files
    regenerate.py --check [--torchcts EXE]      verify the committed files are current
    regenerate.py --coverage [--torchcts-src DIR]
                                                check every message template is produced
                                                by some case (no tool run needed)
    regenerate.py --table                       print the README coverage table

Only the Python standard library is used.
"""

from __future__ import annotations

import argparse
import ast
import concurrent.futures
import functools
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
CASES = HERE / "cases"
# Manifests whose bytes are not all UTF-8 (a Latin-1 comment, a coding cookie, ...): apart from
# `cases`, whose readers take the files as UTF-8 text.
ENCODING = HERE / "encoding"
# `check-manifest` with no --manifest where no manifest.py exists (not a case folder: it has none).
NO_MANIFEST = HERE / "no_manifest.json"

BANNER_RE = re.compile(r"^  TorchCTS v\S+$")
BANNER_LINE2 = "  PyTorch backend validation harness with explicit capability reporting"
# `warnings.showwarning` format: "<file>:<line>: <Category>: <message>" followed by
# the indented source line (absent if the source is not available).
PY_WARNING_RE = re.compile(r"^(?P<file>.+?):(?P<line>\d+): (?P<cat>[A-Za-z_][\w.]*Warning): (?P<msg>.*)$")
PARSE_PREFIX = "Failed to parse manifest: "
PARSE_LINE_RE = re.compile(r"line (\d+)\)$")
TRACEBACK_HEAD = "Traceback (most recent call last):"
TB_FILE_RE = re.compile(r'File "([^"]*)[/\\]([^"/\\]+)"')


# --------------------------------------------------------------------------
# running the tool
# --------------------------------------------------------------------------

def tool_env() -> dict:
    env = dict(os.environ)
    for var in ("TORCHCTS_USE_PROJECT_VENV", "_TORCHCTS_VENV_ACTIVE", "PYTHONWARNINGS",
                "PYTHONSTARTUP", "PYTHONPATH"):
        env.pop(var, None)
    env["PYTHONDONTWRITEBYTECODE"] = "1"  # no __pycache__ next to the cases
    env["PYTHONIOENCODING"] = "utf-8"
    return env


@functools.lru_cache(maxsize=None)
def machine_folders(torchcts: str) -> tuple:
    """The tool's interpreter's standard library and site-packages folders, as
    (folder, placeholder) pairs: an ImportError names a module's file
    (`cannot import name 'A' from 'typing' (/usr/lib/python3.11/typing.py)`), recorded as
    `(<STDLIB>/typing.py)` (`server/lsp/tests/parity_check.rs` puts the folders of the
    Python our side asked in their place)."""
    try:
        first = Path(torchcts).read_text(encoding="utf-8", errors="replace").splitlines()[0]
    except (OSError, IndexError):
        return ()
    if not first.startswith("#!"):
        return ()
    code = "import sysconfig; p = sysconfig.get_paths(); print(p['stdlib']); print(p['purelib'])"
    out = subprocess.run([first[2:].strip().split()[0], "-c", code], capture_output=True, text=True, timeout=120)
    if out.returncode != 0:
        return ()
    stdlib, purelib = out.stdout.split("\n")[:2]
    # The longer first: site-packages may lie inside the standard library's folder.
    return tuple(sorted([(purelib, "<SITE>"), (stdlib, "<STDLIB>")], key=lambda p: -len(p[0])))


def run_case(torchcts: str, case_dir: Path) -> dict:
    manifest = case_dir / "manifest.py"
    proc = subprocess.run(
        [torchcts, "check-manifest", "--manifest", str(manifest)],
        cwd=str(case_dir),
        env=tool_env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        timeout=300,
    )
    stderr = proc.stderr.decode("utf-8", "replace")
    for folder, placeholder in machine_folders(torchcts):
        stderr = stderr.replace(f"({folder}/", f"({placeholder}/")
    return normalize(proc.returncode,
                     proc.stdout.decode("utf-8", "replace"),
                     stderr,
                     case_dir)




def run_no_manifest(torchcts: str) -> dict:
    """`torchcts check-manifest` with no --manifest in a folder without manifest.py: the
    real tool names the file by its absolute path (`os.path.join(os.getcwd(), ...)`),
    recorded with the folder as `<CASE>`."""
    with tempfile.TemporaryDirectory(prefix="torchcts-no-manifest-") as folder:
        proc = subprocess.run([torchcts, "check-manifest"], cwd=folder, env=tool_env(),
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=300)
        return normalize(proc.returncode, proc.stdout.decode("utf-8", "replace"),
                         proc.stderr.decode("utf-8", "replace"), Path(folder))


def _split(text: str) -> list[str]:
    # keep CR out of the picture; the tool prints with "\n"
    return text.replace("\r\n", "\n").split("\n")


def _join(lines: list[str]) -> str:
    return "\n".join(lines)


def normalize(exit_code: int, stdout: str, stderr: str, case_dir: Path) -> dict:
    case_path = str(case_dir.resolve())
    stdout = stdout.replace(case_path, "<CASE>")
    stderr = stderr.replace(case_path, "<CASE>")

    # --- stdout: drop the banner ("", "  TorchCTS vX", "  PyTorch ...", "")
    out = _split(stdout)
    for i, line in enumerate(out):
        if BANNER_RE.match(line) and i + 1 < len(out) and out[i + 1] == BANNER_LINE2:
            start = i - 1 if i > 0 and out[i - 1] == "" else i
            end = i + 2
            if end < len(out) and out[end] == "":
                end += 1
            out = out[:start] + out[end:]
            break
    stdout = _join(out)

    # --- stderr: pull out Python warnings-module output, handle tracebacks
    err_in = _split(stderr)
    err: list[str] = []
    py_warnings: list[str] = []
    i = 0
    while i < len(err_in):
        m = PY_WARNING_RE.match(err_in[i])
        if m and not err_in[i].startswith(("Warning: ", "Error: ")):
            py_warnings.append(f"{m.group('cat')}: {m.group('msg')}")
            i += 1
            while i < len(err_in) and err_in[i].startswith("  "):
                i += 1
            continue
        err.append(err_in[i])
        i += 1
    uncaught = None
    if TRACEBACK_HEAD in err:
        # machine-specific file paths in the traceback -> keep only the file name
        err = [TB_FILE_RE.sub(r'File "<...>/\2"', line) for line in err]
        tail = [line for line in err if line.strip()]
        uncaught = tail[-1] if tail else None
    stderr = _join(err)

    # --- lines in the order a user sees them: stderr (Warning:, Error:, ...) then stdout
    lines: list[str] = []
    in_tb = False
    for line in err:
        if line == TRACEBACK_HEAD:
            in_tb = True
            continue
        if in_tb:
            continue
        if line != "":
            lines.append(line)
    if uncaught is not None:
        lines.append(uncaught)
    lines.extend(line for line in _split(stdout) if line != "")

    parse_error_line = None
    for line in lines:
        if line.startswith(PARSE_PREFIX):
            m = PARSE_LINE_RE.search(line)
            if m:
                parse_error_line = int(m.group(1))
    result = {
        "exit_code": exit_code,
        "stdout": stdout,
        "stderr": stderr,
        "python_warnings": py_warnings,
        "lines": lines,
        "parse_error_line": parse_error_line,
    }
    if uncaught is not None:
        result["uncaught_exception"] = uncaught
    return result


def dump(result: dict) -> str:
    return json.dumps(result, indent=2, ensure_ascii=False) + "\n"


def case_dirs(selected: list[str] | None = None) -> list[Path]:
    dirs = sorted(p for root in (CASES, ENCODING) for p in root.iterdir() if (p / "manifest.py").is_file())
    if selected:
        dirs = [d for d in dirs if d.name in set(selected)]
    return dirs


def resolve_torchcts(arg: str | None) -> str:
    exe = arg or shutil.which("torchcts")
    if not exe:
        sys.exit("torchcts executable not found; pass --torchcts PATH")
    return os.path.abspath(exe) if os.sep in exe else exe


def cmd_run(args) -> int:
    torchcts = resolve_torchcts(args.torchcts)
    dirs = case_dirs(args.cases)
    stale = []
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        futures = {pool.submit(run_case, torchcts, d): d for d in dirs}
        done = 0
        for fut in concurrent.futures.as_completed(futures):
            d = futures[fut]
            done += 1
            text = dump(fut.result())
            target = d / "expected.json"
            old = target.read_text(encoding="utf-8") if target.exists() else None
            if args.check:
                status = "ok" if old == text else ("MISSING" if old is None else "STALE")
                if status != "ok":
                    stale.append(d.name)
            else:
                status = "unchanged" if old == text else ("new" if old is None else "updated")
                if old != text:
                    target.write_text(text, encoding="utf-8")
            print(f"[{done}/{len(dirs)}] {d.name}: {status}", flush=True)
    if not args.cases:
        text = dump(run_no_manifest(torchcts))
        old = NO_MANIFEST.read_text(encoding="utf-8") if NO_MANIFEST.exists() else None
        if args.check and old != text:
            stale.append(NO_MANIFEST.name)
        elif not args.check and old != text:
            NO_MANIFEST.write_text(text, encoding="utf-8")
        print(f"{NO_MANIFEST.name}: {'ok' if old == text else 'written' if not args.check else 'STALE'}", flush=True)
    if args.check:
        if stale:
            print(f"\n{len(stale)} case(s) out of date: {', '.join(sorted(stale))}")
            return 1
        print(f"\nall {len(dirs)} expected.json files are current")
    return 0


# --------------------------------------------------------------------------
# coverage
# --------------------------------------------------------------------------

# (id, regex over one output line).  One entry per distinct message the user can
# see; section-parameterised templates are listed once per reachable section.
TEMPLATES: list[tuple[str, str]] = [
    # cli.py check_manifest
    ("parse.syntax", r"Failed to parse manifest: .* \(manifest\.py, line \d+\)"),
    ("parse.runtime", r"Failed to parse manifest: (?!.*\(manifest\.py, line \d+\)$).*"),
    ("cli.not_dict", r"Error: 'manifest' must be a dictionary in manifest\.py\."),
    ("cli.valid", r"Manifest is valid!"),
    # validate_manifest
    ("missing_required", r"Error: Missing required key '(manifest_version|device_name|capabilities)'"),
    ("unknown_top_level", r"Error: Unknown top-level manifest key '.*'"),
    ("warn.manifest_version", r"Warning: Unexpected manifest_version .*; expected 1"),
    ("device_name", r"Error: 'device_name' must be a string"),
    ("backend_import", r"Error: 'backend_import' must be null or a string"),
    ("device_count", r"Error: 'device_count' must be a positive integer"),
    ("ieee754_seed", r"Error: 'ieee754_seed' must be a non-negative integer"),
    ("max_samples", r"Error: 'max_samples' must be a non-negative integer"),
    ("max_samples_ieee754", r"Error: 'max_samples_ieee754' must be a non-negative integer"),
    ("semantic_level.type", r"Error: semantic_level must be an integer from 1 to 8"),
    ("semantic_level.range", r"Error: semantic_level must be from 1 to 8"),
    ("show_traceback", r"Error: 'show_traceback' must be a boolean"),
    ("supported_dtypes.not_dict", r"Error: 'supported_dtypes' must be a dictionary"),
    ("supported_dtypes.key", r"Error: Invalid supported_dtypes key .*"),
    ("supported_dtypes.regex", r"Error: supported_dtypes\[.*\] regex is invalid: .*"),
    ("supported_dtypes.regex_line_col", r"Error: supported_dtypes\[.*\] regex is invalid: .* \(line \d+, column \d+\)"),
    ("supported_dtypes.value", r"Error: supported_dtypes\[.*\] must be a boolean or regex string"),
    ("capabilities.not_dict", r"Error: 'capabilities' must be a dictionary"),
    ("capabilities.unknown", r"Error: Unknown capabilities key '.*'"),
    ("capabilities.ieee754_regex", r"Error: capabilities\.ieee754 regex is invalid: .*"),
    ("capabilities.ieee754_regex_line_col", r"Error: capabilities\.ieee754 regex is invalid: .* \(line \d+, column \d+\)"),
    ("capabilities.bool", r"Error: 'capabilities\..*' must be a boolean"),
    ("skip_ops", r"Error: 'skip_ops' must be a list of strings"),
    ("hardware.not_dict", r"Error: 'hardware' must be a dictionary"),
    ("hardware.unknown", r"Error: Unknown hardware key '.*'"),
    ("hardware.memory_model", r"Error: 'hardware\.memory_model' must be 'discrete' or 'unified'"),
    ("hardware.system_memory_gb", r"Error: 'hardware\.system_memory_gb' must be 'auto' or a positive number"),
    ("hardware.device_memory_gb", r"Error: 'hardware\.device_memory_gb' must be 'auto' or a non-empty list of positive numbers"),
    ("hardware.oom_recoverable", r"Error: 'hardware\.oom_recoverable' must be a boolean"),
    ("resource_limits.not_dict", r"Error: 'resource_limits' must be a dictionary"),
    ("resource_limits.unknown", r"Error: Unknown resource_limits key '.*'"),
    ("resource_limits.cleanup", r"Error: 'resource_limits\.cleanup_threshold_pct' must be an integer from 1 to 100"),
    ("resource_limits.positive", r"Error: 'resource_limits\.(max_device_memory_mb|max_system_memory_mb|max_tensor_size_mb)' must be null or a positive number"),
    ("tolerance_overrides.not_dict", r"Error: 'tolerance_overrides' must be a dictionary"),
    ("tol.norm.string_key", r"Error: Invalid tolerance_overrides: tolerance_overrides string keys must use 'category:dtype' or 'category/dtype', got .*"),
    ("tol.norm.key", r"Error: Invalid tolerance_overrides: Invalid tolerance override key: .*"),
    ("tol.norm.category", r"Error: Invalid tolerance_overrides: Invalid tolerance override category: .*"),
    ("tol.norm.dtype", r"Error: Invalid tolerance_overrides: Invalid tolerance override dtype: .*"),
    ("tol.category", r"Error: Invalid tolerance_overrides category '.*'"),
    ("tol.dict_keys", r"Error: Invalid tolerance override keys for '.*:torch\..*': \[.*\]"),
    ("tol.dict_numeric", r"Error: tolerance_overrides .*:torch\.\S+ (rtol|atol) must be numeric"),
    ("tol.tuple_numeric", r"Error: tolerance_overrides .*:torch\.\S+ tuple values must be numeric"),
    ("tol.value", r"Error: Invalid tolerance override value for '.*:torch\..*'"),
    ("formats.not_dict", r"Error: 'supported_container_formats' must be a dictionary"),
    ("formats.unknown", r"Error: Unknown supported_container_formats key '.*'"),
    ("formats.bool", r"Error: 'supported_container_formats\..*' must be a boolean"),
    ("decoders.not_dict", r"Error: 'custom_container_decoders' must be a dictionary"),
    ("decoders.unknown", r"Error: Unknown custom_container_decoders key '.*'"),
    ("decoders.requires_format", r"Error: custom_container_decoders\.\w+ requires supported_container_formats\.\w+=True"),
    ("decoders.spec_form", r"Error: Invalid custom_container_decoders\.\w+: decoder path must be a string in 'module:function' form"),
    ("decoders.spec_path", r"Error: Invalid custom_container_decoders\.\w+: decoder path must be a valid 'module:function' import path"),
    ("decode_cap.requires_decoders", r"Error: 'capabilities\.custom_quantized_decode' requires at least one custom_container_decoders entry"),
    ("warn.decoders_without_cap", r"Warning: custom_container_decoders is set but capabilities\.custom_quantized_decode is false"),
    ("custom_test_dirs.type", r"Error: 'custom_test_dirs' must be a list of strings"),
    ("warn.custom_test_dirs_missing", r"Warning: custom_test_dirs entry '.*' does not exist"),
]

# Message sites in the source that no manifest file can reach through the CLI.
UNREACHABLE = {
    "'manifest' must be a dictionary": "validate_manifest's own check; cli.check_manifest rejects non-dicts first",
    "Invalid tolerance_overrides dtype ": "defense-in-depth; normalize_tolerance_overrides already rejected the dtype",
    "Manifest file not found: ": "recorded apart, in no_manifest.json (the corpus cases all have a manifest.py)",
}

# extra (non-message) behaviours the corpus must show
EXTRA_CHECKS = [
    ("python FutureWarning recorded", lambda r: any(w.startswith("FutureWarning: Possible nested set") for w in r["python_warnings"])),
    ("uncaught exception recorded", lambda r: "uncaught_exception" in r),
    ("exit code 0 with a warning", lambda r: r["exit_code"] == 0 and any(l.startswith("Warning: ") for l in r["lines"])),
    ("warnings before errors", lambda r: any(l.startswith("Warning: ") for l in r["lines"]) and any(l.startswith("Error: ") for l in r["lines"])),
    ("parse_error_line set", lambda r: r["parse_error_line"] is not None),
]


def load_expected() -> dict[str, dict]:
    out = {}
    for d in case_dirs():
        f = d / "expected.json"
        if f.exists():
            out[d.name] = json.loads(f.read_text(encoding="utf-8"))
    return out


def template_hits(expected: dict[str, dict]) -> dict[str, list[str]]:
    hits: dict[str, list[str]] = {tid: [] for tid, _ in TEMPLATES}
    compiled = [(tid, re.compile(rx)) for tid, rx in TEMPLATES]
    for name, res in expected.items():
        for line in res["lines"]:
            for tid, rx in compiled:
                if rx.fullmatch(line) and name not in hits[tid]:
                    hits[tid].append(name)
    return hits


# --- templates straight from the torchcts source --------------------------

SOURCE_FUNCS = {
    "cli.py": {"check_manifest"},
    "core/manifest_schema.py": None,  # every function
    "core/tolerances.py": {"normalize_tolerance_overrides"},
    "core/quantized_decoders.py": {"validate_decoder_spec"},
    "core/semantic_levels.py": {"validate_semantic_level"},
}


def _module_constants(tree: ast.Module) -> dict[str, str]:
    consts = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant):
            for t in node.targets:
                if isinstance(t, ast.Name):
                    consts[t.id] = str(node.value.value)
    return consts


def _str_template_regex(node, consts: dict[str, str]) -> str | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return re.escape(node.value)
    if isinstance(node, ast.JoinedStr):
        parts = []
        for v in node.values:
            if isinstance(v, ast.Constant):
                parts.append(re.escape(v.value))
            elif isinstance(v, ast.FormattedValue) and isinstance(v.value, ast.Name) and v.value.id in consts:
                parts.append(re.escape(consts[v.value.id]))
            else:
                parts.append("(.*?)")
        return "".join(parts)
    return None


def source_templates(src: Path) -> list[tuple[str, str, str]]:
    """(site, literal text, regex over an output line) for each message site."""
    sites = []
    for rel, funcs in SOURCE_FUNCS.items():
        path = src / rel
        tree = ast.parse(path.read_text(encoding="utf-8"))
        consts = _module_constants(tree)
        consts.setdefault("field_name", "semantic_level")  # validate_semantic_level's default
        for fn in ast.walk(tree):
            if not isinstance(fn, ast.FunctionDef) or (funcs is not None and fn.name not in funcs):
                continue
            for node in ast.walk(fn):
                arg, prefix = None, ""
                if isinstance(node, ast.Call) and node.args:
                    f = node.func
                    if isinstance(f, ast.Attribute) and f.attr == "append" and isinstance(f.value, ast.Attribute) \
                            and f.value.attr in ("errors", "warnings"):
                        arg = node.args[0]
                        prefix = "Error: " if f.value.attr == "errors" else "Warning: "
                    elif isinstance(f, ast.Name) and f.id == "print":
                        arg = node.args[0]
                    elif isinstance(f, ast.Name) and f.id in ("ValueError", "SemanticLevelError"):
                        arg = node.args[0]
                        prefix = "Error: Invalid tolerance_overrides: " if f.id == "ValueError" else "Error: "
                elif isinstance(node, ast.Return) and fn.name == "validate_decoder_spec" and node.value is not None:
                    arg = node.value
                    prefix = r"Error: Invalid custom_container_decoders\.\w+: "
                if arg is None:
                    continue
                rx = _str_template_regex(arg, consts)
                if rx is None:
                    continue
                if prefix and not prefix.startswith("Error: Invalid custom_container_decoders"):
                    prefix = re.escape(prefix)
                literal = ast.unparse(arg)
                sites.append((f"{rel}:{node.lineno}", literal, prefix + rx))
    return sites


def find_source(arg: str | None, torchcts: str | None) -> Path | None:
    if arg:
        return Path(arg)
    exe = torchcts or shutil.which("torchcts")
    if exe:
        # the console script's shebang names the interpreter that has torchcts installed
        try:
            first = Path(exe).read_text(encoding="utf-8", errors="replace").splitlines()[0]
            if first.startswith("#!"):
                py = first[2:].strip().split()[0]
                out = subprocess.run([py, "-c", "import torchcts, os; print(os.path.dirname(torchcts.__file__))"],
                                     capture_output=True, text=True, timeout=120)
                if out.returncode == 0 and out.stdout.strip():
                    return Path(out.stdout.strip())
        except OSError:
            pass
    return None


def cmd_coverage(args) -> int:
    expected = load_expected()
    ok = True
    print(f"{len(expected)} cases with expected.json\n")
    hits = template_hits(expected)
    for tid, rx in TEMPLATES:
        cases = hits[tid]
        mark = "ok  " if cases else "MISS"
        ok &= bool(cases)
        print(f"{mark} {tid:40} {len(cases):3} case(s)  e.g. {', '.join(cases[:3])}")

    print()
    for label, pred in EXTRA_CHECKS:
        names = [n for n, r in expected.items() if pred(r)]
        ok &= bool(names)
        print(f"{'ok  ' if names else 'MISS'} {label:40} {len(names):3} case(s)  e.g. {', '.join(names[:3])}")

    src = find_source(args.torchcts_src, args.torchcts)
    print()
    if src is None or not (src / "core" / "manifest_schema.py").exists():
        print("torchcts source not found (pass --torchcts-src DIR); skipped the source cross-check")
    else:
        print(f"cross-check against message sites in {src}:")
        all_lines = [(n, l) for n, r in expected.items() for l in r["lines"]]
        for site, literal, rx in source_templates(src):
            crx = re.compile(rx)
            names = sorted({n for n, l in all_lines if crx.fullmatch(l)})
            unreachable = next((why for key, why in UNREACHABLE.items() if key in literal), None)
            if names:
                print(f"ok   {site:34} {len(names):3} case(s)  {literal[:70]}")
            elif unreachable:
                print(f"n/a  {site:34}            {literal[:70]}  [{unreachable}]")
            else:
                ok = False
                print(f"MISS {site:34}            {literal[:70]}")
    print("\nFULL COVERAGE" if ok else "\nCOVERAGE INCOMPLETE")
    return 0 if ok else 1


def cmd_table(args) -> int:
    expected = load_expected()
    hits = template_hits(expected)
    print("| id | message (regex over one output line) | cases |")
    print("|---|---|---|")
    for tid, rx in TEMPLATES:
        cases = hits[tid]
        shown = ", ".join(f"`{c}`" for c in cases[:4]) + (f" (+{len(cases) - 4})" if len(cases) > 4 else "")
        print(f"| {tid} | `{rx.replace('|', chr(92) + '|')}` | {shown} |")
    return 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--torchcts", help="path of the torchcts executable (default: torchcts on PATH)")
    ap.add_argument("--check", action="store_true", help="verify expected.json files instead of writing them")
    ap.add_argument("--coverage", action="store_true", help="check that every message template is produced by some case")
    ap.add_argument("--table", action="store_true", help="print the README coverage table")
    ap.add_argument("--torchcts-src", help="unpacked torchcts package folder for --coverage's source cross-check")
    ap.add_argument("--jobs", "-j", type=int, default=2, help="parallel tool runs (default 2)")
    ap.add_argument("cases", nargs="*", help="only these case names")
    args = ap.parse_args()
    if args.coverage:
        return cmd_coverage(args)
    if args.table:
        return cmd_table(args)
    return cmd_run(args)


if __name__ == "__main__":
    sys.exit(main())
