//! The CI formats of the commands that report findings (`check`, `analyze`): GitHub
//! Actions annotations and SARIF 2.1.0 (GitHub code scanning), over one or more files.

use super::output::outln;
use super::places::{one_based_range, sorted_findings};
use serde_json::{json, Value};
use std::collections::BTreeMap;
use torchcts_core::codes::{self, Code};
use torchcts_core::{Analysis, Origin, Severity};

/// What one file gave: its analysis, or why it has none (unreadable, not a manifest name).
pub struct Reported<'a> {
    pub path: String,
    pub outcome: Result<&'a Analysis, &'a str>,
}

/// GitHub Actions workflow commands, one per finding (or one `::error` for a file that
/// cannot be read).
pub fn print_annotations(report: &Reported) {
    let file = annotation_property(&report.path);
    let analysis = match report.outcome {
        Ok(analysis) => analysis,
        Err(message) => {
            outln!("::error file={file}::{}", annotation_data(message));
            return;
        }
    };
    for f in sorted_findings(analysis) {
        let ((line, col), (end_line, end_col)) = one_based_range(analysis, f);
        let command = match f.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Information | Severity::Hint => "notice",
        };
        outln!(
            "::{command} file={file},line={line},col={col},endLine={end_line},endColumn={end_col},title={}::{}",
            annotation_property(f.code),
            annotation_data(&f.message)
        );
    }
}

/// Escapes a workflow command's message (GitHub's `escapeData`).
pub fn annotation_data(text: &str) -> String {
    text.replace('%', "%25").replace('\r', "%0D").replace('\n', "%0A")
}

/// Escapes a workflow command's property value (GitHub's `escapeProperty`).
pub fn annotation_property(text: &str) -> String {
    annotation_data(text).replace(':', "%3A").replace(',', "%2C")
}

/// The SARIF level of a severity.
fn sarif_level(severity: Severity) -> &'static str {
    match severity {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Information | Severity::Hint => "note",
    }
}

/// A path as a SARIF `artifactLocation.uri`: relative paths stay relative (GitHub resolves
/// them against the repository), `/` separators, and the characters a URI reference
/// cannot hold percent-encoded.
fn sarif_uri(path: &str) -> String {
    let mut out = String::new();
    for c in path.replace('\\', "/").chars() {
        match c {
            'A'..='Z'
            | 'a'..='z'
            | '0'..='9'
            | '-'
            | '.'
            | '_'
            | '~'
            | '/'
            | ':'
            | '@'
            | '!'
            | '$'
            | '&'
            | '\''
            | '('
            | ')'
            | '*'
            | '+'
            | ','
            | ';'
            | '=' => out.push(c),
            other => {
                let mut buf = [0u8; 4];
                for b in other.encode_utf8(&mut buf).bytes() {
                    out.push_str(&format!("%{b:02X}"));
                }
            }
        }
    }
    if out.starts_with('/') {
        format!("file://{out}")
    } else {
        out
    }
}

/// One SARIF 2.1.0 log with one run: a rule per finding code, a result per finding with
/// its region (1-based, columns in Unicode code points), a tool execution notification
/// per file that could not be read.
pub fn sarif(reports: &[Reported]) -> Value {
    let mut rules: BTreeMap<&str, (Origin, Severity)> = BTreeMap::new();
    for report in reports {
        if let Ok(analysis) = report.outcome {
            for f in &analysis.findings {
                rules.entry(f.code).or_insert((f.origin, f.severity));
            }
        }
    }
    let rule_index: BTreeMap<&str, usize> = rules.keys().enumerate().map(|(i, code)| (*code, i)).collect();
    let rules_json: Vec<Value> = rules
        .iter()
        .map(|(code, (origin, severity))| {
            let registered = Code::from_name(code).map(Code::info);
            let doc = registered.map_or("", |c| c.doc);
            let whose = match origin {
                Origin::Torchcts => "torchcts check-manifest's own finding (the real tool reports it)",
                Origin::Lsp => "a torchcts-lsp finding (the real tool does not report it)",
            };
            let mut rule = json!({
                "id": code,
                "name": code,
                "shortDescription": {"text": doc},
                "fullDescription": {"text": format!("{doc} {code}: {whose}.")},
                "help": {"text": format!("{doc} See {}#{code} in torchcts-lsp's documentation.", codes::DOCS_PATH)},
                "defaultConfiguration": {"level": sarif_level(*severity)},
                "properties": {"origin": origin, "category": registered.map(|c| c.category.name())},
            });
            if let Some(uri) = registered.and_then(|c| c.code.help_uri()) {
                rule["helpUri"] = json!(uri);
            }
            rule
        })
        .collect();
    let mut results = Vec::new();
    let mut notifications = Vec::new();
    for report in reports {
        let location = |region: Option<Value>| {
            let mut physical = json!({"artifactLocation": {"uri": sarif_uri(&report.path)}});
            if let Some(region) = region {
                physical["region"] = region;
            }
            json!({"physicalLocation": physical})
        };
        match report.outcome {
            Err(message) => notifications.push(json!({
                "level": "error",
                "message": {"text": message},
                "locations": [location(None)],
            })),
            Ok(analysis) => {
                for f in sorted_findings(analysis) {
                    let ((line, col), (end_line, end_col)) = one_based_range(analysis, f);
                    let region = json!({
                        "startLine": line, "startColumn": col, "endLine": end_line, "endColumn": end_col,
                    });
                    results.push(json!({
                        "ruleId": f.code,
                        "ruleIndex": rule_index[f.code],
                        "level": sarif_level(f.severity),
                        "message": {"text": f.message},
                        "locations": [location(Some(region))],
                        "properties": {"origin": f.origin},
                    }));
                }
            }
        }
    }
    let mut driver = json!({"name": "torchcts-lsp", "version": env!("CARGO_PKG_VERSION"), "rules": rules_json});
    if let Some(url) = codes::REPOSITORY_URL {
        driver["informationUri"] = json!(url);
    }
    json!({
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": driver},
            "columnKind": "unicodeCodePoints",
            "invocations": [{
                "executionSuccessful": notifications.is_empty(),
                "toolExecutionNotifications": notifications,
            }],
            "results": results,
        }],
    })
}

