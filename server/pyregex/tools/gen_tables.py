#!/usr/bin/env python3
"""Generate the Unicode data of the pyregex crate from the CPythons whose `re` it answers for.

    python3 tools/gen_tables.py [PYTHON ...]

Each PYTHON is a CPython 3.10, 3.11, 3.12 and 3.13 interpreter (default: the first of
`~/.pyenv/versions/3.1X.*/bin/python` and `python3.1X` on PATH for each); all four are needed.
The script runs itself (`--dump`) under each, which reads the data that interpreter's `re`
uses: `_sre.unicode_tolower`, `_PyUnicode_ToUppercase`, `str` predicates, the case fixes of
its `re` compiler (`re._casefix._EXTRA_CASES`, 3.10's `sre_compile._ignorecase_fixes`), and
`unicodedata`'s names with their aliases (read from its own name table, so each version's
aliases are its own). It writes:

* `src/tables.rs` and `src/unicode_names.txt`: CPython 3.11's tables (Unicode 14.0.0), the base;
* `src/version_tables.rs`: per minor version, what differs from the base (3.10 has Unicode
  13.0.0, 3.12 15.0.0, 3.13 15.1.0), never written by hand.
"""
import glob
import json
import os
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.join(HERE, "..", "src")
MAX = 0x110000
MINORS = (10, 11, 12, 13)
BASE = 11
SETS = ("SPACE", "ALNUM", "ALPHA", "PRINTABLE", "ID_START", "ID_CONTINUE")


# ---- the child: what one interpreter's `re` uses ---------------------------------------
def dump():
    import ctypes
    import unicodedata
    import _sre

    upper_f = ctypes.pythonapi._PyUnicode_ToUppercase
    upper_f.restype = ctypes.c_uint32
    upper_f.argtypes = [ctypes.c_uint32]

    def ranges(pred):
        out = []
        start = None
        for c in range(MAX):
            if pred(c):
                if start is None:
                    start = c
            elif start is not None:
                out.append((start, c - 1))
                start = None
        if start is not None:
            out.append((start, MAX - 1))
        return out

    def text(pred):
        return lambda c: not (0xD800 <= c <= 0xDFFF) and pred(chr(c))

    lower = [(c, _sre.unicode_tolower(c)) for c in range(MAX) if _sre.unicode_tolower(c) != c]
    upper = [(c, upper_f(c)) for c in range(MAX) if upper_f(c) != c]
    lmap, umap = dict(lower), dict(upper)
    for c in range(MAX):
        assert _sre.unicode_iscased(c) == (lmap.get(c, c) != c or umap.get(c, c) != c)

    if sys.version_info >= (3, 11):
        import re._casefix
        fixes = re._casefix._EXTRA_CASES
    else:
        import sre_compile
        fixes = sre_compile._ignorecase_fixes
    extra = [(k, x) for k, v in sorted(fixes.items()) for x in v]

    decimal = [(c, unicodedata.decimal(chr(c))) for c in range(MAX) if text(str.isdecimal)(c)]
    sets = {
        "SPACE": ranges(text(str.isspace)),
        "ALNUM": ranges(text(str.isalnum)),
        "ALPHA": ranges(text(str.isalpha)),
        "PRINTABLE": ranges(text(str.isprintable)),
        "ID_START": ranges(text(str.isidentifier)),
        "ID_CONTINUE": ranges(text(lambda s: ("a" + s).isidentifier())),
    }

    def algorithmic(n):
        return n.startswith("CJK UNIFIED IDEOGRAPH-") or n.startswith("HANGUL SYLLABLE ")

    pairs = []
    ideographs = []
    for c in range(MAX):
        n = unicodedata.name(chr(c), None) if not (0xD800 <= c <= 0xDFFF) else None
        if n and n.startswith("CJK UNIFIED IDEOGRAPH-"):
            ideographs.append(c)
        if n and not algorithmic(n):
            assert unicodedata.lookup(n) == chr(c), n
            pairs.append((c, n))
    seen = set(n for _, n in pairs)
    # Aliases live in unicodedata's name table at U+F0000.. (named sequences from U+F0200,
    # which `re` treats as undefined); `_ucnhash_CAPI.getname` reads them.
    capsule_pointer = ctypes.pythonapi.PyCapsule_GetPointer
    capsule_pointer.restype = ctypes.c_void_p
    capsule_pointer.argtypes = [ctypes.py_object, ctypes.c_char_p]
    api = capsule_pointer(unicodedata._ucnhash_CAPI, b"unicodedata._ucnhash_CAPI")
    getname = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_uint32, ctypes.c_char_p, ctypes.c_int, ctypes.c_int)(
        ctypes.cast(api, ctypes.POINTER(ctypes.c_void_p))[0])
    buf = ctypes.create_string_buffer(256)
    aliases = 0
    for c in range(0xF0000, 0xF0200):
        if not getname(c, buf, 256, 1):
            continue
        n = buf.value.decode("ascii")
        target = unicodedata.lookup(n)
        if n in seen or len(target) != 1:
            continue
        pairs.append((ord(target), n))
        seen.add(n)
        aliases += 1
    pairs.sort()
    json.dump({
        "python": sys.version.split()[0],
        "minor": sys.version_info[1],
        "unicode": unicodedata.unidata_version,
        "lower": lower,
        "upper": upper,
        "extra_cases": extra,
        "decimal": decimal,
        "sets": sets,
        "names": pairs,
        "aliases": aliases,
        "ideographs": runs(ideographs),
    }, sys.stdout)


