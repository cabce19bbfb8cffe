//! f-strings with replacement fields: each field evaluated in order (its exceptions are the
//! module's), and the string built where every field is known and formatted as `str()` or
//! `repr()` formats it, or `format()` with a specification; `{x=}` with its own text.

use super::literals::decode_string_literal;
use super::{span, Evaluator};
use crate::fields::{Field, FieldChild};
use crate::value::format_spec::Formatted;
use crate::value::{Callable, Operators, Value, ValueKind};
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
        // Whether each part is exact, or shows an object's address not known.
        let mut exact = true;
        let mut at = node.start_byte() + open.len();
        for field in fields {
            parts.push(self.literal_part(open, close, at, field.start_byte()));
            parts.push(self.field(*field, open, close).map(|(text, known)| {
                exact &= known;
                text
            }));
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
            Ok(text) if exact => Value::new(ValueKind::Str(text), s),
            Ok(text) => Value::str_shown(text, "an f-string showing an object's address, which the run decides", s),
            // Whatever its fields, an f-string is a str (`sorted([f"{x}", 1])` raises).
            Err(why) => Value::unknown_of_type("str", Operators::NotModelled, Callable::No, why, s),
        }
    }

    /// The text between two fields, decoded as the literal's prefix and quotes read it.
    fn literal_part(&self, open: &str, close: &str, from: usize, to: usize) -> Result<String, String> {
        let piece = self.text.get(from..to).ok_or("an f-string Python does not read")?;
        match decode_string_literal(&format!("{open}{piece}{close}"), from..to).kind {
            ValueKind::Str(text) => Ok(text),
            ValueKind::Unknown(why) => Err(why.why),
            _ => Err("a bytes f-string".into()),
        }
    }

    /// One `{expression!conversion:spec}` field, formatted (`open` and `close`: the
    /// literal's prefix and quotes, which its specification's text is decoded as), and
    /// whether that text is exact (false: it shows an object's address as not known).
    fn field(&mut self, field: Node, open: &str, close: &str) -> Result<(String, bool), String> {
        let value = match field.field(Field::Expression) {
            Some(expression) => self.expr(expression),
            None => return Err("an empty f-string field".into()),
        };
        if self.model.load_error.is_some() {
            return Err("raises".into());
        }
        // `{x:>{w}\u00e9}`: the specification's nested fields are formatted and its text
        // decoded, before `format(x, spec)`.
        let spec = field.field(Field::FormatSpecifier).map(|spec| self.format_specification(spec, open, close));
        if self.model.load_error.is_some() {
            return Err("raises".into());
        }
        // `{x = }` prints its own text through the `=`, then the value: `repr()`'d where
        // there is neither a conversion nor a specification (3.8-3.13 alike).
        let mut cursor = field.walk();
        let equals = field.children(&mut cursor).find(|c| !c.is_named() && c.kind() == "=");
        // The text runs through the spaces after the `=`, to the conversion, the `:` or `}`.
        let label_end = equals.map(|e| e.next_sibling().map_or(e.end_byte(), |next| next.start_byte()));
        let label = label_end.map(|end| &self.text[field.start_byte() + 1..end]).unwrap_or("");
        // `{x:spec}` calls `format(x, spec)`, after the conversion (`!r`) where there is one.
        let spec = spec.transpose()?.filter(|t| !t.is_empty());
        let conversion = field.field(Field::TypeConversion).map(|c| self.t(c));
        let conversion = conversion.or((equals.is_some() && spec.is_none()).then_some("!r"));
        if (spec.is_none() || conversion.is_some()) && value.exceeds_str_digits() {
            self.fail(span(field), "ValueError", crate::value::STR_DIGITS_EXCEEDED.into());
            return Err("raises".into());
        }
        // `{f}` of a function: its text but for its address (`<function f at 0x…>`).
        self.want_module_reprs(&value);
        if let (Some((_, message)), None | Some("!s"), None | Some("")) =
            (value.made_exception(), conversion, spec.as_deref())
        {
            return Ok((format!("{label}{message}"), true));
        }
        // An exception formats as `object` does: no format spec (CPython 3.10-3.13).
        let exception = value.known_type().filter(|t| crate::value::raisable(t));
        if let (Some(class), None, Some(_)) = (exception, conversion, spec.as_deref().filter(|s| !s.is_empty())) {
            self.fail(span(field), "TypeError", format!("unsupported format string passed to {class}.__format__"));
            return Err("raises".into());
        }
        let exact = value.repr_is_exact();
        // Only where the repr is not exact: an exact value is formatted below, once.
        let shown = match (exact || spec.is_some(), value.shown(), conversion) {
            (true, _, _) => None,
            (false, Some(text), None | Some("!s")) => Some(text.to_string()),
            (false, None, None | Some("!s" | "!r")) if value.repr_is_exact_but_addresses() => Some(value.repr()),
            _ => None,
        };
        if let Some(text) = shown {
            return Ok((format!("{label}{text}"), false));
        }
        // A specification `format_value` answers without the repr: an int over 4,300 digits,
        // an object whose `__format__` refuses any specification.
        let spec_decides = spec.is_some()
            && conversion.is_none()
            && (value.exceeds_str_digits() || crate::value::format_spec::refuses_any_spec(&value));
        if !(exact || spec_decides) {
            return Err(match &value.kind {
                ValueKind::Unknown(why) => why.why.clone(),
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
        match crate::value::format_spec::format_value(&converted, spec.as_deref().unwrap_or(""), self.loading.version) {
            Formatted::Text(text) => Ok((format!("{label}{text}"), true)),
            Formatted::Raises(exception, message) => {
                self.fail(span(field), exception, message);
                Err("raises".into())
            }
            Formatted::NotKnown => {
                Err("f-string fields with this format specification are not evaluated statically".into())
            }
        }
    }

    /// A field's format specification as `format()` receives it: the text after `:`,
    /// decoded, with each nested field formatted (all of them evaluated, left to right).
    fn format_specification(&mut self, spec: Node, open: &str, close: &str) -> Result<String, String> {
        let mut cursor = spec.walk();
        let nested: Vec<Node> = spec.named_children(&mut cursor).filter(|n| n.kind() == "format_expression").collect();
        let mut at = spec.start_byte() + usize::from(self.t(spec).starts_with(':'));
        let mut parts = Vec::new();
        for field in nested {
            parts.push(self.literal_part(open, close, at, field.start_byte()));
            parts.push(self.field(field, open, close).and_then(|(text, exact)| match exact {
                true => Ok(text),
                false => Err("a format specification showing an object's address".into()),
            }));
            if self.model.load_error.is_some() {
                return Err("raises".into());
            }
            at = field.end_byte();
        }
        parts.push(self.literal_part(open, close, at, spec.end_byte().max(at)));
        parts.into_iter().collect()
    }
}

#[cfg(test)]
mod tests {
    use crate::analysis::{analyze, AnalysisInput};

    fn outcome(text: &str) -> String {
        let model = analyze(text, &AnalysisInput::default()).model;
        match model.load_error {
            Some(e) => format!("{}: {}", e.exception, e.message),
            None => model.manifest.map(|m| m.repr()).unwrap_or_default(),
        }
    }

    /// `{x=}` prints its text through the spaces after `=`, then the value (`repr()` without
    /// a conversion or specification); a `\N{...}` in a specification is an escape, not a
    /// nested field. The real check-manifest (CPython 3.11) printed each of these.
    #[test]
    fn self_documenting_fields_and_named_escapes_in_specifications() {
        let text = "x = 7\nmanifest = f\"{x=}|{x = }|{x=:>4}|{x=!s}|{ x * 2 =!r:>5}|{'a'=}|{x =  :>3}\"\n";
        assert_eq!(outcome(text), "\"x=7|x = 7|x=   7|x=7| x * 2 =   14|'a'='a'|x =    7\"");
        assert_eq!(outcome("manifest = f\"{1:\\N{EM DASH}^6}\"\n"), "'——1———'");
        let limit = "ValueError: Exceeds the limit (4300 digits) for integer string conversion; use sys.set_int_max_str_digits() to increase the limit";
        assert_eq!(outcome("manifest = f\"cpu{7 ** 6000=}\"\n"), limit);
    }

    /// The specification is decoded as the literal is and its nested fields are formatted
    /// before `format()` (CPython 3.11's answers, the same in 3.12 and 3.13).
    #[test]
    fn a_format_specification_is_decoded_and_its_fields_formatted() {
        let cases = [
            (r#"w = 3; manifest = f"{1:{w}}""#, "'  1'"),
            (r#"manifest = f"{1:\x3e5}""#, "'    1'"),
            (r#"manifest = rf"{1:\x3e5}""#, r"ValueError: Invalid format specifier '\x3e5' for object of type 'int'"),
            (r#"w = 3; manifest = f"{1:{w}{w}}""#, &format!("'{}1'", " ".repeat(32))),
            (
                r#"w = 3; manifest = f"{1:{w!r:>3}}""#,
                "ValueError: Invalid format specifier '  3' for object of type 'int'",
            ),
            (r#"manifest = f"{1:{undefined}}""#, "NameError: name 'undefined' is not defined"),
            (r#"manifest = f"{1/0:{undefined}}""#, "ZeroDivisionError: division by zero"),
        ];
        for (text, expected) in cases {
            assert_eq!(outcome(text), expected, "{text}");
        }
    }
}
