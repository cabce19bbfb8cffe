//! Shapes tree-sitter accepts where CPython's parser refuses them: each is a parse error
//! tree-sitter does not mark, found from CPython's tokens. The first one (or tree-sitter's
//! own first error, if earlier) is where [`estimate`](super::estimate) places CPython's
//! error; finding one also makes the analysis ask CPython (`Analysis::syntax_in_doubt`).

use super::error::{line_at, PythonSyntaxError};
use super::hints::INVALID;
use crate::lexer::{lex, TokenKind};
use crate::syntax::{child_of_kind, leading_star};
use tree_sitter::{Node, Tree};

/// The first error CPython's parser finds where tree-sitter finds none.
pub(super) fn missed_error(text: &str, tokens: Option<&[super::tokens::Token]>) -> Option<std::ops::Range<usize>> {
    // The rules read by logical line share one split of the tokens.
    let lines = tokens.map(logical_lines).unwrap_or_default();
    [
        stray_character(text),
        tokens.and_then(super::hints::missed_starred),
        tokens.and_then(super::hints::statement_juxtaposition),
        tokens.and_then(glued_string_prefix),
        tokens.and_then(import_junk),
        tokens.and_then(barry_as_flufl),
        tokens.and_then(super::targets::del_target_error),
        tokens.and_then(colon_on_its_own_line),
        tokens.and_then(line_starts_mid_expression),
        tokens.and_then(|t| from_without_import(t, &lines)),
        tokens.and_then(|t| keyword_ends_line(t, &lines)),
        tokens.and_then(super::hints::header_without_colon),
        tokens.and_then(|t| starred_annotation(t, &lines)),
    ]
    .into_iter()
    .flatten()
    .min_by_key(|s| s.start)
}

/// A logical line that starts with `:` (`if x\n:`): tree-sitter reads the newline as
/// insignificant there and the header as complete; CPython's NEWLINE ends the header.
fn colon_on_its_own_line(tokens: &[super::tokens::Token]) -> Option<std::ops::Range<usize>> {
    tokens.iter().find(|t| t.logical_start && t.is(":")).map(|t| t.start..t.end())
}

/// A logical line that starts with a token no statement starts with (`,` after a complete
/// statement, `== 2`, `)`): tree-sitter joins it to the line before; CPython's NEWLINE ended
/// that one (3.10-3.13: `invalid syntax` there, or an unmatched bracket's message, which
/// the tokenizer's errors give first).
fn line_starts_mid_expression(tokens: &[super::tokens::Token]) -> Option<std::ops::Range<usize>> {
    const NEVER_FIRST: [&str; 33] = [
        ",", "=", ")", "]", "}", ";", "/", "//", "%", "<", ">", "==", "!=", "<=", ">=", "|", "&", "^", "<<", ">>",
        "**", "->", ":=", "+=", "-=", "*=", "/=", "//=", "%=", "@=", "|=", "&=", "^=",
    ];
    tokens.iter().find(|t| t.logical_start && NEVER_FIRST.iter().any(|op| t.is(op))).map(|t| t.start..t.end())
}

/// `from m` with no `import` on its logical line (`from typing\nimport Any`): tree-sitter
/// reads the next line's `import` as the statement's; CPython ends the statement at the
/// line break. The line's last token.
fn from_without_import(
    tokens: &[super::tokens::Token],
    lines: &[std::ops::Range<usize>],
) -> Option<std::ops::Range<usize>> {
    lines.iter().cloned().find_map(|line| {
        let line = &tokens[line];
        let from = line.first().is_some_and(|t| t.is_name("from"));
        let import = line.iter().any(|t| t.is_name("import"));
        (from && !import).then(|| line.last().map(|t| t.start..t.end())).flatten()
    })
}

/// The logical lines of `tokens`, as ranges of indices.
fn logical_lines(tokens: &[super::tokens::Token]) -> Vec<std::ops::Range<usize>> {
    let starts: Vec<usize> = (0..tokens.len()).filter(|&k| tokens[k].logical_start).collect();
    (0..starts.len()).map(|n| starts[n]..starts.get(n + 1).copied().unwrap_or(tokens.len())).collect()
}

