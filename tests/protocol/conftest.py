"""An independent LSP client (pytest-lsp, on pygls and lsprotocol) drives the built
`torchcts-lsp` under three capability sets: pytest-lsp's VS Code and Neovim sets and a
minimal client that declares nothing. Every response is structured into lsprotocol's types
(a malformed one fails) and checked against what the set declared (`checks.py`).

The server: `TORCHCTS_LSP` (default: target/debug/torchcts-lsp of this checkout)."""

import os
import pathlib

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities, make_test_lsp_client

ROOT = pathlib.Path(__file__).resolve().parents[2]
SERVER = os.environ.get("TORCHCTS_LSP", str(ROOT / "target" / "debug" / "torchcts-lsp"))

CAPABILITY_SETS = {
    "vscode": lambda: client_capabilities("visual-studio-code"),
    "neovim": lambda: client_capabilities("neovim"),
    "minimal": lambda: types.ClientCapabilities(),
}


def client_factory():
    """pytest-lsp's client, answering the requests it has no default for as an editor would."""
    client = make_test_lsp_client()
    client.requests_seen = []

    def seen(method):
        def answer(params=None):
            client.requests_seen.append(method)
            return None

        return answer

    for method in (
        types.WORKSPACE_CODE_LENS_REFRESH,
        types.WORKSPACE_INLAY_HINT_REFRESH,
        types.CLIENT_REGISTER_CAPABILITY,
        types.WORKSPACE_APPLY_EDIT,
    ):
        client.feature(method)(seen(method))
    client.feature("torchcts/status")(lambda params=None: None)
    return client


@pytest_lsp.fixture(
    config=ClientServerConfig(server_command=[SERVER], client_factory=client_factory),
    params=list(CAPABILITY_SETS),
    scope="module",
)
async def client(request, lsp_client: LanguageClient):
    """pytest-lsp hands this fixture its client (`lsp_client`); tests get it as `client`."""
    capabilities = CAPABILITY_SETS[request.param]()
    lsp_client.capability_set = request.param
    lsp_client.initialize_result = await lsp_client.initialize_session(
        types.InitializeParams(capabilities=capabilities, root_uri=(ROOT / "tests" / "parity").as_uri())
    )
    yield
    await lsp_client.shutdown_session()


def capability_set_of(nodeid):
    """The capability set a test ran under: the `client` fixture's parameter leads its id."""
    first = nodeid.partition("[")[2].rstrip("]").split("-", 1)[0]
    return first if first in CAPABILITY_SETS else "no client"


def pytest_terminal_summary(terminalreporter):
    """How many tests passed and failed per capability set, for the CI log."""
    counts = {}
    for outcome in ("passed", "failed", "error", "skipped"):
        for report in terminalreporter.stats.get(outcome, []):
            # A test's outcome is its call phase's; a failing setup is reported as "error".
            if outcome == "passed" and getattr(report, "when", None) != "call":
                continue
            per_set = counts.setdefault(capability_set_of(report.nodeid), {})
            per_set[outcome] = per_set.get(outcome, 0) + 1
    terminalreporter.write_sep("-", "tests per capability set (client: pytest-lsp)")
    for name in [*CAPABILITY_SETS, "no client"]:
        if name in counts:
            per_set = counts[name]
            extra = "".join(f", {per_set[o]} {o}" for o in ("error", "skipped") if o in per_set)
            label = f"{name} set" if name in CAPABILITY_SETS else "without a client"
            terminalreporter.write_line(f"{label}: {per_set.get('passed', 0)} passed, {per_set.get('failed', 0)} failed{extra}")
