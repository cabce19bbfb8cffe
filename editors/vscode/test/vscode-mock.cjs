// A small, honest stand-in for the `vscode` module: enough of the API for the bundled
// extension and vscode-languageclient 9 to activate, start the real torchcts-lsp and
// receive its diagnostics. Everything it is asked for is recorded, so that tests can
// check what the extension did; unknown namespace members fail loudly.
"use strict";

const path = require("node:path");
const fs = require("node:fs");
const { pathToFileURL, fileURLToPath } = require("node:url");

class Disposable {
  constructor(fn) {
    this._fn = fn;
  }
  dispose() {
    const fn = this._fn;
    this._fn = undefined;
    if (fn) fn();
  }
  static from(...items) {
    return new Disposable(() => items.forEach((d) => d && d.dispose && d.dispose()));
  }
}

class EventEmitter {
  constructor() {
    this._listeners = new Set();
    this.event = (listener, thisArg, disposables) => {
      const f = thisArg ? listener.bind(thisArg) : listener;
      this._listeners.add(f);
      const d = new Disposable(() => this._listeners.delete(f));
      if (Array.isArray(disposables)) disposables.push(d);
      return d;
    };
  }
  fire(e) {
    for (const l of [...this._listeners]) l(e);
  }
  dispose() {
    this._listeners.clear();
  }
}

// A real token source: vscode-languageclient drops diagnostics if the token misbehaves.
class CancellationTokenSource {
  constructor() {
    const emitter = new EventEmitter();
    this._emitter = emitter;
    this.token = { isCancellationRequested: false, onCancellationRequested: emitter.event };
  }
  cancel() {
    if (!this.token.isCancellationRequested) {
      this.token.isCancellationRequested = true;
      this._emitter.fire(undefined);
    }
  }
  dispose() {
    this._emitter.dispose();
  }
}

class CancellationError extends Error {
  constructor() {
    super("Canceled");
    this.name = "Canceled";
  }
}

class Position {
  constructor(line, character) {
    this.line = line;
    this.character = character;
  }
  isBefore(o) {
    return this.line < o.line || (this.line === o.line && this.character < o.character);
  }
  isEqual(o) {
    return this.line === o.line && this.character === o.character;
  }
  translate(dl = 0, dc = 0) {
    return new Position(this.line + dl, this.character + dc);
  }
  with(line = this.line, character = this.character) {
    return new Position(line, character);
  }
}

class Range {
  constructor(a, b, c, d) {
    if (typeof a === "number") {
      this.start = new Position(a, b);
      this.end = new Position(c, d);
    } else {
      this.start = a;
      this.end = b;
    }
  }
  get isEmpty() {
    return this.start.isEqual(this.end);
  }
  get isSingleLine() {
    return this.start.line === this.end.line;
  }
  contains(p) {
    const q = p instanceof Range ? p.start : p;
    return !q.isBefore(this.start) && !this.end.isBefore(q);
  }
}

class Selection extends Range {
  constructor(anchor, active) {
    super(anchor, active);
    this.anchor = anchor;
    this.active = active;
  }
}

