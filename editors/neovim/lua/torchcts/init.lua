-- torchcts.nvim: attaches torchcts-lsp (the TorchCTS manifest language server) to
-- manifest.py files. Works on Neovim 0.7 (vim.lsp.start_client + vim.lsp.buf_attach_client)
-- and on Neovim 0.8+ (vim.lsp.start).
--
--   require("torchcts").setup({
--     cmd = { "/path/to/torchcts-lsp" },   -- default: $TORCHCTS_LSP, $VIRTUAL_ENV/bin, .venv/bin, PATH
--     patterns = { "manifest.py" },         -- autocmd patterns of manifest files
--     settings = { device = "cuda", defaultLevel = 3, onSave = "off", run = { workers = 1 },
--                  python = { interpreter = "python3" }, inlayHints = { enabled = true } },
--     on_attach = function(client, bufnr) end, -- after the plugin's own (keymaps, lenses, hints)
--     keymaps = { hover = "K", definition = "gd", codelens = "<leader>cl" }, -- false: none
--     codelens = true, progress = true,
--   })
--
-- With vim.lsp.enable / nvim-lspconfig instead of setup(): on_attach = require("torchcts").on_attach,
-- handlers = require("torchcts").handlers(), capabilities = require("torchcts").capabilities().

local M = {}

local NAME = "torchcts"

--- Commands the server offers through workspace/executeCommand.
M.server_commands = {
  run_affected = "torchcts.runAffectedTests",
  run_level = "torchcts.runLevel",
  cancel_run = "torchcts.cancelRun",
  show_skips = "torchcts.showSkips",
  rerun_failed = "torchcts.rerunFailed",
}

--- Commands the server offers that the plugin sends no request for: `torchcts.applyEdit` is
--- how the server hands a quick fix to a client without code action literals (Neovim has them).
M.internal_commands = {
  apply_edit = "torchcts.applyEdit",
}

