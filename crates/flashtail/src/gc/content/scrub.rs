//! SplitGC's read-scrub pass bookkeeping (§3.2): which pages a pass reads, plane by plane,
//! and which group of blocks it fingerprints.
//!
//! The blocks of every plane are split into `groups` contiguous ranges; a 1-bit-per-group
//! progress table (here: the index of the next group) picks the group a pass fingerprints.
//! A pass reads the valid, programmed pages of that group (of every group with
//! `check_all`, fingerprinting only the one), in block order, one page at a time per plane.
//! A page written after the pass went by stays unknown until its group's next pass.
//!
//! Does not do: the reads themselves, their timing or the fingerprint tables (the engine's
//! `content_path` and `ftl::content`), error correction or refresh of bad pages.

use crate::ftl::{BlockState, Ftl};
use crate::units::{BlockId, PlaneId, Ppn};

pub struct Scrub {
    groups: u32,
    check_all: bool,
    /// The group the current (or next) pass fingerprints.
    pub group: u32,
    /// Passes finished.
    pub passes: u64,
    /// A pass is running.
    pub active: bool,
    /// Passes finished since the last host write: once a whole cycle (every group) went by
    /// with nothing written, another pass would only repeat it.
    pub quiet_passes: u32,
    /// The pass timer was not re-armed for that reason; the next host write re-arms it.
    pub parked: bool,
    /// Per plane: (block index within the plane, next page) of the running pass, or `None`
    /// when the plane finished it.
    cursor: Vec<Option<(u32, u32)>>,
    planes_left: u32,
    blocks_per_plane: u32,
    /// The running pass's group, as a block range within a plane (`range(group)`), and the
    /// range its cursors cover (all blocks with `check_all`): computed once per pass, not
    /// with two divisions per page read.
    fingerprinted: (u32, u32),
    covered: (u32, u32),
}

impl Scrub {
    pub fn new(planes: u32, blocks_per_plane: u32, groups: u32, check_all: bool) -> Scrub {
        Scrub { groups: groups.clamp(1, blocks_per_plane.max(1)), check_all, group: 0, passes: 0, active: false, quiet_passes: 0, parked: false, cursor: vec![None; planes as usize], planes_left: 0, blocks_per_plane, fingerprinted: (0, 0), covered: (0, 0) }
    }

    /// A whole cycle of passes (one per group) finished since the last host write.
    pub fn cycle_unchanged(&self) -> bool {
        self.quiet_passes >= self.groups
    }

    /// Group of the `i`-th block of a plane.
    pub fn group_of(&self, i: u32) -> u32 {
        (u64::from(i) * u64::from(self.groups) / u64::from(self.blocks_per_plane)) as u32
    }

    /// Blocks (within a plane) of group `g`: those with `group_of == g`.
    fn range(&self, g: u32) -> (u32, u32) {
        let n = u64::from(self.blocks_per_plane);
        let at = |g: u32| (u64::from(g) * n).div_ceil(u64::from(self.groups)) as u32;
        (at(g), at(g + 1))
    }

    /// Start a pass over every plane.
    pub fn start(&mut self) {
        self.fingerprinted = self.range(self.group);
        self.covered = if self.check_all { (0, self.blocks_per_plane) } else { self.fingerprinted };
        for c in &mut self.cursor {
            *c = Some((self.covered.0, 0));
        }
        self.planes_left = self.cursor.len() as u32;
        self.active = true;
    }

    /// The next page plane `plane` should scrub, and whether to fingerprint it; `None` when
    /// the plane is done with the pass (the pass ends when every plane is).
    pub fn next_page(&mut self, ftl: &Ftl, plane: PlaneId) -> Option<(Ppn, bool)> {
        let (mut bi, mut page) = self.cursor[plane.idx()]?;
        let end = self.covered.1;
        let first_block = ftl.geo.first_block(plane).0;
        while bi < end {
            let b = BlockId(first_block + bi);
            let st = ftl.blocks.state[b.idx()];
            if st != BlockState::Free && st != BlockState::Victim {
                while let Some(p) = ftl.next_valid_in_block(b, page) {
                    page = ftl.blocks.locate(p).1 + 1;
                    if ftl.blocks.is_programmed(&ftl.geo, p) {
                        self.cursor[plane.idx()] = Some((bi, page));
                        let (a, z) = self.fingerprinted;
                        debug_assert_eq!((a..z).contains(&bi), self.group_of(bi) == self.group);
                        return Some((p, (a..z).contains(&bi)));
                    }
                }
            }
            bi += 1;
            page = 0;
        }
        self.cursor[plane.idx()] = None;
        self.planes_left -= 1;
        if self.planes_left == 0 {
            self.active = false;
            self.passes += 1;
            self.quiet_passes = self.quiet_passes.saturating_add(1);
            self.group = (self.group + 1) % self.groups;
        }
        None
    }

    /// Power was cut: the running pass (its per-plane cursors are controller memory) is
    /// abandoned unfinished. The progress table, flushed with the other metadata, still
    /// names its group, so the next pass fingerprints that group again from its start.
    /// Returns whether a pass was running.
    pub fn abort(&mut self) -> bool {
        let was = self.active;
        self.cursor.fill(None);
        self.planes_left = 0;
        self.active = false;
        was
    }

    /// Is plane `plane` still in the running pass?
    pub fn pending(&self, plane: PlaneId) -> bool {
        self.cursor[plane.idx()].is_some()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::presets;
    use crate::ftl::Stream;
    use crate::units::Lpn;

    /// Groups are contiguous ranges covering every block once; a pass visits exactly the
    /// valid programmed pages of its group, then the progress table moves on.
    #[test]
    fn a_pass_reads_its_groups_valid_pages_and_advances_the_group() {
        let geo = presets::load("tiny").unwrap().geometry;
        let mut ftl = Ftl::new(&geo, geo.total_pages() / 2, geo.total_pages() / 2);
        let plane = PlaneId(0);
        let mut mapped = Vec::new();
        for l in 0..(3 * geo.pages_per_block) {
            let (p, _) = ftl.allocate(plane, Stream::User, 0).unwrap();
            ftl.blocks.mark_programmed(&geo, p, 0);
            ftl.map(Lpn(l), p);
            mapped.push(p);
        }
        ftl.unmap(Lpn(1)); // invalid pages are not scrubbed
        let mut s = Scrub::new(geo.planes(), geo.blocks_per_plane, 4, false);
        let counts: Vec<u32> = (0..4).map(|g| (0..geo.blocks_per_plane).filter(|&i| s.group_of(i) == g).count() as u32).collect();
        assert_eq!(counts.iter().sum::<u32>(), geo.blocks_per_plane);
        for g in 0..4u32 {
            let r = s.range(g);
            assert!((r.0..r.1).all(|i| s.group_of(i) == g));
        }
        s.start();
        let mut seen = Vec::new();
        while let Some((p, fp)) = s.next_page(&ftl, plane) {
            assert!(fp);
            seen.push(p);
        }
        // Group 0 holds the first blocks: the three written ones if the group is that large.
        let g0 = s.range(0).1.min(3);
        let want: Vec<Ppn> = mapped.iter().copied().filter(|&p| p != mapped[1] && geo.block_of(p).0 < g0).collect();
        assert_eq!(seen, want);
        for p in 1..geo.planes() {
            while s.next_page(&ftl, PlaneId(p)).is_some() {}
        }
        assert!(!s.active && s.passes == 1 && s.group == 1);
    }
}
