//! `capabilities`: known names, booleans, and `ieee754` as a boolean or regexes.

use super::common::{section, validate_bool_map, Out, Section};
use crate::fix_data::KeySection;
use crate::schema::schema;
use crate::value::Dict;

pub(super) fn validate_capabilities(out: &mut Out, manifest: &Dict) {
    let s = schema();
    match section(manifest, "capabilities") {
        Section::Known(caps) => validate_bool_map(out, KeySection::Capabilities, caps, Some(&s.capabilities), true),
        Section::Missing | Section::Unknown => {}
    }
}
