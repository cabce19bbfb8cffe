# torchcts-lsp's CPython worker (embedded in the binary; run as `python -I -S -B -X utf8 -c
# <this>`): answers questions about a manifest without running it. One JSON request per
# line on stdin, one JSON answer per line on stdout, in order.
#
#   {"op": "compile", "source": "<the bytes, one char per byte>", "filename": "manifest.py"}
#     -> {"ok": true} | {"ok": false, "message": e.msg, "line": e.lineno, "syntax": true}
#        | {"ok": false, "message": str(e), "line": 0, "syntax": false}  (ValueError, ...)
#   {"op": "find_spec", "names": ["orch"], "paths": ["/venv/lib/python3.11/site-packages"]}
#     -> {"found": {"orch": false}}  (importlib.machinery.PathFinder: no import executed)
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
    return {"error": "unknown op %r" % (op,)}


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
