//! Navigation fixtures (definition, references, highlight, rename, selection range): `$0`
//! marks the cursor; `# ^^^ role` lines mark the expected occurrences on the line above.

mod fixture;

use fixture::parse_fixture;
use torchcts_core::actions::apply_edits;
use torchcts_core::navigation::definition::definition;
use torchcts_core::navigation::highlight::{highlights, Access};
use torchcts_core::navigation::references::references;
use torchcts_core::navigation::rename::{is_identifier, prepare_rename, rename};
use torchcts_core::navigation::selection_range::selection_ranges;
use torchcts_core::syntax::parse;

/// (line, start column, end column) of a byte span, columns in characters as the carets.
fn place(text: &str, span: &std::ops::Range<usize>) -> (usize, usize, usize) {
    let line = text[..span.start].matches('\n').count();
    let line_start = text[..span.start].rfind('\n').map_or(0, |i| i + 1);
    (line, text[line_start..span.start].chars().count(), text[line_start..span.end].chars().count())
}

/// The highlights at the cursor are exactly the annotated ones (`read` or `write`).
fn check_highlights(fixture: &str) {
    let f = parse_fixture(fixture);
    let tree = parse(&f.text, None);
    let mut actual: Vec<_> = highlights(&tree, &f.text, f.cursor.expect("a $0 cursor"))
        .iter()
        .map(|h| {
            let (l, s, e) = place(&f.text, &h.span);
            (l, s, e, if h.access == Access::Read { "read" } else { "write" }.to_string())
        })
        .collect();
    let mut expected = f.expected.clone();
    actual.sort();
    expected.sort();
    assert_eq!(actual, expected, "\n--- text ---\n{}", f.text);
}

/// The text at each span.
fn texts<'a>(text: &'a str, spans: &[std::ops::Range<usize>]) -> Vec<(usize, &'a str)> {
    spans.iter().map(|s| (place(text, s).0, &text[s.clone()])).collect()
}

fn definitions(fixture: &str) -> Vec<(usize, String)> {
    let f = parse_fixture(fixture);
    let tree = parse(&f.text, None);
    let spans = definition(&tree, &f.text, f.cursor.expect("a $0 cursor"));
    texts(&f.text, &spans).into_iter().map(|(l, t)| (l, t.to_string())).collect()
}

fn renamed(fixture: &str, new_name: &str) -> Result<String, String> {
    let f = parse_fixture(fixture);
    let tree = parse(&f.text, None);
    match rename(&tree, &f.text, f.cursor.expect("a $0 cursor"), new_name) {
        Ok(Some(edits)) => Ok(apply_edits(&f.text, &edits)),
        Ok(None) => Err("no name here".into()),
        Err(e) => Err(e.0),
    }
}

const EXAMPLE: &str = r#"import torch

FP16_OPS = r"^(add|mul)$"

manifest = {
    "supported_dtypes": {torch.float16: FP16_OPS$0, "float32": True},
}
"#;

#[test]
fn definition_of_a_constant_is_its_assignment() {
    assert_eq!(definitions(EXAMPLE), vec![(2, "FP16_OPS".to_string())]);
}

#[test]
fn definition_of_an_imported_name_is_the_import() {
    let fixture = "from torch import float16\nimport torch\nx = {tor$0ch.float32: float16}\n";
    assert_eq!(definitions(fixture), vec![(1, "torch".to_string())]);
    let fixture = "from torch import float16\nx = {1: float$016}\n";
    assert_eq!(definitions(fixture), vec![(0, "float16".to_string())]);
    let fixture = "from torch import float16 as half\nx = {1: half$0}\n";
    assert_eq!(definitions(fixture), vec![(0, "half".to_string())]);
}

#[test]
fn definition_lists_every_binding_and_none_for_builtins_or_locals() {
    let fixture = "if c:\n    A = 1\nelse:\n    A = 2\nA += 1\ndel A\nx = A$0\n";
    assert_eq!(definitions(fixture), vec![(1, "A".into()), (3, "A".into()), (4, "A".into())]);
    assert_eq!(definitions("x = le$0n([])\n"), vec![]);
    assert_eq!(definitions("f = lambda a: a$0\na = 1\n"), vec![]);
    assert_eq!(definitions("x = {1: 2}$0\n"), vec![]);
}

#[test]
fn highlight_marks_reads_and_writes() {
    check_highlights(
        r#"
FP16_OPS = "a"
#^^^^^^^ write
FP16_OPS += "|b"
#^^^^^^^ write
manifest = {"supported_dtypes": {"float16": FP16_OPS$0}}
#                                           ^^^^^^^^ read
del FP16_OPS
#   ^^^^^^^^ write
"#,
    );
}