def runs(cps):
    out = []
    for c in cps:
        if out and out[-1][1] == c - 1:
            out[-1][1] = c
        else:
            out.append([c, c])
    return out


# ---- the parent: the base tables and the per-version differences ----------------------
def wrap_items(items, indent, width):
    """The items, each followed by a comma, in lines of at most `width` characters."""
    out = ""
    line = indent
    for item in items:
        if len(line) + len(item) + 2 > width:
            out += line + "\n"
            line = indent
        line += " " + item + ","
    return out + line


def fmt_pairs(name, pairs, doc):
    parts = ["(0x%X, 0x%X)" % tuple(p) for p in pairs]
    return doc + "pub static %s: &[(u32, u32)] = &[\n" % name + wrap_items(parts, "   ", 96) + "\n];\n"


def wrapped(head, items, tail):
    """`head` and the items of a generated field, in lines of at most 100 characters."""
    if not items:
        return head + tail
    return head + "\n" + wrap_items(items, "       ", 100) + "\n    " + tail


def decimal_runs(decimal):
    """(lo, hi, value of lo) runs of consecutive code points with consecutive values."""
    out = []
    for c, v in decimal:
        if out and out[-1][1] == c - 1 and out[-1][2] + (c - out[-1][0]) == v:
            out[-1][1] = c
        else:
            out.append([c, c, v])
    return out


def write_base(d):
    out = ["// @generated by tools/gen_tables.py from CPython %s (Unicode %s). Do not edit.\n"
           % (d["python"], d["unicode"]),
           "#![allow(clippy::unreadable_literal)]\n"]
    out.append(fmt_pairs("LOWER", d["lower"],
                         "/// `_sre.unicode_tolower` (simple lowercase) where it differs from the identity.\n"))
    out.append(fmt_pairs("UPPER", d["upper"],
                         "/// `_PyUnicode_ToUppercase` (what `sre_upper_unicode` uses) where it differs.\n"))
    out.append("/// `str.isdecimal` code points as (lo, hi, decimal value of lo).\n")
    out.append("pub static DECIMAL: &[(u32, u32, u32)] = &[\n" +
               "".join("    (0x%X, 0x%X, %d),\n" % tuple(r) for r in decimal_runs(d["decimal"])) + "];\n")
    docs = {
        "SPACE": "/// `str.isspace` (`Py_UNICODE_ISSPACE`).\n",
        "ALNUM": "/// `str.isalnum` (`Py_UNICODE_ISALNUM`).\n",
        "ALPHA": "/// `str.isalpha`.\n",
        "PRINTABLE": "/// `str.isprintable` (used by `repr`).\n",
        "ID_START": "/// Characters accepted as the first character of `str.isidentifier`.\n",
        "ID_CONTINUE": "/// Characters accepted after the first character of `str.isidentifier`.\n",
    }
    for name in SETS:
        out.append(fmt_pairs(name, d["sets"][name], docs[name]))
    with open(os.path.join(SRC, "tables.rs"), "w") as f:
        f.write("".join(out))

    lines = []
    prev_c, prev_n = 0, ""
    for c, n in d["names"]:
        k = 0
        while k < len(prev_n) and k < len(n) and prev_n[k] == n[k]:
            k += 1
        lines.append("%d %d %s" % (c - prev_c, k, n[k:]))
        prev_c, prev_n = c, n
    with open(os.path.join(SRC, "unicode_names.txt"), "w") as f:
        f.write("\n".join(lines) + "\n")


