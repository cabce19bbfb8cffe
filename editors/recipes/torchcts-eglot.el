;;; torchcts-eglot.el --- TorchCTS manifests in Emacs with Eglot  -*- lexical-binding: t; -*-
;; Emacs 28 with the eglot package (Debian: elpa-eglot), or Emacs 29+ (eglot built in).
;; manifest.py files get a Python-derived major mode whose Eglot server is torchcts-lsp,
;; so other Python files keep their usual server.
(require 'eglot)
(require 'python)

(define-derived-mode torchcts-manifest-mode python-mode "TorchCTS"
  "Python mode for TorchCTS manifest.py files, served by torchcts-lsp.")
(add-to-list 'auto-mode-alist '("/manifest\\.py\\'" . torchcts-manifest-mode))

;; "torchcts-lsp" on exec-path, or an absolute path.
(add-to-list 'eglot-server-programs
             '((torchcts-manifest-mode :language-id "python") . ("torchcts-lsp")))
(add-hook 'torchcts-manifest-mode-hook #'eglot-ensure)

;; Optional: the server's settings (the `torchcts' section).
(setq-default eglot-workspace-configuration
              '((:torchcts . (:device "" :defaultLevel 2 :onSave "off"))))

(provide 'torchcts-eglot)
;;; torchcts-eglot.el ends here
