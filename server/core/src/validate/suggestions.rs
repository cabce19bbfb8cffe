//! "Did you mean": the names a misspelt key probably stands for, shared by the unknown-key
//! finding's message and its quick fixes (one list, so the message names what the fix does).

use crate::edit_distance::nearest;
use crate::findings::Finding;
use crate::fix_data::{FixData, KeySection};
use crate::schema::schema;
use crate::validate::STALE_CAPABILITIES;

/// The names `name` may stand for in `section`, likeliest first: a stale capability's
/// replacements, then up to three known names within a small edit distance.
pub fn key_suggestions(section: KeySection, name: &str) -> Vec<String> {
    let s = schema();
    let known = match section {
        KeySection::TopLevel => &s.top_level_keys,
        KeySection::Capabilities => &s.capabilities,
        KeySection::Hardware => &s.hardware_keys,
        KeySection::ResourceLimits => &s.resource_limit_keys,
        KeySection::SupportedContainerFormats | KeySection::CustomContainerDecoders => &s.container_formats,
    };
    let mut names: Vec<String> = Vec::new();
    if section == KeySection::Capabilities {
        if let Some((_, replacements)) = STALE_CAPABILITIES.iter().find(|(old, _)| *old == name) {
            names.extend(replacements.iter().map(|r| r.to_string()));
        }
    }
    let candidates: Vec<&str> = known.iter().map(String::as_str).collect();
    for n in nearest(name, &candidates, 3) {
        if !names.contains(&n) {
            names.push(n);
        }
    }
    names
}

/// The finding as the editor and our reports show it: an unknown key's message ends with
/// "(did you mean 'x'?)". check-manifest's own output keeps the real tool's text (the
/// analysis builds it from the findings before this is applied). A stale capability name
/// has its own finding that names its successors, so its message stays as it is.
pub fn with_suggestion(mut finding: Finding) -> Finding {
    if let Some(FixData::UnknownKey { section, name }) = &finding.data {
        let stale = *section == KeySection::Capabilities && STALE_CAPABILITIES.iter().any(|(old, _)| old == name);
        let names = if stale { Vec::new() } else { key_suggestions(*section, name) };
        if !names.is_empty() {
            let quoted: Vec<String> = names.iter().map(|n| format!("'{n}'")).collect();
            finding.message = format!("{} (did you mean {}?)", finding.message, quoted.join(" or "));
        }
    }
    finding
}
