//! What the client declared it understands, read once from `initialize`'s capabilities into
//! plain answers, so that `to_proto` and the features never walk the capability tree: each
//! response is shaped from these (the LSP 3.17 spec's fallback when a capability is absent).

use tower_lsp_server::ls_types::{ClientCapabilities, CompletionItemKind, MarkupKind, SymbolKind};

/// The symbol kinds of LSP 1.0 (File..Array): all a client without `symbolKind.valueSet` knows.
const BASE_SYMBOL_KINDS: [SymbolKind; 18] = {
    use SymbolKind as K;
    [
        K::FILE,
        K::MODULE,
        K::NAMESPACE,
        K::PACKAGE,
        K::CLASS,
        K::METHOD,
        K::PROPERTY,
        K::FIELD,
        K::CONSTRUCTOR,
        K::ENUM,
        K::INTERFACE,
        K::FUNCTION,
        K::VARIABLE,
        K::CONSTANT,
        K::STRING,
        K::NUMBER,
        K::BOOLEAN,
        K::ARRAY,
    ]
};

/// The completion kinds of LSP 1.0 (Text..Reference): all a client without
/// `completionItemKind.valueSet` knows.
const BASE_COMPLETION_KINDS: [CompletionItemKind; 18] = {
    use CompletionItemKind as K;
    [
        K::TEXT,
        K::METHOD,
        K::FUNCTION,
        K::CONSTRUCTOR,
        K::FIELD,
        K::VARIABLE,
        K::CLASS,
        K::INTERFACE,
        K::MODULE,
        K::PROPERTY,
        K::UNIT,
        K::VALUE,
        K::ENUM,
        K::KEYWORD,
        K::SNIPPET,
        K::COLOR,
        K::FILE,
        K::REFERENCE,
    ]
};

/// The client's declared support, per feature the server answers or sends. `Default` is a
/// client that declared nothing (LSP 1.0 shapes only).
#[derive(Clone, Debug, Default)]
pub struct ClientSupport {
    /// `textDocument.codeAction.codeActionLiteralSupport`: `CodeAction` objects (else `Command[]`).
    pub code_action_literals: bool,
    /// `textDocument.codeAction.isPreferredSupport`.
    pub preferred_code_actions: bool,
    /// `workspace.applyEdit`: the server may ask the client to apply an edit.
    pub apply_edit: bool,
    /// `textDocument.documentSymbol.hierarchicalDocumentSymbolSupport` (else `SymbolInformation[]`).
    pub hierarchical_symbols: bool,
    /// `textDocument.documentSymbol.symbolKind.valueSet`; `None`: File..Array only.
    pub symbol_kinds: Option<Vec<SymbolKind>>,
    /// `textDocument.completion.completionItemKind.valueSet`; `None`: Text..Reference only.
    pub completion_kinds: Option<Vec<CompletionItemKind>>,
    /// `markdown` in `textDocument.hover.contentFormat` (else plain text).
    pub hover_markdown: bool,
    /// `markdown` in `textDocument.completion.completionItem.documentationFormat`.
    pub completion_markdown: bool,
    /// `textDocument.publishDiagnostics.relatedInformation`.
    pub related_information: bool,
    /// `textDocument.foldingRange.foldingRangeKind.valueSet` holds `region`.
    pub folding_region_kind: bool,
    /// `window.workDoneProgress`: the server may create progress tokens and report on them.
    pub work_done_progress: bool,
    /// `workspace.configuration`: the server pulls its settings (`workspace/configuration`).
    pub pull_configuration: bool,
    /// `workspace.didChangeWatchedFiles.dynamicRegistration`: the server may ask to watch files.
    pub watch_files: bool,
    /// `workspace.codeLens.refreshSupport`.
    pub refresh_code_lens: bool,
    /// `workspace.inlayHint.refreshSupport`.
    pub refresh_inlay_hints: bool,
    /// `textDocument.rename.prepareSupport`: `RenameOptions` with `prepareProvider` (else `true`).
    pub prepare_rename: bool,
}