def membership(rs):
    bits = bytearray(MAX)
    for lo, hi in rs:
        bits[lo:hi + 1] = b"\x01" * (hi - lo + 1)
    return bits


def flips(base, other):
    """Ranges of code points whose membership differs."""
    a, b = membership(base), membership(other)
    return runs(c for c in range(MAX) if a[c] != b[c])


def map_delta(base, other, absent):
    """(code point, value in `other`) wherever the two maps differ; `absent` for no value."""
    a, b = dict(base), dict(other)
    return sorted((c, b.get(c, absent)) for c in set(a) | set(b) if a.get(c, absent) != b.get(c, absent))


def write_versions(dumps):
    base = dumps[BASE]
    out = ["// @generated by tools/gen_tables.py from CPython %s. Do not edit.\n"
           % ", ".join("%s (Unicode %s)" % (dumps[m]["python"], dumps[m]["unicode"]) for m in MINORS),
           "//! What each CPython's `re` sees differently from 3.11's tables (`tables.rs`).\n",
           "#![allow(clippy::unreadable_literal)]\n",
           "use crate::unicode::UnicodeData;\n"]
    counts = []
    for m in MINORS:
        d = dumps[m]
        name = "V3_%d" % m
        lower = map_delta(base["lower"], d["lower"], None)
        upper = map_delta(base["upper"], d["upper"], None)
        decimal = map_delta(base["decimal"], d["decimal"], None)
        base_names = {n: c for c, n in base["names"]}
        names = {n: c for c, n in d["names"]}
        added = sorted((n, c) for n, c in names.items() if base_names.get(n) != c)
        removed = sorted(n for n in base_names if n not in names)
        body = ["/// CPython %s's `re`: Unicode %s.\n" % (d["python"], d["unicode"]),
                "pub static %s: UnicodeData = UnicodeData {\n" % name,
                "    python: %s,\n" % json.dumps(d["python"]),
                "    unicode: %s,\n" % json.dumps(d["unicode"])]

        def field(fname, items):
            body.append(wrapped("    %s: &[" % fname, items, "],\n"))

        # a case mapping back to the identity is written as the code point itself
        hexes = lambda pairs: ["(0x%X, 0x%X)" % tuple(p) for p in pairs]
        field("lower", hexes((c, c if v is None else v) for c, v in lower))
        field("upper", hexes((c, c if v is None else v) for c, v in upper))
        field("decimal", hexes((c, 0xFFFFFFFF if v is None else v) for c, v in decimal))
        set_flips = {s: flips(base["sets"][s], d["sets"][s]) for s in SETS}
        for s in SETS:
            field(s.lower() + "_flips", hexes(set_flips[s]))
        field("extra_cases", hexes(d["extra_cases"]))
        field("ideographs", hexes(d["ideographs"]))
        field("names_added", ["(%s, 0x%X)" % (json.dumps(n), c) for n, c in added])
        field("names_removed", [json.dumps(n) for n in removed])
        body.append("};\n")
        out.extend(body)
        if m != BASE:
            counts.append("3.%d: %d case, %d decimal, %d set ranges, %d names added, %d removed" % (
                m, len(lower) + len(upper), len(decimal), sum(len(v) for v in set_flips.values()),
                len(added), len(removed)))
    with open(os.path.join(SRC, "version_tables.rs"), "w") as f:
        f.write("".join(out))
    return counts


def default_pythons():
    found = []
    for m in MINORS:
        cands = sorted(glob.glob(os.path.expanduser("~/.pyenv/versions/3.%d.*/bin/python" % m)))
        on_path = shutil.which("python3.%d" % m)
        found.append(cands[-1] if cands else on_path)
    return found


def main():
    if sys.argv[1:] == ["--dump"]:
        dump()
        return
    pythons = sys.argv[1:] or default_pythons()
    dumps = {}
    for py in pythons:
        if not py:
            continue
        d = json.loads(subprocess.run([py, os.path.abspath(__file__), "--dump"], check=True,
                                      stdout=subprocess.PIPE).stdout)
        dumps[d["minor"]] = d
        print("read %s (Unicode %s): %d names (%d aliases)" % (d["python"], d["unicode"], len(d["names"]),
                                                                d["aliases"]))
    missing = [m for m in MINORS if m not in dumps]
    if missing:
        sys.exit("needs CPython %s (pass the interpreters as arguments)" % ", ".join("3.%d" % m for m in missing))
    write_base(dumps[BASE])
    for line in write_versions(dumps):
        print(line)


if __name__ == "__main__":
    main()
