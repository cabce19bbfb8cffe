//! Which identifiers of a file are module-level names, and in what role: Python's scoping
//! rules over the syntax tree, without evaluating anything.
//!
//! Every identifier that is a name (not an attribute, a keyword argument or an imported
//! module's path) gets the scope it is written in: the module, a function (its parameters and
//! body; defaults, annotations and decorators belong outside), a class body, a lambda or a
//! comprehension (whose first iterable belongs outside). A scope's locals are the names it
//! binds. A name is module-level where the scope it is written in and every enclosing
//! function, lambda and comprehension leave it unbound (class bodies are not seen from the
//! scopes nested in them), as CPython's compiler decides.
//!
//! What this does not follow is recorded as a doubt, and rename refuses it: `global` and
//! `nonlocal`, a class body that binds and reads a module name (which of the two a read sees
//! depends on run order), `:=` inside a comprehension or lambda, `from m import *`,
//! `globals()`/`locals()`/`vars()`/`eval`/`exec`, `match` patterns, syntax errors.

use crate::syntax::node_text;
use std::collections::{HashMap, HashSet};
use std::ops::Range;
use tree_sitter::{Node, Tree};

/// How an occurrence of a module-level name uses it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    /// Read.
    Read,
    /// Bound by an assignment (also augmented and annotated), a `for` or `with` target,
    /// `except ... as`, `:=`, `def` or `class`.
    Write,
    /// Bound by an import.
    Import(ImportForm),
    /// Unbound by `del`.
    Delete,
}

/// The import that binds a name, which decides how a rename writes it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ImportForm {
    /// `import x`: renamed as `import x as new`.
    Module,
    /// `import x.y` binds `x`: no rename keeps that meaning (`import x.y as new` binds `x.y`).
    DottedModule,
    /// `from m import x`: renamed as `from m import x as new`.
    FromName,
    /// `... as x`: the alias is renamed.
    Alias,
}

impl Role {
    /// Whether the occurrence binds the name (a definition).
    pub fn binds(self) -> bool {
        matches!(self, Role::Write | Role::Import(_))
    }
}

/// One occurrence of a module-level name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Occurrence {
    pub name: String,
    pub span: Range<usize>,
    pub role: Role,
}

/// The module-level names of one file.
#[derive(Debug, Default)]
pub struct ModuleNames {
    /// Every occurrence of a module-level name, in source order.
    pub occurrences: Vec<Occurrence>,
    /// Names whose occurrences this analysis cannot prove are all found, and why.
    pub doubts: HashMap<String, String>,
    /// Why no name of this file can be proven complete (a syntax error, `import *`, ...).
    pub file_doubt: Option<String>,
    /// Every name written anywhere in the file, in any scope, with its first offset: a
    /// rename must not take one of them.
    pub all_names: HashMap<String, usize>,
}

impl ModuleNames {
    /// The occurrence under `offset` (its end counts: the cursor just after a name).
    pub fn at(&self, offset: usize) -> Option<&Occurrence> {
        let i = self.occurrences.partition_point(|o| o.span.end < offset);
        self.occurrences.get(i).filter(|o| o.span.start <= offset)
    }

    /// The occurrences of `name`, in source order.
    pub fn of<'a>(&'a self, name: &'a str) -> impl Iterator<Item = &'a Occurrence> + 'a {
        self.occurrences.iter().filter(move |o| o.name == name)
    }

    /// Whether the module binds `name` anywhere.
    pub fn is_bound(&self, name: &str) -> bool {
        self.of(name).any(|o| o.role.binds())
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum ScopeKind {
    Module,
    Function,
    Class,
    /// A lambda or a comprehension.
    Expression,
}

struct Scope {
    kind: ScopeKind,
    parent: Option<usize>,
    locals: HashSet<String>,
    /// The names `global` or `nonlocal` declare here.
    declared: HashSet<String>,
}

/// The context an identifier is written in.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Ctx {
    Read,
    Write,
    Delete,
}

struct Raw {
    name: String,
    span: Range<usize>,
    role: Role,
    scope: usize,
}

/// The calls that reach names by string.
const DYNAMIC_CALLS: [&str; 5] = ["globals", "locals", "vars", "eval", "exec"];

