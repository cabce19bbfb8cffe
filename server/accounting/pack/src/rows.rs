//! Row encodings: the writer used at build time and the reader used at load time.
//!
//! A row is a sequence of fields; integers are LEB128 varints, strings a length then UTF-8,
//! an optional `(reason, detail)` pair is `reason + 1` (0: none) then the detail. Which
//! optional fields an item, generated entry or OpInfo row carries is a bit set written
//! first ([`item`], [`generated`], [`opinfo`]).
//!
//! Header row: format version, torchcts, torch, python versions, extraction time, OpInfo
//! and generated default levels, devices (name, optional `torch.device` type, module flag),
//! dtypes (name, float/complex flag), reason names (the id is the position), deselecting
//! reason ids.
//!
//! Metadata row (one per item, aligned): bit set [`metadata`], suite, coverage kind, then the
//! present optional strings.
//!
//! Strings row: the text (string ids are row positions; the JSON's strings first, then the
//! strings the packer interned, such as dtype names and test functions).
//!
//! Item row: test function (string id: the node id up to `[`), the rest of the node id,
//! level, bit set [`item`], then the present fields in bit order. Generated row: name, bit set [`generated`], fields. Forward row: op,
//! bit set [`opinfo`], dtype count, per dtype (dtype, float/complex, optional rd). Backward
//! row: op, bit set, dtype count, per dtype (dtype, optional rd).

/// Bits of an item row.
pub mod item {
    pub const OP: u32 = 1;
    pub const D1: u32 = 1 << 1;
    pub const D2: u32 = 1 << 2;
    pub const FIXED: u32 = 1 << 3;
    pub const REQUIRES: u32 = 1 << 4;
    pub const PACKING: u32 = 1 << 5;
    pub const DECODER: u32 = 1 << 6;
    pub const LARGE: u32 = 1 << 7;
    pub const RNG: u32 = 1 << 8;
    pub const GENERATED: u32 = 1 << 9;
    pub const FOREACH: u32 = 1 << 10;
    pub const OOM: u32 = 1 << 11;
    pub const GRADCHECK: u32 = 1 << 12;
    pub const PATH_SHAPE: u32 = 1 << 13;
    pub const DUMMY: u32 = 1 << 14;
    pub const OPINFO: u32 = 1 << 15;
    pub const DEV: u32 = 1 << 16;
}

/// Bits of a metadata row: `suite`, `coverage_kind` (string ids) always, then the present
/// optional strings in bit order (`dispatcher_name` ... `dtype`, see [`metadata::OPTIONAL`]).
pub mod metadata {
    /// `test_kind` is `opinfo` (else `handwritten`).
    pub const OPINFO_KIND: u32 = 1;
    /// The dtype is the manifest's `dtype_filter` when that has one entry.
    pub const MANIFEST_DTYPE: u32 = 1 << 1;
    /// The optional strings, in row order: the inventory JSON's short key and the bit.
    pub const OPTIONAL: [(&str, u32); 8] = [
        ("dn", 1 << 2),
        ("ci", 1 << 3),
        ("sk", 1 << 4),
        ("vk", 1 << 5),
        ("cs", 1 << 6),
        ("st", 1 << 7),
        ("sf", 1 << 8),
        ("dt", 1 << 9),
    ];
}

/// Bits of a generated-entry row.
pub mod generated {
    pub const ORACLE_RUNNER: u32 = 1;
    pub const EARLY: u32 = 1 << 1;
    pub const LATE: u32 = 1 << 2;
    pub const POST: u32 = 1 << 3;
    pub const ORACLE: u32 = 1 << 4;
    pub const DT: u32 = 1 << 5;
    pub const SHAPE: u32 = 1 << 6;
}

/// Bits of an OpInfo table row.
pub mod opinfo {
    pub const JITERATOR: u32 = 1;
    pub const SPARSE: u32 = 1 << 1;
    /// Forward: not excluded from NaN/Inf; backward: eligible for the generic oracle.
    pub const IEEE_OR_ELIGIBLE: u32 = 1 << 2;
}

