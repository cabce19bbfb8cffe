"""Every parity manifest (tests/parity/**/manifest*.py), opened by each capability set:
diagnostics, outline, hovers, completion, code actions, lenses, inlay hints and folding
ranges, each response checked against what the set declared."""

import asyncio
import pathlib

import pytest
from lsprotocol import types

import checks
from conftest import ROOT

MANIFESTS = sorted(p for p in (ROOT / "tests" / "parity").rglob("*.py") if p.name.startswith("manifest"))


async def diagnostics_of(client, uri, timeout=20.0):
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while uri not in client.diagnostics:
        assert loop.time() < deadline, f"no diagnostics for {uri}"
        await asyncio.sleep(0.01)
    return client.diagnostics[uri]


# Hovers on the first lines with a key (the top-level keys). A hover on a regex dtype entry
# counts what setting it otherwise would change, level by level: about 3.5 s each in a debug
# build on the regex parity cases, which would put this suite far over its CI budget.
HOVERED_LINES = 3


def test_the_manifests_are_found():
    # The parity cases: a count that shrinks means a folder moved, not fewer checks.
    assert len(MANIFESTS) >= 100, len(MANIFESTS)


@pytest.mark.asyncio(loop_scope="module")
@pytest.mark.parametrize("path", MANIFESTS, ids=lambda p: str(p.relative_to(ROOT / "tests" / "parity")))
async def test_manifest(client, path: pathlib.Path):
    capabilities = client.capabilities
    uri = path.as_uri()
    raw = path.read_bytes()
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        # The encoding cases (tests/parity/check/encoding): an editor that cannot read a
        # file as UTF-8 decodes it as Latin-1 (Neovim does), and sends that text.
        text = raw.decode("latin-1")
    lines = text.splitlines()
    document = types.TextDocumentIdentifier(uri=uri)
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(uri=uri, language_id="python", version=1, text=text)
        )
    )
    diagnostics = await diagnostics_of(client, uri)
    checks.check_diagnostics(capabilities, diagnostics)

    symbols = await client.text_document_document_symbol_async(types.DocumentSymbolParams(text_document=document))
    checks.check_symbols(capabilities, symbols)

    keyed = [(n, line.index('"') + 1) for n, line in enumerate(lines) if '"' in line]
    for line, character in keyed[:HOVERED_LINES]:
        hover = await client.text_document_hover_async(
            types.HoverParams(text_document=document, position=types.Position(line=line, character=character))
        )
        checks.check_hover(capabilities, hover)

    # Completion where a key starts and at the end of the first two lines with a key.
    for line, character in keyed[:2]:
        for at in (character, len(lines[line].encode("utf-16-le")) // 2):
            result = await client.text_document_completion_async(
                types.CompletionParams(text_document=document, position=types.Position(line=line, character=at))
            )
            checks.check_completion(capabilities, result)

    whole = types.Range(start=types.Position(line=0, character=0), end=types.Position(line=len(lines), character=0))
    actions = await client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=document, range=whole, context=types.CodeActionContext(diagnostics=diagnostics)
        )
    )
    checks.check_code_actions(capabilities, actions)

    await client.text_document_code_lens_async(types.CodeLensParams(text_document=document))
    await client.text_document_inlay_hint_async(types.InlayHintParams(text_document=document, range=whole))
    await client.text_document_folding_range_async(types.FoldingRangeParams(text_document=document))
    client.text_document_did_close(types.DidCloseTextDocumentParams(text_document=document))
