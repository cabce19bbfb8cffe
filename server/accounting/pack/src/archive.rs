//! The archive: per section a pool of distinct rows (read in place through fixed-width
//! offsets), and per release the runs of rows it consists of. Layout in the crate docs.

use std::collections::HashMap;

use crate::json::ReleaseRows;
use crate::rows::{RowReader, RowWriter};
use crate::{Section, SECTION_COUNT};

const MAGIC: &[u8; 8] = b"TCINVPK1";
const KIND_ROWS: u8 = 0;
const KIND_ALIAS: u8 = 1;

enum Entry {
    Rows([Vec<(u32, u32)>; SECTION_COUNT]),
    Alias(String),
}

/// Collects releases; rows equal to one already added are stored once.
#[derive(Default)]
pub struct ArchiveWriter {
    pools: [Vec<Vec<u8>>; SECTION_COUNT],
    index: [HashMap<Vec<u8>, u32>; SECTION_COUNT],
    releases: Vec<(String, Entry)>,
}

impl ArchiveWriter {
    pub fn add(&mut self, name: &str, rows: ReleaseRows) {
        let runs = std::array::from_fn(|s| {
            let mut runs: Vec<(u32, u32)> = Vec::new();
            // Metadata rows repeat within a release (tests that differ only in a parameter
            // the matchers do not read): stored in release order, each release's rows then
            // continue one run instead of jumping back to a row's first copy at every item.
            let in_order = s == Section::Metadata as usize;
            let first_release = self.pools[s].is_empty();
            for row in &rows.sections[s] {
                let next = self.pools[s].len() as u32;
                let continued = runs
                    .last()
                    .map(|&(start, count)| start + count)
                    .filter(|&end| in_order && self.pools[s].get(end as usize).is_some_and(|r| r == row));
                let at = match continued {
                    Some(end) => end,
                    None if in_order && first_release => next,
                    None => *self.index[s].get(row).unwrap_or(&next),
                };
                self.index[s].entry(row.clone()).or_insert(at);
                if at == next {
                    self.pools[s].push(row.clone());
                }
                match runs.last_mut() {
                    Some((start, count)) if *start + *count == at => *count += 1,
                    _ => runs.push((at, 1)),
                }
            }
            runs
        });
        self.releases.push((name.to_string(), Entry::Rows(runs)));
    }

    /// A release whose suite facts equal another's.
    pub fn add_alias(&mut self, name: &str, of: &str) {
        self.releases.push((name.to_string(), Entry::Alias(of.to_string())));
    }

    pub fn finish(self) -> Vec<u8> {
        let mut out = MAGIC.to_vec();
        let mut w = RowWriter::default();
        for pool in &self.pools {
            w.var(pool.len() as u64);
            out.append(&mut w.buf);
            let mut offset = 0u32;
            out.extend_from_slice(&offset.to_le_bytes());
            for row in pool {
                offset += row.len() as u32;
                out.extend_from_slice(&offset.to_le_bytes());
            }
            w.var(u64::from(offset));
            out.append(&mut w.buf);
            for row in pool {
                out.extend_from_slice(row);
            }
        }
        w.var(self.releases.len() as u64);
        for (name, entry) in &self.releases {
            w.str(name);
            match entry {
                Entry::Alias(of) => {
                    w.u8(KIND_ALIAS);
                    w.str(of);
                }
                Entry::Rows(sections) => {
                    w.u8(KIND_ROWS);
                    for runs in sections {
                        w.var(runs.len() as u64);
                        for &(start, count) in runs {
                            w.var(u64::from(start));
                            w.var(u64::from(count));
                        }
                    }
                }
            }
        }
        out.append(&mut w.buf);
        out
    }
}

/// A section's distinct rows, in place.
#[derive(Clone, Copy)]
struct Pool<'a> {
    offsets: &'a [u8],
    data: &'a [u8],
}

impl<'a> Pool<'a> {
    fn len(&self) -> usize {
        (self.offsets.len() / 4).saturating_sub(1)
    }

    #[inline]
    fn offset(&self, i: usize) -> usize {
        let b = &self.offsets[i * 4..i * 4 + 4];
        u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as usize
    }

    #[inline]
    fn row(&self, i: usize) -> &'a [u8] {
        self.data.get(self.offset(i)..self.offset(i + 1)).unwrap_or_default()
    }
}

/// An archive read in place.
pub struct Archive<'a> {
    pools: [Pool<'a>; SECTION_COUNT],
    releases: Vec<Release<'a>>,
}

/// One release of an archive: its name and, per section, runs of pool rows (or the
/// release it is an alias of).
pub struct Release<'a> {
    pub name: &'a str,
    pub alias_of: Option<&'a str>,
    runs: [Vec<(u32, u32)>; SECTION_COUNT],
    pools: [Pool<'a>; SECTION_COUNT],
}

impl<'a> Archive<'a> {
    pub fn read(bytes: &'a [u8]) -> Result<Archive<'a>, String> {
        let body = bytes.strip_prefix(MAGIC.as_slice()).ok_or("not an inventory archive")?;
        let mut r = RowReader::new(body);
        let mut pools = [Pool { offsets: &[], data: &[] }; SECTION_COUNT];
        for pool in pools.iter_mut() {
            let count = r.var() as usize;
            let offsets = r.bytes(count.saturating_add(1).saturating_mul(4));
            let data_len = r.var() as usize;
            *pool = Pool { offsets, data: r.bytes(data_len) };
            if r.truncated || (0..=count).any(|i| pool.offset(i) > data_len) {
                return Err("corrupt archive rows".into());
            }
        }
        let count = r.var() as usize;
        let mut releases = Vec::with_capacity(count.min(1024));
        for _ in 0..count {
            let name = r.str();
            let entry = match r.u8() {
                KIND_ALIAS => Release { name, alias_of: Some(r.str()), runs: Default::default(), pools },
                _ => {
                    let runs = std::array::from_fn(|s| {
                        let n = r.var() as usize;
                        let mut runs = Vec::with_capacity(n.min(1 << 16));
                        for _ in 0..n {
                            let (start, len) = (r.var32(), r.var32());
                            let fits =
                                (start as usize).checked_add(len as usize).is_some_and(|end| end <= pools[s].len());
                            if fits {
                                runs.push((start, len));
                            } else {
                                r.truncated = true;
                            }
                        }
                        runs
                    });
                    Release { name, alias_of: None, runs, pools }
                }
            };
            releases.push(entry);
        }
        if r.truncated {
            return Err("corrupt archive release table".into());
        }
        Ok(Archive { pools, releases })
    }

    pub fn releases(&self) -> &[Release<'a>] {
        &self.releases
    }

    pub fn release(&self, name: &str) -> Option<&Release<'a>> {
        self.releases.iter().find(|r| r.name == name)
    }

    /// Distinct rows of a section over all releases (for size figures).
    pub fn pool_rows(&self, section: Section) -> usize {
        self.pools[section as usize].len()
    }
}

impl<'a> Release<'a> {
    /// Number of rows of a section.
    pub fn len(&self, section: Section) -> usize {
        self.runs[section as usize].iter().map(|&(_, n)| n as usize).sum()
    }

    pub fn is_empty(&self) -> bool {
        self.runs.iter().all(Vec::is_empty)
    }

    /// The rows of a section, in order.
    pub fn rows(&self, section: Section) -> impl Iterator<Item = &'a [u8]> + '_ {
        let pool = self.pools[section as usize];
        self.runs[section as usize]
            .iter()
            .flat_map(move |&(start, n)| (start..start + n).map(move |i| pool.row(i as usize)))
    }
}
