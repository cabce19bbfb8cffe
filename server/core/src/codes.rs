//! The finding codes, as data: each code's name, whose verdict it is (check-manifest's or
//! ours), its category, a one-line description and its place in the docs.
//!
//! Every finding is made with a [`Code`] ([`crate::Finding::new`] takes one), so a code
//! that is not here cannot be reported. Suppression, fix-all, `check --help`, the README's
//! table, `docs/codes.md` and the SARIF rules read this table; the project's `ignore` list
//! and suppression comments are checked against it ([`Code::from_name`], [`unknown_code`]).

use crate::edit_distance::nearest;

/// Whose finding a code is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Source {
    /// `torchcts check-manifest` reports it (the same text and severity): the real tool's
    /// verdict, which a suppression comment cannot silence.
    CheckManifest,
    /// torchcts-lsp's own finding.
    Ours,
}

/// What kind of problem a code is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Category {
    /// The manifest does not load: check-manifest stops at it.
    DoesNotLoad,
    /// A value check-manifest's `validate_manifest` rejects or warns about.
    Schema,
    /// A regex (`supported_dtypes`, `capabilities.ieee754`) as Python's `re` reads it.
    Regex,
    /// What the suite's inventory shows about the manifest's names and regexes.
    Inventory,
    /// A value that loads but does not mean what it seems to (a renamed or duplicate key).
    Meaning,
    /// Something that cannot be known without running Python.
    NotEvaluated,
    /// What earlier runs' records show.
    Evidence,
    /// A `# torchcts-lsp: ignore[...]` comment.
    Suppression,
    /// The review diff against the committed version.
    Review,
    /// The project's files beside the manifest (pyproject.toml, the known-segfault ledger)
    /// or the editor's limits.
    Project,
}

impl Category {
    pub fn name(self) -> &'static str {
        match self {
            Category::DoesNotLoad => "does-not-load",
            Category::Schema => "schema",
            Category::Regex => "regex",
            Category::Inventory => "inventory",
            Category::Meaning => "meaning",
            Category::NotEvaluated => "not-evaluated",
            Category::Evidence => "evidence",
            Category::Suppression => "suppression",
            Category::Review => "review",
            Category::Project => "project",
        }
    }
}

/// One code's entry in [`CODES`].
#[derive(Debug)]
pub struct CodeInfo {
    pub code: Code,
    pub name: &'static str,
    pub source: Source,
    pub category: Category,
    /// One line: what the finding says is wrong.
    pub doc: &'static str,
}

/// The published repository: the `repository` key of this crate's Cargo.toml. Unset, as it
/// is while the repository is not public, it is `None` and no URL is made up (SARIF's
/// `informationUri` and `helpUri` are optional and left out).
pub const REPOSITORY_URL: Option<&str> = {
    let url = env!("CARGO_PKG_REPOSITORY");
    if url.is_empty() {
        None
    } else {
        Some(url)
    }
};
/// The codes' documentation in the source tree; a code's anchor is its name.
pub const DOCS_PATH: &str = "docs/codes.md";

macro_rules! codes {
    ($($variant:ident $name:literal $source:ident $category:ident $doc:literal;)*) => {
        /// A finding code; its data is in [`CODES`].
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum Code { $($variant),* }

        /// Every code, in the order of [`Code`].
        pub const CODES: &[CodeInfo] = &[
            $(CodeInfo {
                code: Code::$variant,
                name: $name,
                source: Source::$source,
                category: Category::$category,
                doc: $doc,
            }),*
        ];
    };
}

