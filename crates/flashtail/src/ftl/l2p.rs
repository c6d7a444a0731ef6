//! The logical-to-physical map's storage: one entry per logical page (its physical page,
//! `NONE`, or a virtual content id), and, when the integrity oracle is on, the oracle's
//! newest version of the page right beside it.
//!
//! Why side by side: every host read and write, and every GC move, reads a logical page's
//! map entry and then the oracle's version of the same page. In two tables those were two
//! cache misses, and two address translations, at random places; in pairs they are one.
//! With the oracle off the entries are packed alone, as a plain table (4 bytes a page).
//!
//! The versions are the oracle's (`sim::oracle`): only it reads and writes them; this type
//! only stores them. Does not model: mapping-table caching (DFTL).

use super::tables::{self, Table};
use super::NONE;

pub struct L2p {
    /// Entry of page `l` at `l << shift`; its version (when `shift` is 1) at the next index.
    t: Table<u32>,
    /// 1 with versions, 0 without.
    shift: u32,
}

impl L2p {
    /// `n` unmapped entries, each with version 0 (never written) when `versions`.
    pub fn new(n: usize, versions: bool) -> L2p {
        if versions {
            L2p { t: tables::filled_pairs(n, [NONE, 0]), shift: 1 }
        } else {
            L2p { t: tables::filled(n, NONE), shift: 0 }
        }
    }

    /// A copy on huge pages as `new` gives them (`tables::copied`).
    pub fn duplicate(&self) -> L2p {
        L2p { t: tables::copied(&self.t), shift: self.shift }
    }

    /// Logical pages mapped.
    #[inline]
    pub fn len(&self) -> usize {
        self.t.len() >> self.shift
    }

    #[inline]
    pub fn is_empty(&self) -> bool {
        self.t.is_empty()
    }

    /// Whether each entry carries the oracle's version.
    #[inline]
    pub fn has_versions(&self) -> bool {
        self.shift == 1
    }

    #[inline]
    pub fn get(&self, l: usize) -> Option<&u32> {
        self.t.get(l << self.shift)
    }

    /// The entries in logical order.
    pub fn iter(&self) -> impl Iterator<Item = &u32> {
        self.t.iter().step_by(1 << self.shift)
    }

    pub fn iter_mut(&mut self) -> impl Iterator<Item = &mut u32> {
        self.t.iter_mut().step_by(1 << self.shift)
    }

    /// The storage and the step between its entries (entry `l` at `l * step`): for checks
    /// that split the map across cores.
    pub fn raw(&self) -> (&[u32], usize) {
        (&self.t, 1 << self.shift)
    }

    /// Page `l` of a preconditioned device holds `ppn`, the first version of its data (the
    /// oracle counts versions from 1; 0 is never written).
    #[inline]
    pub fn preload(&mut self, l: usize, ppn: u32) {
        let i = l << self.shift;
        self.t[i] = ppn;
        if self.shift == 1 {
            self.t[i + 1] = 1;
        }
    }

    /// The oracle's newest version of page `l` (a map with versions only).
    #[inline]
    pub fn version(&self, l: usize) -> u32 {
        debug_assert!(self.has_versions());
        self.t[l << 1 | 1]
    }

    #[inline]
    pub fn version_mut(&mut self, l: usize) -> &mut u32 {
        debug_assert!(self.has_versions());
        &mut self.t[l << 1 | 1]
    }

    /// Set the newest versions of pages `0..versions.len()` (a power cut's recovery).
    pub fn set_versions(&mut self, versions: &[u32]) {
        debug_assert!(self.has_versions());
        for (pair, &v) in self.t.chunks_exact_mut(2).zip(versions) {
            pair[1] = v;
        }
    }
}

impl std::ops::Index<usize> for L2p {
    type Output = u32;
    #[inline]
    fn index(&self, l: usize) -> &u32 {
        &self.t[l << self.shift]
    }
}

impl std::ops::IndexMut<usize> for L2p {
    #[inline]
    fn index_mut(&mut self, l: usize) -> &mut u32 {
        &mut self.t[l << self.shift]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// With versions or without, the entries read and write alike; the versions sit apart
    /// from them and start at 0.
    #[test]
    fn entries_and_versions_are_kept_apart() {
        for versions in [false, true] {
            let mut m = L2p::new(5, versions);
            assert_eq!((m.len(), m.has_versions()), (5, versions));
            assert!(m.iter().all(|&e| e == NONE));
            m[3] = 40;
            m.preload(1, 7);
            *m.iter_mut().nth(4).unwrap() = 9;
            assert_eq!(m.iter().copied().collect::<Vec<_>>(), [NONE, 7, NONE, 40, 9]);
            assert_eq!((m.get(3), m.get(5)), (Some(&40), None));
            if versions {
                assert_eq!((0..5).map(|l| m.version(l)).collect::<Vec<_>>(), [0, 1, 0, 0, 0]);
                *m.version_mut(3) += 2;
                m.set_versions(&[5, 6]);
                assert_eq!((0..5).map(|l| m.version(l)).collect::<Vec<_>>(), [5, 6, 0, 2, 0]);
                assert_eq!(m.iter().copied().collect::<Vec<_>>(), [NONE, 7, NONE, 40, 9]);
            }
            let d = m.duplicate();
            assert_eq!(d.iter().collect::<Vec<_>>(), m.iter().collect::<Vec<_>>());
            let (raw, step) = m.raw();
            assert_eq!((raw.len(), raw[3 * step], step), (5 * step, 40, 1 << u32::from(versions)));
        }
    }
}