class Uri {
  constructor(scheme, authority, p, query, fragment) {
    this.scheme = scheme;
    this.authority = authority || "";
    this.path = p || "";
    this.query = query || "";
    this.fragment = fragment || "";
  }
  static parse(value) {
    const u = new URL(value);
    return new Uri(u.protocol.replace(/:$/, ""), u.host, decodeURIComponent(u.pathname), u.search.replace(/^\?/, ""), u.hash.replace(/^#/, ""));
  }
  static file(p) {
    return Uri.parse(pathToFileURL(p).href);
  }
  static joinPath(base, ...parts) {
    return new Uri(base.scheme, base.authority, path.posix.join(base.path, ...parts));
  }
  get fsPath() {
    return this.scheme === "file" ? fileURLToPath(this.toString()) : this.path;
  }
  with(change) {
    return new Uri(change.scheme ?? this.scheme, change.authority ?? this.authority, change.path ?? this.path, change.query ?? this.query, change.fragment ?? this.fragment);
  }
  toString() {
    const p = this.path.split("/").map(encodeURIComponent).join("/");
    return `${this.scheme}://${this.authority}${p}${this.query ? "?" + this.query : ""}${this.fragment ? "#" + this.fragment : ""}`;
  }
  toJSON() {
    return this.toString();
  }
}

class Diagnostic {
  constructor(range, message, severity = 0) {
    this.range = range;
    this.message = message;
    this.severity = severity;
  }
}
class DiagnosticRelatedInformation {
  constructor(location, message) {
    this.location = location;
    this.message = message;
  }
}
class Location {
  constructor(uri, rangeOrPosition) {
    this.uri = uri;
    this.range = rangeOrPosition;
  }
}
class MarkdownString {
  constructor(value = "", supportThemeIcons = false) {
    this.value = value;
    this.supportThemeIcons = supportThemeIcons;
  }
  appendMarkdown(v) {
    this.value += v;
    return this;
  }
  appendText(v) {
    this.value += v;
    return this;
  }
  appendCodeblock(code, lang = "") {
    this.value += `\n\`\`\`${lang}\n${code}\n\`\`\`\n`;
    return this;
  }
}
class Hover {
  constructor(contents, range) {
    this.contents = Array.isArray(contents) ? contents : [contents];
    this.range = range;
  }
}
class CodeActionKind {
  constructor(value) {
    this.value = value;
  }
  append(part) {
    return new CodeActionKind(this.value ? `${this.value}.${part}` : part);
  }
  intersects(o) {
    return this.contains(o) || o.contains(this);
  }
  contains(o) {
    return this.value === o.value || o.value.startsWith(this.value + ".");
  }
}
for (const [k, v] of Object.entries({
  Empty: "",
  QuickFix: "quickfix",
  Refactor: "refactor",
  RefactorExtract: "refactor.extract",
  RefactorInline: "refactor.inline",
  RefactorRewrite: "refactor.rewrite",
  Source: "source",
  SourceOrganizeImports: "source.organizeImports",
  SourceFixAll: "source.fixAll",
  Notebook: "notebook",
  RefactorMove: "refactor.move",
})) {
  CodeActionKind[k] = new CodeActionKind(v);
}
class CodeAction {
  constructor(title, kind) {
    this.title = title;
    this.kind = kind;
  }
}
class TextEdit {
  constructor(range, newText) {
    this.range = range;
    this.newText = newText;
  }
  static replace(range, newText) {
    return new TextEdit(range, newText);
  }
  static insert(position, newText) {
    return new TextEdit(new Range(position, position), newText);
  }
  static delete(range) {
    return new TextEdit(range, "");
  }
}
class WorkspaceEdit {
  constructor() {
    this._edits = [];
  }
  replace(uri, range, newText) {
    this._edits.push({ uri, edit: new TextEdit(range, newText) });
  }
  insert(uri, position, newText) {
    this._edits.push({ uri, edit: TextEdit.insert(position, newText) });
  }
  delete(uri, range) {
    this._edits.push({ uri, edit: TextEdit.delete(range) });
  }
  set(uri, edits) {
    for (const edit of edits) this._edits.push({ uri, edit });
  }
  entries() {
    return this._edits.map((e) => [e.uri, [e.edit]]);
  }
  get size() {
    return this._edits.length;
  }
  createFile() {}
  deleteFile() {}
  renameFile() {}
}
class SnippetString {
  constructor(value = "") {
    this.value = value;
  }
}
class CompletionItem {
  constructor(label, kind) {
    this.label = label;
    this.kind = kind;
  }
}
class CompletionList {
  constructor(items = [], isIncomplete = false) {
    this.items = items;
    this.isIncomplete = isIncomplete;
  }
}
class InlayHint {
  constructor(position, label, kind) {
    this.position = position;
    this.label = label;
    this.kind = kind;
  }
}
class InlayHintLabelPart {
  constructor(value) {
    this.value = value;
  }
}
class CodeLens {
  constructor(range, command) {
    this.range = range;
    this.command = command;
  }
}
class DocumentLink {
  constructor(range, target) {
    this.range = range;
    this.target = target;
  }
}
class SymbolInformation {
  constructor(name, kind, containerName, location) {
    this.name = name;
    this.kind = kind;
    this.containerName = containerName;
    this.location = location;
  }
}
class DocumentSymbol {
  constructor(name, detail, kind, range, selectionRange) {
    Object.assign(this, { name, detail, kind, range, selectionRange, children: [] });
  }
}
class CallHierarchyItem {
  constructor(kind, name, detail, uri, range, selectionRange) {
    Object.assign(this, { kind, name, detail, uri, range, selectionRange });
  }
}
class TypeHierarchyItem extends CallHierarchyItem {}
class RelativePattern {
  constructor(base, pattern) {
    this.baseUri = typeof base === "string" ? Uri.file(base) : base.uri ?? base;
    this.base = this.baseUri.fsPath;
    this.pattern = pattern;
  }
}
class TabInputText {
  constructor(uri) {
    this.uri = uri;
  }
}
class TabInputTextDiff {}
class TabInputCustom {}
class TabInputNotebook {}
class TabInputNotebookDiff {}

const enums = {
  DiagnosticSeverity: { Error: 0, Warning: 1, Information: 2, Hint: 3 },
  DiagnosticTag: { Unnecessary: 1, Deprecated: 2 },
  StatusBarAlignment: { Left: 1, Right: 2 },
  ViewColumn: { Active: -1, Beside: -2, One: 1, Two: 2, Three: 3 },
  ProgressLocation: { SourceControl: 1, Window: 10, Notification: 15 },
  TextDocumentSaveReason: { Manual: 1, AfterDelay: 2, FocusOut: 3 },
  ConfigurationTarget: { Global: 1, Workspace: 2, WorkspaceFolder: 3 },
  EndOfLine: { LF: 1, CRLF: 2 },
  CompletionItemKind: new Proxy({}, { get: (_t, k) => (typeof k === "string" ? k.length : undefined) }),
  CompletionItemTag: { Deprecated: 1 },
  CompletionTriggerKind: { Invoke: 0, TriggerCharacter: 1, TriggerForIncompleteCompletions: 2 },
  SymbolKind: new Proxy({}, { get: (_t, k) => (typeof k === "string" ? k.length : undefined) }),
  SymbolTag: { Deprecated: 1 },
  DocumentHighlightKind: { Text: 0, Read: 1, Write: 2 },
  SignatureHelpTriggerKind: { Invoke: 1, TriggerCharacter: 2, ContentChange: 3 },
  CodeActionTriggerKind: { Invoke: 1, Automatic: 2 },
  InlayHintKind: { Type: 1, Parameter: 2 },
  FoldingRangeKind: { Comment: 1, Imports: 2, Region: 3 },
  NotebookCellKind: { Markup: 1, Code: 2 },
  TextEditorRevealType: { Default: 0, InCenter: 1 },
  UIKind: { Desktop: 1, Web: 2 },
  ExtensionMode: { Production: 1, Development: 2, Test: 3 },
  LogLevel: { Off: 0, Trace: 1, Debug: 2, Info: 3, Warning: 4, Error: 5 },
};

/** Glob (as in a DocumentFilter pattern) to RegExp over a POSIX path. */
function globToRegExp(glob) {
  let re = "";
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i];
    if (c === "*") {
      if (glob[i + 1] === "*") {
        i++;
        if (glob[i + 1] === "/") {
          i++;
          re += "(?:.*/)?";
        } else re += ".*";
      } else re += "[^/]*";
    } else if (c === "?") re += "[^/]";
    else if (c === "{") re += "(?:";
    else if (c === "}") re += ")";
    else if (c === ",") re += "|";
    else re += c.replace(/[.+^$()|[\]\\]/g, "\\$&");
  }
  return new RegExp(`^${re}$`);
}

