" TorchCTS manifests in Vim with ALE (Debian: vim-ale, an optional package).
" Put this in your vimrc (after `filetype plugin on`).
packadd! ale

call ale#linter#Define('python', {
\   'name': 'torchcts',
\   'lsp': 'stdio',
\   'executable': 'torchcts-lsp',
\   'command': '%e',
\   'project_root': {buffer -> fnamemodify(bufname(buffer), ':p:h')},
\   'initialization_options': {'device': '', 'defaultLevel': 2, 'onSave': 'off'},
\})

" Run it on files named manifest.py only (add other Python linters to the list if you
" want them there too); other Python files keep ALE's defaults.
augroup torchcts
  autocmd!
  autocmd BufRead,BufNewFile manifest.py let b:ale_linters = {'python': ['torchcts']}
augroup END
