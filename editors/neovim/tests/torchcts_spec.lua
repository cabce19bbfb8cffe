-- Headless Neovim test of the torchcts plugin against the real torchcts-lsp.
-- Run through tests/run.sh (it sets the environment below); runs on Neovim 0.7 and 0.11.
--
--   TORCHCTS_TEST_SERVER  the server binary (required)
--   TORCHCTS_TEST_MODE    "setup" (require("torchcts").setup), "lazy" (setup() after the manifest
--                         is open, as lazy-loading does) or "native" (vim.lsp.enable, 0.11+)
--   TORCHCTS_TEST_TMP     a fresh folder for the manifest
--
-- Opens a manifest with a known error, waits for the diagnostics, checks hover (the request,
-- and `K` in the buffer with Python's ftplugin on, as a user has it), the code lenses (there
-- without a manual refresh; again on BufEnter, InsertLeave and the server's
-- `workspace/codeLens/refresh`), inlay hints on 0.10+, a run's progress in the command line,
-- the code actions on the error line, that every command the server offers is in the plugin
-- and documented, :TorchctsReport with and without a browser, and shuts the server down (it
-- must exit by itself with code 0).
-- Every check that cannot run because an earlier one failed counts as failed: the test never
-- passes vacuously. Exit status: 0 when all passed, 1 otherwise.

local server = os.getenv("TORCHCTS_TEST_SERVER") or ""
local mode = os.getenv("TORCHCTS_TEST_MODE") or "setup"
local tmp = os.getenv("TORCHCTS_TEST_TMP") or vim.fn.tempname()
local TIMEOUT = 15000

local passed, failed = 0, 0
local messages = {}

local function out(s)
  io.stdout:write(s .. "\n")
  io.stdout:flush()
end

-- Messages the server or Neovim show go to the log as TAP comments on lines of their own:
-- headless Neovim writes them without a line break, into the next `ok` line.
vim.lsp.handlers["window/showMessage"] = function(_, result)
  out("# server: " .. tostring(result and result.message))
  return vim.NIL
end
vim.notify = function(msg, _)
  out("# " .. tostring(msg))
end

local function has(f)
  return vim.fn.has(f) == 1
end

local version = vim.version()
local vstr = ("%d.%d.%d"):format(version.major, version.minor, version.patch)

local function finish()
  local total = passed + failed
  if total == 0 then
    failed = 1
    out("not ok - no check ran")
  end
  out(("neovim %s (%s): %d passed, %d failed"):format(vstr, mode, passed, failed))
  vim.cmd(failed == 0 and "qall!" or "cquit! 1")
end

-- A watchdog: whatever hangs, the test ends (failed).
vim.defer_fn(function()
  out("not ok - watchdog: the test did not finish within 120 s")
  failed = failed + 1
  finish()
end, 120000)

local step = 0
local function check(name, fn)
  step = step + 1
  local ok, err = pcall(fn)
  if ok then
    passed = passed + 1
    out(("ok %d - %s"):format(step, name))
    return true
  end
  failed = failed + 1
  out(("not ok %d - %s: %s"):format(step, name, tostring(err)))
  return false
end

local function fail_rest(names, why)
  for _, name in ipairs(names) do
    step = step + 1
    failed = failed + 1
    out(("not ok %d - %s: not run (%s)"):format(step, name, why))
  end
end

local function wait(what, pred, ms)
  local value, perr
  vim.wait(ms or TIMEOUT, function()
    local ok, v = pcall(pred)
    if not ok then
      perr = v
      return true
    end
    value = v
    return v ~= nil and v ~= false
  end, 20)
  if perr ~= nil then
    error(perr, 0)
  end
  if value == nil or value == false then
    error(("timed out after %d ms waiting for %s"):format(ms or TIMEOUT, what), 0)
  end
  return value
end

local function assert_eq(actual, expected, what)
  if actual ~= expected then
    error(("%s: expected %s, got %s"):format(what, vim.inspect(expected), vim.inspect(actual)), 0)
  end
end