#[test]
fn a_name_shadowed_in_a_nested_scope_is_not_the_module_name() {
    check_highlights(
        r#"
OPS = "a"
#^^ write
def f(OPS=OPS):
#         ^^^ read
    return OPS
def g():
    OPS = 2
    return OPS
def h():
    return OPS
#          ^^^ read
class C:
    x = OPS
#       ^^^ read
    def m(self):
        return OPS
#              ^^^ read
k = lambda OPS: OPS
y = [OPS for OPS in OPS]
#                   ^^^ read
z = [o for o in OPS if o != OPS]
#               ^^^ read
#                           ^^^ read
w = {OPS: 1 for _ in "ab"}
#    ^^^ read
print(OPS$0)
#     ^^^ read
"#,
    );
}

#[test]
fn a_closure_variable_is_not_the_module_name() {
    check_highlights(
        r#"
NN = 1
#^ write
def outer():
    NN = 2
    def inner():
        return NN
    return inner
class K:
    NN = 3
    def m(self):
        return NN
#              ^^ read
x = NN$0
#   ^^ read
"#,
    );
}

#[test]
fn targets_of_for_with_and_imports_bind() {
    check_highlights(
        r#"
import os as PP
#            ^^ write
for PP in []:
#   ^^ write
    pass
with open("f") as PP:
#                 ^^ write
    pass
PP.x = 1
#^ read
PP[0] = 2
#^ read
q, PP = 1, 2
#  ^^ write
try:
    pass
except OSError as PP:
#                 ^^ write
    pass
x = PP$0
#   ^^ read
"#,
    );
}

#[test]
fn references_with_and_without_declarations() {
    let f = parse_fixture("A = 1\nB = A$0 + 1\ndel A\n");
    let tree = parse(&f.text, None);
    let cursor = f.cursor.unwrap();
    assert_eq!(texts(&f.text, &references(&tree, &f.text, cursor, true)), vec![(0, "A"), (1, "A"), (2, "A")]);
    assert_eq!(texts(&f.text, &references(&tree, &f.text, cursor, false)), vec![(1, "A"), (2, "A")]);
    // Attribute names and keyword arguments are no names.
    let f = parse_fixture("A = 1\nx = dict(A=2).A\ny = A$0\n");
    let tree = parse(&f.text, None);
    assert_eq!(texts(&f.text, &references(&tree, &f.text, f.cursor.unwrap(), true)), vec![(0, "A"), (2, "A")]);
}

#[test]
fn rename_edits_every_occurrence_of_the_binding() {
    assert_eq!(
        renamed(EXAMPLE, "HALF_OPS").unwrap(),
        EXAMPLE.replace("FP16_OPS$0", "HALF_OPS").replace("FP16_OPS", "HALF_OPS")
    );
    assert_eq!(
        renamed("A = 1\ndef f(A):\n    return A\nx = [A$0 for _ in A]\n", "B").unwrap(),
        "B = 1\ndef f(A):\n    return A\nx = [B for _ in B]\n"
    );
}

#[test]
fn rename_of_an_import_adds_an_alias() {
    assert_eq!(renamed("import torch\nx = tor$0ch.float16\n", "pt").unwrap(), "import torch as pt\nx = pt.float16\n");
    assert_eq!(
        renamed("from torch import float16\nx = float16$0\n", "half").unwrap(),
        "from torch import float16 as half\nx = half\n"
    );
    assert_eq!(renamed("import torch as t\nx = t$0.x\n", "pt").unwrap(), "import torch as pt\nx = pt.x\n");
    assert_eq!(
        renamed("import torch.nn\nx = torch$0.nn\n", "pt").unwrap_err(),
        "Cannot rename `torch`: `import torch.…` binds it, and `import torch.… as new` would bind the submodule instead."
    );
}

#[test]
fn rename_refuses_bad_new_names() {
    let fixture = "A = 1\nB = 2\ndef f(c):\n    return c\nx = A$0\n";
    assert_eq!(renamed(fixture, "class").unwrap_err(), "`class` is a Python keyword.");
    assert_eq!(renamed(fixture, "None").unwrap_err(), "`None` is a Python keyword.");
    assert_eq!(renamed(fixture, "len").unwrap_err(), "`len` would shadow the builtin `len`.");
    assert_eq!(renamed(fixture, "1x").unwrap_err(), "`1x` is not a Python identifier.");
    assert_eq!(renamed(fixture, "a-b").unwrap_err(), "`a-b` is not a Python identifier.");
    assert_eq!(renamed(fixture, "B").unwrap_err(), "`B` is already used in this file (line 2).");
    // A local elsewhere would be captured or shadow the module name: refused too.
    assert_eq!(renamed(fixture, "c").unwrap_err(), "`c` is already used in this file (line 3).");
    assert_eq!(renamed(fixture, "manifest").unwrap_err(), "`manifest` is the name torchcts reads from the file.");
    assert_eq!(renamed(fixture, "A").unwrap(), fixture.replace("$0", ""));
    assert_eq!(renamed(fixture, "größe").unwrap(), "größe = 1\nB = 2\ndef f(c):\n    return c\nx = größe\n");
}

