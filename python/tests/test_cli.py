"""The `torchcts-lsp` command the wheel installs (and `python -m torchcts_lsp`): the same CLI as
the cargo-built binary, and the language server over stdio."""

from __future__ import annotations

import json
import os
import queue
import subprocess
import sys
import threading
from pathlib import Path

import torchcts_lsp

from conftest import EXAMPLE, VALID

TIMEOUT = 60


def run(*argv: str, **kwargs) -> subprocess.CompletedProcess:
    return subprocess.run([*argv], capture_output=True, text=True, timeout=TIMEOUT, **kwargs)


def test_version_of_the_command_and_module(installed_command):
    for argv in ([str(installed_command)], [sys.executable, "-m", "torchcts_lsp"]):
        done = run(*argv, "--version")
        assert done.returncode == 0, done.stderr
        assert done.stdout.split() == ["torchcts-lsp", torchcts_lsp.__version__]


def test_check_output_and_exit_code_equal_the_cargo_binary(installed_command, cargo_binary):
    for manifest in (EXAMPLE, VALID):
        expected = run(str(cargo_binary), "check", str(manifest))
        for argv in ([str(installed_command)], [sys.executable, "-m", "torchcts_lsp"]):
            done = run(*argv, "check", str(manifest))
            assert (done.returncode, done.stdout, done.stderr) == (expected.returncode, expected.stdout, expected.stderr)
    assert run(str(installed_command), "check", str(EXAMPLE)).returncode == 1
    assert run(str(installed_command), "check", str(VALID)).returncode == 0


def test_skips_json_equals_the_cargo_binary(installed_command, cargo_binary):
    args = ("skips", str(EXAMPLE), "--level", "3", "--format", "json")
    # The installed command counts for its interpreter's environment: so does the binary here.
    expected = run(str(cargo_binary), *args, env={**os.environ, torchcts_lsp.PYTHON_ENV: sys.executable})
    done = run(str(installed_command), *args)
    assert done.returncode == expected.returncode == 0
    assert json.loads(done.stdout) == json.loads(expected.stdout)


def test_check_format_github_for_ci():
    done = run(sys.executable, "-m", "torchcts_lsp", "check", str(EXAMPLE), "--format", "github")
    assert done.returncode != 0
    lines = EXAMPLE.read_text().splitlines()
    row = next(i for i, line in enumerate(lines) if '"generator"' in line)
    col = lines[row].index('"generator"') + 1
    annotations = [line for line in done.stdout.splitlines() if line.startswith("::error ")]
    assert any(
        f"file={EXAMPLE}".replace(":", "%3A") in a and f",line={row + 1},col={col}," in a and a.endswith("::Unknown capabilities key 'generator'")
        for a in annotations
    ), done.stdout
    valid = run(sys.executable, "-m", "torchcts_lsp", "check", str(VALID), "--format", "github")
    assert valid.returncode == 0, valid.stdout + valid.stderr
    assert "::error" not in valid.stdout


def test_bad_command_line_is_a_usage_error(installed_command):
    done = run(str(installed_command), "no-such-command")
    assert done.returncode == 2
    assert done.stderr


