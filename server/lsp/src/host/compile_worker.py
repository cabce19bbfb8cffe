# torchcts-lsp's CPython worker (embedded in the binary; run as `python -I -S -B -X utf8 -c
# <this>`): answers questions about a manifest without running it. One JSON request per
# line on stdin, one JSON answer per line on stdout, in order.
#
#   {"op": "compile", "source": "<the bytes, one char per byte>", "filename": "manifest.py"}
#     -> {"ok": true} | {"ok": false, "message": e.msg, "line": e.lineno, "syntax": true}
#        | {"ok": false, "message": str(e), "line": 0, "syntax": false}  (ValueError, ...)
#   {"op": "find_spec", "names": ["orch"], "paths": ["/venv/lib/python3.11/site-packages"]}
#     -> {"found": {"orch": false}}  (importlib.machinery.PathFinder: no import executed)
#   {"op": "module_file", "names": ["typing", "sys"], "paths": ["/venv/lib/python3.11/site-packages"]}
#     -> {"files": {"typing": {"found": true, "file": "/usr/lib/python3.11/typing.py", "submodules": []},
#                   "sys": {"found": true, "file": null, "submodules": []}}}
#     (the `__file__` the module will have, as `from typing import X` names it in its
#     ImportError: importlib.util.find_spec of a top-level name imports nothing; a frozen
#     module's file is its loader_state's; a built-in module has none; one the standard
#     library lacks is looked for with PathFinder in `paths`, the environment's folders; a
#     package's submodules are those pkgutil lists in its folders, which `from torch import
#     onnx` imports)
#
# compile() is what check-manifest's loader does to the file's bytes before it executes them
# (importlib's source_to_code); nothing here executes the manifest, and nothing is written.
import json
import sys


def answer(request):
    op = request.get("op")
    if op == "compile":
        source = request["source"].encode("latin-1")
        try:
            compile(source, request.get("filename") or "manifest.py", "exec", dont_inherit=True)
            return {"ok": True}
        except SyntaxError as e:
            return {"ok": False, "message": str(e.msg), "line": e.lineno or 0, "syntax": True}
        except Exception as e:  # ValueError (null bytes on 3.11), RecursionError, MemoryError
            return {"ok": False, "message": str(e), "line": 0, "syntax": False}
    if op == "find_spec":
        from importlib.machinery import PathFinder

        found = {}
        for name in request["names"]:
            try:
                found[name] = PathFinder.find_spec(name, list(request["paths"])) is not None
            except Exception:
                found[name] = None
        return {"found": found}
    if op == "module_file":
        paths = list(request.get("paths") or [])
        return {"files": {name: module_file(name, paths) for name in request["names"]}}
    return {"error": "unknown op %r" % (op,)}


def module_file(name, paths):
    if "." in name:
        return {"found": False, "file": None}
    loaded = sys.modules.get(name)
    if loaded is not None:
        found = {"found": True, "file": getattr(loaded, "__file__", None)}
        return dict(found, submodules=submodules(getattr(loaded, "__path__", None)))
    from importlib.machinery import PathFinder
    from importlib.util import find_spec

    try:
        spec = find_spec(name) or PathFinder.find_spec(name, paths)
    except Exception:
        spec = None
    if spec is None:
        return {"found": False, "file": None}
    if spec.origin == "frozen":
        file = getattr(spec.loader_state, "filename", None)
    else:
        file = spec.origin if spec.has_location else None
    return {"found": True, "file": file, "submodules": submodules(spec.submodule_search_locations)}


def submodules(locations):
    if not locations:
        return []
    import pkgutil

    try:
        return sorted({info.name for info in pkgutil.iter_modules(list(locations))})
    except Exception:
        return None


def main():
    out = sys.stdout
    hello = {"implementation": sys.implementation.name, "version": list(sys.version_info[:2])}
    out.write(json.dumps(hello) + "\n")
    out.flush()
    for line in sys.stdin:
        try:
            reply = answer(json.loads(line))
        except Exception as e:
            reply = {"error": repr(e)}
        out.write(json.dumps(reply) + "\n")
        out.flush()


main()
