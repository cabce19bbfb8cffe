#!/usr/bin/env python3
"""Prints server/core/src/cpython/codec_names.rs: every name CPython's codec registry finds
(`encodings.search_function`: an alias in `encodings.aliases`, or a module of the
`encodings` package with `getregentry`).

Run with the CPython whose answers the emulation follows (3.11, the torchcts environment):
    /tmp/tv/bin/python tools/cpython/codec_names.py > server/core/src/cpython/codec_names.rs
"""
import encodings
import encodings.aliases
import importlib
import pkgutil
import sys

modules = set()
for module in pkgutil.iter_modules(encodings.__path__):
    try:
        if hasattr(importlib.import_module(f"encodings.{module.name}"), "getregentry"):
            modules.add(module.name)
    except Exception:  # noqa: BLE001 - a codec module that does not import is no codec here
        pass

print(f"//! The codec names CPython {sys.version.split()[0]}'s registry finds through `encodings.search_function`")
print("//! (written by `tools/cpython/codec_names.py`).")
print()
print("/// `encodings.aliases.aliases`: each alias and the module it names, sorted by alias (for a")
print("/// binary search).")
print("pub(super) const CODEC_ALIASES: &[(&str, &str)] = &[")
for name, module in sorted(encodings.aliases.aliases.items()):
    print(f'    ("{name}", "{module}"),')
print("];")
print()
print("/// The modules of the `encodings` package that define a codec (`getregentry`), sorted.")
print("pub(super) const CODEC_MODULES: &[&str] = &[")
for name in sorted(modules):
    print(f'    "{name}",')
print("];")
