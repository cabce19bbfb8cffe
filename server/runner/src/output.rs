//! Parses what `torchcts run` prints (pytest's terminal output under `-v -rfE`) into
//! progress counts and per-test outcomes, one line at a time.
//!
//! The lines it understands (pytest 9 as torchcts 0.4.1 drives it):
//! - `collecting ... collected 5 items / 1 deselected / 4 selected`: the total;
//! - `<location> PASSED [ 33%]` (also FAILED, ERROR, SKIPPED (reason), XFAIL, XPASS): one per
//!   finished test; `<location>` is the node id relative to the working directory, written
//!   when the test starts, so a line that ends after it is the test now running;
//! - after `= short test summary info =`: `FAILED <location> - <message>` lines;
//! - `ERROR: not found: <path>::<name>` (on stderr): a node id pytest could not collect (the
//!   run then does nothing and exits with 4).
//!
//! Under pytest-xdist (`-n N`, pytest-xdist 3.8) the lines differ:
//! - `2 workers [560 items]`: the total;
//! - `<location>` alone on a line: a test started on some worker (several run at once, so
//!   every started test is in flight until its result line);
//! - `[gw1] [ 50%] PASSED <location>`: one finished test (no skip reason on the line; torchcts's
//!   scorecard may follow the last one after a few spaces);
//! - `[gw1] node down: Not properly terminated`: a worker died (a segfault in a test); xdist
//!   then reports the test it was running as `[gw1] [ NN%] FAILED <location>`, starts a new
//!   worker and goes on, so the session completes; the test gets "worker gw1 crashed".
//! - an unknown node id is not reported at all: the workers collect nothing
//!   (`2 workers [0 items]`, exit 5).
//!
//! Everything else is ignored, so torchcts's own banner and scorecard cannot be mistaken for
//! results. Locations are turned back into node ids relative to the rootdir (the torchcts
//! package), the form torchcts uses in its results JSON. Invariant: the parser holds O(tests)
//! memory and never fails; an unknown line changes nothing.

use std::collections::HashMap;
use std::path::{Component, Path, PathBuf};

use super::TestOutcome;

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Counts {
    pub passed: usize,
    pub failed: usize,
    pub skipped: usize,
    pub errors: usize,
    pub total: Option<usize>,
    pub last: Option<String>,
}

#[derive(Debug, Clone, Default)]
pub struct OutputParser {
    cwd: Option<PathBuf>,
    rootdir: Option<PathBuf>,
    pub counts: Counts,
    /// The test started but not finished (the location line without a status yet).
    pub running: Option<String>,
    /// Finished tests in order, with their outcome.
    pub finished: Vec<(String, TestOutcome)>,
    /// Messages from the short summary, by node id.
    pub messages: HashMap<String, String>,
    /// Node ids pytest reported as not found.
    pub not_found: Vec<String>,
    in_summary: bool,
    /// The output is pytest-xdist's (`N workers [M items]` was seen).
    xdist: bool,
    /// Under xdist: tests started and not finished yet, oldest first.
    in_flight: Vec<String>,
    /// Under xdist: workers reported down, with xdist's reason, until their test's line.
    down: HashMap<String, String>,
    /// Under xdist: a result line counted from the unfinished tail, until its newline.
    counted_partial: Option<String>,
}

/// The start of our plugin's line naming what torchcts recorded for a test pytest printed as
/// FAILED (`python/torchcts_lsp_isolate.py`).
const STATUS_PREFIX: &str = "torchcts-lsp-status: ";

const STATUSES: [(&str, TestOutcome); 6] = [
    ("PASSED", TestOutcome::Passed),
    ("FAILED", TestOutcome::Failed),
    ("ERROR", TestOutcome::Error),
    ("SKIPPED", TestOutcome::Skipped),
    ("XFAIL", TestOutcome::Skipped),
    ("XPASS", TestOutcome::Passed),
];

impl OutputParser {
    /// `cwd`: the working directory as Python reported it; `rootdir`: the `--rootdir` given.
    pub fn new(cwd: Option<PathBuf>, rootdir: Option<PathBuf>) -> Self {
        OutputParser { cwd, rootdir, ..Default::default() }
    }

