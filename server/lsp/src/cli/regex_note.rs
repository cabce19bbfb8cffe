//! Which Python judged a manifest's regexes, said only where it can change an answer: a
//! regex that CPython 3.10 to 3.13 judge differently (valid in one, an error or a warning in
//! another). `check`, `skips` and `diff` say it once per command, `analyze` once per
//! manifest's report.

use super::output::errln;
use torchcts_core::regex_check::{check_regex, PythonVersion, RegexPython};
use torchcts_core::value::ValueKind;
use torchcts_core::Analysis;

/// The manifest's regex values: `supported_dtypes` string values and `capabilities.ieee754`
/// (a string or a list of them).
fn regexes(analysis: &Analysis) -> Vec<&str> {
    let Some(manifest) = analysis.model.manifest.as_ref().and_then(|m| m.as_dict()) else { return Vec::new() };
    let mut found = Vec::new();
    if let Some(dtypes) = manifest.get("supported_dtypes").and_then(|e| e.value.as_dict()) {
        found.extend(dtypes.entries.iter().filter_map(|e| e.value.as_str()));
    }
    let capabilities = manifest.get("capabilities").and_then(|e| e.value.as_dict());
    if let Some(ieee) = capabilities.and_then(|c| c.get("ieee754")) {
        match &ieee.value.kind {
            ValueKind::List(items) | ValueKind::Tuple(items) => found.extend(items.iter().filter_map(|i| i.as_str())),
            _ => found.extend(ieee.value.as_str()),
        }
    }
    found
}

/// Whether the Python's version can change an answer for this manifest: one of its regexes
/// is judged differently (valid, an error, a warning) by the CPython versions torchcts runs on.
pub fn answer_depends_on_python(analysis: &Analysis) -> bool {
    regexes(analysis).into_iter().any(|pattern| {
        let [first, rest @ ..] = PythonVersion::ALL;
        let answer = check_regex(pattern, first);
        rest.into_iter().any(|v| check_regex(pattern, v) != answer)
    })
}

/// Which Python judged the regexes, said once per command, for the manifests where that
/// Python's version can change an answer, grouped by what is said.
#[derive(Default)]
pub struct PythonNotes {
    /// (what is said, the manifests it is said for)
    notes: Vec<(String, Vec<String>)>,
}

impl PythonNotes {
    pub fn add(&mut self, shown: &str, env: &runner::environment::PythonEnvironment) {
        let said = python_note(env);
        match self.notes.iter_mut().find(|(s, _)| *s == said) {
            Some((_, files)) if files.iter().any(|f| f == shown) => {}
            Some((_, files)) => files.push(shown.to_string()),
            None => self.notes.push((said, vec![shown.to_string()])),
        }
    }

    pub fn print(&self) {
        for (said, files) in &self.notes {
            let which = match files.as_slice() {
                [one] => format!("{one} has a regex"),
                few if few.len() <= 3 => format!("{} have regexes", few.join(", ")),
                many => format!("{} manifests have regexes", many.len()),
            };
            errln!("Note: {which} that Python versions judge differently (valid in one, an error or a warning in another); {said}");
        }
    }
}

/// How the regexes were judged, in words for someone who has not met the question before.
fn python_note(env: &runner::environment::PythonEnvironment) -> String {
    let choice = RegexPython::for_found(env.python_version);
    let python = env.python.display();
    let (version, to_fix) = (
        choice.version,
        "set `python` in [tool.torchcts-lsp] of pyproject.toml, or activate the virtual environment that runs torchcts",
    );
    match (env.python_version, &choice.note) {
        (_, None) => format!("they were judged as Python {version} does, the Python of {python}"),
        (None, Some(_)) => format!(
            "they were judged as Python {version} does, because the version of {python} could not be read ({to_fix})"
        ),
        (Some(_), Some(why)) => format!("they were judged as Python {version} does ({python}: {why})"),
    }
}
