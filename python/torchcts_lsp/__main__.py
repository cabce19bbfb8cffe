"""The ``torchcts-lsp`` command (and ``python -m torchcts_lsp``): the Rust server and CLI, run
in this process, with this interpreter as the server's default Python.

    torchcts-lsp                                   # the language server on stdio
    torchcts-lsp check manifest.py --format github # CI: annotations, non-zero exit on errors
    torchcts-lsp skips manifest.py --level 4 --format json
"""

from __future__ import annotations

import os
import signal
import sys
from collections.abc import Sequence

from . import PYTHON_ENV, _native


def main(argv: Sequence[str] | None = None) -> int:
    """Runs the command line ``argv`` (default ``sys.argv[1:]``); returns the exit code."""
    args = list(sys.argv[1:] if argv is None else argv)
    os.environ.setdefault(PYTHON_ENV, sys.executable)
    sys.stdout.flush()
    sys.stderr.flush()
    # Rust runs without the GIL, so Python's Ctrl-C handler would only fire once it returns:
    # let SIGINT end the command at once, as it ends the native binary.
    previous = None
    try:
        previous = signal.signal(signal.SIGINT, signal.SIG_DFL)
    except ValueError:  # not the main thread
        pass
    try:
        return _native.run_main(args)
    finally:
        if previous is not None:
            signal.signal(signal.SIGINT, previous)


if __name__ == "__main__":
    sys.exit(main())