/// Builds the module-level names of `tree`. Linear in the tree's size.
pub fn module_names(tree: &Tree, text: &str) -> ModuleNames {
    let mut walk = Walk {
        text,
        scopes: vec![Scope { kind: ScopeKind::Module, parent: None, locals: HashSet::new(), declared: HashSet::new() }],
        raw: Vec::new(),
        out: ModuleNames::default(),
    };
    let root = tree.root_node();
    if root.has_error() {
        walk.out.file_doubt = Some("the file has syntax errors".into());
    }
    walk.visit(root, Ctx::Read, 0);
    walk.resolve()
}

struct Walk<'t> {
    text: &'t str,
    scopes: Vec<Scope>,
    raw: Vec<Raw>,
    out: ModuleNames,
}

impl<'t> Walk<'t> {
    fn new_scope(&mut self, kind: ScopeKind, parent: usize) -> usize {
        self.scopes.push(Scope { kind, parent: Some(parent), locals: HashSet::new(), declared: HashSet::new() });
        self.scopes.len() - 1
    }

    fn record(&mut self, node: Node, role: Role, scope: usize) {
        let name = node_text(node, self.text).to_string();
        self.out.all_names.entry(name.clone()).or_insert(node.start_byte());
        if role != Role::Read {
            self.scopes[scope].locals.insert(name.clone());
        }
        self.raw.push(Raw { name, span: node.byte_range(), role, scope });
    }

    fn doubt(&mut self, name: &str, why: String) {
        self.out.doubts.entry(name.to_string()).or_insert(why);
    }

    fn file_doubt(&mut self, why: &str) {
        if self.out.file_doubt.is_none() {
            self.out.file_doubt = Some(why.to_string());
        }
    }

    /// Visits the children of `node`, each with the context its field gives it.
    fn children(&mut self, node: Node<'t>, ctx: Ctx, scope: usize) {
        let mut cursor = node.walk();
        if !cursor.goto_first_child() {
            return;
        }
        loop {
            let child = cursor.node();
            if child.is_named() {
                let child_ctx = match (node.kind(), cursor.field_name()) {
                    ("assignment" | "augmented_assignment" | "for_statement" | "for_in_clause", Some("left")) => {
                        Ctx::Write
                    }
                    ("assignment" | "augmented_assignment" | "for_statement" | "for_in_clause", _) => Ctx::Read,
                    ("as_pattern", Some("alias")) | ("except_clause", Some("alias")) => Ctx::Write,
                    ("as_pattern" | "except_clause", _) => Ctx::Read,
                    ("delete_statement", _) => Ctx::Delete,
                    // The object of an attribute or subscript is read, whatever is done to the
                    // attribute or item.
                    ("attribute" | "subscript", _) => Ctx::Read,
                    _ => ctx,
                };
                let skip = matches!(
                    (node.kind(), cursor.field_name()),
                    ("attribute", Some("attribute")) | ("keyword_argument", Some("name"))
                );
                if !skip {
                    self.visit(child, child_ctx, scope);
                }
            }
            if !cursor.goto_next_sibling() {
                break;
            }
        }
    }

    // An explicit recursion: the evaluator bounds nesting for the analysis, and this walk
    // runs only on request, with `stacker` growing the stack on deep trees.
    fn visit(&mut self, node: Node<'t>, ctx: Ctx, scope: usize) {
        stacker::maybe_grow(64 * 1024, 1024 * 1024, || self.visit_node(node, ctx, scope));
    }