/// A logical line that ends on a keyword that needs more (`def` NEWLINE `f(): ...`,
/// `x = a if`): tree-sitter reads on into the next line; CPython's NEWLINE ends the
/// statement there (3.10-3.13 alike: `invalid syntax`, or `expected ':'`).
fn keyword_ends_line(
    tokens: &[super::tokens::Token],
    lines: &[std::ops::Range<usize>],
) -> Option<std::ops::Range<usize>> {
    const NEEDS_MORE: [&str; 26] = [
        "and", "as", "assert", "async", "await", "class", "def", "del", "elif", "else", "except", "finally", "for",
        "from", "global", "if", "import", "in", "is", "lambda", "nonlocal", "not", "or", "try", "while", "with",
    ];
    lines.iter().find_map(|line| {
        let last = &tokens[line.end.checked_sub(1)?];
        NEEDS_MORE.iter().any(|k| last.is_name(k)).then(|| last.start..last.end())
    })
}

/// A statement's annotation that is starred (`x: *a = 1`, `x: **a = 1`): tree-sitter reads
/// it as a type; CPython's grammar has a starred annotation only for `*args` (3.10-3.13
/// alike: `invalid syntax` at the star).
fn starred_annotation(
    tokens: &[super::tokens::Token],
    lines: &[std::ops::Range<usize>],
) -> Option<std::ops::Range<usize>> {
    lines.iter().cloned().find_map(|line| {
        let first = &tokens[line.start];
        if first.kind != super::tokens::Kind::Name || super::tokens::is_keyword(first.text) {
            return None;
        }
        let colon = line.clone().find(|&k| tokens[k].depth == 0 && tokens[k].is(":"))?;
        tokens.get(colon + 1).filter(|t| (t.is("*") || t.is("**")) && !t.logical_start).map(|t| t.start..t.end())
    })
}

/// `<>`: one token for CPython (its NOTEQUAL, which the parser refuses unless `from
/// __future__ import barry_as_FLUFL`), two comparisons side by side for tree-sitter, which
/// reads `a <> b` as `a < > b` with an error it recovers from silently.
fn barry_as_flufl(tokens: &[super::tokens::Token]) -> Option<std::ops::Range<usize>> {
    tokens.windows(2).find(|w| w[0].is("<") && w[1].is(">") && w[0].end() == w[1].start).map(|w| w[0].start..w[1].end())
}

/// The first token an `import` statement cannot hold (`import a-b`: tree-sitter reads on
/// after the module name; a trailing comma), or a `.` among the names a `from` statement imports (`from torch
/// import flo.at16`, which tree-sitter reads as a dotted name). The rest of a `from`
/// statement is left to tree-sitter.
fn import_junk(tokens: &[super::tokens::Token]) -> Option<std::ops::Range<usize>> {
    use super::tokens::Kind;
    let (mut in_import, mut in_from, mut from_names) = (false, false, false);
    for (k, t) in tokens.iter().enumerate() {
        // `import a,` then the statement's end.
        let ends = tokens.get(k + 1).is_none_or(|n| n.logical_start || n.is(";"));
        if (in_import || from_names) && t.is(",") && ends {
            return Some(t.start..t.end());
        }
        if t.logical_start || t.is(";") {
            in_import = t.is_name("import");
            (in_from, from_names) = (t.is_name("from"), false);
            continue;
        }
        if in_from && t.is_name("import") {
            from_names = true;
        } else if from_names && t.is(".") {
            return Some(t.start..t.end());
        }
        let allowed =
            t.kind == Kind::Name && !super::tokens::is_keyword(t.text) || t.is_name("as") || t.is(".") || t.is(",");
        if in_import && !allowed {
            return Some(t.start..t.end());
        }
    }
    None
}

/// A name glued to a string (`T"key"`): CPython's tokenizer takes only its string prefixes
/// (`r`, `b`, `f`, `u` and their pairs) into the string, so the two are operands side by
/// side, which tree-sitter reads as one string.
fn glued_string_prefix(tokens: &[super::tokens::Token]) -> Option<std::ops::Range<usize>> {
    use super::tokens::Kind;
    tokens
        .windows(2)
        .find(|w| {
            w[0].kind == Kind::Name
                && w[1].kind == Kind::String
                && w[0].end() == w[1].start
                && !super::tokens::is_keyword(w[0].text)
        })
        .map(|w| w[1].start..w[1].start + 1)
}

