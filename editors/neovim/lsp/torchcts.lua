-- Neovim 0.11+ native LSP config for torchcts-lsp (`:h lsp-config`), found on 'runtimepath'
-- when this plugin is installed. Use it instead of require("torchcts").setup(), not with it:
--
--   vim.lsp.config("torchcts", { cmd = { "/path/to/torchcts-lsp" } })  -- optional overrides
--   vim.lsp.enable("torchcts")
--
-- It attaches to Python buffers named manifest.py only, and sets up what setup() does in a
-- manifest buffer (require("torchcts").on_attach: `K` for hover, `gd`, code lenses refreshed on
-- BufEnter, InsertLeave and the server's request, inlay hints), with the plugin's handlers
-- (status, progress in the command line, `workspace/codeLens/refresh`, the server's messages on
-- one line). An on_attach of your own replaces this one: call
-- require("torchcts").on_attach(client, bufnr) from it.
local torchcts = require("torchcts")

return {
  cmd = { "torchcts-lsp" },
  filetypes = { "python" },
  root_dir = function(bufnr, on_dir)
    local fname = vim.api.nvim_buf_get_name(bufnr)
    if vim.fs.basename(fname) ~= "manifest.py" then
      return
    end
    on_dir(vim.fs.root(bufnr, { ".git", "pyproject.toml", "setup.cfg", "setup.py" }) or vim.fs.dirname(fname))
  end,
  init_options = {
    python = { interpreter = "" },
    device = "",
    defaultLevel = 3,
    onSave = "off",
    run = { workers = 1, timeoutSeconds = 1800 },
    inlayHints = { enabled = true },
    inventory = { path = "" },
    manifests = {},
    logLevel = "info",
    logFile = "",
    cpythonCompile = true,
  },
  settings = {
    torchcts = {
      python = { interpreter = "" },
      device = "",
      defaultLevel = 3,
      onSave = "off",
      run = { workers = 1, timeoutSeconds = 1800 },
      inlayHints = { enabled = true },
      inventory = { path = "" },
      manifests = {},
      logLevel = "info",
      logFile = "",
      cpythonCompile = true,
    },
  },
  on_attach = function(client, bufnr)
    torchcts.on_attach(client, bufnr)
  end,
  handlers = torchcts.handlers(),
  -- Only what the plugin adds: Neovim merges it over its own capabilities.
  capabilities = torchcts.capabilities({}),
}
