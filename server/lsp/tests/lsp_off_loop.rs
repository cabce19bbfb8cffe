//! Blocking work never runs on the request loop (issue 30 item 2, issue 35 item 1): a
//! results file that cannot be read (a FIFO reached through a `_latest.json` reference: the
//! read waits for a writer that never comes) holds up the evidence of that manifest only.
//! The server keeps applying edits, publishing diagnostics, answering requests and shuts
//! down cleanly.

mod support;

use serde_json::json;
use support::lsp_client::{file_uri, LspClient};
use support::TempDir;

const MANIFEST: &str = "import torch\nmanifest = {\n    \"manifest_version\": 1,\n    \"device_name\": \"cpu\",\n    \"supported_dtypes\": {torch.float32: True},\n    \"semantic_level\": 2,\n    \"capabilities\": {\"inference\": True},\n}\n";

/// A manifest whose `results/cpu_vm_latest.json` refers to a FIFO.
/// The folder is removed when the test ends (the guard).
fn workspace() -> TempDir {
    let dir = TempDir::fresh("torchcts-lsp-off-loop");
    std::fs::create_dir_all(dir.join("results")).unwrap();
    std::fs::write(dir.join("manifest.py"), MANIFEST).unwrap();
    let reference = json!({"format": "torchcts_result_reference", "format_version": 1, "artifact": "stuck.json"});
    std::fs::write(dir.join("results/cpu_vm_latest.json"), reference.to_string()).unwrap();
    let fifo = std::ffi::CString::new(dir.join("results/stuck.json").to_string_lossy().as_bytes()).unwrap();
    // SAFETY: a valid NUL-terminated path; mkfifo only creates the file.
    assert_eq!(unsafe { libc::mkfifo(fifo.as_ptr(), 0o600) }, 0, "mkfifo");
    dir
}

#[test]
fn a_results_file_that_never_reads_freezes_nothing() {
    let dir = workspace();
    let mut client = LspClient::spawn();
    client.request("initialize", json!({"processId": null, "rootUri": file_uri(&dir), "capabilities": {}}));
    client.notify("initialized", json!({}));
    let uri = file_uri(&dir.join("manifest.py"));
    client.open(&uri, MANIFEST, 1);
    client.diagnostics(&uri, Some(1));
    // The evidence of the open is being read (and waits on the FIFO) meanwhile.
    let edited = MANIFEST.replace("\"semantic_level\": 2", "\"semantic_level\": 9");
    client.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": uri, "version": 2}, "contentChanges": [{"text": edited}]}),
    );
    let published = client.diagnostics(&uri, Some(2));
    assert!(published["diagnostics"].to_string().contains("semantic-level"), "{published}");
    let symbols = client.request("textDocument/documentSymbol", json!({"textDocument": {"uri": uri}}));
    assert!(symbols.to_string().contains("semantic_level"), "{symbols}");
    client.shutdown();
    let _ = std::fs::remove_dir_all(&dir);
}

/// The project's files beside a manifest (issue 35): its known-segfault ledger and its
/// `pyproject.toml` are read on the blocking pool, outside the session's lock, and only when
/// they are regular files. Here both are FIFOs that no one writes: reading either on the
/// request loop (under the session's lock, as before) froze the server, so the manifest
/// would get no diagnostics and nothing would answer.
#[test]
fn project_files_that_never_read_freeze_nothing() {
    let dir = TempDir::fresh("torchcts-lsp-off-loop-project");
    std::fs::write(dir.join("manifest.py"), MANIFEST).unwrap();
    for name in ["known_segfaults.json", "pyproject.toml"] {
        let fifo = std::ffi::CString::new(dir.join(name).to_string_lossy().as_bytes()).unwrap();
        // SAFETY: a valid NUL-terminated path; mkfifo only creates the file.
        assert_eq!(unsafe { libc::mkfifo(fifo.as_ptr(), 0o600) }, 0, "mkfifo {name}");
    }
    let mut client = LspClient::spawn();
    client.request("initialize", json!({"processId": null, "rootUri": file_uri(&dir), "capabilities": {}}));
    client.notify("initialized", json!({}));
    let uri = file_uri(&dir.join("manifest.py"));
    client.open(&uri, MANIFEST, 1);
    let published = client.diagnostics(&uri, Some(1));
    assert!(published["diagnostics"].is_array(), "{published}");
    let symbols = client.request("textDocument/documentSymbol", json!({"textDocument": {"uri": uri}}));
    assert!(symbols.to_string().contains("semantic_level"), "{symbols}");
    client.shutdown();
}
