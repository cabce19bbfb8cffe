//! Every LSP type the server sends is built here, from the core's data (byte offsets,
//! findings, fixes, items, lenses): handlers and features hand over core values and get LSP
//! types back. Positions are counted by [`Positions`] (`server/positions.rs`), also the
//! inbound direction (an LSP position to a byte offset). What the client declared
//! ([`ClientSupport`], read once at `initialize`) decides each shape: `Command[]` or code
//! actions, flat or nested symbols, kinds within the declared sets, plain text or markdown.

use crate::server::positions::Positions;
use crate::server::session::ClientSupport;
use torchcts_core::actions::QuickFix;
use torchcts_core::completion::{CompletionItem as CoreItem, ItemKind};
use torchcts_core::hover::HoverResult;
use torchcts_core::symbols::{Symbol, SymbolKind as CoreSymbolKind};
use torchcts_core::{Analysis, Finding, Origin, PositionEncoding, Severity};
use tower_lsp_server::ls_types::*;

/// UTF-8 when the client offers it (no conversion at all), else LSP's default UTF-16.
pub fn negotiate_encoding(params: &InitializeParams) -> PositionEncoding {
    let offered = params.capabilities.general.as_ref().and_then(|g| g.position_encodings.as_ref());
    match offered {
        Some(list) if list.contains(&PositionEncodingKind::UTF8) => PositionEncoding::Utf8,
        _ => PositionEncoding::Utf16,
    }
}

pub fn encoding_kind(encoding: PositionEncoding) -> PositionEncodingKind {
    match encoding {
        PositionEncoding::Utf8 => PositionEncodingKind::UTF8,
        PositionEncoding::Utf16 => PositionEncodingKind::UTF16,
        PositionEncoding::Utf32 => PositionEncodingKind::UTF32,
    }
}

/// A finding as a diagnostic; its related places only for a client that shows them.
pub fn diagnostic(client: &ClientSupport, positions: &Positions, finding: &Finding, uri: &Uri) -> Diagnostic {
    let related: Vec<DiagnosticRelatedInformation> = finding
        .related
        .iter()
        .filter(|_| client.related_information)
        .map(|(span, message)| DiagnosticRelatedInformation {
            location: Location { uri: uri.clone(), range: positions.range(span) },
            message: message.clone(),
        })
        .collect();
    Diagnostic {
        range: positions.range(&finding.span),
        severity: Some(match finding.severity {
            Severity::Error => DiagnosticSeverity::ERROR,
            Severity::Warning => DiagnosticSeverity::WARNING,
            Severity::Information => DiagnosticSeverity::INFORMATION,
            Severity::Hint => DiagnosticSeverity::HINT,
        }),
        code: Some(NumberOrString::String(finding.code.to_string())),
        source: Some(
            match finding.origin {
                Origin::Torchcts => "torchcts",
                Origin::Lsp => "torchcts-lsp",
            }
            .to_string(),
        ),
        message: finding.message.clone(),
        related_information: (!related.is_empty()).then_some(related),
        // The same object as in the CLI's JSON (`Finding`'s serde form).
        data: finding.data.as_ref().and_then(|data| serde_json::to_value(data).ok()),
        ..Default::default()
    }
}

/// The outline: nested symbols, or for a client without hierarchical support the same
/// symbols flat, each naming its container.
pub fn document_symbols(
    client: &ClientSupport,
    positions: &Positions,
    symbols: &[Symbol],
    uri: &Uri,
) -> DocumentSymbolResponse {
    if client.hierarchical_symbols {
        return DocumentSymbolResponse::Nested(symbols.iter().map(|s| symbol(client, positions, s)).collect());
    }
    let mut flat = Vec::new();
    flatten_symbols(client, positions, symbols, None, uri, &mut flat);
    DocumentSymbolResponse::Flat(flat)
}

#[allow(deprecated)] // `deprecated` is a required field of SymbolInformation.
fn flatten_symbols(
    client: &ClientSupport,
    positions: &Positions,
    symbols: &[Symbol],
    container: Option<&str>,
    uri: &Uri,
    out: &mut Vec<SymbolInformation>,
) {
    for s in symbols {
        out.push(SymbolInformation {
            name: s.name.clone(),
            kind: symbol_kind(client, s.kind),
            tags: None,
            deprecated: None,
            location: Location { uri: uri.clone(), range: positions.range(&s.span) },
            container_name: container.map(str::to_string),
        });
        flatten_symbols(client, positions, &s.children, Some(&s.name), uri, out);
    }
}

