//! Where findings are, as every output counts them (text, JSON, annotations, SARIF): in
//! order of their start, with 1-based lines and code-point columns. Shared by `check`,
//! `analyze` and `formats`, so none of them needs another.

use torchcts_core::{Analysis, Finding, PositionEncoding};

/// Findings by start position (the core lists them rule by rule); at the same start, in
/// the core's order.
pub fn sorted_findings(analysis: &Analysis) -> Vec<&Finding> {
    let mut findings: Vec<&Finding> = analysis.findings.iter().collect();
    findings.sort_by_key(|f| f.span.start);
    findings
}

/// `((line, column), (line, column))`, 1-based, columns in code points; the end is exclusive.
pub fn one_based_range(analysis: &Analysis, finding: &Finding) -> ((u32, u32), (u32, u32)) {
    let at = |offset| {
        let p = analysis.line_index.position(&analysis.text, offset, PositionEncoding::Utf32);
        (p.line + 1, p.col + 1)
    };
    (at(finding.span.start), at(finding.span.end))
}
