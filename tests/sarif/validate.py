"""Validates `torchcts-lsp check|analyze --format sarif` against the SARIF 2.1.0 JSON schema
(tests/sarif/sarif-schema-2.1.0.json: the OASIS 2.1.0 schema, rtm.5, as Microsoft's
@microsoft/jest-sarif package ships it) with Python's reference `jsonschema`.

    python tests/sarif/validate.py target/debug/torchcts-lsp
"""

import json
import pathlib
import subprocess
import sys
import tempfile

import jsonschema

root = pathlib.Path(__file__).resolve().parents[2]
binary = sys.argv[1]
schema = json.loads((root / "tests/sarif/sarif-schema-2.1.0.json").read_text())
validator = jsonschema.Draft4Validator(schema)
cases = sorted((root / "tests/parity/check/cases").glob("*/manifest.py"))
with tempfile.TemporaryDirectory() as tmp:
    syntax = pathlib.Path(tmp, "manifest.py")
    syntax.write_text('manifest = {\n    "manifest_version": 1\n    "device_name": "cpu",\n}\n')
    files = [str(c) for c in cases] + [str(syntax), str(pathlib.Path(tmp, "missing.py"))]
    logs = 0
    for command in ("check", "analyze"):
        for args in ([files[0]], files):
            out = subprocess.run([binary, command, "--format", "sarif", *args], capture_output=True, text=True)
            log = json.loads(out.stdout)
            errors = sorted(validator.iter_errors(log), key=lambda e: list(e.path))
            for e in errors[:10]:
                print(f"{command}: {list(e.path)}: {e.message}", file=sys.stderr)
            if errors:
                sys.exit(f"{command} --format sarif ({len(args)} files): {len(errors)} schema errors")
            logs += 1
            results = len(log["runs"][0]["results"])
            print(f"{command} --format sarif, {len(args)} files: valid SARIF 2.1.0, {results} results")
print(f"{logs} passed, 0 failed: SARIF logs valid against the 2.1.0 schema")