/// The first `!`, `?`, `$` or backquote outside strings and comments: CPython's tokenizer
/// passes it to the parser as an operator no rule accepts, while tree-sitter skips it.
fn stray_character(text: &str) -> Option<std::ops::Range<usize>> {
    // Most files have none of these bytes: no need to tokenize them again.
    if !text.bytes().any(|b| matches!(b, b'!' | b'?' | b'$' | b'`')) {
        return None;
    }
    lex(text)
        .take_while(|t| t.error.is_none())
        .find(|t| t.kind == TokenKind::Op && matches!(t.text(text), "!" | "?" | "$" | "`"))
        .map(|t| t.span)
}

/// The first parse error CPython's parser reports with its own message in a shape
/// tree-sitter's tree holds without an error, with the byte it is reported at: an
/// annotation of a tuple or list target, an annotation chained or inside an assignment
/// chain, an augmented assignment in a chain, parameters out of order.
pub(super) fn tree_shape_error(tree: &Tree, text: &str) -> Option<(usize, PythonSyntaxError)> {
    let mut stack = vec![tree.root_node()];
    let mut cursor = tree.walk();
    let mut first: Option<(usize, &'static str)> = None;
    while let Some(node) = stack.pop() {
        let found = match node.kind() {
            "assignment" => assignment_error(node, text),
            "augmented_assignment" => augmented_assignment_error(node),
            // `x := 1` as a statement: only inside brackets (`(x := 1)`).
            "expression_statement" => node
                .named_child(0)
                .filter(|e| e.kind() == "named_expression")
                .and_then(|e| child_of_kind(e, ":="))
                .map(|walrus| (walrus.start_byte(), INVALID)),
            // `{,}`, `f(,)`: a comma with nothing before it.
            "dictionary" | "argument_list" => {
                node.child(1).filter(|c| c.kind() == ",").map(|comma| (comma.start_byte(), INVALID))
            }
            "parameters" | "lambda_parameters" => parameters_error(node),
            // `[*a for a in z]`: a comprehension's element is never starred (3.10-3.13 alike).
            "list_comprehension" | "set_comprehension" | "generator_expression" => node
                .child_by_field_name("body")
                .and_then(leading_star)
                .map(|star| (star.start_byte(), "iterable unpacking cannot be used in comprehension")),
            "for_in_clause" => comprehension_in_tuple(node),
            // `lambda: *x`: a lambda's body is an expression, never starred; a lambda is no
            // operand (`not lambda: x`, `1 + lambda: x`), nor a condition.
            "lambda" => node
                .child_by_field_name("body")
                .filter(|b| b.kind() == "list_splat")
                .map(|b| (b.start_byte(), INVALID))
                .or_else(|| lambda_as_operand(node).then(|| (node.start_byte(), INVALID))),
            "named_expression" => lambda_walrus(node)
                .or_else(|| starred_walrus_value(node))
                .or_else(|| super::walrus_places::walrus_out_of_place(node)),
            // `[*a or b]`, `[*a < b]`, `[*a if c else d]`: a star binds an operand of `|` or
            // tighter only (tree-sitter reads the star in the left operand).
            "boolean_operator" | "comparison_operator" | "conditional_expression" => {
                leading_splat(node).map(|star| (star.start_byte(), INVALID))
            }
            "pair" => walrus_in_pair(node),
            // `async = 1`, `del async + y`: keywords since 3.7, which tree-sitter reads as names.
            // (A keyword argument's name is the hints' to word: `f(await a=1)`.)
            "identifier"
                if matches!(text.get(node.byte_range()), Some("async" | "await"))
                    && node.parent().is_none_or(|p| p.kind() != "keyword_argument" || !p.has_error()) =>
            {
                Some((node.start_byte(), INVALID))
            }
            // `x: T := v`: an annotation is never an unparenthesized walrus (3.10-3.13 alike).
            "type" => node
                .named_child(0)
                .filter(|t| t.kind() == "named_expression" && node.parent().is_some_and(|p| p.kind() == "assignment"))
                .and_then(|t| child_of_kind(t, ":="))
                .map(|walrus| (walrus.start_byte(), INVALID)),
            // `x = a as b`: `as` names a with item, an exception or a match pattern only.
            "as_pattern" => node
                .parent()
                .filter(|p| !matches!(p.kind(), "with_item" | "except_clause" | "except_group_clause" | "case_pattern"))
                // `with (a as b):`, one item in brackets (tree-sitter: a parenthesized expression).
                .filter(|p| {
                    p.kind() != "parenthesized_expression" || p.parent().is_none_or(|g| g.kind() != "with_item")
                })
                .and_then(|_| child_of_kind(node, "as"))
                .map(|keyword| (keyword.start_byte(), INVALID)),
            // `[**a]`, `{"k": **a}`: `**` only unpacks into a dict display or a call's
            // keywords, which tree-sitter reads as a `dictionary_splat`.
            "list_splat" => node
                .named_child(0)
                .and_then(leading_star)
                .filter(|inner| inner.start_byte() == node.start_byte() + 1)
                .map(|_| (node.start_byte(), INVALID)),
            _ => super::statement_shapes::shape_error(node),
        };
        if let Some(found) = found {
            if first.is_none_or(|(at, _)| found.0 < at) {
                first = Some(found);
            }
        }
        stack.extend(node.named_children(&mut cursor).collect::<Vec<_>>());
    }
    first.map(|(at, message)| {
        (at, PythonSyntaxError { message: message.into(), line: line_at(text, at), fixes: Vec::new() })
    })
}

/// `[a for a in b, c]`, `[a for a in b,]`: a comprehension's `in` takes one expression,
/// where tree-sitter reads a tuple. CPython 3.10-3.13 fail at the comma, or, for a call's
/// only argument (`f(a for a in b, c)`), say the generator must be parenthesized.
fn comprehension_in_tuple(clause: Node) -> Option<(usize, &'static str)> {
    let comma = child_of_kind(clause, ",")?;
    let comprehension = clause.parent()?;
    let call = comprehension.parent().filter(|c| c.kind() == "call");
    let argument = call.and_then(|c| c.child_by_field_name("arguments")).is_some_and(|a| a.id() == comprehension.id());
    match (comprehension.kind(), argument) {
        ("generator_expression", true) => {
            comprehension.named_child(0).map(|body| (body.start_byte(), "Generator expression must be parenthesized"))
        }
        _ => Some((comma.start_byte(), INVALID)),
    }
}

/// Whether a lambda stands where CPython's grammar has no lambda: an operator's operand or a
/// conditional expression's condition (CPython 3.10-3.13: invalid syntax at the lambda).
fn lambda_as_operand(lambda: Node) -> bool {
    let Some(parent) = lambda.parent() else { return false };
    match parent.kind() {
        "not_operator"
        | "unary_operator"
        | "binary_operator"
        | "boolean_operator"
        | "comparison_operator"
        | "await"
        | "list_splat" => true,
        "conditional_expression" => parent.named_child(1).is_some_and(|c| c.id() == lambda.id()),
        _ => false,
    }
}

/// `(d := *l * 2)`: a walrus's value is never starred (tree-sitter reads the star as a
/// binary operator's operand): invalid syntax at the star (CPython 3.10-3.13 alike).
fn starred_walrus_value(named: Node) -> Option<(usize, &'static str)> {
    leading_splat(named.child_by_field_name("value")?).map(|star| (star.start_byte(), INVALID))
}

/// The `*x` `node` starts with, through its first operands (`*a * 2 or b`).
fn leading_splat(node: Node) -> Option<Node> {
    let mut first = node;
    while first.kind() != "list_splat" {
        first = first.child(0).filter(|c| c.is_named())?;
    }
    Some(first)
}

/// `lambda: n := 1`, read by tree-sitter as a lambda whose body assigns: CPython's
/// grammar reads `lambda: n` as the walrus's target. Where a named expression may stand
/// (an item of brackets, a subscript, a comprehension's element) its own rule names the
/// lambda; elsewhere (a call's argument, a dict's value, an assignment) the walrus is
/// invalid syntax (CPython 3.10-3.13 alike).
fn lambda_walrus(named: Node) -> Option<(usize, &'static str)> {
    let lambda = named.parent().filter(|p| p.kind() == "lambda")?;
    let body = lambda.child_by_field_name("body").filter(|b| b.id() == named.id())?;
    let context = lambda.parent()?.kind();
    let named_allowed = matches!(
        context,
        "parenthesized_expression"
            | "list"
            | "set"
            | "tuple"
            | "subscript"
            | "list_comprehension"
            | "set_comprehension"
            | "generator_expression"
    );
    match named_allowed {
        true => Some((lambda.start_byte(), "cannot use assignment expressions with lambda")),
        false => child_of_kind(body, ":=").map(|walrus| (walrus.start_byte(), INVALID)),
    }
}

/// `{"a": 1, k := "b": 2}`, `{"a": k := 1}`: a dict's key or value is never an unparenthesized
/// walrus (tree-sitter reads one). CPython 3.10-3.13 alike: a later key is `':' expected
/// after dictionary key` at the key, the first key invalid syntax at its pair's colon, a
/// value invalid syntax at the walrus.
fn walrus_in_pair(pair: Node) -> Option<(usize, &'static str)> {
    let (key, value) = (pair.child_by_field_name("key")?, pair.child_by_field_name("value")?);
    if value.kind() == "named_expression" {
        return child_of_kind(value, ":=").map(|walrus| (walrus.start_byte(), INVALID));
    }
    if key.kind() != "named_expression" {
        return None;
    }
    match pair.prev_named_sibling().filter(|p| p.kind() != "comment") {
        Some(_) => Some((key.start_byte(), "':' expected after dictionary key")),
        None => child_of_kind(pair, ":").map(|colon| (colon.start_byte(), INVALID)),
    }
}

/// CPython's error for an assignment tree-sitter accepts (`a, b: int = 1`, `a: b: c`,
/// `a = b: int = 1`, `a: int = b = 1`, `a = b *= 1`).
fn assignment_error(assignment: Node, text: &str) -> Option<(usize, &'static str)> {
    let left = assignment.child_by_field_name("left")?;
    let annotation = assignment.child_by_field_name("type");
    let right = assignment.child_by_field_name("right");
    if let Some(annotation) = annotation {
        // `x:` NEWLINE `    y = 1`: tree-sitter reads on into the next line for the type.
        if let Some(colon) = child_of_kind(assignment, ":") {
            let gap = text.get(colon.end_byte()..annotation.start_byte()).unwrap_or("");
            let continued = gap.contains("\\\n") || gap.contains("\\\r");
            if gap.contains(['\n', '\r']) && !continued {
                return Some((colon.start_byte(), INVALID));
            }
        }
        match left.kind() {
            "pattern_list" => return Some((left.start_byte(), "only single target (not tuple) can be annotated")),
            "tuple_pattern" if child_of_kind(left, ",").is_some() => {
                return Some((left.start_byte(), "only single target (not tuple) can be annotated"))
            }
            "list_pattern" => return Some((left.start_byte(), "only single target (not list) can be annotated")),
            "list_splat_pattern" => return child_of_kind(assignment, ":").map(|c| (c.start_byte(), INVALID)),
            _ => {}
        }
        // `a: b: c`: tree-sitter reads `b: c` as a constrained type.
        let constrained = annotation.named_child(0).filter(|t| t.kind() == "constrained_type");
        // (`x: d[:int:]` reads as one too: the annotation, parsed alone, tells.)
        if let Some(colon) = constrained.and_then(|t| child_of_kind(t, ":")) {
            if !crate::syntax::annotated_statement_parses(assignment, text) {
                return Some((colon.start_byte(), INVALID));
            }
        }
        // `a = b: int = 1`: an annotation is a statement of its own.
        let in_chain = assignment.parent().is_some_and(|p| p.kind() == "assignment");
        if in_chain {
            return child_of_kind(assignment, ":").map(|c| (c.start_byte(), INVALID));
        }
        // `a: int = b = 1`: an annotated assignment has one target.
        if let Some(eq) = right.filter(|r| r.kind() == "assignment").and_then(|r| child_of_kind(r, "=")) {
            return Some((eq.start_byte(), INVALID));
        }
    }
    let augmented = right.filter(|r| r.kind() == "augmented_assignment")?;
    let operator = augmented.child_by_field_name("operator")?;
    Some((operator.start_byte(), INVALID))
}

/// CPython's error for an augmented assignment tree-sitter accepts: to a tuple or list
/// (`a, += 1`), or inside an assignment chain (`a *= b = 1`).
fn augmented_assignment_error(node: Node) -> Option<(usize, &'static str)> {
    let left = node.child_by_field_name("left")?;
    // tree-sitter reads `*a.b` and `*a[k]` as the attribute or item of `*a`.
    let mut innermost = left;
    while matches!(innermost.kind(), "attribute" | "subscript") {
        match innermost.child(0) {
            Some(object) => innermost = object,
            None => break,
        }
    }
    if matches!(innermost.kind(), "list_splat" | "list_splat_pattern") {
        return Some((left.start_byte(), "'starred' is an illegal expression for augmented assignment"));
    }
    match left.kind() {
        "tuple_pattern" | "tuple" if child_of_kind(left, ",").is_none() => {}
        "pattern_list" | "tuple_pattern" | "tuple" | "expression_list" => {
            return Some((left.start_byte(), "'tuple' is an illegal expression for augmented assignment"))
        }
        "list_pattern" | "list" => {
            return Some((left.start_byte(), "'list' is an illegal expression for augmented assignment"))
        }
        _ => {}
    }
    // `x += y = 1`, `x += y += 1`, `x += y: int`: invalid at the second operator (an
    // annotation's `:` comes first).
    let right = node.child_by_field_name("right")?;
    let operator = match right.kind() {
        "assignment" => child_of_kind(right, ":").or_else(|| child_of_kind(right, "=")),
        "augmented_assignment" => right.child_by_field_name("operator"),
        _ => None,
    };
    operator.map(|op| (op.start_byte(), INVALID))
}

/// CPython's error for a parameter list tree-sitter accepts: a parameter without a default
/// after one with, nothing named after a bare `*`, anything after `**k`, two `*`, a `/`
/// first, twice or after `*`, a parenthesized parameter (CPython 3.11-3.13's messages; 3.10
/// says `invalid syntax` for those three).
fn parameters_error(parameters: Node) -> Option<(usize, &'static str)> {
    let mut cursor = parameters.walk();
    let (mut defaulted, mut star, mut double_star) = (false, None::<Node>, false);
    let (mut named_after_star, mut slash, mut before) = (false, false, false);
    let lambda = parameters.kind() == "lambda_parameters";
    for parameter in parameters.named_children(&mut cursor) {
        let kind = splat_kind(parameter);
        if double_star {
            return Some((parameter.start_byte(), "arguments cannot follow var-keyword argument"));
        }
        let first = !std::mem::replace(&mut before, true);
        match kind {
            "positional_separator" => {
                let message = match (first, slash, star.is_some()) {
                    (true, _, _) if lambda => INVALID,
                    (true, _, _) => "at least one argument must precede /",
                    (_, true, _) => "/ may appear only once",
                    (_, _, true) => "/ must be ahead of *",
                    _ => {
                        slash = true;
                        continue;
                    }
                };
                return Some((parameter.start_byte(), message));
            }
            // `(a)`, `(a, b)=1`.
            "tuple_pattern" | "default_parameter"
                if kind == "tuple_pattern"
                    || parameter.child_by_field_name("name").is_some_and(|n| n.kind() == "tuple_pattern") =>
            {
                let message = match lambda {
                    true => "Lambda expression parameters cannot be parenthesized",
                    false => "Function parameters cannot be parenthesized",
                };
                return Some((parameter.start_byte(), message));
            }
            "list_splat_pattern" | "keyword_separator" => {
                if star.is_some() {
                    return Some((parameter.start_byte(), "* argument may appear only once"));
                }
                star = Some(parameter);
                named_after_star = kind == "list_splat_pattern";
            }
            "dictionary_splat_pattern" => {
                if let Some(bare) = star.filter(|_| !named_after_star) {
                    return Some((bare.start_byte(), "named arguments must follow bare *"));
                }
                double_star = true;
            }
            "default_parameter" | "typed_default_parameter" => {
                defaulted = true;
                named_after_star |= star.is_some();
            }
            "identifier" | "typed_parameter" => {
                if defaulted && star.is_none() {
                    return Some((parameter.start_byte(), "non-default argument follows default argument"));
                }
                named_after_star |= star.is_some();
            }
            _ => {}
        }
    }
    star.filter(|_| !named_after_star).map(|bare| (bare.start_byte(), "named arguments must follow bare *"))
}

/// A parameter's kind, looking through a type annotation (`*a: int` is a typed parameter
/// holding a splat).
fn splat_kind(parameter: Node) -> &'static str {
    let kind = parameter.kind();
    if kind == "typed_parameter" {
        if let Some(splat) = parameter.named_child(0).filter(|c| c.kind().ends_with("splat_pattern")) {
            return if splat.kind() == "list_splat_pattern" {
                "list_splat_pattern"
            } else {
                "dictionary_splat_pattern"
            };
        }
        return "typed_parameter";
    }
    match kind {
        "list_splat_pattern" => "list_splat_pattern",
        "dictionary_splat_pattern" => "dictionary_splat_pattern",
        "keyword_separator" => "keyword_separator",
        "default_parameter" => "default_parameter",
        "typed_default_parameter" => "typed_default_parameter",
        "identifier" => "identifier",
        "positional_separator" => "positional_separator",
        "tuple_pattern" => "tuple_pattern",
        _ => "",
    }
}

