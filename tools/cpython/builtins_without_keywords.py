#!/usr/bin/env python3
"""Print the builtins that take no keyword argument: a call with any keyword raises
`len() takes no keyword arguments`, whatever the positional arguments. The core's
`eval/builtins.rs::NO_KEYWORDS` is this list (the same in CPython 3.10-3.13).

    python3 tools/cpython/builtins_without_keywords.py  # run with each CPython and compare
"""
from probing import CALLABLE_BUILTINS

exec(CALLABLE_BUILTINS)
names = []
for name, value in CALLABLE_BUILTINS:
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
