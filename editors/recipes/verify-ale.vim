" Batch check of torchcts-ale.vim (run by verify.sh): waits for ALE's diagnostics from
" torchcts-lsp on manifest.py, asks for a hover and the code actions through ALE's LSP
" connection, writes the results to $ALE_RESULT and quits (exit 0 when all passed).
let s:buf = bufnr('')
let s:out = []
let s:passed = 0
let s:failed = 0
let s:hover = v:null
let s:actions = v:null
let s:deadline = reltimefloat(reltime()) + 20.0

function! s:Ok(name) abort
  let s:passed += 1
  call add(s:out, 'ok - ' . a:name)
endfunction
function! s:NotOk(name, why) abort
  let s:failed += 1
  call add(s:out, 'not ok - ' . a:name . ': ' . a:why)
endfunction
function! s:Finish() abort
  call add(s:out, printf('vim %d.%d ale: %d passed, %d failed', v:version / 100, v:version % 100, s:passed, s:failed))
  call writefile(s:out, $ALE_RESULT)
  if s:failed == 0 && s:passed > 0 | qall! | else | cquit! | endif
endfunction
function! s:TimedOut() abort
  return reltimefloat(reltime()) > s:deadline
endfunction

function! s:ErrorEntry() abort
  for l:e in ale#engine#GetLoclist(s:buf)
    if l:e.text =~# "Unknown capabilities key 'generator'"
      return l:e
    endif
  endfor
  return {}
endfunction

function! s:OnHover(response) abort
  let s:hover = a:response
endfunction
function! s:OnActions(response) abort
  let s:actions = a:response
endfunction

function! s:Step1(timer) abort
  let l:e = s:ErrorEntry()
  if empty(l:e)
    if s:TimedOut()
      call s:NotOk("diagnostics: Unknown capabilities key 'generator'", 'none after 20 s; loclist: ' . string(ale#engine#GetLoclist(s:buf)))
      call s:Finish()
    endif
    return
  endif
  call timer_stop(a:timer)
  if l:e.type is# 'E' && l:e.lnum == 5 && l:e.col == 41 && get(l:e, 'linter_name', '') is# 'torchcts'
    call s:Ok("diagnostics: Unknown capabilities key 'generator' (error, line 5, col 41)")
  else
    call s:NotOk('diagnostics', 'unexpected entry ' . string(l:e))
  endif
  call ale#lsp_linter#SendRequest(s:buf, 'torchcts', ale#lsp#message#Hover(s:buf, 6, 8), function('s:OnHover'))
  let l:diag = {'range': {'start': {'line': 4, 'character': 40}, 'end': {'line': 4, 'character': 51}},
  \             'severity': 1, 'source': 'torchcts', 'code': 'unknown-key', 'message': l:e.text}
  call ale#lsp_linter#SendRequest(s:buf, 'torchcts', ale#lsp#message#CodeAction(s:buf, 5, 41, 5, 51, [l:diag]), function('s:OnActions'))
  call timer_start(50, function('s:Step2'), {'repeat': -1})
endfunction

function! s:Step2(timer) abort
  if (s:hover is v:null || s:actions is v:null) && !s:TimedOut()
    return
  endif
  call timer_stop(a:timer)
  let l:result = type(s:hover) == v:t_dict ? get(s:hover, 'result', v:null) : v:null
  let l:contents = type(l:result) == v:t_dict ? get(l:result, 'contents', '') : ''
  let l:text = type(l:contents) == v:t_dict ? get(l:contents, 'value', '') : string(l:contents)
  if l:text =~# '\S'
    call s:Ok('hover on "semantic_level": ' . substitute(l:text[:60], '\n', ' | ', 'g'))
  else
    call s:NotOk('hover on "semantic_level"', 'empty or no answer: ' . string(s:hover))
  endif
  let l:list = type(s:actions) == v:t_dict ? get(s:actions, 'result', v:null) : v:null
  let l:titles = type(l:list) == v:t_list ? map(copy(l:list), {_, a -> get(a, 'title', '')}) : []
  if !empty(filter(copy(l:titles), {_, t -> t =~# 'device_generator'}))
    call s:Ok('code actions: ' . join(l:titles, ' | '))
  else
    call s:NotOk('code actions offer device_generator', 'got ' . string(s:actions))
  endif
  call s:Finish()
endfunction

call timer_start(50, function('s:Step1'), {'repeat': -1})
