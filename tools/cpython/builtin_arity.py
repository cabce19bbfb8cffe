#!/usr/bin/env python3
"""Record what each builtin raises for a wrong count of positional arguments, per CPython.

    python3 tools/cpython/builtin_arity.py ~/.pyenv/versions/3.1[0-3]*/bin/python

Calls every builtin function and class (no exception class, nothing that reads stdin,
prints or runs code) with 0 to 6 `None` arguments in each CPython given, and keeps the
argument-count messages: they come before any argument is converted, so they hold for any
values. Writes two files:
- `server/core/data/builtin_arity.txt`, which the core reads (`eval/builtin_arguments.rs`): the
  exact message for 0 to 4 arguments, and one for 5 or more with `{n}` for the count;
- `server/core/tests/fixture/builtin_arity.tsv`, the messages for 0 to 6 arguments, which
  the core's tests compare its answers with.
Each line: name, count, the CPython versions (`all` where 3.10-3.13 agree), the message.
"""
import os
import re
import sys

from probing import CALLABLE_BUILTINS, outputs

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
ARITY = re.compile(r"takes exactly one argument|expected .*argument|takes at most|takes at least|"
                   r"missing required argument|takes no arguments|must have at least two arguments|"
                   r"takes \d or \d arguments")

PROBE = 'EXTRA_SKIP = {"aiter", "anext"}\n' + CALLABLE_BUILTINS + r'''
for name, value in CALLABLE_BUILTINS:
    for n in range(7):
        try:
            value(*([None] * n))
            message = "-"
        except TypeError as error:
            message = str(error)
        except Exception:
            message = "-"
        print(name, n, message, sep="\t")
'''

answers = {}
versions = []
for version, out in outputs(sys.argv[1:], PROBE):
    versions.append(version)
    for line in out.splitlines():
        name, n, message = line.split("\t")
        if ARITY.search(message):
            answers.setdefault((name, int(n)), {})[version] = message


def grouped(by_version):
    """`all=message`, or one `version=message` per version that has one."""
    if len(by_version) == len(versions) and len(set(by_version.values())) == 1:
        return [("all", next(iter(by_version.values())))]
    return sorted(by_version.items())


header = f"# CPython {' '.join(versions)}: written by tools/cpython/builtin_arity.py\n"
with open(os.path.join(ROOT, "server/core/tests/fixture/builtin_arity.tsv"), "w") as out:
    out.write(header)
    for (name, n), by_version in sorted(answers.items()):
        for version, message in grouped(by_version):
            out.write(f"{name}\t{n}\t{version}\t{message}\n")
with open(os.path.join(ROOT, "server/core/data/builtin_arity.txt"), "w") as out:
    out.write(header)
    for (name, n), by_version in sorted(answers.items()):
        if n > 5:
            continue
        if n == 5:
            # The template for 5 or more: the count is the only number that moves.
            templated = {v: m.replace("5", "{n}") for v, m in by_version.items()}
            six = answers.get((name, 6), {})
            assert all(six.get(v) == m.replace("{n}", "6") for v, m in templated.items()), (name, six)
            by_version = templated
        for version, message in grouped(by_version):
            out.write(f"{name}\t{'5+' if n == 5 else n}\t{version}\t{message}\n")