local defaults = {
  -- The server command (a list). nil: $TORCHCTS_LSP, then the `torchcts-lsp` that
  -- `pip install torchcts-lsp` put in $VIRTUAL_ENV/bin or the workspace's .venv/bin, then PATH.
  cmd = nil,
  -- Autocmd patterns of the files to attach to (file names or globs, as in :h autocmd-pattern).
  patterns = { "manifest.py" },
  -- The root directory is the nearest parent with one of these; else the file's folder.
  root_markers = { ".git", "pyproject.toml", "setup.cfg", "setup.py" },
  -- Sent as initializationOptions and as the `torchcts` configuration section.
  -- Every setting the server reads, with its default (docs/configuration.md; a test checks
  -- this table against the server's schema).
  settings = {
    python = { interpreter = "" },
    -- "": the project's device (pyproject.toml [tool.torchcts-lsp]), else the manifest's.
    device = "",
    -- Level for a manifest without semantic_level whose project names no `level`.
    defaultLevel = 3,
    onSave = "off", -- "off" | "affected" | "level"
    run = {
      -- Worker processes per test run (pytest-xdist `-n N`); above 1 needs `pip install
      -- pytest-xdist` in the run's Python, else the run does not start and says so.
      workers = 1,
      -- Time limit of one run, in seconds.
      timeoutSeconds = 1800,
    },
    inlayHints = { enabled = true },
    -- An inventory written by `torchcts-lsp inventory`; "": the project's, else the embedded one.
    inventory = { path = "" },
    -- Globs of manifests besides every manifest.py (add them to `patterns` too).
    manifests = {},
    logLevel = "info", -- "error" | "warn" | "info" | "debug"
    logFile = "",
    -- Ask the environment's CPython to compile() (never run) a manifest with a syntax error.
    cpythonCompile = true,
  },
  on_attach = nil,
  -- Called as on_exit(code, signal, client_id) when a server process ends.
  on_exit = nil,
  capabilities = nil,
  -- Extra handlers merged over the plugin's own.
  handlers = {},
  -- Create the :Torchcts* user commands.
  user_commands = true,
  -- Buffer-local keymaps in manifests (normal mode); false: none, or a key set to false.
  -- `K` is mapped because Python's ftplugin sets 'keywordprg' to pydoc, which wins over
  -- Neovim's own LSP `K` (0.10+) and is all `K` does on 0.7-0.9.
  keymaps = {
    hover = "K", -- vim.lsp.buf.hover()
    definition = "gd", -- vim.lsp.buf.definition()
    codelens = "<leader>cl", -- vim.lsp.codelens.run(): the lens on the cursor line
  },
  -- Code lenses: fetched on attach, BufEnter, InsertLeave and when the server asks
  -- (`workspace/codeLens/refresh`, e.g. once its inventory has loaded or a run landed).
  codelens = true,
  -- A run's progress (`$/progress`) echoed in the command line; false: leave it to Neovim
  -- (vim.lsp.status(), 0.10+) or a progress plugin.
  progress = true,
  -- Called with (message, level) instead of vim.notify, and with the server's messages
  -- (window/showMessage, whole) instead of the one-line echo.
  notify = nil,
  -- :TorchctsReport: how the HTML support record is opened (a function of its path, or a
  -- command list the path is appended to); nil: xdg-open (Linux), open (macOS).
  report_open = nil,
}

M.config = vim.deepcopy(defaults)

-- Per root directory: the client id (Neovim 0.7 path).
local clients_by_root = {}
-- Per buffer: the last `torchcts/status` params.
local status_by_buf = {}
local augroup

local function notify(msg, level)
  if M.config.notify then
    return M.config.notify(msg, level)
  end
  vim.notify("torchcts: " .. msg, level or vim.log.levels.INFO)
end

local function has(feature)
  return vim.fn.has(feature) == 1
end

-- Method-call style on 0.11+, dot style before (0.11 deprecates `client.request(...)`).
local function client_request(client, method, params, handler, bufnr)
  if has("nvim-0.11") then
    return client:request(method, params, handler, bufnr)
  end
  return client.request(method, params, handler, bufnr)
end

local function client_stop(client, force)
  if has("nvim-0.11") then
    return client:stop(force)
  end
  return client.stop(force)
end

local function get_clients(bufnr)
  if vim.lsp.get_clients then
    return vim.lsp.get_clients({ bufnr = bufnr, name = NAME })
  end
  local result = {}
  local all = bufnr and vim.lsp.buf_get_clients(bufnr) or vim.lsp.get_active_clients()
  for _, c in pairs(all) do
    if c.name == NAME then
      table.insert(result, c)
    end
  end
  return result
end

--- The torchcts-lsp of a Python environment (`pip install torchcts-lsp`): $VIRTUAL_ENV's,
--- then a `.venv` in `root` (the workspace root) or in the current directory.
function M.venv_server(root)
  local dirs = {}
  if vim.env.VIRTUAL_ENV ~= nil and vim.env.VIRTUAL_ENV ~= "" then
    table.insert(dirs, vim.env.VIRTUAL_ENV)
  end
  if root ~= nil and root ~= "" then
    table.insert(dirs, root .. "/.venv")
  end
  table.insert(dirs, vim.fn.getcwd() .. "/.venv")
  for _, dir in ipairs(dirs) do
    local exe = dir .. "/bin/torchcts-lsp"
    if vim.fn.executable(exe) == 1 then
      return exe
    end
  end
  return nil
end

--- The server command: config.cmd, then $TORCHCTS_LSP, then a Python environment's
--- torchcts-lsp (M.venv_server(root)), then torchcts-lsp on PATH.
--- Returns cmd (a list) or nil and a message saying what was tried.
function M.server_cmd(root)
  local cmd = M.config.cmd
  if type(cmd) == "string" then
    cmd = { cmd }
  end
  if cmd ~= nil then
    local exe = vim.fn.expand(cmd[1])
    if vim.fn.executable(exe) ~= 1 then
      return nil, ("the configured server %s is not executable (setup{ cmd = ... })"):format(exe)
    end
    local out = vim.deepcopy(cmd)
    out[1] = exe
    return out
  end
  local env = vim.env.TORCHCTS_LSP
  if env ~= nil and env ~= "" then
    if vim.fn.executable(env) ~= 1 then
      return nil, ("$TORCHCTS_LSP is set to %s, which is not executable"):format(env)
    end
    return { env }
  end
  local venv_exe = M.venv_server(root)
  if venv_exe ~= nil then
    return { venv_exe }
  end
  if vim.fn.executable("torchcts-lsp") == 1 then
    return { vim.fn.exepath("torchcts-lsp") }
  end
  return nil,
    "cannot find the language server torchcts-lsp: set setup{ cmd = { '/path/to/torchcts-lsp' } }, "
      .. "or $TORCHCTS_LSP, or `pip install torchcts-lsp` into $VIRTUAL_ENV or the workspace's .venv, "
      .. "or put torchcts-lsp on PATH (build: cargo build --release -p torchcts-lsp)"
end

local function exists(p)
  return (vim.uv or vim.loop).fs_stat(p) ~= nil
end

--- The root directory for a file: the nearest parent holding a root marker, else its folder.
function M.root_dir(fname)
  local dir = vim.fn.fnamemodify(fname, ":p:h")
  local cur = dir
  while true do
    for _, marker in ipairs(M.config.root_markers or {}) do
      if exists(cur .. "/" .. marker) then
        return cur
      end
    end
    local parent = vim.fn.fnamemodify(cur, ":h")
    if parent == cur then
      break
    end
    cur = parent
  end
  return dir
end

local function on_status(_, result, ctx)
  if type(result) ~= "table" or type(result.uri) ~= "string" then
    return
  end
  local bufnr = vim.uri_to_bufnr(result.uri)
  status_by_buf[bufnr] = {
    level = result.level,
    run = result.run,
    filtered = result.filtered,
    client_id = ctx and ctx.client_id,
  }
  pcall(vim.api.nvim_exec_autocmds, "User", { pattern = "TorchctsStatus", modeline = false })
end

--- Status line text for a buffer: "TorchCTS L2: 812 run, 3120 filtered", or "TorchCTS".
function M.status(bufnr)
  bufnr = (bufnr == nil or bufnr == 0) and vim.api.nvim_get_current_buf() or bufnr
  local s = status_by_buf[bufnr]
  if s == nil then
    return "TorchCTS"
  end
  return ("TorchCTS L%d: %d run, %d filtered"):format(s.level, s.run, s.filtered)
end

--- Fetches the code lenses of `bufnr` again (every version: `codelens.refresh()` serves only
--- the current buffer before 0.10).
function M.refresh_codelens(bufnr)
  if not vim.api.nvim_buf_is_loaded(bufnr) then
    return
  end
  if has("nvim-0.10") then
    vim.lsp.codelens.refresh({ bufnr = bufnr })
    return
  end
  for _, client in ipairs(get_clients(bufnr)) do
    client_request(client, "textDocument/codeLens", {
      textDocument = { uri = vim.uri_from_bufnr(bufnr) },
    }, vim.lsp.codelens.on_codelens, bufnr)
  end
end

-- `workspace/codeLens/refresh` (a request: the answer is null): every buffer of the client.
local function on_codelens_refresh(_, _, ctx)
  local client = vim.lsp.get_client_by_id(ctx.client_id)
  if client ~= nil and M.config.codelens then
    for bufnr, _ in pairs(client.attached_buffers or {}) do
      vim.schedule(function()
        M.refresh_codelens(bufnr)
      end)
    end
  end
  return vim.NIL
end

--- The text shown for a `$/progress` value: "TorchCTS: level 2 on cpu: 40/262: 40 passed, ...";
--- at the end the server's summary alone.
function M.progress_text(value)
  if type(value) ~= "table" then
    return nil
  end
  local text = value.title or ""
  if value.message ~= nil and value.message ~= "" then
    text = text ~= "" and (text .. ": " .. value.message) or value.message
  end
  if value.percentage ~= nil then
    text = ("%s (%d%%)"):format(text, math.floor(value.percentage))
  end
  if value.kind == "end" then
    -- The server's last message is the run's whole summary.
    return value.message or (text .. " done")
  end
  return text
end

--- `text` as one line of the command line: its first line, cut ("..." at the cut) to `width`
--- (default `v:echospace`, the columns less those of 'showcmd' and 'ruler'). Longer, or several
--- lines, and Neovim stops at a "Press ENTER" prompt.
function M.one_line(text, width)
  text = tostring(text):gsub("\r", ""):gsub("%s+$", "")
  local line = text:match("^[^\n]*")
  width = width or vim.v.echospace
  if line == text and vim.fn.strdisplaywidth(line) <= width then
    return line
  end
  local n = vim.fn.strchars(line)
  while n > 0 and vim.fn.strdisplaywidth(vim.fn.strcharpart(line, 0, n)) > width - 3 do
    n = n - 1
  end
  return vim.fn.strcharpart(line, 0, n) .. "..."
end

-- The server's messages (`window/showMessage`), whole, for :TorchctsMessages: the command
-- line shows one line of each.
local MESSAGES_KEPT = 50
local messages = {}

--- The server's last messages (at most 50), oldest first.
function M.messages()
  return vim.deepcopy(messages)
end

local MESSAGE_HIGHLIGHT = { "ErrorMsg", "WarningMsg" } -- by LSP MessageType; others: none

-- `window/showMessage`: one line in the command line, kept in :messages, instead of Neovim's
-- handler, whose message ends with a line break on 0.11 (always a "Press ENTER" prompt) and
-- which prompts for a message wider than the screen. The `notify` option gets the whole text.
local function on_show_message(_, result, ctx)
  if type(result) ~= "table" or type(result.message) ~= "string" then
    return vim.NIL
  end
  table.insert(messages, result.message)
  if #messages > MESSAGES_KEPT then
    table.remove(messages, 1)
  end
  local levels = vim.log.levels
  local level = ({ levels.ERROR, levels.WARN, levels.INFO, levels.DEBUG })[result.type] or levels.INFO
  if M.config.notify then
    M.config.notify(result.message, level)
  else
    local hl = MESSAGE_HIGHLIGHT[result.type]
    vim.api.nvim_echo({ { M.one_line(result.message), hl } }, true, {})
  end
  return vim.NIL
end

-- `$/progress`: Neovim's own handler (it keeps the state vim.lsp.status() and progress plugins
-- read), then the text in the command line. Neovim 0.7 to 0.11 show no progress by themselves.
local titles = {}
local function on_progress(err, result, ctx, config)
  local default = vim.lsp.handlers["$/progress"]
  local answer = default and default(err, result, ctx, config)
  if M.config.progress and type(result) == "table" and type(result.value) == "table" then
    local key = tostring(ctx.client_id) .. ":" .. tostring(result.token)
    local value = vim.deepcopy(result.value)
    if value.kind == "begin" then
      titles[key] = value.title
    else
      value.title = titles[key]
    end
    if value.kind == "end" then
      titles[key] = nil
    end
    local text = M.progress_text(value)
    if text ~= nil and text ~= "" then
      vim.api.nvim_echo({ { M.one_line(text) } }, false, {}) -- the title names TorchCTS
    end
  end
  return answer