#[test]
fn rename_refuses_what_it_cannot_prove() {
    let cases = [
        ("x = le$0n([])\n", "Cannot rename `len`: it is a builtin."),
        ("x = undefine$0d\n", "Cannot rename `undefined`: it is not bound in this file."),
        ("manifest$0 = {}\n", "Cannot rename `manifest`: it is the name torchcts reads from the file."),
        (
            "A = 1\ndef f():\n    global A\n    A = 2\nx = A$0\n",
            "Cannot rename `A`: `global A` makes a nested scope bind it, which is not followed.",
        ),
        (
            "from m import *\nA = 1\nx = A$0\n",
            "Cannot rename `A`: `from ... import *` may bind any name, so not every use can be found.",
        ),
        (
            "A = 1\nx = globals()[\"A\"]\ny = A$0\n",
            "Cannot rename `A`: `globals()` can reach names by their string, so not every use can be found.",
        ),
        ("A = 1\nx = A$0\ny = (\n", "Cannot rename `A`: the file has syntax errors, so not every use can be found."),
        (
            "A = 1\nclass C:\n    A = A + 1\nx = A$0\n",
            "Cannot rename `A`: a class body binds `A` and reads it: which binding a read sees depends on run order.",
        ),
        (
            "A = 1\nx = [A := y for y in []]\nz = A$0\n",
            "Cannot rename `A`: `A :=` inside a comprehension or lambda binds outside it.",
        ),
    ];
    for (fixture, error) in cases {
        assert_eq!(renamed(fixture, "NEW").unwrap_err(), error, "{fixture}");
    }
}

#[test]
fn prepare_rename_gives_the_name_and_its_range() {
    let f = parse_fixture(EXAMPLE);
    let tree = parse(&f.text, None);
    let (span, name) = prepare_rename(&tree, &f.text, f.cursor.unwrap()).unwrap().unwrap();
    assert_eq!((place(&f.text, &span), name.as_str()), ((5, 40, 48), "FP16_OPS"));
    // On a key string: no name, no rename.
    let at = f.text.find("float32").unwrap();
    assert_eq!(prepare_rename(&tree, &f.text, at), Ok(None));
    let tree = parse("x = len([])\n", None);
    assert_eq!(prepare_rename(&tree, "x = len([])\n", 5).unwrap_err().0, "Cannot rename `len`: it is a builtin.");
}

#[test]
fn identifiers_are_pythons() {
    for ok in ["a", "_", "_x1", "größe", "变量", "match", "type"] {
        assert!(is_identifier(ok), "{ok}");
    }
    for bad in ["", "1a", "a b", "a.b", "x-y", "€"] {
        assert!(!is_identifier(bad), "{bad}");
    }
}

#[test]
fn selection_expands_over_the_tree() {
    let f = parse_fixture(
        r#"manifest = {
    "skip_ops": ["_nested$0_tensor", "mm"],
    "device_name": "cpu",
}
"#,
    );
    let tree = parse(&f.text, None);
    let ranges = selection_ranges(&tree, f.cursor.unwrap());
    let shown: Vec<&str> = ranges.iter().map(|r| &f.text[r.clone()]).collect();
    assert_eq!(
        shown,
        vec![
            "_nested_tensor",
            "\"_nested_tensor\"",
            "[\"_nested_tensor\", \"mm\"]",
            "\"skip_ops\": [\"_nested_tensor\", \"mm\"]",
            "{\n    \"skip_ops\": [\"_nested_tensor\", \"mm\"],\n    \"device_name\": \"cpu\",\n}",
            "manifest = {\n    \"skip_ops\": [\"_nested_tensor\", \"mm\"],\n    \"device_name\": \"cpu\",\n}",
            f.text.as_str(),
        ]
    );
    // Each range holds the one before it.
    for pair in ranges.windows(2) {
        assert!(pair[1].start <= pair[0].start && pair[0].end <= pair[1].end && pair[0] != pair[1]);
    }
}

#[test]
fn selection_from_a_name_in_a_key() {
    let f = parse_fixture("import torch\nd = {torch.float$016: True}\n");
    let tree = parse(&f.text, None);
    let shown: Vec<&str> = selection_ranges(&tree, f.cursor.unwrap()).iter().map(|r| &f.text[r.clone()]).collect();
    assert_eq!(
        shown,
        vec![
            "float16",
            "torch.float16",
            "torch.float16: True",
            "{torch.float16: True}",
            "d = {torch.float16: True}",
            f.text.as_str()
        ]
    );
}
