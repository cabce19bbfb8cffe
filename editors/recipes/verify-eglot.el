;;; verify-eglot.el --- batch check of torchcts-eglot.el  -*- lexical-binding: t; -*-
;; emacs --batch -Q -l torchcts-eglot.el -l verify-eglot.el MANIFEST
;; (run by verify.sh, which puts torchcts-lsp on PATH). Exit 0 when all checks pass.
(require 'cl-lib)
(require 'flymake)
(defvar verify-passed 0)
(defvar verify-failed 0)
(defun verify-wait (pred secs)
  (let ((deadline (+ (float-time) secs)) v)
    (while (and (not (setq v (funcall pred))) (< (float-time) deadline))
      (accept-process-output nil 0.05))
    v))
(defmacro verify-check (name &rest body)
  `(condition-case err
       (progn ,@body (setq verify-passed (1+ verify-passed)) (princ (format "ok - %s\n" ,name)))
     (error (setq verify-failed (1+ verify-failed))
            (princ (format "not ok - %s: %s\n" ,name (error-message-string err))))))

(let* ((file (car command-line-args-left))
       server)
  (setq command-line-args-left nil)
  (find-file file)
  (verify-check "manifest.py gets torchcts-manifest-mode"
    (unless (eq major-mode 'torchcts-manifest-mode) (error "major mode is %s" major-mode)))
  ;; eglot-ensure connects on the next command; in batch there is none, so run the hook.
  (condition-case err (run-hooks 'post-command-hook)
    (error (princ (format "# connecting failed: %s\n" (error-message-string err)))))
  (verify-check "Eglot connects to torchcts-lsp"
    (setq server (verify-wait (lambda () (eglot-current-server)) 15))
    (unless server (error "no Eglot server"))
    (unless (jsonrpc-running-p server) (error "the server is not running"))
    (let ((info (plist-get (eglot--server-info server) :name)))
      (unless (equal info "torchcts-lsp") (error "serverInfo.name is %S" info))))
  (verify-check "diagnostics: Unknown capabilities key 'generator'"
    (unless (verify-wait
             (lambda ()
               (flymake-start)
               (cl-some (lambda (d) (string-match-p "Unknown capabilities key 'generator'" (flymake-diagnostic-text d)))
                        (flymake-diagnostics)))
             15)
      (error "no such diagnostic; got %S" (mapcar #'flymake-diagnostic-text (flymake-diagnostics)))))
  (verify-check "hover on \"semantic_level\""
    (goto-char (point-min))
    (search-forward "\"semantic_level\"")
    (backward-char 5)
    (let* ((hover (jsonrpc-request server :textDocument/hover (eglot--TextDocumentPositionParams)))
           (contents (plist-get hover :contents))
           (text (if (stringp contents) contents (or (plist-get contents :value) (format "%S" contents)))))
      (when (or (null text) (string-empty-p (string-trim text))) (error "empty hover %S" hover))
      (princ (format "# hover: %s\n" (replace-regexp-in-string "\n" " | " (substring text 0 (min 80 (length text))))))))
  (verify-check "code actions on the error offer 'device_generator'"
    (goto-char (point-min))
    (search-forward "\"generator\"")
    (let* ((diags (cl-remove-if-not (lambda (d) (eq (car-safe (flymake-diagnostic-data d)) 'eglot-lsp-diag))
                                    (flymake-diagnostics (line-beginning-position) (line-end-position))))
           (actions (jsonrpc-request
                     server :textDocument/codeAction
                     (list :textDocument (eglot--TextDocumentIdentifier)
                           :range (list :start (eglot--pos-to-lsp-position (match-beginning 0))
                                        :end (eglot--pos-to-lsp-position (match-end 0)))
                           :context (list :diagnostics
                                          (vconcat (mapcar (lambda (d) (cdr (flymake-diagnostic-data d))) diags))))))
           (titles (mapcar (lambda (a) (plist-get a :title)) actions)))
      (princ (format "# code actions: %s\n" (mapconcat #'identity titles " | ")))
      (unless (cl-some (lambda (tt) (string-match-p "device_generator" tt)) titles)
        (error "no action mentions device_generator: %S" titles))))
  ;; eglot-shutdown deletes the process right after sending `exit' (jsonrpc-shutdown), so
  ;; send the two messages here and let the server exit by itself.
  (verify-check "shutdown and exit: the server exits by itself with code 0"
    (let ((proc (jsonrpc--process server)))
      (setf (eglot--shutdown-requested server) t)
      (jsonrpc-request server :shutdown nil :timeout 5)
      (jsonrpc-notify server :exit nil)
      (verify-wait (lambda () (not (process-live-p proc))) 5)
      (unless (and (eq (process-status proc) 'exit) (eq (process-exit-status proc) 0))
        (error "process status %s, exit %s" (process-status proc) (process-exit-status proc))))))

(princ (format "emacs %s eglot: %d passed, %d failed\n" emacs-version verify-passed verify-failed))
(kill-emacs (if (and (> verify-passed 0) (= verify-failed 0)) 0 1))