end

--- The plugin's handlers (`torchcts/status`, `$/progress`, `workspace/codeLens/refresh`,
--- `window/showMessage`), for a
--- client config made without setup() (vim.lsp.config, nvim-lspconfig).
function M.handlers()
  return {
    ["torchcts/status"] = on_status,
    ["$/progress"] = on_progress,
    ["workspace/codeLens/refresh"] = on_codelens_refresh,
    ["window/showMessage"] = on_show_message,
  }
end

--- `base` (default: Neovim's make_client_capabilities()) with what the plugin adds: it answers
--- `workspace/codeLens/refresh`, which Neovim itself does not declare (0.7 to 0.11).
function M.capabilities(base)
  base = base or vim.lsp.protocol.make_client_capabilities()
  return vim.tbl_deep_extend("force", base, { workspace = { codeLens = { refreshSupport = true } } })
end

local function map_keys(bufnr)
  local keys = M.config.keymaps
  if type(keys) ~= "table" then
    return
  end
  local actions = {
    hover = { vim.lsp.buf.hover, "TorchCTS: hover (vim.lsp.buf.hover)" },
    definition = { vim.lsp.buf.definition, "TorchCTS: go to definition (vim.lsp.buf.definition)" },
    codelens = { vim.lsp.codelens.run, "TorchCTS: run the code lens of this line (vim.lsp.codelens.run)" },
  }
  for name, action in pairs(actions) do
    local lhs = keys[name]
    if type(lhs) == "string" and lhs ~= "" then
      vim.keymap.set("n", lhs, function()
        action[1]()
      end, { buffer = bufnr, silent = true, desc = action[2] })
    end
  end
end

--- What the plugin sets up in a buffer the server attached to: the keymaps, the code lenses
--- (now, and again on BufEnter and InsertLeave), inlay hints on Neovim 0.10+ (unless
--- settings.inlayHints.enabled is false). setup() calls it before config.on_attach; call it from
--- your own on_attach when you configure the client without setup().
function M.on_attach(client, bufnr)
  bufnr = (bufnr == nil or bufnr == 0) and vim.api.nvim_get_current_buf() or bufnr
  map_keys(bufnr)
  if M.config.codelens and (client.server_capabilities or {}).codeLensProvider then
    -- One group per buffer: attaching again (a restart) replaces the autocmds, not adds to them.
    local group = vim.api.nvim_create_augroup("torchcts_codelens_" .. bufnr, { clear = true })
    vim.api.nvim_create_autocmd({ "BufEnter", "InsertLeave" }, {
      group = group,
      buffer = bufnr,
      callback = function()
        M.refresh_codelens(bufnr)
      end,
      desc = "torchcts-lsp: fetch the code lenses again",
    })
    M.refresh_codelens(bufnr)
  end
  local hints = ((M.config.settings or {}).inlayHints or {}).enabled
  if hints ~= false and vim.lsp.inlay_hint ~= nil and (client.server_capabilities or {}).inlayHintProvider then
    pcall(vim.lsp.inlay_hint.enable, true, { bufnr = bufnr })
  end
end

local function make_config(cmd, root)
  local handlers = vim.tbl_extend("force", M.handlers(), M.config.handlers or {})
  return {
    name = NAME,
    cmd = cmd,
    root_dir = root,
    workspace_folders = { { uri = vim.uri_from_fname(root), name = root } },
    init_options = M.config.settings,
    settings = { torchcts = M.config.settings },
    handlers = handlers,
    capabilities = M.capabilities(M.config.capabilities),
    on_attach = function(client, bufnr)
      M.on_attach(client, bufnr)
      if M.config.on_attach then
        M.config.on_attach(client, bufnr)
      end
    end,
    on_exit = function(code, signal, client_id)
      for r, id in pairs(clients_by_root) do
        if id == client_id then
          clients_by_root[r] = nil
        end
      end
      if M.config.on_exit then
        M.config.on_exit(code, signal, client_id)
      end
      if code ~= 0 or (signal ~= nil and signal ~= 0) then
        vim.schedule(function()
          notify(("torchcts-lsp exited with code %s, signal %s"):format(tostring(code), tostring(signal)), vim.log.levels.WARN)
        end)
      end
    end,
  }
end

--- Attaches the server to a buffer (the autocmds call this for manifest files).
--- Returns the client id, or nil (with a notification saying why).
function M.attach(bufnr)
  bufnr = (bufnr == nil or bufnr == 0) and vim.api.nvim_get_current_buf() or bufnr
  local fname = vim.api.nvim_buf_get_name(bufnr)
  if fname == "" or vim.bo[bufnr].buftype ~= "" then
    return nil
  end
  local root = M.root_dir(fname)
  local cmd, err = M.server_cmd(root)
  if cmd == nil then
    notify(err, vim.log.levels.ERROR)
    return nil
  end
  local config = make_config(cmd, root)

  if vim.lsp.start ~= nil and not M.config._force_legacy then
    -- Neovim 0.8+: reuses a running client with the same name and root_dir.
    return vim.lsp.start(config, { bufnr = bufnr })
  end

  -- Neovim 0.7.
  local id = clients_by_root[root]
  local client = id and vim.lsp.get_client_by_id(id)
  if client == nil or client.is_stopped() then
    id = vim.lsp.start_client(config)
    if id == nil then
      notify(("failed to start %s"):format(table.concat(cmd, " ")), vim.log.levels.ERROR)
      return nil
    end
    clients_by_root[root] = id
  end
  vim.lsp.buf_attach_client(bufnr, id)
  return id
end

local function client_for(bufnr)
  local list = get_clients(bufnr)
  return list[1]
end

local function position_params(client)
  local params = vim.lsp.util.make_position_params(0, client.offset_encoding)
  return params.position
end

--- Sends workspace/executeCommand with one argument table, if the server offers `command`.
--- `on_result(result)` is called with the server's answer.
function M.execute(command, args, on_result, bufnr)
  bufnr = (bufnr == nil or bufnr == 0) and vim.api.nvim_get_current_buf() or bufnr
  local client = client_for(bufnr)
  if client == nil then
    notify("torchcts-lsp is not attached to this buffer (open a manifest.py)", vim.log.levels.WARN)
    return false
  end
  local caps = client.server_capabilities or {}
  local offered = (caps.executeCommandProvider or {}).commands or {}
  if not vim.tbl_contains(offered, command) then
    local version = client.server_info and client.server_info.version or "?"
    notify(("this torchcts-lsp (%s) does not offer the command %s; update the server"):format(version, command), vim.log.levels.WARN)
    return false
  end
  client_request(client, "workspace/executeCommand", { command = command, arguments = { args } }, function(err, result)
    if err then
      notify(("%s failed: %s"):format(command, err.message or vim.inspect(err)), vim.log.levels.ERROR)
      return
    end
    if on_result then
      on_result(result)
    end
  end, bufnr)
  return true
end

local function run_options()
  local s = M.config.settings or {}
  local device = s.device ~= "" and s.device or nil
  local python = s.python and s.python.interpreter ~= "" and s.python.interpreter or nil
  return device, python
end

local function show_text(text)
  local lines = vim.split(text, "\n", { plain = true })
  vim.cmd("botright new")
  local buf = vim.api.nvim_get_current_buf()
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, lines)
  vim.bo[buf].buftype = "nofile"
  vim.bo[buf].bufhidden = "wipe"
  vim.bo[buf].swapfile = false
  vim.bo[buf].filetype = "markdown"
  vim.bo[buf].modifiable = false