    fn visit_node(&mut self, node: Node<'t>, ctx: Ctx, scope: usize) {
        match node.kind() {
            "identifier" => {
                let role = match ctx {
                    Ctx::Read => Role::Read,
                    Ctx::Write => Role::Write,
                    Ctx::Delete => Role::Delete,
                };
                self.record(node, role, scope);
            }
            "import_statement" | "import_from_statement" => self.import(node, scope),
            "future_import_statement" => {}
            "wildcard_import" => {}
            "global_statement" | "nonlocal_statement" => {
                let mut cursor = node.walk();
                for id in node.named_children(&mut cursor).filter(|c| c.kind() == "identifier") {
                    let name = node_text(id, self.text).to_string();
                    self.out.all_names.entry(name.clone()).or_insert(id.start_byte());
                    self.scopes[scope].declared.insert(name.clone());
                    let keyword = node.kind().trim_end_matches("_statement");
                    self.doubt(
                        &name,
                        format!("`{keyword} {name}` makes a nested scope bind it, which is not followed"),
                    );
                }
            }
            "match_statement" => {
                self.file_doubt("`match` patterns bind names, which is not followed");
                self.children(node, ctx, scope);
            }
            "named_expression" => {
                let target = self.binding_scope(scope);
                if let Some(name) = node.child_by_field_name("name") {
                    if target != scope {
                        let n = node_text(name, self.text).to_string();
                        self.doubt(&n, format!("`{n} :=` inside a comprehension or lambda binds outside it"));
                    }
                    self.record(name, Role::Write, target);
                }
                if let Some(value) = node.child_by_field_name("value") {
                    self.visit(value, Ctx::Read, scope);
                }
            }
            "call" => {
                if let Some(f) = node.child_by_field_name("function").filter(|f| f.kind() == "identifier") {
                    let name = node_text(f, self.text);
                    if DYNAMIC_CALLS.contains(&name) {
                        self.file_doubt(&format!("`{name}()` can reach names by their string"));
                    }
                }
                self.children(node, ctx, scope);
            }
            "function_definition" => self.function(node, scope),
            "class_definition" => self.class(node, scope),
            "lambda" => {
                let inner = self.new_scope(ScopeKind::Expression, scope);
                if let Some(params) = node.child_by_field_name("parameters") {
                    self.parameters(params, inner, scope);
                }
                if let Some(body) = node.child_by_field_name("body") {
                    self.visit(body, Ctx::Read, inner);
                }
            }
            "list_comprehension" | "set_comprehension" | "dictionary_comprehension" | "generator_expression" => {
                self.comprehension(node, scope)
            }
            _ => self.children(node, ctx, scope),
        }
    }

    fn class(&mut self, node: Node<'t>, scope: usize) {
        if let Some(name) = node.child_by_field_name("name") {
            self.record(name, Role::Write, scope);
        }
        let inner = self.new_scope(ScopeKind::Class, scope);
        let mut cursor = node.walk();
        for child in node.named_children(&mut cursor) {
            match child.kind() {
                "identifier" => {}
                "block" => self.visit(child, Ctx::Read, inner),
                // Superclasses and keywords are read outside.
                _ => self.visit(child, Ctx::Read, scope),
            }
        }
    }

    fn comprehension(&mut self, node: Node<'t>, scope: usize) {
        let inner = self.new_scope(ScopeKind::Expression, scope);
        let mut first_clause = true;
        let mut cursor = node.walk();
        for child in node.named_children(&mut cursor) {
            if child.kind() == "for_in_clause" && first_clause {
                first_clause = false;
                // The first iterable is evaluated in the enclosing scope.
                let mut inner_cursor = child.walk();
                for (i, part) in child.children(&mut inner_cursor).enumerate() {
                    if !part.is_named() {
                        continue;
                    }
                    match child.field_name_for_child(i as u32) {
                        Some("left") => self.visit(part, Ctx::Write, inner),
                        Some("right") => self.visit(part, Ctx::Read, scope),
                        _ => self.visit(part, Ctx::Read, inner),
                    }
                }
            } else {
                self.visit(child, Ctx::Read, inner);
            }
        }
    }

    /// The scope `:=` binds in: the nearest that is not a comprehension or lambda.
    fn binding_scope(&self, mut scope: usize) -> usize {
        while self.scopes[scope].kind == ScopeKind::Expression {
            scope = self.scopes[scope].parent.unwrap_or(0);
        }
        scope
    }

    fn function(&mut self, node: Node<'t>, scope: usize) {
        if let Some(name) = node.child_by_field_name("name") {
            self.record(name, Role::Write, scope);
        }
        let inner = self.new_scope(ScopeKind::Function, scope);
        if let Some(params) = node.child_by_field_name("parameters") {
            self.parameters(params, inner, scope);
        }
        if let Some(returns) = node.child_by_field_name("return_type") {
            self.visit(returns, Ctx::Read, scope);
        }
        if let Some(body) = node.child_by_field_name("body") {
            self.visit(body, Ctx::Read, inner);
        }
    }

