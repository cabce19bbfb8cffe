"""What each capability set is sent unasked: refresh requests only where `refreshSupport`
is declared, and (once the inventory has loaded) lenses for an opened manifest."""

import asyncio

import pytest
from lsprotocol import types

from conftest import ROOT



@pytest.mark.asyncio(loop_scope="module")
async def test_refresh_only_when_declared_and_lenses_without_an_edit(client):
    path = ROOT / "tests" / "parity" / "diff" / "cases" / "base" / "manifest.py"
    uri = path.as_uri() + "?refresh"  # another document than the parity test's
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(uri=uri, language_id="python", version=1, text=path.read_text())
        )
    )
    lenses = await client.text_document_code_lens_async(
        types.CodeLensParams(text_document=types.TextDocumentIdentifier(uri=uri))
    )
    assert lenses, "no lens right after didOpen"
    await asyncio.sleep(0.5)
    workspace = client.capabilities.workspace
    declared = {
        types.WORKSPACE_CODE_LENS_REFRESH: bool(workspace and workspace.code_lens and workspace.code_lens.refresh_support),
        types.WORKSPACE_INLAY_HINT_REFRESH: bool(
            workspace and workspace.inlay_hint and workspace.inlay_hint.refresh_support
        ),
    }
    for method, allowed in declared.items():
        if not allowed:
            assert method not in client.requests_seen, (method, client.requests_seen)
    assert client.error is None
