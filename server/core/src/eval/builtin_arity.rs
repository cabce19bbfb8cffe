//! What a builtin raises for a wrong count of positional arguments, per CPython version:
//! `data/builtin_arity.txt`, recorded from CPython 3.10-3.13 by
//! `tools/cpython/builtin_arity.py`. The count is checked before any argument is converted,
//! so the message holds whatever the values.

use crate::regex_check::PythonVersion;

static TABLE: &str = include_str!("../../data/builtin_arity.txt");

/// The `TypeError` calling the builtin `fname` with `given` positional arguments (and no
/// keyword) raises for their count; None where the count is one it takes.
pub(super) fn argument_count_error(fname: &str, given: usize, python: PythonVersion) -> Option<String> {
    let count = if given >= 5 { "5+".to_string() } else { given.to_string() };
    let version = format!("3.{}", python.minor());
    TABLE.lines().filter(|line| !line.starts_with('#')).find_map(|line| {
        let mut fields = line.splitn(4, '\t');
        let (name, n, versions, message) = (fields.next()?, fields.next()?, fields.next()?, fields.next()?);
        let applies = name == fname && n == count && (versions == "all" || versions == version);
        applies.then(|| message.replace("{n}", &given.to_string()))
    })
}