    /// Parameter names bind in `inner`; defaults and annotations are read in `outer`.
    fn parameters(&mut self, params: Node<'t>, inner: usize, outer: usize) {
        let mut cursor = params.walk();
        for param in params.named_children(&mut cursor) {
            match param.kind() {
                "identifier" => self.record(param, Role::Write, inner),
                "default_parameter" | "typed_default_parameter" | "typed_parameter" => {
                    let mut c = param.walk();
                    for (i, part) in param.children(&mut c).enumerate() {
                        if !part.is_named() {
                            continue;
                        }
                        match param.field_name_for_child(i as u32) {
                            Some("value" | "type") => self.visit(part, Ctx::Read, outer),
                            _ => self.parameter_names(part, inner),
                        }
                    }
                }
                _ => self.parameter_names(param, inner),
            }
        }
    }

    /// The identifiers of a parameter (`*args`, `**kwargs`) bind in `inner`.
    fn parameter_names(&mut self, node: Node<'t>, inner: usize) {
        if node.kind() == "identifier" {
            self.record(node, Role::Write, inner);
            return;
        }
        let mut cursor = node.walk();
        let children: Vec<Node> = node.named_children(&mut cursor).collect();
        for child in children {
            self.parameter_names(child, inner);
        }
    }

    fn import(&mut self, node: Node<'t>, scope: usize) {
        let from = node.kind() == "import_from_statement";
        let mut cursor = node.walk();
        for (i, child) in node.children(&mut cursor).enumerate() {
            if child.kind() == "wildcard_import" {
                self.file_doubt("`from ... import *` may bind any name");
                continue;
            }
            if node.field_name_for_child(i as u32) != Some("name") {
                continue;
            }
            match child.kind() {
                "aliased_import" => {
                    if let Some(alias) = child.child_by_field_name("alias") {
                        self.record(alias, Role::Import(ImportForm::Alias), scope);
                    }
                }
                "dotted_name" => {
                    let parts = child.named_child_count();
                    if let Some(first) = child.named_child(0).filter(|f| f.kind() == "identifier") {
                        let form = match (from, parts) {
                            (true, _) => ImportForm::FromName,
                            (false, 1) => ImportForm::Module,
                            (false, _) => ImportForm::DottedModule,
                        };
                        self.record(first, Role::Import(form), scope);
                    }
                }
                _ => {}
            }
        }
    }

    /// Keeps the occurrences whose name resolves to the module scope.
    fn resolve(mut self) -> ModuleNames {
        let raw = std::mem::take(&mut self.raw);
        for r in raw {
            if let Some(why) = self.doubt_of_class_read(&r) {
                self.doubt(&r.name, why);
            }
            if self.resolves_to_module(&r) {
                self.out.occurrences.push(Occurrence { name: r.name, span: r.span, role: r.role });
            }
        }
        self.out.occurrences.sort_by_key(|o| o.span.start);
        self.out
    }

    fn resolves_to_module(&self, r: &Raw) -> bool {
        let mut scope = r.scope;
        let mut first = true;
        loop {
            let s = &self.scopes[scope];
            if s.kind == ScopeKind::Module {
                return true;
            }
            // Class bodies are seen only by the code written directly in them.
            if (first || s.kind != ScopeKind::Class) && s.locals.contains(&r.name) && !s.declared.contains(&r.name) {
                return false;
            }
            first = false;
            scope = s.parent.unwrap_or(0);
        }
    }

    /// A class body that binds a name and reads it: the read sees the class's binding or the
    /// module's, by run order.
    fn doubt_of_class_read(&self, r: &Raw) -> Option<String> {
        let s = &self.scopes[r.scope];
        (s.kind == ScopeKind::Class && r.role == Role::Read && s.locals.contains(&r.name)).then(|| {
            format!("a class body binds `{}` and reads it: which binding a read sees depends on run order", r.name)
        })
    }
}