/// Codes of small enumerations.
pub mod code {
    /// Dtype parameter: dtype, dtype_str, autocast_dtype, src_dtype, dst_dtype.
    pub const PARAMS: [&str; 5] = ["dtype", "dtype_str", "autocast_dtype", "src_dtype", "dst_dtype"];
    /// Contract mode: none, set, fail.
    pub const MODES: [&str; 3] = ["", "set", "fail"];
    /// Device rules.
    pub const DEV_RULES: [&str; 6] = ["gate", "cpu", "mod", "setdev", "mpsbug", "crash"];
    /// Generated dtype codes.
    pub const DT_CODES: [&str; 5] = ["A", "N+", "N-", "X", "E"];
    /// OpInfo parameter kinds.
    pub const OI_FORWARD: u8 = 0;
    pub const OI_BACKWARD: u8 = 1;
    pub const OI_ERRORS: u8 = 2;
    /// Oracle outcomes.
    pub const ORACLE_SKIP: u8 = 0;
    pub const ORACLE_ERROR: u8 = 1;
    /// A manual_shape case: a dtype that is not run.
    pub const SHAPE_NOT_RUN: u8 = 0xff;
}

#[derive(Default, Clone)]
pub struct RowWriter {
    pub buf: Vec<u8>,
}

impl RowWriter {
    pub fn u8(&mut self, v: u8) {
        self.buf.push(v);
    }

    pub fn var(&mut self, mut v: u64) {
        while v >= 0x80 {
            self.buf.push((v as u8) | 0x80);
            v >>= 7;
        }
        self.buf.push(v as u8);
    }

    pub fn str(&mut self, s: &str) {
        self.var(s.len() as u64);
        self.buf.extend_from_slice(s.as_bytes());
    }

    /// An optional `(reason, detail)`.
    pub fn rd(&mut self, rd: Option<(u16, u32)>) {
        match rd {
            Some((reason, detail)) => {
                self.var(u64::from(reason) + 1);
                self.var(u64::from(detail));
            }
            None => self.var(0),
        }
    }
}

/// Reads a row. Reading past the end gives zeros and marks the reader `truncated`, so a
/// decoder checks once at the end instead of at every field.
pub struct RowReader<'a> {
    bytes: &'a [u8],
    pos: usize,
    pub truncated: bool,
}

impl<'a> RowReader<'a> {
    #[inline]
    pub fn new(bytes: &'a [u8]) -> RowReader<'a> {
        RowReader { bytes, pos: 0, truncated: false }
    }

    #[inline]
    pub fn u8(&mut self) -> u8 {
        match self.bytes.get(self.pos) {
            Some(&b) => {
                self.pos += 1;
                b
            }
            None => {
                self.truncated = true;
                0
            }
        }
    }

    #[inline]
    pub fn var(&mut self) -> u64 {
        let mut out = 0u64;
        let mut shift = 0;
        loop {
            let b = self.u8();
            if shift < 64 {
                out |= u64::from(b & 0x7f) << shift;
            }
            if b & 0x80 == 0 || self.truncated {
                return out;
            }
            shift += 7;
        }
    }

    #[inline]
    pub fn var32(&mut self) -> u32 {
        self.var() as u32
    }

    #[inline]
    pub fn str(&mut self) -> &'a str {
        let len = self.var() as usize;
        let bytes = self.bytes(len);
        std::str::from_utf8(bytes).unwrap_or_else(|_| {
            self.truncated = true;
            ""
        })
    }

    /// The next `n` bytes.
    #[inline]
    pub fn bytes(&mut self, n: usize) -> &'a [u8] {
        let end = self.pos.saturating_add(n);
        match self.bytes.get(self.pos..end) {
            Some(b) => {
                self.pos = end;
                b
            }
            None => {
                self.truncated = true;
                &[]
            }
        }
    }

    /// An optional `(reason, detail)`.
    #[inline]
    pub fn rd(&mut self) -> Option<(u16, u32)> {
        match self.var() {
            0 => None,
            r => Some(((r - 1) as u16, self.var32())),
        }
    }

    /// Fields left unread (a row the reader does not understand fully).
    #[inline]
    pub fn at_end(&self) -> bool {
        self.pos == self.bytes.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_read_back_as_written() {
        let mut w = RowWriter::default();
        w.var(0);
        w.var(127);
        w.var(128);
        w.var(u64::from(u32::MAX));
        w.str("torch.float32");
        w.rd(None);
        w.rd(Some((3, 70_000)));
        w.u8(9);
        let mut r = RowReader::new(&w.buf);
        assert_eq!((r.var(), r.var(), r.var(), r.var32()), (0, 127, 128, u32::MAX));
        assert_eq!(r.str(), "torch.float32");
        assert_eq!((r.rd(), r.rd(), r.u8()), (None, Some((3, 70_000)), 9));
        assert!(r.at_end() && !r.truncated);
        r.var();
        assert!(r.truncated, "reading past the end is flagged");
    }
}