#[allow(deprecated)] // `deprecated` is a required field of DocumentSymbol.
fn symbol(client: &ClientSupport, positions: &Positions, s: &Symbol) -> DocumentSymbol {
    DocumentSymbol {
        name: s.name.clone(),
        detail: Some(s.detail.clone()),
        kind: symbol_kind(client, s.kind),
        tags: None,
        deprecated: None,
        range: positions.range(&s.span),
        selection_range: positions.range(&s.selection),
        children: Some(s.children.iter().map(|c| symbol(client, positions, c)).collect()),
    }
}

/// A section is an `Object` (LSP 3.x); a client with only the 1.0 kinds gets `Namespace`,
/// a named group of entries too.
fn symbol_kind(client: &ClientSupport, kind: CoreSymbolKind) -> SymbolKind {
    match kind {
        CoreSymbolKind::Manifest => client.symbol_kind(SymbolKind::VARIABLE, &[]),
        CoreSymbolKind::Section => client.symbol_kind(SymbolKind::OBJECT, &[SymbolKind::NAMESPACE]),
        CoreSymbolKind::Entry => client.symbol_kind(SymbolKind::PROPERTY, &[SymbolKind::FIELD]),
    }
}

/// Documentation in the richest form the client shows: markdown, else a plain-text rendering.
fn markup(markdown_ok: bool, markdown: String) -> MarkupContent {
    if markdown_ok {
        MarkupContent { kind: MarkupKind::Markdown, value: markdown }
    } else {
        MarkupContent { kind: MarkupKind::PlainText, value: crate::server::plaintext::from_markdown(&markdown) }
    }
}

/// A folded region, or `None` for one that does not span lines.
pub fn folding_range(
    client: &ClientSupport,
    positions: &Positions,
    span: &std::ops::Range<usize>,
) -> Option<FoldingRange> {
    let (start_line, end_line) = (positions.line(span.start), positions.line(span.end.saturating_sub(1)));
    (end_line > start_line).then(|| FoldingRange {
        start_line,
        end_line,
        kind: client.folding_region_kind.then_some(FoldingRangeKind::Region),
        ..Default::default()
    })
}

pub fn hover(client: &ClientSupport, positions: &Positions, h: HoverResult) -> Hover {
    Hover {
        contents: HoverContents::Markup(markup(client.hover_markdown, h.markdown)),
        range: Some(positions.range(&h.span)),
    }
}

pub fn inlay_hint(positions: &Positions, offset: usize, label: String) -> InlayHint {
    InlayHint {
        position: positions.position(offset),
        label: InlayHintLabel::String(label),
        kind: None,
        text_edits: None,
        tooltip: None,
        padding_left: Some(true),
        padding_right: None,
        data: None,
    }
}

pub fn completion_item(client: &ClientSupport, positions: &Positions, item: CoreItem) -> CompletionItem {
    use CompletionItemKind as K;
    CompletionItem {
        label: item.label,
        kind: Some(match item.kind {
            ItemKind::Key => client.completion_kind(K::PROPERTY, &[K::FIELD]),
            ItemKind::Value => client.completion_kind(K::VALUE, &[K::TEXT]),
            // A dtype is a member of torch's dtype enumeration; 1.0 clients: a value.
            ItemKind::Dtype => client.completion_kind(K::ENUM_MEMBER, &[K::VALUE]),
            ItemKind::Operator => client.completion_kind(K::FUNCTION, &[K::METHOD]),
        }),
        detail: item.detail,
        documentation: item.documentation.map(|d| Documentation::MarkupContent(markup(client.completion_markdown, d))),
        sort_text: Some(item.sort),
        filter_text: None,
        text_edit: Some(CompletionTextEdit::Edit(TextEdit {
            range: positions.range(&item.replace),
            new_text: item.insert_text,
        })),
        ..Default::default()
    }
}

/// A quick fix as a code action with its edits and the diagnostic it fixes; for a client
/// without code action literals, a command that applies the same edit (`None` when the
/// client cannot be asked to apply edits either).
pub fn quick_fix(
    client: &ClientSupport,
    positions: &Positions,
    analysis: &Analysis,
    fix: QuickFix,
    uri: &Uri,
) -> Option<CodeActionOrCommand> {
    let edits: Vec<TextEdit> =
        fix.edits.iter().map(|e| TextEdit { range: positions.range(&e.span), new_text: e.new_text.clone() }).collect();
    let edit = WorkspaceEdit { changes: Some(std::iter::once((uri.clone(), edits)).collect()), ..Default::default() };
    if !client.code_action_literals {
        return apply_edit_command(client, fix.title, edit);
    }
    Some(CodeActionOrCommand::CodeAction(CodeAction {
        title: fix.title,
        kind: Some(CodeActionKind::QUICKFIX),
        diagnostics: Some(vec![diagnostic(client, positions, &analysis.findings[fix.finding], uri)]),
        edit: Some(edit),
        is_preferred: client.preferred_code_actions.then_some(fix.preferred),
        ..Default::default()
    }))
}