    /// Feeds one complete line of stdout (no newline). Returns whether the counts changed.
    pub fn line(&mut self, line: &str) -> bool {
        let line = line.trim_end_matches('\r');
        if let Some(total) = parse_xdist_total(line) {
            self.xdist = true;
            let changed = self.counts.total != Some(total);
            self.counts.total = Some(total);
            return changed;
        }
        if let Some(total) = parse_collected(line) {
            let changed = self.counts.total != Some(total);
            self.counts.total = Some(total);
            return changed;
        }
        if line.starts_with('=') && line.contains(" short test summary info ") {
            self.in_summary = true;
            return false;
        }
        if self.not_found_line(line) {
            return false;
        }
        if let Some(changed) = self.status_line(line) {
            return changed;
        }
        if self.in_summary {
            if line.starts_with('=') {
                self.in_summary = false;
            } else {
                self.summary_line(line);
            }
            return false;
        }
        self.progress_line(line)
    }

    /// Feeds one line of stderr, where pytest reports usage errors such as a missing node id.
    pub fn error_line(&mut self, line: &str) {
        self.not_found_line(line.trim_end_matches('\r'));
    }

    fn not_found_line(&mut self, line: &str) -> bool {
        let Some(rest) = line.strip_prefix("ERROR: not found: ") else { return false };
        let id = self.normalize(rest.trim());
        if !self.not_found.contains(&id) {
            self.not_found.push(id);
        }
        true
    }

    /// Feeds the unfinished tail of the stream (text after the last newline): a location
    /// written at test start. Returns whether `last` changed.
    pub fn partial(&mut self, text: &str) -> bool {
        let text = text.trim();
        // xdist writes a result line's newline only with the next line, which may be long in
        // coming (the other workers are busy): count it now when it is whole (a parametrized
        // id ends with `]`), and not again when its newline comes.
        let counted = self.counted_partial.as_deref().is_some_and(|c| text.starts_with(c));
        if self.xdist && text.ends_with(']') && !counted {
            if let Some(changed) = self.xdist_line(text) {
                self.counted_partial = Some(text.to_string());
                return changed;
            }
        }
        if text.contains("::") && !text.contains(char::is_whitespace) {
            let id = self.normalize(text);
            if self.xdist && !self.in_flight.contains(&id) && !self.finished.iter().any(|(f, _)| *f == id) {
                self.in_flight.push(id.clone());
            }
            if self.running.as_deref() != Some(id.as_str()) {
                self.running = Some(id.clone());
                self.counts.last = Some(id);
                return true;
            }
        }
        false
    }

    /// The tests that started and did not finish: the one running (one process), or every
    /// test in flight on a worker (xdist). A run that was stopped or died was in these.
    pub fn unfinished(&self) -> Vec<String> {
        if self.xdist {
            self.in_flight.clone()
        } else {
            self.running.iter().cloned().collect()
        }
    }

    /// `[gwK] ...` lines of xdist; returns None when the line is none of them.
    fn xdist_line(&mut self, line: &str) -> Option<bool> {
        let (worker, rest) = split_worker(line)?;
        if let Some(reason) = rest.strip_prefix("node down:") {
            self.down.insert(worker.to_string(), reason.trim().to_string());
            return Some(false);
        }
        let (outcome, location) = split_xdist_status(rest)?;
        let id = self.normalize(location);
        if let Some(reason) = self.down.remove(worker) {
            let message = format!("pytest-xdist worker {worker} crashed during this test: {reason}");
            self.messages.entry(id.clone()).or_insert(message);
        }
        self.in_flight.retain(|f| *f != id);
        self.running = self.in_flight.last().cloned();
        self.count(id, outcome);
        Some(true)
    }

    fn count(&mut self, id: String, outcome: TestOutcome) {
        match outcome {
            TestOutcome::Passed => self.counts.passed += 1,
            TestOutcome::Failed => self.counts.failed += 1,
            TestOutcome::Skipped | TestOutcome::KnownCrash => self.counts.skipped += 1,
            TestOutcome::Error | TestOutcome::Crashed => self.counts.errors += 1,
        }
        self.counts.last = Some(id.clone());
        self.finished.push((id, outcome));
    }

