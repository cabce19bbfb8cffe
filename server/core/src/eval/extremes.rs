//! `min()` and `max()` run as CPython 3.10-3.13 run them: the count of positional
//! arguments, then the keywords (`key` and `default` only), then `default` refused beside
//! several positional arguments, then the items compared in order (`item > best` for max,
//! `item < best` for min), the first comparison that raises raising.

use super::builtin_arguments::{clinic_keyword_error, CallArguments};
use super::comparisons::order;
use super::Evaluator;
use crate::regex_check::PythonVersion;
use crate::value::{Span, Value, ValueKind};
use std::cmp::Ordering;

type Raise = (&'static str, String);

impl Evaluator<'_> {
    /// `min(...)` or `max(...)` (`fname`): its value, or the exception it raises; None where
    /// that is not known (a `key` function, an item not known, `*args`).
    pub(super) fn extreme_call(&mut self, fname: &str, args: &CallArguments, s: Span) -> Option<Value> {
        match extreme(fname, args, self.loading.version)? {
            Ok(value) => Some(value),
            Err((exception, message)) => {
                self.fail(s.clone(), exception, message);
                Some(Value::unknown("raises", s))
            }
        }
    }
}

fn extreme(fname: &str, args: &CallArguments, python: PythonVersion) -> Option<Result<Value, Raise>> {
    if args.unpacked {
        return None;
    }
    let positional = args.positional.as_slice();
    if positional.is_empty() {
        return Some(Err(("TypeError", format!("{fname} expected at least 1 argument, got 0"))));
    }
    // Its keywords are parsed as Argument Clinic's keyword-only ones are (`max() takes at
    // most 2 keyword arguments (3 given)`), though max is not a Clinic function.
    let names = args.keyword_names()?;
    if let Some(message) = clinic_keyword_error(fname, &["key", "default"], 0, 0, &names, python) {
        return Some(Err(("TypeError", message)));
    }
    let keyword = |name: &str| names.iter().position(|n| *n == name).map(|i| &args.keywords[i].1);
    let default = keyword("default");
    if default.is_some() && positional.len() > 1 {
        let message = format!("Cannot specify a default for {fname}() with multiple positional arguments");
        return Some(Err(("TypeError", message)));
    }
    let items = match positional {
        [iterable] if iterable.not_iterable() => {
            return Some(Err(("TypeError", format!("'{}' object is not iterable", iterable.exception_type_name()))));
        }
        [iterable] => iterable.iterated()?,
        _ => positional.to_vec(),
    };
    // A key function is called on each item: not evaluated here.
    if keyword("key").is_some_and(|key| !matches!(key.kind, ValueKind::None)) {
        return None;
    }
    let Some((first, rest)) = items.split_first() else {
        return Some(match default {
            Some(value) => Ok(value.clone()),
            None if python >= PythonVersion::V3_12 => {
                Err(("ValueError", format!("{fname}() iterable argument is empty")))
            }
            None => Err(("ValueError", format!("{fname}() arg is an empty sequence"))),
        });
    };
    let (op, better) = if fname == "max" { (">", Ordering::Greater) } else { ("<", Ordering::Less) };
    let mut best = first;
    for item in rest {
        match order(item, best, op) {
            Err(raise) => return Some(Err(raise)),
            Ok(None) => return None,
            Ok(Some(ordering)) if ordering == better => best = item,
            Ok(Some(_)) => {}
        }
    }
    Some(Ok(best.clone()))
}