/// `torchcts.applyEdit` with `edit` as its argument: what a client without code action
/// literals runs for a fix (the server asks it back with `workspace/applyEdit`).
fn apply_edit_command(client: &ClientSupport, title: String, edit: WorkspaceEdit) -> Option<CodeActionOrCommand> {
    let argument = serde_json::to_value(edit).ok()?;
    client.apply_edit.then(|| {
        CodeActionOrCommand::Command(Command {
            title,
            command: crate::server::protocol::APPLY_EDIT.into(),
            arguments: Some(vec![argument]),
        })
    })
}

/// What `workspace/applyEdit` sends for a `torchcts.applyEdit` command's argument.
pub fn apply_edit_params(label: &str, argument: serde_json::Value) -> Option<ApplyWorkspaceEditParams> {
    let edit: WorkspaceEdit = serde_json::from_value(argument).ok()?;
    Some(ApplyWorkspaceEditParams { label: Some(label.into()), edit })
}

/// The `source.fixAll.torchcts` action: one edit that applies `count` safe fixes.
pub fn fix_all_action(
    client: &ClientSupport,
    positions: &Positions,
    edit: &torchcts_core::actions::TextEdit,
    count: usize,
    uri: &Uri,
) -> Option<CodeActionOrCommand> {
    let edit = TextEdit { range: positions.range(&edit.span), new_text: edit.new_text.clone() };
    let s = if count == 1 { "" } else { "es" };
    let title = format!("Fix all safe problems ({count} fix{s}, torchcts)");
    let edit =
        WorkspaceEdit { changes: Some(std::iter::once((uri.clone(), vec![edit])).collect()), ..Default::default() };
    if !client.code_action_literals {
        return apply_edit_command(client, title, edit);
    }
    Some(CodeActionOrCommand::CodeAction(CodeAction {
        title,
        kind: Some(crate::server::protocol::fix_all_kind()),
        edit: Some(edit),
        ..Default::default()
    }))
}

/// A code action that runs one of the server's commands (`source.torchcts.run`).
/// A code lens at `span`: a command to run with its one argument, or (`None`) a line to read.
pub fn code_lens(
    positions: &Positions,
    span: &std::ops::Range<usize>,
    title: String,
    command: Option<(&str, serde_json::Value)>,
) -> CodeLens {
    let command = match command {
        Some((id, argument)) => Command { title, command: id.into(), arguments: Some(vec![argument]) },
        None => Command { title, command: String::new(), arguments: None },
    };
    CodeLens { range: positions.range(span), command: Some(command), data: None }
}

pub fn run_action(
    client: &ClientSupport,
    title: String,
    command: &str,
    argument: serde_json::Value,
) -> CodeActionOrCommand {
    let command = Command { title, command: command.into(), arguments: Some(vec![argument]) };
    if !client.code_action_literals {
        return CodeActionOrCommand::Command(command);
    }
    CodeActionOrCommand::CodeAction(CodeAction {
        title: command.title.clone(),
        kind: Some(crate::server::protocol::run_action_kind()),
        command: Some(command),
        ..Default::default()
    })
}

/// What `initialize` answers: the capabilities for the negotiated `encoding`, the server's name.
pub fn initialize_result(client: &ClientSupport, encoding: PositionEncoding) -> InitializeResult {
    InitializeResult {
        capabilities: capabilities(client, encoding),
        server_info: Some(ServerInfo { name: "torchcts-lsp".into(), version: Some(env!("CARGO_PKG_VERSION").into()) }),
        offset_encoding: None,
    }
}