    /// Our plugin's `torchcts-lsp-status: KIND <node id>`: after pytest's FAILED line of a
    /// test torchcts records as an ERROR (counted as one, not as a failure), or the only line
    /// of a test pytest printed nothing for (run in a child process, or a known crash's
    /// record). `None`: not such a line.
    fn status_line(&mut self, line: &str) -> Option<bool> {
        let rest = line.strip_prefix(STATUS_PREFIX)?;
        let (kind, location) = rest.split_once(' ')?;
        let outcome = match kind {
            "PASSED" => TestOutcome::Passed,
            "FAILED" => TestOutcome::Failed,
            "SKIPPED" => TestOutcome::Skipped,
            "ERROR" => TestOutcome::Error,
            "CRASHED" => TestOutcome::Crashed,
            "KNOWN_CRASH" => TestOutcome::KnownCrash,
            _ => return Some(false),
        };
        // pytest's node id, relative to the rootdir already (not to the working folder).
        let id = location.trim();
        let Some(finished) = self.finished.iter_mut().rev().find(|(f, _)| f == id) else {
            self.count(id.to_string(), outcome);
            return Some(true);
        };
        if finished.1 != TestOutcome::Failed || !matches!(outcome, TestOutcome::Error | TestOutcome::Crashed) {
            return Some(false);
        }
        finished.1 = outcome;
        self.counts.failed -= 1;
        self.counts.errors += 1;
        Some(true)
    }

    fn progress_line(&mut self, line: &str) -> bool {
        // The whole line may have more after the counted part (torchcts's scorecard).
        if let Some(counted) = self.counted_partial.take() {
            if line.trim().starts_with(&counted) {
                return false;
            }
        }
        if let Some(changed) = self.xdist_line(line) {
            return changed;
        }
        match split_status(line) {
            Some((location, outcome)) => {
                let id = match location {
                    Some(location) => self.normalize(location),
                    // The status alone on a line: something was printed between the
                    // location and the status; it belongs to the test that was running.
                    None => match self.running.take() {
                        Some(id) => id,
                        None => return false,
                    },
                };
                self.running = None;
                self.count(id, outcome);
                true
            }
            None => {
                // A location line whose status never came (the process died in the test).
                let text = line.trim();
                if text.contains("::") && !text.contains(char::is_whitespace) && !text.starts_with(['=', '_']) {
                    self.partial(text)
                } else {
                    false
                }
            }
        }
    }

    fn summary_line(&mut self, line: &str) {
        for (word, _) in STATUSES {
            let Some(rest) = line.strip_prefix(word).and_then(|r| r.strip_prefix(' ')) else { continue };
            let (location, message) = match rest.split_once(" - ") {
                Some((location, message)) => (location, Some(message)),
                None => (rest, None),
            };
            if let Some(message) = message.map(str::trim).filter(|m| !m.is_empty()) {
                let id = self.normalize(location.trim());
                self.messages.entry(id).or_insert_with(|| message.to_string());
            }
            return;
        }
    }

    /// A location as pytest prints it (relative to the working directory) to a node id
    /// relative to the rootdir; unchanged when either is unknown or it lies elsewhere.
    pub fn normalize(&self, location: &str) -> String {
        let (path, rest) = match location.find("::") {
            Some(i) => location.split_at(i),
            None => (location, ""),
        };
        let Some(rootdir) = &self.rootdir else { return location.to_string() };
        let absolute = if Path::new(path).is_absolute() {
            lexical(Path::new(path))
        } else {
            match &self.cwd {
                Some(cwd) => lexical(&cwd.join(path)),
                None => return location.to_string(),
            }
        };
        match absolute.strip_prefix(lexical(rootdir)) {
            Ok(relative) if !relative.as_os_str().is_empty() => format!("{}{rest}", relative.to_string_lossy()),
            _ => location.to_string(),
        }
    }
}

