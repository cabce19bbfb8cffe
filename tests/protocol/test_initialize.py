"""What `initialize` advertises to each capability set: the options forms only to a client
that declared the matching support (LSP 3.17)."""

import pytest
from lsprotocol import types

import checks


@pytest.mark.asyncio(loop_scope="module")
async def test_server_capabilities_match_what_the_client_declared(client):
    declared = checks.text_document(client.capabilities)
    server = client.initialize_result.capabilities

    # `RenameOptions` "may only be specified if the client states that it supports
    # `prepareSupport` in its initial `initialize` request".
    prepare = bool(declared.rename and declared.rename.prepare_support)
    if prepare:
        assert isinstance(server.rename_provider, types.RenameOptions), server.rename_provider
        assert server.rename_provider.prepare_provider is True
    else:
        assert server.rename_provider is True, server.rename_provider

    # `CodeActionOptions` only with `codeActionLiteralSupport`.
    literals = bool(declared.code_action and declared.code_action.code_action_literal_support)
    if literals:
        assert isinstance(server.code_action_provider, types.CodeActionOptions), server.code_action_provider
    else:
        assert server.code_action_provider is True, server.code_action_provider

