"""What the probes of tools/cpython/ run in each CPython to read its standard library: the
text of a function, `stdlib_modules()`, that imports every public standard-library module
(quietly; those that fail to import, or have side effects on import, are left out) and
yields `(name, module)`. Probes are text because each runs in another interpreter."""

STDLIB_MODULES = r"""
import contextlib, importlib, io, sys, warnings
SKIP = {"antigravity", "this", "idlelib", "tkinter", "turtle", "turtledemo", "__main__", "pydoc_data",
        "lib2to3", "ensurepip", "venv"}
def stdlib_modules():
    for name in sorted(sys.stdlib_module_names):
        if name in SKIP or name.startswith("_"):
            continue
        try:
            with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    module = importlib.import_module(name)
        except BaseException:
            continue
        yield name, module
"""