impl ClientSupport {
    pub fn from_capabilities(c: &ClientCapabilities) -> ClientSupport {
        let text = c.text_document.as_ref();
        let workspace = c.workspace.as_ref();
        let code_action = text.and_then(|t| t.code_action.as_ref());
        let symbols = text.and_then(|t| t.document_symbol.as_ref());
        let completion = text.and_then(|t| t.completion.as_ref());
        let completion_item = completion.and_then(|c| c.completion_item.as_ref());
        let has_markdown =
            |formats: Option<&Vec<MarkupKind>>| formats.is_some_and(|f| f.contains(&MarkupKind::Markdown));
        ClientSupport {
            code_action_literals: code_action.and_then(|a| a.code_action_literal_support.as_ref()).is_some(),
            preferred_code_actions: code_action.and_then(|a| a.is_preferred_support) == Some(true),
            apply_edit: workspace.and_then(|w| w.apply_edit) == Some(true),
            hierarchical_symbols: symbols.and_then(|s| s.hierarchical_document_symbol_support) == Some(true),
            symbol_kinds: symbols.and_then(|s| s.symbol_kind.as_ref()).and_then(|k| k.value_set.clone()),
            completion_kinds: completion
                .and_then(|c| c.completion_item_kind.as_ref())
                .and_then(|k| k.value_set.clone()),
            hover_markdown: has_markdown(text.and_then(|t| t.hover.as_ref()).and_then(|h| h.content_format.as_ref())),
            completion_markdown: has_markdown(completion_item.and_then(|i| i.documentation_format.as_ref())),
            related_information: text.and_then(|t| t.publish_diagnostics.as_ref()).and_then(|p| p.related_information)
                == Some(true),
            folding_region_kind: text
                .and_then(|t| t.folding_range.as_ref())
                .and_then(|f| f.folding_range_kind.as_ref())
                .and_then(|k| k.value_set.as_ref())
                .is_some_and(|kinds| kinds.contains(&tower_lsp_server::ls_types::FoldingRangeKind::Region)),
            work_done_progress: c.window.as_ref().and_then(|w| w.work_done_progress) == Some(true),
            pull_configuration: workspace.and_then(|w| w.configuration) == Some(true),
            watch_files: workspace
                .and_then(|w| w.did_change_watched_files.as_ref())
                .and_then(|w| w.dynamic_registration)
                == Some(true),
            refresh_code_lens: workspace.and_then(|w| w.code_lens.as_ref()).and_then(|c| c.refresh_support)
                == Some(true),
            refresh_inlay_hints: workspace.and_then(|w| w.inlay_hint.as_ref()).and_then(|c| c.refresh_support)
                == Some(true),
            prepare_rename: text.and_then(|t| t.rename.as_ref()).and_then(|r| r.prepare_support) == Some(true),
        }
    }

    /// `preferred` if the client declared it, else the first of `fallbacks` in the spec's
    /// base set (File..Array, what a client without `valueSet` supports).
    pub fn symbol_kind(&self, preferred: SymbolKind, fallbacks: &[SymbolKind]) -> SymbolKind {
        let supported = |k: &SymbolKind| match &self.symbol_kinds {
            Some(set) => set.contains(k),
            None => BASE_SYMBOL_KINDS.contains(k),
        };
        std::iter::once(preferred).chain(fallbacks.iter().copied()).find(supported).unwrap_or(SymbolKind::VARIABLE)
    }

    /// `preferred` if the client declared it, else the first of `fallbacks` in the spec's
    /// base set (Text..Reference, what a client without `valueSet` supports).
    pub fn completion_kind(
        &self,
        preferred: CompletionItemKind,
        fallbacks: &[CompletionItemKind],
    ) -> CompletionItemKind {
        let supported = |k: &CompletionItemKind| match &self.completion_kinds {
            Some(set) => set.contains(k),
            None => BASE_COMPLETION_KINDS.contains(k),
        };
        std::iter::once(preferred).chain(fallbacks.iter().copied()).find(supported).unwrap_or(CompletionItemKind::TEXT)
    }
}
