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
#     -> {"files": {"typing": {"found": true, "file": "/usr/lib/python3.11/typing.py", "submodules": [],
#                              "repr": "<module 'typing' from '/usr/lib/python3.11/typing.py'>"},
#                   "sys": {"found": true, "file": null, "submodules": [], "repr": "<module 'sys' (built-in)>"}}}
#     (the `__file__` the module will have, as `from typing import X` names it in its
#     ImportError: importlib.util.find_spec of a top-level name imports nothing; a frozen
#     module's file is its loader_state's; a built-in module has none; one the standard
#     library lacks is looked for with PathFinder in `paths`, the environment's folders; a
#     package's submodules are those pkgutil lists in its folders, which `from torch import
#     onnx` imports; the repr is the one the module will have, as `_module_repr_from_spec`
#     makes it; a dotted name is looked for in its package's folders)
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
    loaded = sys.modules.get(name)
    if loaded is not None:
        found = {"found": True, "file": getattr(loaded, "__file__", None), "repr": module_repr(repr(loaded))}
        return dict(found, submodules=submodules(getattr(loaded, "__path__", None)))
    spec = find_module_spec(name, paths)
    if spec is None:
        return {"found": False, "file": None}
    if spec.origin == "frozen":
        file = getattr(spec.loader_state, "filename", None)
    else:
        file = spec.origin if spec.has_location else None
    from importlib._bootstrap import _module_repr_from_spec

    found = {"found": True, "file": file, "repr": module_repr(_module_repr_from_spec(spec))}
    return dict(found, submodules=submodules(spec.submodule_search_locations))


def find_module_spec(name, paths):
    # A submodule (`torch.nn`) is looked for in its package's folders, as the import system
    # does once the package is imported; here the package is not imported.
    from importlib.machinery import PathFinder
    from importlib.util import find_spec

    top, _, rest = name.partition(".")
    try:
        spec = find_spec(top) or PathFinder.find_spec(top, paths)
        for part in rest.split(".") if rest else []:
            if spec is None or not spec.submodule_search_locations:
                return None
            spec = PathFinder.find_spec(spec.name + "." + part, list(spec.submodule_search_locations))
    except Exception:
        return None
    return spec


def module_repr(text):
    # A repr showing a loader object's address is the run's, not known here.
    return None if " at 0x" in text else text


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
