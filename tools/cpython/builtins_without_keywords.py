#!/usr/bin/env python3
"""Print the builtins that take no keyword argument: a call with any keyword raises
`len() takes no keyword arguments`, whatever the positional arguments. The core's
`eval/builtins.rs::NO_KEYWORDS` is this list (the same in CPython 3.10-3.13).

    python3 tools/cpython/builtins_without_keywords.py  # run with each CPython and compare
"""
import builtins

# Functions that read stdin, print, or run code: not called here (none is in the list).
SKIP = {"breakpoint", "compile", "copyright", "credits", "dir", "eval", "exec", "exit", "globals", "help",
        "input", "license", "locals", "open", "print", "quit", "vars"}

names = []
for name in sorted(dir(builtins)):
    value = getattr(builtins, name)
    if name.startswith("_") or name in SKIP or not callable(value):
        continue
    if isinstance(value, type) and issubclass(value, BaseException):
        continue
    messages = set()
    for args in [(), (1,), ([1],), (1, 2)]:
        try:
            value(*args, pr=int)
            messages.add("called")
        except Exception as error:
            messages.add(str(error))
    if messages == {f"{name}() takes no keyword arguments"}:
        names.append(name)
print(len(names), " ".join(names))
