//! `textDocument/completion`: keys, values, dtypes and operator names at the cursor.

use crate::server::analysis::Snapshot;
use crate::server::dispatch;
use crate::server::session::Session;
use crate::server::to_proto;
use torchcts_core::accounting_view::Inventory;
use tower_lsp_server::jsonrpc::Result;
use tower_lsp_server::ls_types::{CompletionParams, CompletionResponse};

/// Operator names for completion, from the inventory.
struct InventoryOperators(&'static Inventory);

impl torchcts_core::completion::OperatorSource for InventoryOperators {
    fn operator_names(&self) -> Vec<String> {
        self.0.operator_names().into_iter().map(str::to_string).collect()
    }
}

pub async fn completion(session: &Session, params: CompletionParams) -> Result<Option<CompletionResponse>> {
    let uri = params.text_document_position.text_document.uri.clone();
    dispatch::on_snapshot(session, "completion", uri, move |session, snapshot, _| {
        completion_now(session, snapshot, params)
    })
    .await
}

fn completion_now(session: &Session, snapshot: &Snapshot, params: CompletionParams) -> Option<CompletionResponse> {
    let positions = snapshot.positions();
    let offset = positions.offset(params.text_document_position.position);
    let operators = InventoryOperators(session.inventory(&params.text_document_position.text_document.uri));
    let items = torchcts_core::completion::complete(&snapshot.analysis, offset, Some(&operators));
    let client = session.client_support();
    let items = items.into_iter().map(|item| to_proto::completion_item(&client, &positions, item)).collect();
    Some(CompletionResponse::Array(items))
}
