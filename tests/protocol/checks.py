"""What a response may hold under the capabilities a client declared (LSP 3.17's rules)."""

from lsprotocol import types

BASE_SYMBOL_KINDS = {int(k) for k in types.SymbolKind if 1 <= int(k) <= 18}
BASE_COMPLETION_KINDS = {int(k) for k in types.CompletionItemKind if 1 <= int(k) <= 18}


def text_document(capabilities):
    return capabilities.text_document or types.TextDocumentClientCapabilities()


def declared_symbol_kinds(capabilities):
    symbols = text_document(capabilities).document_symbol
    value_set = symbols and symbols.symbol_kind and symbols.symbol_kind.value_set
    return {int(k) for k in value_set} if value_set else BASE_SYMBOL_KINDS


def declared_completion_kinds(capabilities):
    completion = text_document(capabilities).completion
    value_set = completion and completion.completion_item_kind and completion.completion_item_kind.value_set
    return {int(k) for k in value_set} if value_set else BASE_COMPLETION_KINDS


def markdown_in(formats):
    return bool(formats) and types.MarkupKind.Markdown in formats


def check_diagnostics(capabilities, diagnostics):
    publish = text_document(capabilities).publish_diagnostics
    if not (publish and publish.related_information):
        assert all(d.related_information is None for d in diagnostics), diagnostics


def check_symbols(capabilities, symbols):
    symbols_caps = text_document(capabilities).document_symbol
    hierarchical = bool(symbols_caps and symbols_caps.hierarchical_document_symbol_support)
    kinds = declared_symbol_kinds(capabilities)
    stack = list(symbols or [])
    while stack:
        s = stack.pop()
        if hierarchical:
            assert isinstance(s, types.DocumentSymbol), s
            stack.extend(s.children or [])
        else:
            assert isinstance(s, types.SymbolInformation), s
        assert int(s.kind) in kinds, s


def check_hover(capabilities, hover):
    if hover is None:
        return
    assert isinstance(hover.contents, types.MarkupContent), hover
    hover_caps = text_document(capabilities).hover
    if not markdown_in(hover_caps and hover_caps.content_format):
        assert hover.contents.kind == types.MarkupKind.PlainText, hover
        # Rendered, not raw: no code fences, no code ticks right inside bold.
        value = hover.contents.value
        assert "```" not in value and "**`" not in value and "`**" not in value, value


def check_completion(capabilities, result):
    items = result.items if isinstance(result, types.CompletionList) else (result or [])
    kinds = declared_completion_kinds(capabilities)
    completion = text_document(capabilities).completion
    formats = completion and completion.completion_item and completion.completion_item.documentation_format
    for item in items:
        assert item.kind is None or int(item.kind) in kinds, item
        if isinstance(item.documentation, types.MarkupContent) and not markdown_in(formats):
            assert item.documentation.kind == types.MarkupKind.PlainText, item


def check_code_actions(capabilities, actions):
    code_action = text_document(capabilities).code_action
    literals = bool(code_action and code_action.code_action_literal_support)
    preferred = bool(code_action and code_action.is_preferred_support)
    for action in actions or []:
        if literals:
            # lsprotocol 2025.0.0 structures a code action that holds only a title, kind and
            # command as a `Command` whose `command` is the repr of the command object: such a
            # one is a literal too, and never a real command id (those start `torchcts.`).
            misread = isinstance(action, types.Command) and action.command.startswith("{")
            assert isinstance(action, types.CodeAction) or misread, action
            assert misread or preferred or action.is_preferred is None, action
        else:
            assert isinstance(action, types.Command), action
            assert action.command.startswith("torchcts."), action