end

local function parse_level(arg)
  if arg == nil or arg == "" then
    local s = M.config.settings or {}
    return s.defaultLevel or 3
  end
  local n = tonumber(arg)
  if n == nil or n < 1 or n > 8 or n ~= math.floor(n) then
    notify(("level must be an integer 1..8, got %s"):format(arg), vim.log.levels.ERROR)
    return nil
  end
  return n
end

function M.run_affected()
  local bufnr = vim.api.nvim_get_current_buf()
  local client = client_for(bufnr)
  local device, python = run_options()
  return M.execute(M.server_commands.run_affected, {
    uri = vim.uri_from_bufnr(bufnr),
    position = client and position_params(client) or nil,
    device = device,
    python = python,
  })
end

function M.run_level(level)
  -- No level given: the one the server resolved (semantic_level, the project's, defaultLevel).
  local s = status_by_buf[vim.api.nvim_get_current_buf()]
  if (level == nil or level == "") and s ~= nil then
    level = s.level
  end
  level = parse_level(level)
  if level == nil then
    return false
  end
  local device, python = run_options()
  return M.execute(M.server_commands.run_level, { uri = vim.uri_from_bufnr(0), level = level, device = device, python = python })
end

--- Runs again the tests the manifest's last run failed; `isolate`: each in its own process
--- (what the server suggests after a crash).
function M.rerun_failed(isolate)
  local device, python = run_options()
  local args = { uri = vim.uri_from_bufnr(0), device = device, python = python }
  if isolate then
    args.isolate = true
  end
  return M.execute(M.server_commands.rerun_failed, args, function(result)
    if result == nil or result == vim.NIL then
      notify("nothing to re-run: the last run of this manifest failed no test (or there was none)")
    end
  end)
end

function M.cancel_run()
  return M.execute(M.server_commands.cancel_run, { uri = vim.uri_from_bufnr(0) })
end

function M.show_skips(level)
  local s = status_by_buf[vim.api.nvim_get_current_buf()]
  if (level == nil or level == "") and s ~= nil then
    level = s.level
  end
  level = parse_level(level)
  if level == nil then
    return false
  end
  return M.execute(M.server_commands.show_skips, { uri = vim.uri_from_bufnr(0), level = level }, function(result)
    local text = type(result) == "string" and result or (type(result) == "table" and result.markdown) or nil
    if type(text) == "string" then
      show_text(text)
    end
  end)
end

-- How the page is opened: a function of its path, or an argv the path is appended to; nil with
-- the reason when there is no browser to open it with (an SSH session on a GPU host).
local function report_opener()
  local open = M.config.report_open
  if type(open) == "function" then
    return open
  end
  local command = type(open) == "table" and open or (has("mac") and { "open" } or { "xdg-open" })
  if vim.fn.executable(command[1]) ~= 1 then
    return nil, ("%s is not executable"):format(command[1])
  end
  local graphical = has("mac") or has("win32") or (vim.env.DISPLAY or "") ~= "" or (vim.env.WAYLAND_DISPLAY or "") ~= ""
  if open == nil and not graphical then
    return nil, "no $DISPLAY or $WAYLAND_DISPLAY"
  end
  return function(path, on_failure)
    local argv = vim.deepcopy(command)
    table.insert(argv, path)
    local ok, job = pcall(vim.fn.jobstart, argv, {
      detach = true,
      on_exit = function(_, code)
        if code ~= 0 then
          vim.schedule(function()
            on_failure(("%s exited with code %d"):format(argv[1], code))
          end)
        end
      end,
    })
    if not ok or job <= 0 then
      on_failure(("cannot start %s"):format(argv[1]))
    end
  end
end

--- Where :TorchctsReport writes the page of `file`: one per manifest in Neovim's cache folder
--- (it outlives the session, unlike a temporary file).
function M.report_path(file)
  local dir = vim.fn.stdpath("cache") .. "/torchcts"
  vim.fn.mkdir(dir, "p")
  local path = vim.fn.fnamemodify(file, ":p")
  local folder = vim.fn.fnamemodify(path, ":h:t"):gsub("[^%w._-]", "_")
  return ("%s/support-record-%s-%s.html"):format(dir, folder, vim.fn.sha256(path):sub(1, 8))
end

--- The support record of the current manifest (`torchcts-lsp report`, from the buffer's text):
--- format "html" (default) writes the page (M.report_path), says where, and opens it
--- (config.report_open); with no browser to open it, it shows the markdown form instead.
--- "markdown" shows the compact form in a scratch split. `on_done(path_or_text)` when given,
--- for scripts and tests; `bufnr` (default: the current one) the manifest's buffer. Returns
--- false when it cannot start.
function M.report(format, on_done, bufnr)
  format = (format == nil or format == "") and "html" or format
  if format ~= "html" and format ~= "markdown" then
    notify(("report format must be html or markdown, got %s"):format(format), vim.log.levels.ERROR)
    return false
  end
  bufnr = (bufnr == nil or bufnr == 0) and vim.api.nvim_get_current_buf() or bufnr
  local file = vim.api.nvim_buf_get_name(bufnr)
  if file == "" then
    notify("open a manifest.py first", vim.log.levels.WARN)
    return false
  end
  local dir = vim.fn.fnamemodify(file, ":p:h")
  local cmd, why = M.server_cmd(M.root_dir(file))
  if cmd == nil then
    notify(why, vim.log.levels.ERROR)
    return false
  end
  local argv = { cmd[1], "report", "-", "--stdin-filename", vim.fn.fnamemodify(file, ":t"), "--format", format }
  local device = (M.config.settings or {}).device
  if device ~= nil and device ~= "" then
    vim.list_extend(argv, { "--device", device })
  end
  local page = format == "html" and M.report_path(file) or nil
  if page ~= nil then
    vim.list_extend(argv, { "-o", page })
  end
  local stdout, stderr = {}, {}
  local job = vim.fn.jobstart(argv, {
    cwd = dir,
    stdout_buffered = true,
    stderr_buffered = true,
    on_stdout = function(_, data)
      stdout = data
    end,
    on_stderr = function(_, data)
      stderr = data
    end,
    on_exit = function(_, code)
      vim.schedule(function()
        if code ~= 0 then
          notify("torchcts-lsp report failed: " .. table.concat(stderr, "\n"), vim.log.levels.ERROR)
          return
        end
        if page ~= nil then
          local open, why = report_opener()
          local function markdown_instead(reason)
            notify(
              ("support record written to %s; not opened (%s): the markdown form follows (:TorchctsReport markdown)"):format(page, reason),
              vim.log.levels.WARN
            )
            if vim.api.nvim_buf_is_valid(bufnr) then
              M.report("markdown", nil, bufnr)
            end
          end
          if open == nil then
            markdown_instead(why)
          else
            notify("support record written to " .. page)
            open(page, markdown_instead)
          end
          if on_done then
            on_done(page)
          end
        else
          local text = table.concat(stdout, "\n")
          show_text(text)
          if on_done then
            on_done(text)
          end
        end
      end)
    end,
  })
  if job <= 0 then
    notify("cannot start " .. cmd[1], vim.log.levels.ERROR)
    return false
  end
  local lines = vim.api.nvim_buf_get_lines(bufnr, 0, -1, false)
  table.insert(lines, "") -- the text ends with a line break
  vim.fn.chansend(job, lines)
  vim.fn.chanclose(job, "stdin")
  return true
end

--- Stops every torchcts client and attaches the manifest buffers again.
function M.restart()
  local bufs = {}
  for _, client in ipairs(get_clients()) do
    for b, _ in pairs(client.attached_buffers or {}) do
      bufs[b] = true
    end
    client_stop(client)
  end
  clients_by_root = {}
  vim.defer_fn(function()
    for b, _ in pairs(bufs) do
      if vim.api.nvim_buf_is_valid(b) then
        M.attach(b)
      end
    end
  end, 500)
end

local function create_user_commands()
  local cmd = vim.api.nvim_create_user_command
  cmd("TorchctsRunAffected", function()
    M.run_affected()
  end, { desc = "TorchCTS: run the tests affected by the entry under the cursor" })
  cmd("TorchctsRunLevel", function(o)
    M.run_level(o.args)
  end, { nargs = "?", desc = "TorchCTS: run the manifest's tests at a level (default: the lens's level)" })
  cmd("TorchctsRerunFailed", function(o)
    if o.args ~= "" and o.args ~= "isolate" then
      notify("usage: :TorchctsRerunFailed [isolate]", vim.log.levels.ERROR)
      return
    end
    M.rerun_failed(o.args == "isolate")
  end, {
    nargs = "?",
    complete = function()
      return { "isolate" }
    end,
    desc = "TorchCTS: run again the tests the last run failed (isolate: each in its own process)",
  })
  cmd("TorchctsCancelRun", function()
    M.cancel_run()
  end, { desc = "TorchCTS: cancel the running tests" })
  cmd("TorchctsShowSkips", function(o)
    M.show_skips(o.args)
  end, { nargs = "?", desc = "TorchCTS: show what is filtered at a level, by reason" })
  cmd("TorchctsReport", function(o)
    M.report(o.args)
  end, {
    nargs = "?",
    complete = function()
      return { "html", "markdown" }
    end,
    desc = "TorchCTS: the support record (html: write the page, say where, open it; markdown: in a split)",
  })
  cmd("TorchctsMessages", function()
    local chunks = {}
    for _, m in ipairs(messages) do
      table.insert(chunks, { m .. "\n" })
    end
    vim.api.nvim_echo(#chunks > 0 and chunks or { { "torchcts-lsp has sent no message" } }, false, {})
  end, { desc = "TorchCTS: the server's messages, whole (the command line shows one line of each)" })
  cmd("TorchctsRestart", function()
    M.restart()
  end, { desc = "TorchCTS: restart torchcts-lsp" })
end

local function matches_patterns(fname)
  for _, pat in ipairs(M.config.patterns) do
    local re = vim.fn.glob2regpat(pat:find("/") and pat or ("*/" .. pat))
    if vim.fn.match(fname, re) >= 0 or vim.fn.fnamemodify(fname, ":t") == pat then
      return true
    end
  end
  return false
end

function M.setup(opts)
  M.config = vim.tbl_deep_extend("force", vim.deepcopy(defaults), opts or {})
  if opts and opts.patterns then
    M.config.patterns = opts.patterns -- lists replace, not merge
  end
  augroup = vim.api.nvim_create_augroup("torchcts", { clear = true })
  vim.api.nvim_create_autocmd({ "BufReadPost", "BufNewFile" }, {
    group = augroup,
    pattern = M.config.patterns,
    callback = function(args)
      M.attach(args.buf)
    end,
    desc = "torchcts-lsp: attach to TorchCTS manifests",
  })
  vim.api.nvim_create_autocmd("BufWipeout", {
    group = augroup,
    callback = function(args)
      status_by_buf[args.buf] = nil
    end,
  })
  if M.config.user_commands then
    create_user_commands()
  end
  -- Buffers already loaded (setup() called late, e.g. lazy-loaded on FileType).
  for _, b in ipairs(vim.api.nvim_list_bufs()) do
    if vim.api.nvim_buf_is_loaded(b) and matches_patterns(vim.api.nvim_buf_get_name(b)) then
      M.attach(b)
    end
  end
end

return M