#[cfg(test)]
mod tests {
    use super::super::estimate::tests::assert_errors;
    use super::super::python_syntax_error;
    use crate::syntax::parse;

    /// CPython 3.11.7's compile() of the same sources.
    #[test]
    fn shapes_tree_sitter_accepts() {
        let e = python_syntax_error(&parse("f(1 <> 2)\n", None), "f(1 <> 2)\n").unwrap();
        assert_eq!((e.message.as_str(), e.line), ("invalid syntax", 1));
        // After an `=`, the emulation's hints still read `<` and `>` apart (CPython says
        // `invalid syntax` on line 2); the line is right, and CPython is asked.
        for text in ["x = 1\nmanifest = 1 <> 2\n", "x = 1\nmanifest = 1 < > 2\n"] {
            assert_eq!(python_syntax_error(&parse(text, None), text).map(|e| e.line), Some(2));
        }
    }

    /// CPython 3.10-3.13's compile() of the same sources (one answer in all four).
    #[test]
    fn colon_on_its_own_line_is_an_error() {
        let cases: &[(&str, &str, usize)] = &[
            ("if x > 2\n:\n    a = 1\n", "expected ':'", 1),
            ("if (y := 3) > 2\n:\n  a=1\n", "expected ':'", 1),
            ("if x:\n  a=1\nelse\n:\n  b=1\n", "expected ':'", 3),
            ("def f()\n:\n  pass\n", "expected ':'", 1),
            ("for x in y\n:\n  pass\n", "expected ':'", 1),
            ("class A\n:\n  pass\n", "expected ':'", 1),
            ("x = 1\n:\n", "invalid syntax", 2),
            ("while x\n:\n  pass\n", "expected ':'", 1),
            ("with a\n:\n  pass\n", "expected ':'", 1),
            ("x = 1\n: 2\n", "invalid syntax", 2),
            ("if x:\n    pass\nelif y\n:\n  pass\n", "expected ':'", 3),
            ("import torch\nfrom typing \nimport Any\n", "invalid syntax", 2),
        ];
        assert_errors(cases);
        for text in ["from . import (\n a)\n", "from typing import Any\n"] {
            assert_eq!(python_syntax_error(&parse(text, None), text), None, "{text:?}");
        }
    }