codes! {
    SyntaxError "syntax-error" CheckManifest DoesNotLoad "Python cannot compile the file (CPython's SyntaxError; further syntax errors tree-sitter finds are ours).";
    LoadError "load-error" CheckManifest DoesNotLoad "Executing the file would raise (a NameError, a failed import, a bad call).";
    NotADict "not-a-dict" CheckManifest DoesNotLoad "The file has no `manifest` or it is not a dict.";
    CheckCrash "check-crash" CheckManifest DoesNotLoad "check-manifest's `validate_manifest` itself raises on this value.";
    Type "type" CheckManifest Schema "A value of the wrong type (a dict, list, string, boolean or number expected).";
    MissingKey "missing-key" CheckManifest Schema "A required top-level key is missing.";
    UnknownKey "unknown-key" CheckManifest Schema "A key the manifest's schema does not know.";
    ManifestVersion "manifest-version" CheckManifest Schema "`manifest_version` is not 1.";
    SemanticLevel "semantic-level" CheckManifest Schema "`semantic_level` is not an integer in the allowed range.";
    EnumValue "enum-value" CheckManifest Schema "A value outside its allowed set (`hardware.memory_model`).";
    InvalidDtypeKey "invalid-dtype-key" CheckManifest Schema "A `supported_dtypes` key that is no torch dtype.";
    ToleranceKey "tolerance-key" CheckManifest Schema "A `tolerance_overrides` key that is not allowed.";
    ToleranceValue "tolerance-value" CheckManifest Schema "A tolerance that is not a non-negative number.";
    ToleranceCategory "tolerance-category" CheckManifest Schema "An unknown `tolerance_overrides` category.";
    DecoderFormat "decoder-format" CheckManifest Schema "A `custom_container_decoders` format the manifest does not support.";
    DecoderSpec "decoder-spec" CheckManifest Schema "A `custom_container_decoders` entry that is not a valid decoder spec.";
    DecoderRequired "decoder-required" CheckManifest Schema "`custom_quantized_decode` without any `custom_container_decoders` entry.";
    DecoderUnused "decoder-unused" CheckManifest Schema "A decoder for a format whose decode capability is off.";
    MissingDir "missing-dir" CheckManifest Schema "A `custom_test_dirs` entry that does not exist.";
    KnownSegfaultLedger "known-segfault-ledger" CheckManifest Schema "The project's `known_segfaults.json` beside the manifest is invalid.";
    InvalidRegex "invalid-regex" CheckManifest Regex "A regex Python's `re` cannot compile.";
    RegexWarning "regex-warning" Ours Regex "Python warns when compiling this regex.";
    RegexMatchesAll "regex-matches-all" Ours Inventory "A regex that matches every operator of the suite.";
    RegexMatchesNone "regex-matches-none" Ours Inventory "A regex that matches no operator of the suite.";
    UnknownOperator "unknown-operator" Ours Inventory "A `skip_ops` name no test of the suite has.";
    StaleCapability "stale-capability" Ours Meaning "A capability name torchcts renamed or removed.";
    DtypeKeyIgnored "dtype-key-ignored" Ours Meaning "A string dtype key test selection does not match (it matches the dtype `torch.X` or the string `'torch.X'` only, by the canonical name).";
    DuplicateKey "duplicate-key" Ours Meaning "A key written twice: the later value wins.";
    WideTolerance "wide-tolerance" Ours Meaning "A tolerance so wide the comparison hardly tests anything.";
    NotEvaluated "not-evaluated" Ours NotEvaluated "A value that cannot be known without running Python.";
    RunEvidence "run-evidence" Ours Evidence "A claimed dtype or capability whose tests failed, errored or crashed in the newest records.";
    SkipOpPasses "skip-op-passes" Ours Evidence "A `skip_ops` item whose operator's tests passed in a run without it.";
    StaleEvidence "stale-evidence" Ours Evidence "Records older than the entry's last change.";
    EvidenceOtherTorch "evidence-other-torch" Ours Evidence "Records of another torch release.";
    RunResult "run-result" Ours Evidence "What the last run from the editor showed for an entry.";
    UnusedSuppression "unused-suppression" Ours Suppression "A suppression comment that silences nothing.";
    SuppressionIneffective "suppression-ineffective" Ours Suppression "A suppression of check-manifest's own finding, which the real tool still reports.";
    InvalidSuppression "invalid-suppression" Ours Suppression "A malformed `# torchcts-lsp: ignore[...]` comment.";
    ReviewRemovesTests "review-removes-tests" Ours Review "A change against the committed version that removes tests from the run.";
    ProjectConfig "project-config" Ours Project "The project's `[tool.torchcts-lsp]` table cannot be used.";
    FileTooLarge "file-too-large" Ours Project "A file too large to analyse on every keystroke.";
}

impl Code {
    pub fn info(self) -> &'static CodeInfo {
        &CODES[self as usize]
    }

    pub fn name(self) -> &'static str {
        self.info().name
    }

    /// The code named `name`.
    pub fn from_name(name: &str) -> Option<Code> {
        CODES.iter().find(|c| c.name == name).map(|c| c.code)
    }

    /// The code's section in the published docs (`None` while [`REPOSITORY_URL`] is).
    pub fn help_uri(self) -> Option<String> {
        REPOSITORY_URL.map(|repo| format!("{repo}/blob/main/{DOCS_PATH}#{}", self.name()))
    }
}

