"""What the scripts that probe each CPython share: the builtins they call, and running a
probe in each CPython given on the command line."""
import subprocess

# Source run inside the probed CPython: binds CALLABLE_BUILTINS, the (name, object) of each
# builtin function and class but the exception classes and what reads stdin, prints, or
# runs code (none of those is called); EXTRA_SKIP, if bound before, leaves out more.
CALLABLE_BUILTINS = r'''
import builtins
SKIP = {"breakpoint", "compile", "copyright", "credits", "dir", "eval", "exec", "exit", "globals", "help",
        "input", "license", "locals", "open", "print", "quit", "vars"} | set(globals().get("EXTRA_SKIP", ()))
CALLABLE_BUILTINS = [
    (name, getattr(builtins, name)) for name in sorted(dir(builtins))
    if not name.startswith("_") and name not in SKIP and callable(getattr(builtins, name))
    and not (isinstance(getattr(builtins, name), type) and issubclass(getattr(builtins, name), BaseException))
]
'''


def outputs(pythons, probe):
    """(version, stdout) of the source `probe` run isolated (`-I -S`) in each CPython."""
    for python in pythons:
        version = subprocess.run([python, "-c", "import sys; print('%d.%d' % sys.version_info[:2])"],
                                 capture_output=True, text=True, check=True).stdout.strip()
        yield version, subprocess.run([python, "-I", "-S", "-c", probe], capture_output=True, text=True,
                                      check=True).stdout