/// `collected N items` with optional `/ D deselected / S selected`: S if given, else N.
fn parse_collected(line: &str) -> Option<usize> {
    let at = line.find("collected ")?;
    let rest = &line[at + "collected ".len()..];
    let (n, rest) = leading_number(rest)?;
    if !(rest.starts_with(" item") || rest.starts_with(" test")) {
        return None;
    }
    let mut total = n;
    for part in rest.split(" / ").skip(1) {
        if let Some((s, tail)) = leading_number(part) {
            if tail.trim_start().starts_with("selected") {
                total = s;
            }
        }
    }
    Some(total)
}

/// xdist's `2 workers [560 items]` (also `1 worker [1 item]`): the total.
fn parse_xdist_total(line: &str) -> Option<usize> {
    let (workers, rest) = line.trim().split_once(' ')?;
    let rest = rest.strip_prefix("workers [").or_else(|| rest.strip_prefix("worker ["))?;
    workers.parse::<usize>().ok()?;
    let (n, tail) = leading_number(rest)?;
    (tail.starts_with(" item") && tail.ends_with(']')).then_some(n)
}

/// `[gwK] rest` -> (`gwK`, `rest`).
fn split_worker(line: &str) -> Option<(&str, &str)> {
    let inner = line.trim_start().strip_prefix('[')?;
    let (worker, rest) = inner.split_once(']')?;
    let number = worker.strip_prefix("gw")?;
    (!number.is_empty() && number.bytes().all(|b| b.is_ascii_digit())).then(|| (worker, rest.trim_start()))
}

/// `[ 50%] PASSED <location>` (the progress is absent when pytest shows none) -> (outcome,
/// location). The location runs to the end of the line, or to a run of spaces after which
/// torchcts's scorecard may follow.
fn split_xdist_status(rest: &str) -> Option<(TestOutcome, &str)> {
    let rest = match rest.strip_prefix('[') {
        Some(progress) => progress.split_once(']')?.1.trim_start(),
        None => rest,
    };
    for (word, outcome) in STATUSES {
        if let Some(location) = rest.strip_prefix(word).and_then(|r| r.strip_prefix(' ')) {
            let location = location.split("  ").next().unwrap_or("").trim();
            return (!location.is_empty()).then_some((outcome, location));
        }
    }
    None
}

fn leading_number(s: &str) -> Option<(usize, &str)> {
    let end = s.find(|c: char| !c.is_ascii_digit()).unwrap_or(s.len());
    if end == 0 {
        return None;
    }
    Some((s[..end].parse().ok()?, &s[end..]))
}

/// `<location> STATUS[ (reason)][ [ NN%]]` -> (Some(location), outcome); `STATUS [ NN%]`
/// alone -> (None, outcome).
fn split_status(line: &str) -> Option<(Option<&str>, TestOutcome)> {
    let trimmed = line.trim();
    for (word, outcome) in STATUSES {
        // The status alone (after interleaved output): "PASSED [ 50%]".
        if let Some(after) = trimmed.strip_prefix(word) {
            if after.is_empty() || after.starts_with(" [") || after.starts_with(" (") {
                return Some((None, outcome));
            }
        }
    }
    let sep = trimmed.find("::")?;
    // The location ends at the first space after the `::` that is followed by a status.
    let mut search = sep;
    while let Some(space) = trimmed[search..].find(' ').map(|i| i + search) {
        let after = &trimmed[space + 1..];
        for (word, outcome) in STATUSES {
            if let Some(tail) = after.strip_prefix(word) {
                if tail.is_empty() || tail.starts_with(' ') || tail.starts_with('(') {
                    return Some((Some(&trimmed[..space]), outcome));
                }
            }
        }
        search = space + 1;
    }
    None
}