/// Whether the finding code `name` is check-manifest's verdict (the real tool reports it).
pub fn is_check_manifests(name: &str) -> bool {
    Code::from_name(name).is_some_and(|c| c.info().source == Source::CheckManifest)
}

/// The error for a code name that is not in [`CODES`] (`None` when it is), naming the
/// closest code when one is near.
pub fn unknown_code(name: &str) -> Option<String> {
    if Code::from_name(name).is_some() {
        return None;
    }
    let names: Vec<&str> = CODES.iter().map(|c| c.name).collect();
    Some(match nearest(name, &names, 1).first() {
        Some(near) => format!("unknown finding code `{name}`: did you mean `{near}`?"),
        None => format!("unknown finding code `{name}` (the codes: `torchcts-lsp check --help`)"),
    })
}

/// Whether the finding code `name` is in `category`.
pub fn in_category(name: &str, category: Category) -> bool {
    Code::from_name(name).is_some_and(|c| c.info().category == category)
}

/// The names of the codes in `category`.
pub fn names_in(category: Category) -> impl Iterator<Item = &'static str> {
    CODES.iter().filter(move |c| c.category == category).map(|c| c.name)
}

/// The README's table of codes (Markdown).
pub fn markdown_table() -> String {
    let mut out = String::from("| Code | Whose | Category | What it says |\n|---|---|---|---|\n");
    for c in CODES {
        let whose = match c.source {
            Source::CheckManifest => "check-manifest",
            Source::Ours => "ours",
        };
        out.push_str(&format!(
            "| [`{}`](docs/codes.md#{}) | {whose} | {} | {} |\n",
            c.name,
            c.name,
            c.category.name(),
            c.doc.replace('|', "\\|")
        ));
    }
    out
}

/// `docs/codes.md`: a section per code, whose heading is its anchor.
pub fn docs_page() -> String {
    let mut out = String::from(
        "# Finding codes\n\nGenerated from `server/core/src/codes.rs` (the test `codes_docs_match_the_registry` \
         checks it; `UPDATE_DOCS=1 cargo test -p torchcts-core --test codes_docs` writes it).\n\
         check-manifest's codes are the real tool's verdict: a suppression comment cannot silence them.\n",
    );
    for c in CODES {
        let whose = match c.source {
            Source::CheckManifest => "check-manifest's (the real tool's verdict)",
            Source::Ours => "torchcts-lsp's own",
        };
        out.push_str(&format!("\n## {}\n\n{}\n\nWhose: {whose}. Category: {}.\n", c.name, c.doc, c.category.name()));
    }
    out
}

/// `check --help`'s list of codes: one line per code.
pub fn help_list() -> String {
    let width = CODES.iter().map(|c| c.name.len()).max().unwrap_or(0);
    let mut out = String::new();
    for c in CODES {
        let mark = if c.source == Source::CheckManifest { "*" } else { " " };
        out.push_str(&format!("  {:width$} {mark} {}\n", c.name, c.doc));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_is_in_the_order_of_the_enum_and_names_are_unique() {
        for (i, c) in CODES.iter().enumerate() {
            assert_eq!(c.code as usize, i, "{}", c.name);
            assert_eq!(Code::from_name(c.name), Some(c.code));
        }
        let mut names: Vec<_> = CODES.iter().map(|c| c.name).collect();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), CODES.len());
    }

    #[test]
    fn an_unknown_name_names_the_closest_code() {
        assert_eq!(unknown_code("duplicate-key"), None);
        assert_eq!(
            unknown_code("unknwon-operator").unwrap(),
            "unknown finding code `unknwon-operator`: did you mean `unknown-operator`?"
        );
        assert!(unknown_code("zzzzzzzzzzzzzzzz").unwrap().contains("check --help"));
    }

    #[test]
    fn does_not_load_is_check_manifests() {
        let names: Vec<_> = names_in(Category::DoesNotLoad).collect();
        assert_eq!(names, ["syntax-error", "load-error", "not-a-dict", "check-crash"]);
        assert!(names.iter().all(|n| is_check_manifests(n)));
        assert!(!is_check_manifests("duplicate-key"));
    }
}
