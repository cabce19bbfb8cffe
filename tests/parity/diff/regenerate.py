#!/usr/bin/env python3
"""Regenerate the review-diff parity corpus from a real torchcts install.

    python3 tests/parity/diff/regenerate.py --torchcts-python /tmp/tv/bin/python [--case NAME ...]

The same procedure as tests/parity/skips/regenerate.py (whose code this reuses), over
cases.json of this folder: a base manifest and variants of it that each change one kind of
entry (a dtype switched off, a skip_ops entry added, a capability switched off, a resource
limit). `server/lsp/tests/diff_parity.rs` checks that `torchcts-lsp diff base variant` equals the
difference of the two real show-skips outputs.
"""

import importlib.util
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
_spec = importlib.util.spec_from_file_location("skips_regenerate", os.path.join(HERE, "..", "skips", "regenerate.py"))
skips = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(skips)
skips.HERE = HERE
skips.CASES_DIR = os.path.join(HERE, "cases")

if __name__ == "__main__":
    sys.exit(skips.main())