function matchFilter(filter, doc) {
  if (typeof filter === "string") return filter === "*" || filter === doc.languageId ? 10 : 0;
  if (filter.language && filter.language !== "*" && filter.language !== doc.languageId) return 0;
  if (filter.scheme && filter.scheme !== "*" && filter.scheme !== doc.uri.scheme) return 0;
  if (filter.notebookType) return 0;
  if (filter.pattern) {
    const p = doc.uri.fsPath.split(path.sep).join("/");
    if (typeof filter.pattern === "string") {
      if (!globToRegExp(filter.pattern).test(p)) return 0;
    } else {
      const base = filter.pattern.base.split(path.sep).join("/");
      if (!p.startsWith(base + "/") || !globToRegExp(filter.pattern.pattern).test(p.slice(base.length + 1))) return 0;
    }
  }
  return 10;
}

class TextDocument {
  constructor(fsPath, text, languageId = "python") {
    this.uri = Uri.file(fsPath);
    this.fileName = fsPath;
    this.languageId = languageId;
    this.version = 1;
    this._text = text;
    this.isClosed = false;
    this.isDirty = false;
    this.isUntitled = false;
    this.eol = 1;
  }
  getText(range) {
    if (!range) return this._text;
    return this._text.slice(this.offsetAt(range.start), this.offsetAt(range.end));
  }
  get lineCount() {
    return this._text.split("\n").length;
  }
  lineAt(lineOrPos) {
    const line = typeof lineOrPos === "number" ? lineOrPos : lineOrPos.line;
    const text = this._text.split("\n")[line] ?? "";
    return { lineNumber: line, text, range: new Range(line, 0, line, text.length), isEmptyOrWhitespace: text.trim() === "" };
  }
  offsetAt(pos) {
    const lines = this._text.split("\n");
    let off = 0;
    for (let i = 0; i < pos.line && i < lines.length; i++) off += lines[i].length + 1;
    return off + pos.character;
  }
  positionAt(offset) {
    const before = this._text.slice(0, offset).split("\n");
    return new Position(before.length - 1, before[before.length - 1].length);
  }
  save() {
    return Promise.resolve(true);
  }
}

