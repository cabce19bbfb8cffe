//! Which CPython's `re` answers: the minor versions whose parser, compiler and Unicode
//! data this crate reproduces.

use std::fmt;
use std::str::FromStr;

use crate::unicode::UnicodeData;
use crate::version_tables;

/// A CPython minor version whose `re` this crate answers as (tested against 3.10.13, 3.11.7,
/// 3.12.1 and 3.13.0). The default is 3.11.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum PythonVersion {
    /// No possessive repeats or atomic groups; global flags anywhere (a `DeprecationWarning`);
    /// Unicode 13.0.
    V3_10,
    /// Unicode 14.0.
    #[default]
    V3_11,
    /// A group reference such as `(?(+1)...)` is an error (3.11: a `DeprecationWarning`);
    /// Unicode 15.0.
    V3_12,
    /// No `t` (template) flag; Unicode 15.1.
    V3_13,
}

impl PythonVersion {
    /// Every version, oldest first.
    pub const ALL: [PythonVersion; 4] =
        [PythonVersion::V3_10, PythonVersion::V3_11, PythonVersion::V3_12, PythonVersion::V3_13];
    /// The newest version answered as itself; newer Pythons are answered as this one.
    pub const NEWEST: PythonVersion = PythonVersion::V3_13;
    /// The oldest version answered as itself.
    pub const OLDEST: PythonVersion = PythonVersion::V3_10;

    /// `3.minor`, if it is one of [`PythonVersion::ALL`].
    pub fn from_minor(minor: u32) -> Option<PythonVersion> {
        PythonVersion::ALL.into_iter().find(|v| v.minor() == minor)
    }

    /// The minor version number (`11` for 3.11).
    pub fn minor(self) -> u32 {
        match self {
            PythonVersion::V3_10 => 10,
            PythonVersion::V3_11 => 11,
            PythonVersion::V3_12 => 12,
            PythonVersion::V3_13 => 13,
        }
    }

    /// The release whose `re` this crate was checked against (`"3.11.7"`).
    pub fn tested_release(self) -> &'static str {
        self.unicode().python
    }

    /// The Unicode version of its `unicodedata` (`"14.0.0"` for 3.11).
    pub fn unicode_version(self) -> &'static str {
        self.unicode().unicode
    }

    pub(crate) fn unicode(self) -> &'static UnicodeData {
        match self {
            PythonVersion::V3_10 => &version_tables::V3_10,
            PythonVersion::V3_11 => &version_tables::V3_11,
            PythonVersion::V3_12 => &version_tables::V3_12,
            PythonVersion::V3_13 => &version_tables::V3_13,
        }
    }

    /// Possessive repeats (`a*+`) and atomic groups (`(?>...)`), new in 3.11.
    pub(crate) fn has_possessive(self) -> bool {
        self >= PythonVersion::V3_11
    }

    /// Global flags not at the start are an error from 3.11 on (3.10 warns).
    pub(crate) fn global_flags_anywhere(self) -> bool {
        self == PythonVersion::V3_10
    }

    /// `_sre.MAXGROUPS`.
    pub(crate) fn maxgroups(self) -> u64 {
        if self == PythonVersion::V3_10 {
            2_147_483_647
        } else {
            1_073_741_823
        }
    }

    /// The `t` (`re.TEMPLATE`) flag, removed in 3.13.
    pub(crate) fn has_template_flag(self) -> bool {
        self <= PythonVersion::V3_12
    }
}

impl fmt::Display for PythonVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "3.{}", self.minor())
    }
}

/// `"3.12"` or `"3.12.1"`: one of the versions answered as itself.
impl FromStr for PythonVersion {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        let mut parts = s.trim().split('.');
        let major = parts.next();
        let minor = parts.next().and_then(|m| m.parse().ok());
        match (major, minor) {
            (Some("3"), Some(minor)) => PythonVersion::from_minor(minor),
            _ => None,
        }
        .ok_or_else(|| format!("not a Python version pyregex answers for (3.10 to 3.13): {s:?}"))
    }
}