fn capabilities(client: &ClientSupport, encoding: torchcts_core::PositionEncoding) -> ServerCapabilities {
    ServerCapabilities {
        position_encoding: Some(encoding_kind(encoding)),
        text_document_sync: Some(TextDocumentSyncCapability::Options(TextDocumentSyncOptions {
            open_close: Some(true),
            change: Some(TextDocumentSyncKind::INCREMENTAL),
            save: Some(TextDocumentSyncSaveOptions::Supported(true)),
            ..Default::default()
        })),
        hover_provider: Some(HoverProviderCapability::Simple(true)),
        completion_provider: Some(CompletionOptions {
            trigger_characters: Some(vec!["\"".into(), "'".into(), ".".into(), "|".into(), "(".into()]),
            ..Default::default()
        }),
        document_symbol_provider: Some(OneOf::Left(true)),
        execute_command_provider: Some(ExecuteCommandOptions {
            commands: crate::server::protocol::COMMANDS.iter().map(|c| c.to_string()).collect(),
            ..Default::default()
        }),
        code_lens_provider: Some(CodeLensOptions { resolve_provider: Some(false) }),
        inlay_hint_provider: Some(OneOf::Left(true)),
        folding_range_provider: Some(FoldingRangeProviderCapability::Simple(true)),
        definition_provider: Some(OneOf::Left(true)),
        references_provider: Some(OneOf::Left(true)),
        document_highlight_provider: Some(OneOf::Left(true)),
        // `RenameOptions` may only be sent to a client that declared `rename.prepareSupport`.
        rename_provider: Some(if client.prepare_rename {
            OneOf::Right(RenameOptions { prepare_provider: Some(true), work_done_progress_options: Default::default() })
        } else {
            OneOf::Left(true)
        }),
        selection_range_provider: Some(SelectionRangeProviderCapability::Simple(true)),
        // `CodeActionOptions` (the kinds) is valid only for a client with code action literals.
        code_action_provider: Some(if client.code_action_literals {
            CodeActionProviderCapability::Options(CodeActionOptions {
                // Every kind `textDocument/codeAction` returns.
                code_action_kinds: Some(crate::server::protocol::code_action_kinds()),
                ..Default::default()
            })
        } else {
            CodeActionProviderCapability::Simple(true)
        }),
        workspace: Some(WorkspaceServerCapabilities {
            workspace_folders: Some(WorkspaceFoldersServerCapabilities {
                supported: Some(true),
                change_notifications: Some(OneOf::Left(true)),
            }),
            file_operations: None,
        }),
        ..Default::default()
    }
}

/// The files the server asks the client to watch: the project configuration, the result
/// folders' artifacts (runs landing) and the project known-segfault ledgers.
pub fn file_watchers() -> Registration {
    let watcher = serde_json::json!({"watchers": [
        {"globPattern": "**/pyproject.toml"},
        {"globPattern": "**/results/**/*.json"},
        {"globPattern": "**/.torchcts-lsp/results/**/*.json"},
        {"globPattern": "**/known_segfaults.json"},
    ]});
    Registration {
        id: "torchcts-pyproject".into(),
        method: "workspace/didChangeWatchedFiles".into(),
        register_options: Some(watcher),
    }
}

/// The request that creates a run's progress `token`.
pub fn progress_create(token: NumberOrString) -> WorkDoneProgressCreateParams {
    WorkDoneProgressCreateParams { token }
}

/// The buttons of a question to the user.
pub fn message_actions(titles: &[&str]) -> Vec<MessageActionItem> {
    titles.iter().map(|title| MessageActionItem { title: (*title).into(), properties: Default::default() }).collect()
}

/// Locations of `spans` in the document `uri` (definition, references).
pub fn locations(positions: &Positions, uri: &Uri, spans: &[std::ops::Range<usize>]) -> Vec<Location> {
    spans.iter().map(|span| Location { uri: uri.clone(), range: positions.range(span) }).collect()
}

pub fn document_highlight(
    positions: &Positions,
    highlight: &torchcts_core::navigation::highlight::Highlight,
) -> DocumentHighlight {
    use torchcts_core::navigation::highlight::Access;
    DocumentHighlight {
        range: positions.range(&highlight.span),
        kind: Some(match highlight.access {
            Access::Read => DocumentHighlightKind::READ,
            Access::Write => DocumentHighlightKind::WRITE,
        }),
    }
}

/// The selection ranges around one position, innermost first, as LSP's chain of parents
/// (an empty range at `offset` where the core found none).
pub fn selection_range(positions: &Positions, spans: &[std::ops::Range<usize>], offset: usize) -> SelectionRange {
    let mut outer: Option<SelectionRange> = None;
    for span in spans.iter().rev() {
        outer = Some(SelectionRange { range: positions.range(span), parent: outer.map(Box::new) });
    }
    outer.unwrap_or_else(|| SelectionRange { range: positions.range(&(offset..offset)), parent: None })
}

/// A rename's edits in the one document `uri`.
pub fn workspace_edit(positions: &Positions, uri: &Uri, edits: &[torchcts_core::actions::TextEdit]) -> WorkspaceEdit {
    let edits =
        edits.iter().map(|e| TextEdit { range: positions.range(&e.span), new_text: e.new_text.clone() }).collect();
    WorkspaceEdit { changes: Some(std::iter::once((uri.clone(), edits)).collect()), ..Default::default() }
}
