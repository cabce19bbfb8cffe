"""pytest plugin loaded by torchcts-lsp into `torchcts run` (`-p torchcts_lsp_isolate`).

torchcts runs an isolated test (`--subprocess-per-test`, a known segfault, or adaptive
isolation after an earlier crash) as `python -m pytest <node id> --device ...` in the current
folder. Its node id is relative to pytest's rootdir, which for torchcts-lsp's runs is the
torchcts package while the current folder is the manifest's: the child finds no such file,
and without torchcts's conftest it rejects `--device` ("unrecognized arguments"). This makes
the child's node id absolute and gives it the parent's rootdir, so it collects the same test.

The same rootdir makes node ids package-relative (`opinfo/test_x.py::t`), which torchcts's
known-segfault ledgers never match: their node ids are `torchcts/opinfo/test_x.py::t`, what
any other rootdir canonicalises to. Ledger matching therefore sees the node id with the
`torchcts/` prefix a run from the manifest's folder would give it.
"""

import os
import sys


def pytest_configure(config):
    conftest = sys.modules.get("torchcts.conftest")
    original = getattr(conftest, "_subprocess_child_command", None)
    if original is None or getattr(original, "_torchcts_lsp", False):
        return
    root = str(config.rootpath)

    def child_command(item):
        cmd = list(original(item))
        if item.nodeid in cmd:
            at = cmd.index(item.nodeid)
            cmd[at] = os.path.join(root, item.nodeid)
            cmd[at + 1 : at + 1] = [
                "--rootdir=" + root,
                "--confcutdir=" + os.path.dirname(root),
                "-pno:cacheprovider",
            ]
        return cmd

    child_command._torchcts_lsp = True
    conftest._subprocess_child_command = child_command

    match_for_item = getattr(conftest, "_known_segfault_match_for_item", None)
    if match_for_item is not None and os.path.basename(root) == "torchcts":

        def rooted_match(item):
            return match_for_item(_AsIfRootedAbove(item))

        conftest._known_segfault_match_for_item = rooted_match


class _AsIfRootedAbove:
    """An item whose node id starts with `torchcts/`; everything else is the item's."""

    def __init__(self, item):
        object.__setattr__(self, "_item", item)

    @property
    def nodeid(self):
        return "torchcts/" + self._item.nodeid

    def __getattr__(self, name):
        return getattr(self._item, name)
