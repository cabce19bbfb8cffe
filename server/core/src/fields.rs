//! tree-sitter-python's field ids, looked up once: `Node::child_by_field_name` compares the
//! name with the grammar's field names on every call, and the evaluator asks for a field on
//! most nodes of the manifest on every keystroke.

use std::sync::LazyLock;
use tree_sitter::Node;

macro_rules! fields {
    ($($variant:ident = $name:literal),* $(,)?) => {
        /// A field of tree-sitter-python's grammar.
        #[derive(Clone, Copy, Debug)]
        pub enum Field {
            $($variant),*
        }

        static IDS: LazyLock<Vec<u16>> = LazyLock::new(|| {
            let language: tree_sitter::Language = tree_sitter_python::LANGUAGE.into();
            vec![$(language.field_id_for_name($name).map_or(0, |id| id.get())),*]
        });
    };
}

fields! {
    Alias = "alias",
    Argument = "argument",
    Arguments = "arguments",
    Attribute = "attribute",
    Expression = "expression",
    FormatSpecifier = "format_specifier",
    Function = "function",
    Key = "key",
    Left = "left",
    ModuleName = "module_name",
    Name = "name",
    Object = "object",
    Operator = "operator",
    Right = "right",
    Subscript = "subscript",
    Type = "type",
    TypeConversion = "type_conversion",
    Value = "value",
}

/// [`Node::child_by_field_name`] by a field's id.
pub trait FieldChild<'t> {
    fn field(&self, field: Field) -> Option<Node<'t>>;
}

impl<'t> FieldChild<'t> for Node<'t> {
    fn field(&self, field: Field) -> Option<Node<'t>> {
        self.child_by_field_id(IDS[field as usize])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each field resolves to the child `child_by_field_name` gives.
    #[test]
    fn every_field_finds_what_its_name_finds() {
        let text = "import a.b as c\nfrom m import n\nx = {1: f(y=2)}[0].attr + -z\ns = f'{x!r:>4}'\n";
        let tree = crate::syntax::parse(text, None);
        let fields = [
            (Field::Alias, "alias"),
            (Field::Argument, "argument"),
            (Field::Arguments, "arguments"),
            (Field::Attribute, "attribute"),
            (Field::Expression, "expression"),
            (Field::FormatSpecifier, "format_specifier"),
            (Field::Function, "function"),
            (Field::Key, "key"),
            (Field::Left, "left"),
            (Field::ModuleName, "module_name"),
            (Field::Name, "name"),
            (Field::Object, "object"),
            (Field::Operator, "operator"),
            (Field::Right, "right"),
            (Field::Subscript, "subscript"),
            (Field::TypeConversion, "type_conversion"),
            (Field::Value, "value"),
        ];
        let mut found = vec![0; fields.len()];
        let mut cursor = tree.walk();
        let mut stack = vec![tree.root_node()];
        while let Some(node) = stack.pop() {
            for (i, (field, name)) in fields.iter().enumerate() {
                let by_id = node.field(*field);
                assert_eq!(by_id, node.child_by_field_name(name), "{name} of {}", node.kind());
                found[i] += usize::from(by_id.is_some());
            }
            stack.extend(node.children(&mut cursor));
        }
        for ((_, name), n) in fields.iter().zip(found) {
            assert!(n > 0, "the text has no `{name}` field to compare");
        }
    }
}