/// Removes `.` and folds `..` without touching the file system (pytest's locations are
/// computed the same way).
fn lexical(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => {
                if !out.pop() {
                    out.push("..");
                }
            }
            other => out.push(other.as_os_str()),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parser() -> OutputParser {
        OutputParser::new(Some("/tmp/proj".into()), Some("/venv/lib/python3.11/site-packages/torchcts".into()))
    }

    #[test]
    fn the_plugins_status_line_counts_an_error_apart_from_the_failures() {
        let mut p = parser();
        assert!(p.line("collecting ... collected 3 items"));
        let at = "../../venv/lib/python3.11/site-packages/torchcts/opinfo/x.py";
        assert!(p.line(&format!("{at}::t[wrong] FAILED [ 33%]")));
        assert!(p.line(&format!("{at}::t[raise] FAILED [ 66%]")));
        assert!(p.line("torchcts-lsp-status: ERROR opinfo/x.py::t[raise]"));
        assert!(p.line(&format!("{at}::t[ok] PASSED [100%]")));
        // Unknown kinds, unknown tests and a second line for the same test change nothing.
        assert!(!p.line("torchcts-lsp-status: ERROR opinfo/x.py::t[raise]"));
        assert!(!p.line("torchcts-lsp-status: LOST opinfo/x.py::t[wrong]"));
        assert!(!p.line("torchcts-lsp-status: PASSED opinfo/x.py::t[wrong]"));
        assert_eq!((p.counts.passed, p.counts.failed, p.counts.errors), (1, 1, 1));
        let outcomes: Vec<TestOutcome> = p.finished.iter().map(|(_, o)| *o).collect();
        assert_eq!(outcomes, [TestOutcome::Failed, TestOutcome::Error, TestOutcome::Passed]);
        // A test pytest printed nothing for (run in a child process, a known crash): ours is
        // its line.
        assert!(p.line("torchcts-lsp-status: CRASHED opinfo/x.py::t[abort]"));
        assert!(p.line("torchcts-lsp-status: KNOWN_CRASH opinfo/x.py::t[known]"));
        assert_eq!(
            (p.counts.errors, p.counts.skipped, p.counts.last.as_deref()),
            (2, 1, Some("opinfo/x.py::t[known]"))
        );
        assert_eq!(p.finished[3], ("opinfo/x.py::t[abort]".to_string(), TestOutcome::Crashed));
    }

    #[test]
    fn collected_lines() {
        assert_eq!(parse_collected("collecting ... collected 3 items"), Some(3));
        assert_eq!(parse_collected("collected 1 item"), Some(1));
        assert_eq!(parse_collected("collecting ... collected 5 items / 1 deselected / 4 selected"), Some(4));
        assert_eq!(parse_collected("collected 0 items / 1 error"), Some(0));
        assert_eq!(parse_collected("  Ops collected by torchcts"), None);
    }

    #[test]
    fn progress_lines_with_relative_locations() {
        let mut p = parser();
        assert!(p.line("collecting ... collected 3 items"));
        let loc = "../../venv/lib/python3.11/site-packages/torchcts/opinfo/test_opinfo_forward.py::test_op_forward[clean-add-torch.float32]";
        assert!(p.partial(&format!("{loc} ")));
        assert_eq!(
            p.running.as_deref(),
            Some("opinfo/test_opinfo_forward.py::test_op_forward[clean-add-torch.float32]")
        );
        assert!(p.line(&format!("{loc} PASSED [ 33%]")));
        assert!(
            p.line("../../venv/lib/python3.11/site-packages/torchcts/opinfo/x.py::t[a b] SKIPPED (no reason) [ 66%]")
        );
        assert!(p.line(
            "../../venv/lib/python3.11/site-packages/torchcts/opinfo/x.py::u FAILED [100%]  Backend manifest support scorecard"
        ));
        assert_eq!(
            p.counts,
            Counts { passed: 1, failed: 1, skipped: 1, errors: 0, total: Some(3), last: Some("opinfo/x.py::u".into()) }
        );
        assert_eq!(p.finished[1], ("opinfo/x.py::t[a b]".to_string(), TestOutcome::Skipped));
        assert!(p.running.is_none());
    }

    #[test]
    fn scorecard_and_banner_lines_are_not_results() {
        let mut p = parser();
        for line in [
            "  Ops with FAIL/ERROR:       0    (0.0%)",
            "  L2  pass=3    fail=0    skip=0    total=3",
            "dtype  torch.float32  PASS    ok  ",
            "================== 1 failed, 2 passed, 1 deselected in 4.32s ===================",
            "ERROR: usage: pytest.main() [options] [file_or_dir] [file_or_dir] [...]",
        ] {
            assert!(!p.line(line), "{line}");
        }
        assert_eq!(p.counts, Counts::default());
    }

    #[test]
    fn summary_messages_and_not_found() {
        let mut p = parser();
        p.line("=========================== short test summary info ============================");
        p.line("FAILED /tmp/proj/custom/test_fx.py::test_fail - AssertionError: values differ: 1 != 2");
        p.line("FAILED ../../venv/lib/python3.11/site-packages/torchcts/opinfo/x.py::u");
        p.line("==================== 2 failed in 0.06s ====================");
        assert_eq!(
            p.messages.get("/tmp/proj/custom/test_fx.py::test_fail").map(String::as_str),
            Some("AssertionError: values differ: 1 != 2")
        );
        assert_eq!(p.messages.len(), 1);
        assert_eq!(p.counts, Counts::default());
        p.line("ERROR: not found: /venv/lib/python3.11/site-packages/torchcts/opinfo/x.py::test_op_forward");
        assert_eq!(p.not_found, ["opinfo/x.py::test_op_forward"]);
    }

    #[test]
    fn xdist_lines() {
        let mut p = parser();
        let loc = |op: &str| {
            format!("../../venv/lib/python3.11/site-packages/torchcts/opinfo/test_opinfo_forward.py::test_op_forward[clean-{op}-torch.float32]")
        };
        let id = |op: &str| format!("opinfo/test_opinfo_forward.py::test_op_forward[clean-{op}-torch.float32]");
        assert!(!p.line("created: 2/2 workers"));
        assert!(p.line("2 workers [3 items]"));
        assert!(!p.line("scheduling tests via LoadScheduling"));
        // Two tests start at once, on two workers.
        p.line(&format!("{} ", loc("add")));
        p.partial(&format!("{} ", loc("sub")));
        p.line(&format!("{} ", loc("sub")));
        assert_eq!(p.unfinished(), [id("add"), id("sub")]);
        assert!(!p.line("[gw1] node down: Not properly terminated"));
        assert_eq!(p.counts.failed, 0, "a worker going down is no result yet");
        assert!(p.line(&format!("[gw1] [ 33%] FAILED {} ", loc("sub"))));
        assert!(!p.line("replacing crashed worker gw1"));
        assert_eq!(p.unfinished(), [id("add")]);
        p.line(&format!("{} ", loc("abs")));
        // The result line without its newline yet (the next line has not come): counted once.
        let add_line = format!("[gw0] [ 66%] PASSED {}", loc("add"));
        assert!(p.partial(&add_line));
        assert_eq!(p.counts.passed, 1);
        assert!(!p.partial(&add_line));
        assert!(!p.line(&add_line));
        assert_eq!(p.counts.passed, 1);
        let abs_line = format!("[gw2] [100%] SKIPPED {}", loc("abs"));
        assert!(p.partial(&abs_line));
        assert!(!p.line(&format!("{abs_line}   Backend manifest support scorecard unavailable")));
        assert_eq!(
            p.counts,
            Counts { passed: 1, failed: 1, skipped: 1, errors: 0, total: Some(3), last: Some(id("abs")) }
        );
        assert_eq!(p.finished[0], (id("sub"), TestOutcome::Failed));
        assert!(p.unfinished().is_empty() && p.running.is_none());
        assert_eq!(
            p.messages.get(&id("sub")).map(String::as_str),
            Some("pytest-xdist worker gw1 crashed during this test: Not properly terminated")
        );
        assert_eq!(parse_xdist_total("1 worker [1 item]"), Some(1));
        assert_eq!(parse_xdist_total("2 workers [0 items]"), Some(0));
        assert_eq!(parse_xdist_total("  2 workers [x items]"), None);
        for line in ["[gwx] [ 10%] PASSED a.py::t", "[gw0] node", "[gw0] [ 10%] PASSED ", "[ 10%] PASSED a.py::t"] {
            assert!(!p.line(line), "{line}");
        }
    }

    #[test]
    fn status_alone_belongs_to_the_running_test() {
        let mut p = parser();
        p.partial("/venv/lib/python3.11/site-packages/torchcts/a.py::t ");
        assert!(p.line("ERROR [ 50%]"));
        assert_eq!(p.finished, [("a.py::t".to_string(), TestOutcome::Error)]);
        assert!(!p.line("PASSED [ 60%]"), "no running test: nothing to attribute");
    }
}