    /// A line ending on a keyword that needs more, and a starred statement annotation
    /// (CPython 3.10-3.13's compile(): `invalid syntax` on the line in all four).
    #[test]
    fn lines_tree_sitter_joins_after_a_keyword_and_starred_annotations() {
        let cases: &[(&str, &str, usize)] = &[
            ("import torch\n\ndef\nf(*names):\n    return 1\n", "invalid syntax", 3),
            ("class\nA: pass\n", "invalid syntax", 1),
            ("del\nx\n", "invalid syntax", 1),
            ("x: *a = 1\n", "invalid syntax", 1),
            ("m = {}\ncuda_only:* m['b'] = 'cuda'\n", "invalid syntax", 2),
        ];
        assert_errors(cases);
        // Found (CPython is asked), though the emulation may word it otherwise; CPython
        // 3.10-3.13 say `invalid syntax` on these lines.
        for (text, line) in [
            ("x = 1 if\n", 1),
            ("f(a=*b)\n", 1),
            ("def f(a=*b): pass\n", 1),
            ("f(\n  x=1,\n  *  c:=dict(),\n)\n", 3),
            ("for name\n, e in d:\n  pass\n", 1),
            ("x = {1}\ny = (x, x)\n,\n", 3),
            ("x = 1\n== 2\n", 2),
        ] {
            assert_eq!(python_syntax_error(&parse(text, None), text).map(|e| e.line), Some(line), "{text:?}");
        }
        for text in ["if True: *a, = [1]\n", "x = [1,\n    2] if\\\n  True else 3\n", "x: int = (\n  1)\n"] {
            assert_eq!(python_syntax_error(&parse(text, None), text), None, "{text:?}");
        }
    }