local function get_clients(bufnr)
  if vim.lsp.get_clients then
    return vim.lsp.get_clients({ bufnr = bufnr, name = "torchcts" })
  end
  local r = {}
  for _, c in pairs(vim.lsp.buf_get_clients(bufnr)) do
    if c.name == "torchcts" then
      table.insert(r, c)
    end
  end
  return r
end

local function request_sync(client, method, params, bufnr)
  local resp, err
  if has("nvim-0.11") then
    resp, err = client:request_sync(method, params, TIMEOUT, bufnr)
  else
    resp, err = client.request_sync(method, params, TIMEOUT, bufnr)
  end
  if resp == nil then
    error(("%s: no response (%s)"):format(method, tostring(err)), 0)
  end
  local e = resp.err or resp.error
  if e ~= nil then
    error(
      ("%s: the server answered error %s: %s"):format(method, tostring(e.code), tostring(e.message)),
      0
    )
  end
  return resp.result
end

local MANIFEST = {
  "import torch",
  "manifest = {",
  '    "manifest_version": 1,',
  '    "device_name": "cpu",',
  '    "capabilities": {"inference": True, "generator": True},',
  '    "semantic_level": 2,',
  "}",
}

local exit_info = nil
-- `workspace/codeLens/refresh` requests the server sent (counted by a handler that wraps the
-- plugin's, given the way a user overrides handlers).
local lens_refreshes = 0
local function counting_handlers()
  return {
    ["workspace/codeLens/refresh"] = function(err, result, ctx, config)
      lens_refreshes = lens_refreshes + 1
      return require("torchcts").handlers()["workspace/codeLens/refresh"](err, result, ctx, config)
    end,
  }
end

-- Python's ftplugin, as in a user's Neovim: it sets 'keywordprg' to pydoc, so `K` is the
-- plugin's mapping or pydoc.
vim.cmd("filetype plugin on")

-- 1. Setup and attach.
vim.fn.mkdir(tmp .. "/backend", "p")
vim.fn.mkdir(tmp .. "/.git", "p")
local manifest_path = tmp .. "/backend/manifest.py"
vim.fn.writefile(MANIFEST, manifest_path)

-- "lazy": the manifest is already open when setup() runs (as with lazy.nvim's ft = "python").
if mode == "lazy" then
  vim.cmd("edit " .. vim.fn.fnameescape(manifest_path))
end

local torchcts
local setup_ok = check("plugin setup (" .. mode .. ")", function()
  if mode == "native" then
    if not vim.lsp.enable then
      error("vim.lsp.enable needs Neovim 0.11+", 0)
    end
    vim.cmd("filetype on")
    vim.lsp.config("torchcts", {
      cmd = { server },
      handlers = counting_handlers(),
      on_exit = function(code, signal)
        exit_info = { code = code, signal = signal }
      end,
    })
    vim.lsp.enable("torchcts")
  else
    torchcts = require("torchcts")
    torchcts.setup({
      cmd = { server },
      handlers = counting_handlers(),
      notify = function(msg, level)
        table.insert(messages, { msg = msg, level = level })
        out("# notify: " .. msg)
      end,
      on_exit = function(code, signal)
        exit_info = { code = code, signal = signal }
      end,
    })
    for _, c in ipairs({ "TorchctsRunAffected", "TorchctsRunLevel", "TorchctsRerunFailed", "TorchctsCancelRun", "TorchctsShowSkips", "TorchctsReport", "TorchctsRestart" }) do
      assert_eq(vim.fn.exists(":" .. c), 2, ":" .. c .. " defined")
    end
  end
end)

if mode ~= "lazy" then
  vim.cmd("edit " .. vim.fn.fnameescape(manifest_path))
end
local bufnr = vim.api.nvim_get_current_buf()

local client
local attached = setup_ok
  and check("server starts and attaches to manifest.py", function()
    client = wait("torchcts-lsp to attach (server: " .. server .. ")", function()
      if exit_info ~= nil then
        error(("the server exited (code %s, signal %s) before initializing"):format(tostring(exit_info.code), tostring(exit_info.signal)), 0)
      end
      local c = get_clients(bufnr)[1]
      return c and c.initialized and c or nil
    end)
    if client.server_info ~= nil then
      assert_eq(client.server_info.name, "torchcts-lsp", "serverInfo.name")
    end
    local other = vim.fn.tempname() .. "/setup.py"
    vim.fn.mkdir(vim.fn.fnamemodify(other, ":h"), "p")
    vim.fn.writefile({ "print('hi')" }, other)
    vim.cmd("edit " .. vim.fn.fnameescape(other))
    local obuf = vim.api.nvim_get_current_buf()
    vim.wait(300)
    assert_eq(#get_clients(obuf), 0, "clients on a file that is not a manifest")
    vim.cmd("buffer " .. bufnr)
  end)

if not attached then
  fail_rest({ "diagnostics", "hover", "K", "code lenses", "progress", "code actions", "commands", "shutdown" }, "the server is not attached")
  for _, m in ipairs(messages) do
    out("# " .. m.msg)
  end
  finish()
  return
end

-- 2. Diagnostics.
local err_diag
check("diagnostics: Unknown capabilities key 'generator'", function()
  err_diag = wait("the server's diagnostics", function()
    for _, d in ipairs(vim.diagnostic.get(bufnr)) do
      if d.message == "Unknown capabilities key 'generator'" then
        return d
      end
    end
  end)
  assert_eq(err_diag.severity, vim.diagnostic.severity.ERROR, "severity")
  assert_eq(err_diag.source, "torchcts", "source")
  local code = err_diag.code or (err_diag.user_data and err_diag.user_data.lsp and err_diag.user_data.lsp.code)
  assert_eq(code, "unknown-key", "code")
  assert_eq(err_diag.lnum, 4, "line")
  assert_eq(err_diag.col, 40, "start column")
  assert_eq(err_diag.end_col, 51, "end column")
  local stale = false
  for _, d in ipairs(vim.diagnostic.get(bufnr)) do
    if d.severity == vim.diagnostic.severity.WARN and d.message:find("stale", 1, true) then
      stale = true
    end
  end
  assert(stale, "a warning that 'generator' is a stale name")
end)

-- 3. Hover on the "semantic_level" key.
local function hover_text(result)
  if result == nil then
    return ""
  end
  local c = result.contents
  if type(c) == "string" then
    return c
  end
  if type(c) == "table" and c.value ~= nil then
    return c.value
  end
  local parts = {}
  for _, item in ipairs(type(c) == "table" and c or {}) do
    table.insert(parts, type(item) == "string" and item or item.value or "")
  end
  return table.concat(parts, "\n")
end

check('hover on "semantic_level" is non-empty', function()
  local caps = client.server_capabilities or {}
  if not caps.hoverProvider then
    error("the server does not advertise hoverProvider (textDocument/hover not implemented yet?)", 0)
  end
  local result = request_sync(client, "textDocument/hover", {
    textDocument = { uri = vim.uri_from_bufnr(bufnr) },
    position = { line = 5, character = 8 },
  }, bufnr)
  local text = hover_text(result)
  if text:gsub("%s", "") == "" then
    error("empty hover: " .. vim.inspect(result), 0)
  end
  out("# hover: " .. text:sub(1, 120):gsub("\n", " | "))
end)

-- 3b. `K` in the manifest buffer: the plugin's mapping (Python's ftplugin made it pydoc), a
-- float with the server's hover.
local function floats()
  local list = {}
  for _, w in ipairs(vim.api.nvim_list_wins()) do
    if vim.api.nvim_win_get_config(w).relative ~= "" then
      table.insert(list, w)
    end
  end
  return list
end

check("K shows the server's hover in a float (the plugin's buffer-local mapping)", function()
  vim.api.nvim_set_current_buf(bufnr)
  assert_eq(vim.bo[bufnr].keywordprg:find("pydoc", 1, true) ~= nil, true, "Python's ftplugin set 'keywordprg' to pydoc")
  local map = vim.fn.maparg("K", "n", false, true)
  assert_eq(map.buffer, 1, "K is mapped in the buffer")
  vim.api.nvim_win_set_cursor(0, { 6, 8 }) -- on "semantic_level"
  vim.api.nvim_feedkeys("K", "x", false)
  local win = wait("the hover float", function()
    return floats()[1]
  end)
  local text = table.concat(vim.api.nvim_buf_get_lines(vim.api.nvim_win_get_buf(win), 0, -1, false), "\n")
  out("# K float: " .. text:sub(1, 100):gsub("\n", " | "))
  assert(text:find("semantic_level", 1, true), "the float names semantic_level: " .. text)
  for _, w in ipairs(floats()) do
    vim.api.nvim_win_close(w, true)
  end
end)

-- 3c. Code lenses: there after the open without any request of the test's; again on BufEnter,
-- InsertLeave and `workspace/codeLens/refresh`.
local function lens_titles()
  local titles = {}
  for _, lens in ipairs(vim.lsp.codelens.get(bufnr) or {}) do
    if lens.command and lens.command.title then
      table.insert(titles, lens.command.title)
    end
  end
  return #titles > 0 and titles or nil
end

local function lenses_come_back(what, trigger)
  vim.lsp.codelens.save({}, bufnr, client.id)
  assert_eq(lens_titles(), nil, "no lens after clearing them")
  trigger()
  wait("the lenses again after " .. what, lens_titles)
end

check("code lenses: shown after the open; again on BufEnter, InsertLeave and the server's refresh", function()
  local titles = wait("code lenses without a manual refresh", lens_titles)
  out("# lenses: " .. table.concat(titles, " | "))
  local declared = ((client.config.capabilities or client.capabilities or {}).workspace or {}).codeLens or {}
  assert_eq(declared.refreshSupport, true, "the client declares workspace.codeLens.refreshSupport")
  wait("the server's workspace/codeLens/refresh (after its inventory loads)", function()
    return lens_refreshes > 0
  end)
  vim.api.nvim_set_current_buf(bufnr)
  lenses_come_back("BufEnter", function()
    vim.cmd("doautocmd <nomodeline> BufEnter")
  end)
  lenses_come_back("InsertLeave", function()
    vim.cmd("doautocmd <nomodeline> InsertLeave")
  end)
  lenses_come_back("workspace/codeLens/refresh", function()
    local answer = client.handlers["workspace/codeLens/refresh"](nil, vim.NIL, { client_id = client.id, method = "workspace/codeLens/refresh" })
    assert_eq(answer, vim.NIL, "the answer to the request")
  end)
end)

-- 3d. Inlay hints: enabled by the plugin where Neovim has them (0.10+).
if vim.lsp.inlay_hint ~= nil then
  check("inlay hints: enabled in the buffer and shown", function()
    assert_eq(vim.lsp.inlay_hint.is_enabled({ bufnr = bufnr }), true, "inlay hints enabled")
    local hints = wait("inlay hints", function()
      local h = vim.lsp.inlay_hint.get({ bufnr = bufnr })
      return #h > 0 and h or nil
    end)
    local label = hints[1].inlay_hint.label
    out("# first inlay hint: " .. (type(label) == "string" and label or vim.inspect(label)))
  end)
else
  out("# inlay hints: Neovim " .. vstr .. " has none (0.10+)")
end

-- 3e. A run's progress in the command line, as the server sends it (title, "starting", counts,
-- the summary), through the client's `$/progress` handler.
check("progress: a run's $/progress is echoed in the command line", function()
  local echoed = {}
  local real_echo = vim.api.nvim_echo
  vim.api.nvim_echo = function(chunks, history, opts)
    table.insert(echoed, chunks[1][1])
    return real_echo(chunks, history, opts)
  end
  local handler = client.handlers["$/progress"]
  local ok, err = pcall(function()
    assert(handler ~= nil, "the client has the plugin's $/progress handler")
    local token = "torchcts-run-1"
    if client.messages ~= nil and client.messages.progress ~= nil then
      client.messages.progress[token] = {} -- what window/workDoneProgress/create does on 0.7
    end
    local ctx = { client_id = client.id, method = "$/progress" }
    handler(nil, { token = token, value = { kind = "begin", title = "TorchCTS: level 2 on cpu", message = "starting" } }, ctx)
    handler(nil, { token = token, value = { kind = "report", message = "3/10: 3 passed, 0 failed, 0 errors, 0 skipped" } }, ctx)
    handler(nil, { token = token, value = { kind = "end", message = "TorchCTS run of level 2 on cpu completed: 10 passed" } }, ctx)
  end)
  vim.api.nvim_echo = real_echo
  out("") -- headless Neovim ends no echoed line
  if not ok then
    error(err, 0)
  end
  -- Cut to one line of the command line (v:echospace: 68 in headless Neovim's 80 columns).
  assert_eq(vim.v.echospace, 68, "v:echospace")
  assert_eq(vim.inspect(echoed), vim.inspect({
    "TorchCTS: level 2 on cpu: starting",
    "TorchCTS: level 2 on cpu: 3/10: 3 passed, 0 failed, 0 errors, 0 s...",
    "TorchCTS run of level 2 on cpu completed: 10 passed",
  }), "echoed")
end)

-- 3f. The server's window/showMessage: one line in the command line (Neovim 0.11's own handler
-- ends every message with a line break: a "Press ENTER" prompt), the whole text kept.
check("messages: window/showMessage is echoed on one line, kept whole", function()
  local echoed = {}
  local real_echo = vim.api.nvim_echo
  vim.api.nvim_echo = function(chunks, history, opts)
    table.insert(echoed, { chunks[1][1], chunks[1][2], history })
    return real_echo(chunks, history, opts)
  end
  local long = "Level 4 on mps: 3833 passed, 2 failed. Report: file:///home/someone/project/results/report.md"
  local torchcts = require("torchcts")
  local notify = torchcts.config.notify -- this test's (setup mode): without it, the echo
  torchcts.config.notify = nil
  local ok, err = pcall(function()
    local handler = client.handlers["window/showMessage"]
    assert(handler ~= nil, "the client has the plugin's window/showMessage handler")
    local ctx = { client_id = client.id, method = "window/showMessage" }
    handler(nil, { type = 2, message = "short warning" }, ctx)
    handler(nil, { type = 3, message = long }, ctx)
    handler(nil, { type = 1, message = "first line\nsecond line" }, ctx)
  end)
  torchcts.config.notify = notify
  vim.api.nvim_echo = real_echo
  out("")
  if not ok then
    error(err, 0)
  end
  assert_eq(vim.inspect(echoed), vim.inspect({
    { "short warning", "WarningMsg", true },
    { "Level 4 on mps: 3833 passed, 2 failed. Report: file:///home/someo...", nil, true },
    { "first line...", "ErrorMsg", true },
  }), "echoed")
  local kept = torchcts.messages()
  assert_eq(vim.inspect({ unpack(kept, #kept - 2) }), vim.inspect({ "short warning", long, "first line\nsecond line" }), "kept")
end)

-- 4. Code actions on the error line.
check("code actions on the error offer 'device_generator'", function()
  if err_diag == nil then
    error("no error diagnostic to act on", 0)
  end
  local caps = client.server_capabilities or {}
  if not caps.codeActionProvider then
    error("the server does not advertise codeActionProvider (textDocument/codeAction not implemented yet?)", 0)
  end
  local lsp_diags = {}
  for _, d in ipairs(vim.diagnostic.get(bufnr, { lnum = err_diag.lnum })) do
    local code = d.code or (d.user_data and d.user_data.lsp and d.user_data.lsp.code)
    table.insert(lsp_diags, {
      range = { start = { line = d.lnum, character = d.col }, ["end"] = { line = d.end_lnum, character = d.end_col } },
      severity = d.severity,
      message = d.message,
      source = d.source,
      code = code,
      data = d.user_data and d.user_data.lsp and d.user_data.lsp.data or nil,
    })
  end
  local actions = request_sync(client, "textDocument/codeAction", {
    textDocument = { uri = vim.uri_from_bufnr(bufnr) },
    range = {
      start = { line = err_diag.lnum, character = err_diag.col },
      ["end"] = { line = err_diag.end_lnum, character = err_diag.end_col },
    },
    context = { diagnostics = lsp_diags },
  }, bufnr) or {}
  local titles = {}
  local fix
  for _, a in ipairs(actions) do
    table.insert(titles, a.title)
    if a.title:find("device_generator", 1, true) then
      fix = fix or a
    end
  end
  out("# code actions: " .. table.concat(titles, " | "))
  if fix == nil then
    error("no action mentions 'device_generator'; got " .. vim.inspect(titles), 0)
  end
  -- Apply the fix when it is an edit: the error must go away.
  if fix.edit ~= nil then
    vim.lsp.util.apply_workspace_edit(fix.edit, client.offset_encoding or "utf-16")
    local line = vim.api.nvim_buf_get_lines(bufnr, 4, 5, false)[1]
    if not line:find('"device_generator"', 1, true) then
      error("after the fix, line 5 is: " .. line, 0)
    end
    wait("the error to disappear after the fix", function()
      for _, d in ipairs(vim.diagnostic.get(bufnr)) do
        if d.message == "Unknown capabilities key 'generator'" then
          return nil
        end
      end
      return true
    end)
  end
end)

-- 5. Commands.
if mode ~= "native" then
  check("commands: status text and a clear warning for a command the server lacks", function()
    local s = torchcts.status(bufnr)
    assert(s == "TorchCTS" or s:match("^TorchCTS L%d: %d+ run, %d+ filtered$"), "status text: " .. s)
    messages = {}
    assert_eq(torchcts.execute("torchcts.noSuchCommand", { uri = vim.uri_from_bufnr(bufnr) }), false, "execute returns")
    assert(messages[1] and messages[1].msg:find("does not offer the command torchcts.noSuchCommand", 1, true), "warning shown")
    local offered = ((client.server_capabilities or {}).executeCommandProvider or {}).commands or {}
    out("# server commands: " .. (#offered > 0 and table.concat(offered, ", ") or "(none yet)"))
  end)
end

-- 5a. Every command the server offers is in the plugin and documented (docs/editors.md's
-- Neovim part and the plugin's README), and so is every :Torchcts* user command.
check("commands: each the server offers is in the plugin and documented", function()
  local plugin = require("torchcts")
  local spec_dir = vim.fn.fnamemodify(debug.getinfo(1, "S").source:sub(2), ":p:h")
  local docs = table.concat(vim.fn.readfile(spec_dir .. "/../../../docs/editors.md"), "\n")
  local from, to = docs:find("\n## Neovim\n", 1, true), docs:find("\n## Helix", 1, true)
  assert(from and to, "docs/editors.md has a Neovim section before Helix")
  local neovim_docs = docs:sub(from, to)
  local readme = table.concat(vim.fn.readfile(spec_dir .. "/../README.md"), "\n")
  local known = {}
  for _, id in pairs(plugin.server_commands) do
    known[id] = "sent by a user command"
  end
  for _, id in pairs(plugin.internal_commands) do
    known[id] = "internal"
  end
  local offered = ((client.server_capabilities or {}).executeCommandProvider or {}).commands or {}
  assert(#offered > 0, "the server offers commands")
  local missing = {}
  for _, id in ipairs(offered) do
    if known[id] == nil then
      table.insert(missing, id .. " (not in the plugin's server_commands or internal_commands)")
    elseif not neovim_docs:find("`" .. id .. "`", 1, true) then
      table.insert(missing, id .. " (not in docs/editors.md's Neovim part)")
    elseif known[id] ~= "internal" and not readme:find("`" .. id .. "`", 1, true) then
      table.insert(missing, id .. " (not in editors/neovim/README.md)")
    end
  end
  for name, _ in pairs(vim.api.nvim_get_commands({})) do
    if name:find("^Torchcts") then
      for doc, text in pairs({ ["docs/editors.md"] = neovim_docs, ["README.md"] = readme }) do
        if not text:find(":" .. name, 1, true) then
          table.insert(missing, ":" .. name .. " (not in " .. doc .. ")")
        end
      end
    end
  end
  out("# server commands: " .. table.concat(offered, ", "))
  if #missing > 0 then
    error("undocumented: " .. table.concat(missing, "; "), 0)
  end
end)

-- 5b. Where the plugin finds the server without `cmd`: $TORCHCTS_LSP, $VIRTUAL_ENV/bin, the
-- workspace's .venv/bin, then PATH (what `pip install torchcts-lsp` provides).
if mode == "setup" then
  check("server lookup: $VIRTUAL_ENV/bin, then the workspace's .venv/bin, before PATH", function()
    local function fake_server(dir)
      vim.fn.mkdir(dir, "p")
      vim.fn.writefile({ "#!/bin/sh", "exit 0" }, dir .. "/torchcts-lsp")
      vim.fn.setfperm(dir .. "/torchcts-lsp", "rwxr-xr-x")
      return dir .. "/torchcts-lsp"
    end
    local venv_exe = fake_server(tmp .. "/activated/bin")
    local ws_exe = fake_server(tmp .. "/.venv/bin")
    local path_exe = fake_server(tmp .. "/path-bin")
    local saved = { cmd = torchcts.config.cmd, venv = vim.env.VIRTUAL_ENV, lsp = vim.env.TORCHCTS_LSP, path = vim.env.PATH }
    local cwd = vim.fn.getcwd()
    local ok, err = pcall(function()
      -- The plugin also looks in ./.venv: make the current directory one without it.
      vim.cmd("cd " .. vim.fn.fnameescape(tmp .. "/backend"))
      torchcts.config.cmd = nil
      vim.env.TORCHCTS_LSP = nil
      vim.env.PATH = tmp .. "/path-bin:" .. (saved.path or "")
      vim.env.VIRTUAL_ENV = tmp .. "/activated"
      assert_eq((torchcts.server_cmd(tmp) or {})[1], venv_exe, "with $VIRTUAL_ENV")
      vim.env.VIRTUAL_ENV = nil
      assert_eq((torchcts.server_cmd(tmp) or {})[1], ws_exe, "with a workspace .venv")
      assert_eq((torchcts.server_cmd(tmp .. "/backend") or {})[1], vim.fn.exepath("torchcts-lsp"), "otherwise PATH")
      assert_eq(vim.fn.exepath("torchcts-lsp"), path_exe, "PATH lookup")
    end)
    vim.cmd("cd " .. vim.fn.fnameescape(cwd))
    torchcts.config.cmd = saved.cmd
    vim.env.VIRTUAL_ENV = saved.venv
    vim.env.TORCHCTS_LSP = saved.lsp
    vim.env.PATH = saved.path
    if not ok then
      error(err, 0)
    end
  end)
end

-- 5c. :TorchctsReport: the support record from the buffer's text and the result folder beside
-- the manifest (a real torchcts run's artifacts): the page written and opened, or the markdown
-- in a split.
if mode == "setup" then
  check(":TorchctsReport writes the page and opens it; markdown in a split", function()
    local spec_dir = vim.fn.fnamemodify(debug.getinfo(1, "S").source:sub(2), ":p:h")
    local artifacts = spec_dir .. "/../../../tests/fixtures/runs/artifacts/focused/results"
    vim.fn.mkdir(tmp .. "/backend/results/cpu_vm_23gb_history", "p")
    for _, f in ipairs({ "cpu_vm_23gb_latest.json", "cpu_vm_23gb_history/2026-11-30T16-24-12Z.json" }) do
      vim.fn.writefile(vim.fn.readfile(artifacts .. "/" .. f, "b"), tmp .. "/backend/results/" .. f, "b")
    end
    local opened
    local saved_open = torchcts.config.report_open
    torchcts.config.report_open = function(path)
      opened = path
    end
    vim.api.nvim_set_current_buf(bufnr)
    vim.cmd("TorchctsReport")
    wait("the page to be opened", function()
      return opened
    end)
    torchcts.config.report_open = saved_open
    local page = table.concat(vim.fn.readfile(opened), "\n")
    assert(page:find('<h1>TorchCTS support record <code id="manifest">manifest.py</code></h1>', 1, true), "the page's title")
    assert(page:find("<svg id=\"chart\"", 1, true) and page:find("id=\"matrix-table\"", 1, true), "chart and matrix")
    assert(not page:find(tmp, 1, true), "no absolute path of the machine in the page")
    local text
    vim.api.nvim_set_current_buf(bufnr)
    assert_eq(torchcts.report("markdown", function(t)
      text = t
    end), true, "report starts")
    wait("the markdown", function()
      return text
    end)
    local shown = vim.api.nvim_buf_get_lines(0, 0, 1, false)[1]
    assert_eq(shown, "### TorchCTS support record: `manifest.py` on `cpu`", "the split's first line")
    assert_eq(vim.bo.filetype, "markdown", "the split's filetype")
    assert_eq(vim.bo.buftype, "nofile", "a scratch buffer")
    vim.cmd("close")
  end)

  -- With no browser (an SSH session: no $DISPLAY; or an opener that fails): the page's path
  -- is said, and the markdown form opens in a scratch split.
  for _, case in ipairs({
    { name = "no $DISPLAY", open = nil, reason = "" },
    { name = "the opener fails", open = { "false" }, reason = "false exited with code 1" },
  }) do
    check(":TorchctsReport without a browser (" .. case.name .. "): says where the page is, shows the markdown", function()
      local saved = { open = torchcts.config.report_open, display = vim.env.DISPLAY, wayland = vim.env.WAYLAND_DISPLAY }
      torchcts.config.report_open = case.open
      vim.env.DISPLAY = nil
      vim.env.WAYLAND_DISPLAY = nil
      messages = {}
      vim.api.nvim_set_current_buf(bufnr)
      local windows = #vim.api.nvim_list_wins()
      local ok, err = pcall(function()
        vim.cmd("TorchctsReport")
        wait("the markdown split", function()
          return #vim.api.nvim_list_wins() > windows and vim.bo.filetype == "markdown"
        end)
      end)
      torchcts.config.report_open = saved.open
      vim.env.DISPLAY = saved.display
      vim.env.WAYLAND_DISPLAY = saved.wayland
      if not ok then
        error(err, 0)
      end
      local page = torchcts.report_path(vim.api.nvim_buf_get_name(bufnr))
      local said
      for _, m in ipairs(messages) do
        if m.msg:find("support record written to " .. page, 1, true) and m.msg:find("not opened (" .. case.reason, 1, true) then
          said = m.msg
        end
      end
      assert(said, "a message with the page's path and why it was not opened: " .. vim.inspect(messages))
      assert_eq(vim.fn.filereadable(page), 1, "the page exists")
      assert(page:find(vim.fn.stdpath("cache"), 1, true) == 1, "the page is in Neovim's cache folder: " .. page)
      assert_eq(vim.api.nvim_buf_get_lines(0, 0, 1, false)[1], "### TorchCTS support record: `manifest.py` on `cpu`", "the split's first line")
      vim.cmd("close")
    end)
  end
end

-- 6. Shutdown: shutdown request, exit notification, process exits by itself with code 0.
check("shutdown: the server exits cleanly", function()
  if has("nvim-0.11") then
    client:stop()
  else
    client.stop()
  end
  wait("the server process to exit", function()
    return exit_info
  end, 5000)
  assert_eq(exit_info.code, 0, "exit code")
  assert_eq(exit_info.signal or 0, 0, "signal")
  local stopped = has("nvim-0.11") and client:is_stopped() or (not has("nvim-0.11") and client.is_stopped())
  assert(stopped, "client reports stopped")
end)

finish()