#[cfg(test)]
mod tests {
    use super::{annotation_data, annotation_property, sarif_uri};

    #[test]
    fn annotations_escape_what_ends_a_workflow_command() {
        assert_eq!(annotation_data("50% of\r\nit: a, b"), "50%25 of%0D%0Ait: a, b");
        assert_eq!(annotation_property("dir,a/b:c%.py"), "dir%2Ca/b%3Ac%25.py");
    }

    #[test]
    fn sarif_uris_are_uri_references() {
        assert_eq!(sarif_uri("a b/manifest.py"), "a%20b/manifest.py");
        assert_eq!(sarif_uri("/abs/é.py"), "file:///abs/%C3%A9.py");
    }

    #[test]
    fn sarif_rules_describe_their_code_from_the_registry() {
        let text = "manifest = {\"manifest_version\": 1, \"device_name\": \"cpu\", \"capabilities\": {}, \"device_name\": \"cpu\"}\n";
        let analysis = torchcts_core::analyze(text, &torchcts_core::AnalysisInput::default());
        let log = super::sarif(&[super::Reported { path: "manifest.py".into(), outcome: Ok(&analysis) }]);
        let rules = log["runs"][0]["tool"]["driver"]["rules"].as_array().unwrap();
        let rule = rules.iter().find(|r| r["id"] == "duplicate-key").expect("a duplicate-key rule");
        let doc = torchcts_core::codes::Code::DuplicateKey.info().doc;
        assert_eq!(rule["shortDescription"]["text"], doc);
        let help = rule["help"]["text"].as_str().unwrap();
        assert!(help.starts_with(doc) && help.contains("docs/codes.md#duplicate-key"), "{rule}");
        assert_eq!(rule["properties"]["category"], "meaning");
    }

    /// No placeholder URL (the `OWNER` of an unpublished repository) reaches the log: while
    /// Cargo.toml names no `repository`, SARIF's optional `informationUri` and `helpUri` are
    /// left out; with one, they are under it.
    #[test]
    fn sarif_names_no_made_up_url() {
        let text = "manifest = {\"manifest_version\": 1, \"device_name\": \"cpu\", \"capabilities\": {}, \"device_name\": \"cpu\"}\n";
        let analysis = torchcts_core::analyze(text, &torchcts_core::AnalysisInput::default());
        let log = super::sarif(&[super::Reported { path: "manifest.py".into(), outcome: Ok(&analysis) }]);
        let serialized = log.to_string();
        assert!(!serialized.contains("OWNER"), "{serialized}");
        let driver = &log["runs"][0]["tool"]["driver"];
        let rule = driver["rules"].as_array().unwrap().iter().find(|r| r["id"] == "duplicate-key").unwrap();
        match torchcts_core::codes::REPOSITORY_URL {
            None => {
                assert!(driver.get("informationUri").is_none() && rule.get("helpUri").is_none(), "{driver}");
                assert!(!serialized.contains("https://github.com"), "{serialized}");
            }
            Some(repo) => {
                assert_eq!(driver["informationUri"], repo);
                assert_eq!(rule["helpUri"], format!("{repo}/blob/main/docs/codes.md#duplicate-key"));
            }
        }
    }
}