    /// CPython 3.11.7's compile() of the same sources.
    #[test]
    fn assignments_and_parameters_tree_sitter_accepts() {
        let cases: &[(&str, &str, usize)] = &[
            ("x: int: int = 1\n", "invalid syntax", 1),
            ("x = [1,\n  2]\ny: int: \\\n int = 1\n", "invalid syntax", 3),
            ("x = 1\ny = x *= 2\n", "invalid syntax", 2),
            ("extra ,+= {1}\n", "'tuple' is an illegal expression for augmented assignment", 1),
            ("x = 1\n[a, b] += 1\n", "'list' is an illegal expression for augmented assignment", 2),
            ("x = 1\nmanifest := {1: 2}\n", "invalid syntax", 2),
            ("x = 1\ncuda_only:\n    y = 2\n", "invalid syntax", 2),
            ("x = 1\n*a.b |= 2\n", "'starred' is an illegal expression for augmented assignment", 2),
            ("x = {,}\n", "invalid syntax", 1),
            // 3.10 and 3.13 alike.
            ("h = lambda x=1: *x\n", "invalid syntax", 1),
            ("x = {*len(d) for d in z}\n", "iterable unpacking cannot be used in comprehension", 1),
            ("x = 1\ny = [*a.b for a in z]\n", "iterable unpacking cannot be used in comprehension", 2),
            ("x = 1\ng = {'a': lambda: *x}\n", "invalid syntax", 2),
            ("x = 1\nz = f(\n,)\n", "invalid syntax", 3),
            ("x = (1 +\n 2) *= 3\n", "invalid syntax", 2),
            ("x *= y = 1\n", "invalid syntax", 1),
            // 3.10-3.13 alike.
            ("x = [a for a in b,]\n", "invalid syntax", 1),
            ("x = {a:\n1 for a in b,}\n", "invalid syntax", 2),
            ("x = [a for a in b for c in d,]\n", "invalid syntax", 1),
            ("x = {a: 1 for a in b, c}\n", "invalid syntax", 1),
            ("f(a for a in b,)\n", "Generator expression must be parenthesized", 1),
            ("f(a for a in b, c)\n", "Generator expression must be parenthesized", 1),
            // 3.10-3.13 alike: at the second operator.
            ("x = 1\nx += y += 1\n", "invalid syntax", 2),
            ("d = {}\nd['a'] += d['a'] += 1\n", "invalid syntax", 2),
            ("x = 1\nx += y += \\\n 1\n", "invalid syntax", 2),
            ("x = 1\nx, y: int\n", "only single target (not tuple) can be annotated", 2),
            ("(x, y): int = 1\n", "only single target (not tuple) can be annotated", 1),
            ("[x]: int = 1\n", "only single target (not list) can be annotated", 1),
            ("*x: int = 1\n", "invalid syntax", 1),
            ("x = y: int = 1\n", "invalid syntax", 1),
            ("x: int = y = 1\n", "invalid syntax", 1),
            ("f = lambda a=1, b: 0\n", "non-default argument follows default argument", 1),
            ("def f(\n a=1,\n b): pass\n", "non-default argument follows default argument", 3),
            ("def f(a=1, /, b): pass\n", "non-default argument follows default argument", 1),
            ("f = lambda *: 0\n", "named arguments must follow bare *", 1),
            ("def f(*, **k): pass\n", "named arguments must follow bare *", 1),
            ("def f(**k, a): pass\n", "arguments cannot follow var-keyword argument", 1),
            ("def f(*a, *b): pass\n", "* argument may appear only once", 1),
            // A backslash error, or an unindent, later in the file is not read (CPython 3.11.7).
            ("def f(a=1, b): pass\nx = 1 \\ 2\n", "non-default argument follows default argument", 1),
            ("x = 1 2\ny = 1 \\ 2\n", "invalid syntax", 1),
            ("x = {'a' 1}\ny = 1 \\ 2\n", "invalid syntax. Perhaps you forgot a comma?", 1),
            ("x = 1 2\nif x:\n    y\n  z\n", "invalid syntax", 1),
        ];
        assert_errors(cases);
        for text in [
            "(x): int = 1\nx: int = 1\nx = y = 1\nx *= 2\n",
            "def f(a, b=1, *c, d, e=2, **g): pass\n",
            "def f(a, /, b, *, c): pass\nf = lambda *a, b=1, **c: 0\n",
            "def f(*a: int, **k: int): pass\n",
        ] {
            assert_eq!(python_syntax_error(&parse(text, None), text), None, "{text:?}");
        }
    }
}