class LspSession:
    """A client speaking LSP (Content-Length framing) to a server process over stdio."""

    def __init__(self, argv: list[str], **popen):
        self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, **popen)
        self.messages: queue.Queue = queue.Queue()
        self.next_id = 0
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        out = self.proc.stdout
        while True:
            length = None
            while True:
                line = out.readline()
                if not line:
                    self.messages.put(None)
                    return
                line = line.strip()
                if not line:
                    break
                name, _, value = line.partition(b":")
                if name.lower() == b"content-length":
                    length = int(value)
            self.messages.put(json.loads(out.read(length)))

    def send(self, message: dict):
        body = json.dumps({"jsonrpc": "2.0", **message}).encode()
        self.proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.proc.stdin.flush()

    def request(self, method: str, params) -> dict:
        self.next_id += 1
        self.send({"id": self.next_id, "method": method, "params": params})
        reply = self.wait(lambda m: m.get("id") == self.next_id and "method" not in m, f"the reply to {method}")
        assert "error" not in reply, reply
        return reply

    def notify(self, method: str, params):
        self.send({"method": method, "params": params})

    def wait(self, predicate, what: str) -> dict:
        seen = []
        while True:
            try:
                message = self.messages.get(timeout=TIMEOUT)
            except queue.Empty:
                raise AssertionError(f"no {what} within {TIMEOUT} s; got {seen}") from None
            if message is None:
                raise AssertionError(f"the server closed stdout before {what}; got {seen}; stderr: {self.proc.stderr.read()!r}")
            if message.get("method") in ("workspace/configuration", "client/registerCapability", "window/workDoneProgress/create"):
                reply = [{}] * len(message["params"].get("items", [])) if message["method"] == "workspace/configuration" else None
                self.send({"id": message["id"], "result": reply})
            seen.append(message)
            if predicate(message):
                return message

    def close(self) -> int:
        self.request("shutdown", None)
        self.notify("exit", None)
        code = self.proc.wait(timeout=TIMEOUT)
        self.proc.stdin.close()
        return code


def initialize(session: LspSession, root: Path):
    init = session.request(
        "initialize",
        {"processId": os.getpid(), "rootUri": root.as_uri(), "capabilities": {"textDocument": {"publishDiagnostics": {}}}},
    )
    session.notify("initialized", {})
    return init


def test_lsp_session_over_stdio(installed_command, tmp_path):
    manifest = tmp_path / "manifest.py"
    manifest.write_text(EXAMPLE.read_text())
    session = LspSession([str(installed_command)], cwd=tmp_path)
    try:
        init = initialize(session, tmp_path)
        assert init["result"]["serverInfo"]["name"] == "torchcts-lsp"
        assert init["result"]["serverInfo"]["version"] == torchcts_lsp.__version__
        uri = manifest.as_uri()
        session.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "python", "version": 1, "text": manifest.read_text()}})
        published = session.wait(
            lambda m: m.get("method") == "textDocument/publishDiagnostics"
            and m["params"]["uri"] == uri
            and any(d["message"] == "Unknown capabilities key 'generator'" for d in m["params"]["diagnostics"]),
            "diagnostics for the manifest",
        )
        lines = EXAMPLE.read_text().splitlines()
        row = next(i for i, line in enumerate(lines) if '"generator"' in line)
        diagnostic = next(d for d in published["params"]["diagnostics"] if d["message"] == "Unknown capabilities key 'generator'")
        assert diagnostic["range"]["start"] == {"line": row, "character": lines[row].index('"generator"')}
        assert session.close() == 0
    finally:
        if session.proc.poll() is None:
            session.proc.kill()


def test_the_package_interpreter_is_the_servers_default_python(tmp_path):
    # A separate environment with torch/torchcts versions the inventory does not have, whose
    # interpreter runs this package's server: the server must look at that environment
    # (no setting, no $VIRTUAL_ENV, no workspace .venv) and say so.
    env_dir = tmp_path / "torch-env"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(env_dir)], check=True, timeout=TIMEOUT)
    python = env_dir / "bin" / "python"
    site = Path(run(str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])").stdout.strip())
    for name in ("torch", "torchcts"):
        info = site / f"{name}-0.0.1.dist-info"
        info.mkdir(parents=True)
        (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 0.0.1\n")
    package_site = str(Path(torchcts_lsp.__file__).parent.parent)
    launcher = f"import sys; sys.path.insert(0, {package_site!r}); from torchcts_lsp.__main__ import main; sys.exit(main())"
    workspace = tmp_path / "ws"
    workspace.mkdir()
    env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", torchcts_lsp.PYTHON_ENV)}
    session = LspSession([str(python), "-c", launcher], cwd=workspace, env=env)
    try:
        initialize(session, workspace)
        # Only that environment has torchcts 0.0.1.
        session.wait(
            lambda m: m.get("method") in ("window/showMessage", "window/logMessage") and "torchcts 0.0.1" in m["params"]["message"],
            f"a message about the environment of {python} (torchcts 0.0.1)",
        )
        assert session.close() == 0
    finally:
        if session.proc.poll() is None:
            session.proc.kill()
