//! f-strings with replacement fields: each field evaluated in order (its exceptions are the
//! module's), and the string built where every field is known and formatted as `str()` or
//! `repr()` formats it (no format specification, no `=`).

use super::literals::decode_string_literal;
use super::{span, Evaluator};
use crate::fields::{Field, FieldChild};
use crate::value::format_spec::Formatted;
use crate::value::{Value, ValueKind};
use tree_sitter::Node;

impl Evaluator<'_> {
    /// The value of the f-string literal `node`, whose `interpolation` children are `fields`.
    pub(super) fn f_string(&mut self, node: Node, fields: &[Node]) -> Value {
        let s = span(node);
        let literal = self.t(node);
        let prefix_len = literal.find(['\'', '"']).unwrap_or(0);
        let quoted = &literal[prefix_len..];
        let quote_len = if quoted.starts_with("'''") || quoted.starts_with("\"\"\"") { 3 } else { 1 };
        let (open, close) =
            (&literal[..prefix_len + quote_len.min(quoted.len())], &quoted[..quote_len.min(quoted.len())]);
        // Python evaluates every field, left to right, whatever is known of the others.
        let mut parts: Vec<Result<String, String>> = Vec::new();
        let mut at = node.start_byte() + open.len();
        for field in fields {
            parts.push(self.literal_part(open, close, at, field.start_byte()));
            parts.push(self.field(*field));
            if self.model.load_error.is_some() {
                return Value::unknown("raises", s);
            }
            at = field.end_byte();
        }
        let end = node.end_byte().saturating_sub(close.len()).max(at);
        if !quoted.ends_with(close) || quoted.len() < 2 * quote_len {
            return Value::unknown("unterminated string", s);
        }
        parts.push(self.literal_part(open, close, at, end));
        match parts.into_iter().collect::<Result<String, String>>() {
            Ok(text) => Value::new(ValueKind::Str(text), s),
            Err(why) => Value::unknown(why, s),
        }
    }

    /// The text between two fields, decoded as the literal's prefix and quotes read it.
    fn literal_part(&self, open: &str, close: &str, from: usize, to: usize) -> Result<String, String> {
        let piece = self.text.get(from..to).ok_or("an f-string Python does not read")?;
        match decode_string_literal(&format!("{open}{piece}{close}"), from..to).kind {
            ValueKind::Str(text) => Ok(text),
            ValueKind::Unknown(why) => Err(why),
            _ => Err("a bytes f-string".into()),
        }
    }

    /// One `{expression!conversion:spec}` field, formatted.
    fn field(&mut self, field: Node) -> Result<String, String> {
        let value = match field.field(Field::Expression) {
            Some(expression) => self.expr(expression),
            None => return Err("an empty f-string field".into()),
        };
        // A nested field of the format specification is evaluated too.
        let spec = field.field(Field::FormatSpecifier);
        if let Some(spec) = spec {
            let mut cursor = spec.walk();
            let nested: Vec<Node> = spec.named_children(&mut cursor).collect();
            for n in nested {
                if let Some(e) = n.field(Field::Expression) {
                    let _ = self.expr(e);
                }
            }
        }
        let mut cursor = field.walk();
        let self_documenting = field.children(&mut cursor).any(|c| !c.is_named() && c.kind() == "=");
        if self_documenting {
            return Err("f-string fields with `=` are not evaluated statically".into());
        }
        // `{x:spec}` calls `format(x, spec)`, after the conversion (`!r`) where there is one.
        let spec = spec.map(|s| self.t(s)).map(|t| t.strip_prefix(':').unwrap_or(t)).filter(|t| !t.is_empty());
        let conversion = field.field(Field::TypeConversion).map(|c| self.t(c));
        if (spec.is_none() || conversion.is_some()) && value.exceeds_str_digits() {
            let message = "Exceeds the limit (4300 digits) for integer string conversion; use sys.set_int_max_str_digits() to increase the limit";
            self.fail(span(field), "ValueError", message.into());
            return Err("raises".into());
        }
        if !value.repr_is_exact() {
            return Err(match &value.kind {
                ValueKind::Unknown(why) => why.clone(),
                _ => format!("`{}` in an f-string is not evaluated statically", self.t(field)),
            });
        }
        let converted = match conversion {
            None => value,
            Some("!s") => Value::new(ValueKind::Str(value.py_str()), value.span.clone()),
            Some("!r") => Value::new(ValueKind::Str(value.repr()), value.span.clone()),
            Some("!a") if value.repr().is_ascii() => Value::new(ValueKind::Str(value.repr()), value.span.clone()),
            _ => return Err(format!("`{}` in an f-string is not evaluated statically", self.t(field))),
        };
        match crate::value::format_spec::format_value(&converted, spec.unwrap_or(""), self.loading.version) {
            Formatted::Text(text) => Ok(text),
            Formatted::Raises(exception, message) => {
                self.fail(span(field), exception, message);
                Err("raises".into())
            }
            Formatted::NotKnown => {
                Err("f-string fields with this format specification are not evaluated statically".into())
            }
        }
    }
}
