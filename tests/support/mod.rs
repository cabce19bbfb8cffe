pub mod lsp_client;