/**
 * Builds a fresh mock. `config` is a flat map of full keys ("torchcts.server.path") to values.
 * Returns { vscode, rec, makeContext, openDocument }.
 */
function createMock(opts = {}) {
  const config = { ...(opts.config || {}) };
  const rec = {
    errors: [],
    warnings: [],
    infos: [],
    commands: new Map(),
    providers: [],
    outputChannels: new Map(),
    statusBarItems: [],
    diagnosticCollections: new Map(),
    diagnosticsChanged: new EventEmitter(),
    webviewPanels: [],
    shownEditors: [],
    unknown: [],
  };

  function strictNamespace(name, impl) {
    return new Proxy(impl, {
      get(target, prop) {
        if (prop in target || typeof prop === "symbol") return target[prop];
        // Event subscriptions and provider registrations: accept and record.
        if (typeof prop === "string" && /^on(Did|Will)/.test(prop)) {
          const em = new EventEmitter();
          target[prop] = em.event;
          return em.event;
        }
        if (typeof prop === "string" && /^register/.test(prop)) {
          target[prop] = (...args) => {
            rec.providers.push({ kind: prop, args });
            return new Disposable(() => {});
          };
          return target[prop];
        }
        rec.unknown.push(`${name}.${String(prop)}`);
        return undefined;
      },
    });
  }

  function configuration(section) {
    const prefix = section ? `${section}.` : "";
    const lookup = (key) => {
      const full = prefix + key;
      if (Object.prototype.hasOwnProperty.call(config, full)) return config[full];
      // A non-leaf key: build the nested object from the flat keys below it.
      const sub = {};
      let any = false;
      for (const [k, v] of Object.entries(config)) {
        if (!k.startsWith(full + ".")) continue;
        any = true;
        let o = sub;
        const parts = k.slice(full.length + 1).split(".");
        for (const p of parts.slice(0, -1)) o = o[p] = o[p] || {};
        o[parts[parts.length - 1]] = v;
      }
      return any ? sub : undefined;
    };
    const obj = {
      get(key, def) {
        const v = lookup(key);
        return v === undefined ? def : v;
      },
      has(key) {
        return lookup(key) !== undefined;
      },
      inspect(key) {
        return { key: prefix + key, globalValue: lookup(key) };
      },
      update(key, value) {
        config[prefix + key] = value;
        return Promise.resolve();
      },
    };
    const whole = section ? lookup("") : undefined;
    void whole;
    return obj;
  }

  const textDocuments = [];
  const onDidOpenTextDocument = new EventEmitter();
  const onDidChangeActiveTextEditor = new EventEmitter();
  const onDidChangeConfiguration = new EventEmitter();
  const onDidChangeTextDocument = new EventEmitter();

  const workspace = strictNamespace("workspace", {
    textDocuments,
    notebookDocuments: [],
    workspaceFolders: opts.workspaceFolder ? [{ uri: Uri.file(opts.workspaceFolder), name: path.basename(opts.workspaceFolder), index: 0 }] : undefined,
    name: "mock",
    getConfiguration: (section) => configuration(section),
    getWorkspaceFolder: (uri) => workspace.workspaceFolders?.find((f) => uri.fsPath.startsWith(f.uri.fsPath)),
    findFiles: async () => [],
    onDidOpenTextDocument: onDidOpenTextDocument.event,
    onDidChangeConfiguration: onDidChangeConfiguration.event,
    onDidChangeTextDocument: onDidChangeTextDocument.event,
    createFileSystemWatcher: () => ({
      onDidCreate: new EventEmitter().event,
      onDidChange: new EventEmitter().event,
      onDidDelete: new EventEmitter().event,
      dispose() {},
    }),
    applyEdit: async () => true,
    openTextDocument: async (arg) => {
      if (arg && typeof arg === "object" && "content" in arg) return new TextDocument("/untitled", arg.content, arg.language);
      const p = typeof arg === "string" ? arg : arg.fsPath;
      return new TextDocument(p, fs.readFileSync(p, "utf8"));
    },
    fs: {},
    isTrusted: !opts.untrusted,
    onDidGrantWorkspaceTrust: new EventEmitter().event,
  });

  function outputChannel(name) {
    const ch = {
      name,
      lines: [],
      text: "",
      append(v) {
        ch.text += v;
      },
      appendLine(v) {
        ch.text += v + "\n";
        ch.lines.push(v);
      },
      replace(v) {
        ch.text = v;
      },
      clear() {
        ch.text = "";
      },
      show() {},
      hide() {},
      dispose() {},
    };
    rec.outputChannels.set(name, ch);
    return ch;
  }

  const window = strictNamespace("window", {
    activeTextEditor: undefined,
    visibleTextEditors: [],
    tabGroups: { all: [], onDidChangeTabs: new EventEmitter().event, onDidChangeTabGroups: new EventEmitter().event },
    onDidChangeActiveTextEditor: onDidChangeActiveTextEditor.event,
    createOutputChannel: (name) => outputChannel(name),
    createStatusBarItem: (alignment, priority) => {
      const item = { alignment, priority, text: "", tooltip: undefined, command: undefined, name: undefined, visible: false, show() { item.visible = true; }, hide() { item.visible = false; }, dispose() { item.disposed = true; } };
      rec.statusBarItems.push(item);
      return item;
    },
    showErrorMessage: (msg) => {
      rec.errors.push(msg);
      return Promise.resolve(undefined);
    },
    showWarningMessage: (msg) => {
      rec.warnings.push(msg);
      return Promise.resolve(undefined);
    },
    showInformationMessage: (msg) => {
      rec.infos.push(msg);
      return Promise.resolve(undefined);
    },
    showQuickPick: async (items) => (await items)[0],
    showTextDocument: async (doc, options) => {
      const editor = {
        document: doc,
        options,
        selection: new Selection(new Position(0, 0), new Position(0, 0)),
        revealRange(range) {
          editor.revealed = range;
        },
      };
      rec.shownEditors.push(editor);
      return editor;
    },
    // A webview: its html as set, the options, and messages from the page (`post`).
    createWebviewPanel: (viewType, title, showOptions, options) => {
      const fromPage = new EventEmitter();
      const disposed = new EventEmitter();
      const panel = {
        viewType,
        title,
        showOptions,
        options,
        htmls: [],
        webview: {
          _html: "",
          get html() {
            return this._html;
          },
          set html(v) {
            this._html = v;
            panel.htmls.push(v);
          },
          onDidReceiveMessage: fromPage.event,
          postMessage: async () => true,
        },
        post: (message) => fromPage.fire(message),
        onDidDispose: disposed.event,
        reveal() {},
        dispose() {
          disposed.fire();
        },
      };
      rec.webviewPanels.push(panel);
      return panel;
    },
    withProgress: (_o, task) => task({ report() {} }, new CancellationTokenSource().token),
  });

  const languages = strictNamespace("languages", {
    match: (selector, doc) => {
      const filters = Array.isArray(selector) ? selector : [selector];
      return Math.max(0, ...filters.map((f) => matchFilter(f, doc)));
    },
    createDiagnosticCollection: (name) => {
      const map = new Map();
      const coll = {
        name,
        set(uri, diags) {
          const entries = Array.isArray(uri) ? uri : [[uri, diags]];
          for (const [u, d] of entries) {
            if (d === undefined) map.delete(u.toString());
            else map.set(u.toString(), d);
            rec.diagnosticsChanged.fire({ collection: name, uri: u.toString(), diagnostics: d || [] });
          }
        },
        get: (uri) => map.get(uri.toString()),
        has: (uri) => map.has(uri.toString()),
        delete(uri) {
          map.delete(uri.toString());
          rec.diagnosticsChanged.fire({ collection: name, uri: uri.toString(), diagnostics: [] });
        },
        clear: () => map.clear(),
        forEach: (cb) => map.forEach((d, u) => cb(Uri.parse(u), d, coll)),
        dispose: () => map.clear(),
      };
      rec.diagnosticCollections.set(name, coll);
      return coll;
    },
    getDiagnostics: () => [],
  });

  const commands = strictNamespace("commands", {
    registerCommand(id, fn) {
      if (rec.commands.has(id)) throw new Error(`command '${id}' already exists`);
      rec.commands.set(id, fn);
      return new Disposable(() => rec.commands.delete(id));
    },
    executeCommand: async (id, ...args) => {
      const fn = rec.commands.get(id);
      if (!fn) throw new Error(`command '${id}' not found`);
      return fn(...args);
    },
    getCommands: async () => [...rec.commands.keys()],
  });

  const env = strictNamespace("env", {
    appName: "Mock VS Code",
    appRoot: "/nonexistent",
    language: "en",
    machineId: "mock",
    sessionId: "mock",
    uriScheme: "vscode",
    uiKind: 1,
    openExternal: async () => true,
    clipboard: { readText: async () => "", writeText: async () => {} },
  });

  const vscode = {
    version: "1.82.0",
    Disposable,
    EventEmitter,
    CancellationTokenSource,
    CancellationError,
    Position,
    Range,
    Selection,
    Uri,
    Diagnostic,
    DiagnosticRelatedInformation,
    Location,
    MarkdownString,
    Hover,
    CodeAction,
    CodeActionKind,
    TextEdit,
    WorkspaceEdit,
    SnippetString,
    CompletionItem,
    CompletionList,
    InlayHint,
    InlayHintLabelPart,
    CodeLens,
    DocumentLink,
    SymbolInformation,
    DocumentSymbol,
    CallHierarchyItem,
    TypeHierarchyItem,
    RelativePattern,
    TabInputText,
    TabInputTextDiff,
    TabInputCustom,
    TabInputNotebook,
    TabInputNotebookDiff,
    ...enums,
    workspace,
    window,
    languages,
    commands,
    env,
    // opts.extensions: { id: extension } for getExtension (e.g. a fake ms-python.python).
    extensions: { getExtension: (id) => (opts.extensions || {})[id], all: [], onDidChange: new EventEmitter().event },
    l10n: { t: (s) => s },
    notebooks: strictNamespace("notebooks", {}),
  };
  // Any other class the client touches at load time: a plain class, recorded.
  const module = new Proxy(vscode, {
    get(target, prop) {
      if (prop in target || typeof prop === "symbol") return target[prop];
      rec.unknown.push(String(prop));
      if (/^[A-Z]/.test(String(prop))) {
        target[prop] = class {};
        return target[prop];
      }
      return undefined;
    },
  });

  return {
    vscode: module,
    rec,
    /** Opens a document (as VS Code would on startup) and makes it the active editor. */
    openDocument(fsPath, { active = true } = {}) {
      const doc = new TextDocument(fsPath, fs.readFileSync(fsPath, "utf8"));
      textDocuments.push(doc);
      onDidOpenTextDocument.fire(doc);
      if (active) {
        window.activeTextEditor = { document: doc, selection: new Selection(new Position(0, 0), new Position(0, 0)) };
        onDidChangeActiveTextEditor.fire(window.activeTextEditor);
      }
      return doc;
    },
    /** Replaces a document's text, as a whole-text edit in the editor would. */
    editDocument(doc, text) {
      const end = doc.positionAt(doc._text.length);
      const change = { range: new Range(0, 0, end.line, end.character), rangeOffset: 0, rangeLength: doc._text.length, text };
      doc._text = text;
      doc.version += 1;
      doc.isDirty = true;
      onDidChangeTextDocument.fire({ document: doc, contentChanges: [change], reason: undefined });
    },
    makeContext(extensionPath) {
      return {
        subscriptions: [],
        extensionPath,
        extensionUri: Uri.file(extensionPath),
        asAbsolutePath: (p) => path.join(extensionPath, p),
        globalState: { get: () => undefined, update: async () => {}, keys: () => [] },
        workspaceState: { get: () => undefined, update: async () => {}, keys: () => [] },
        extensionMode: 3,
        logUri: Uri.file("/tmp"),
        storageUri: undefined,
        globalStorageUri: Uri.file("/tmp"),
        environmentVariableCollection: {},
      };
    },
  };
}

module.exports = { createMock, globToRegExp };
