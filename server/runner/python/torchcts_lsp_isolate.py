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

pytest prints every failed test as FAILED, while torchcts records an exception other than an
AssertionError as ERROR (and a dead isolated child as a `ProcessCrash` ERROR): after pytest's
line for such a test, a line `torchcts-lsp-status: ERROR|CRASHED <node id>` says what
torchcts recorded, so the progress counts it apart from the failures. A test torchcts runs
in a child process (`--subprocess-per-test`) or records without running (a known-segfault
ledger entry) gets no line of pytest's at all: it gets one of ours, `torchcts-lsp-status:
PASSED|FAILED|SKIPPED|ERROR|CRASHED|KNOWN_CRASH <node id>`, so such runs show progress too.
"""

import os
import sys

import pytest

STATUS_PREFIX = "torchcts-lsp-status: "
# The run's config (pytest's terminal reporter registers after our `pytest_configure`).
_config = []


# Node ids pytest reported on (its own line printed).
_reported = set()


def _record(nodeid):
    records = getattr(sys.modules.get("torchcts.conftest"), "_SESSION_RESULTS", None)
    record = records.get(nodeid) if isinstance(records, dict) else None
    return record if isinstance(record, dict) else None


def _kind(record):
    status = record.get("status")
    if status == "ERROR":
        if record.get("failure_stage") == "known_backend_crash":
            return "KNOWN_CRASH"
        return "CRASHED" if record.get("error_type") == "ProcessCrash" else "ERROR"
    return {"PASS": "PASSED", "FAIL": "FAILED", "SKIP": "SKIPPED"}.get(status)


def _say(kind, nodeid):
    reporter = _config[0].pluginmanager.get_plugin("terminalreporter") if _config else None
    if reporter is not None and kind is not None:
        reporter.write_line(STATUS_PREFIX + kind + " " + nodeid)


# A pytest-xdist worker's lines never reach the controller's terminal: the worker puts what
# torchcts recorded on the report (`user_properties` travel with it), the controller says it.
_PROPERTY = "torchcts_lsp_status"


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    if report is None or not report.failed or report.when == "teardown":
        return
    record = _record(item.nodeid)
    if record is not None and record.get("status") == "ERROR":
        report.user_properties.append((_PROPERTY, _kind(record)))


@pytest.hookimpl(trylast=True)
def pytest_runtest_logreport(report):
    _reported.add(report.nodeid)
    if not report.failed or report.when == "teardown":
        return
    record = _record(report.nodeid)
    if record is not None:
        if record.get("status") == "ERROR":
            _say(_kind(record), report.nodeid)
        return
    # No record here: the controller of a `-n N` run, the test's record in a worker.
    kinds = [value for name, value in getattr(report, "user_properties", ()) if name == _PROPERTY]
    if kinds:
        _say(kinds[-1], report.nodeid)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):
    yield
    if item.nodeid not in _reported:
        record = _record(item.nodeid)
        if record is not None:
            _say(_kind(record), item.nodeid)


def pytest_configure(config):
    _config[:] = [config]
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
