//! Device geometry and address arithmetic.
//!
//! Planes are numbered channel-major (channel, chip, die, plane) so that the planes of one
//! channel are contiguous. Logical pages are striped over planes channel-first
//! (consecutive LPNs go to consecutive channels, then chips, dies, planes): MQSim's CWDP
//! order, which the ttFlash artifact also uses for its plane groups.

use crate::units::{BlockId, ChannelId, Lpn, PlaneId, Ppn};
use serde::{Deserialize, Serialize};

/// The shape of the device. Validated by [`Geometry::validate`].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Geometry {
    pub channels: u32,
    pub chips_per_channel: u32,
    pub dies_per_chip: u32,
    pub planes_per_die: u32,
    pub blocks_per_plane: u32,
    pub pages_per_block: u32,
    /// Page size in bytes.
    pub page_size: u32,
    /// Bits per cell (1 SLC, 2 MLC, 3 TLC, 4 QLC): the levels (LSB, CSB, MSB, TSB) of a
    /// word-line, each with its own read and program time (see [`Geometry::level_of`]).
    #[serde(default = "one")]
    pub bits_per_cell: u32,
    /// Logical pages of one level on one word-line (default 1). A word-line holds
    /// `bits_per_cell × pages_per_level` pages: the WLA-GC paper's QLC word-line of 128k
    /// cells is 4 levels × 4 pages of 4 KiB.
    #[serde(default = "one")]
    pub pages_per_level: u32,
}

fn one() -> u32 {
    1
}

/// The largest page [`Geometry::validate`] accepts, in bytes.
pub const MAX_PAGE_SIZE: u32 = 1 << 20;

/// The fewest blocks per plane [`Geometry::validate`] accepts: GC needs a reserve and two
/// write frontiers beside the data.
pub const MIN_BLOCKS_PER_PLANE: u32 = 8;

/// A physical page split into its parts.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct PageAddr {
    pub plane: PlaneId,
    pub block: BlockId,
    pub page_in_block: u32,
}

impl Geometry {
    /// Check that the geometry is possible and fits the simulator's 32-bit page numbers.
    pub fn validate(&self) -> Result<(), String> {
        // Each field's real minimum: "at least 1" for a page size or a block count of 0 sent
        // the user on to a second error (a multiple of 512; at least 8 blocks).
        let fields = [
            ("channels", self.channels, 1),
            ("chips_per_channel", self.chips_per_channel, 1),
            ("dies_per_chip", self.dies_per_chip, 1),
            ("planes_per_die", self.planes_per_die, 1),
            ("blocks_per_plane", self.blocks_per_plane, MIN_BLOCKS_PER_PLANE),
            ("pages_per_block", self.pages_per_block, 1),
            ("page_size", self.page_size, 512),
            ("pages_per_level", self.pages_per_level, 1),
        ];
        for (name, v, min) in fields {
            if v == 0 {
                let why = match name {
                    "blocks_per_plane" => " (GC needs them)",
                    "page_size" => " (a multiple of 512 bytes)",
                    _ => "",
                };
                return Err(format!("geometry.{name} must be at least {min}{why}, got 0"));
            }
        }
        if !(1..=4).contains(&self.bits_per_cell) {
            return Err(format!("geometry.bits_per_cell must be 1..=4, got {}", self.bits_per_cell));
        }
        // In u64: bits × pages_per_level may not fit in u32 (the message must show the real size).
        let wordline = u64::from(self.bits_per_cell) * u64::from(self.pages_per_level);
        if self.bits_per_cell > 1 && !u64::from(self.pages_per_block).is_multiple_of(wordline) {
            return Err(format!(
                "geometry.pages_per_block = {} is not a whole number of word-lines of {wordline} pages \
                 (bits_per_cell {} x pages_per_level {})",
                self.pages_per_block, self.bits_per_cell, self.pages_per_level
            ));
        }
        if !self.page_size.is_multiple_of(512) {
            return Err(format!("geometry.page_size must be a multiple of 512 bytes, got {}", self.page_size));
        }
        // Flash pages are 2-16 KiB; far larger ones overflow the u64 nanosecond sums of a run
        // (a 4 GiB page made the wait shares add up to 1000 %).
        if self.page_size > MAX_PAGE_SIZE {
            return Err(format!("geometry.page_size must be at most {MAX_PAGE_SIZE} bytes (1 MiB), got {}", self.page_size));
        }
        if self.blocks_per_plane < MIN_BLOCKS_PER_PLANE {
            return Err(format!(
                "geometry.blocks_per_plane = {} is too few for GC (need at least {MIN_BLOCKS_PER_PLANE})",
                self.blocks_per_plane
            ));
        }
        let pages = self.total_pages_u64();
        if pages >= u32::MAX as u64 {
            return Err(format!(
                "device has {pages} pages; flashtail addresses at most {} (use larger pages)",
                u32::MAX - 1
            ));
        }
        Ok(())
    }

    pub fn planes(&self) -> u32 {
        self.channels * self.chips_per_channel * self.dies_per_chip * self.planes_per_die
    }
    pub fn dies(&self) -> u32 {
        self.channels * self.chips_per_channel * self.dies_per_chip
    }
    pub fn planes_per_channel(&self) -> u32 {
        self.chips_per_channel * self.dies_per_chip * self.planes_per_die
    }
    pub fn total_blocks(&self) -> u32 {
        self.planes() * self.blocks_per_plane
    }
    /// In u64 throughout (`planes()` itself may overflow u32 before validation rejects it).
    pub fn total_pages_u64(&self) -> u64 {
        [self.channels, self.chips_per_channel, self.dies_per_chip, self.planes_per_die, self.blocks_per_plane, self.pages_per_block]
            .iter()
            .fold(1u64, |acc, &v| acc.saturating_mul(u64::from(v)))
    }
    pub fn total_pages(&self) -> u32 {
        self.total_pages_u64() as u32
    }
    pub fn pages_per_plane(&self) -> u32 {
        self.blocks_per_plane * self.pages_per_block
    }
    pub fn raw_bytes(&self) -> u64 {
        self.total_pages_u64() * self.page_size as u64
    }

    /// Channel of a plane (planes are numbered channel-major).
    #[inline]
    pub fn channel_of(&self, plane: PlaneId) -> ChannelId {
        ChannelId(plane.0 / self.planes_per_channel())
    }
    /// Die index (global) of a plane.
    #[inline]
    pub fn die_of(&self, plane: PlaneId) -> u32 {
        plane.0 / self.planes_per_die
    }
    /// Chip index (global) of a plane.
    #[inline]
    pub fn chip_of(&self, plane: PlaneId) -> u32 {
        plane.0 / (self.planes_per_die * self.dies_per_chip)
    }

    /// The plane a logical page is striped to under static channel-first allocation.
    #[inline]
    pub fn static_plane(&self, lpn: Lpn) -> PlaneId {
        let s = lpn.0 % self.planes();
        let ch = s % self.channels;
        let rest = s / self.channels;
        let chip = rest % self.chips_per_channel;
        let rest = rest / self.chips_per_channel;
        let die = rest % self.dies_per_chip;
        let pl = rest / self.dies_per_chip;
        PlaneId(((ch * self.chips_per_channel + chip) * self.dies_per_chip + die) * self.planes_per_die + pl)
    }

    #[inline]
    pub fn plane_of_block(&self, b: BlockId) -> PlaneId {
        PlaneId(b.0 / self.blocks_per_plane)
    }
    #[inline]
    pub fn block_of(&self, p: Ppn) -> BlockId {
        BlockId(p.0 / self.pages_per_block)
    }
    #[inline]
    pub fn first_block(&self, plane: PlaneId) -> BlockId {
        BlockId(plane.0 * self.blocks_per_plane)
    }
    #[inline]
    pub fn ppn(&self, b: BlockId, page_in_block: u32) -> Ppn {
        debug_assert!(page_in_block < self.pages_per_block);
        Ppn(b.0 * self.pages_per_block + page_in_block)
    }
    #[inline]
    pub fn page_in_block(&self, p: Ppn) -> u32 {
        p.0 % self.pages_per_block
    }
    /// Pages of one word-line (all its levels).
    #[inline]
    pub fn pages_per_wordline(&self) -> u32 {
        self.bits_per_cell.saturating_mul(self.pages_per_level)
    }
    /// Level (0 = LSB .. bits_per_cell-1) of a physical page: a word-line's pages go level by
    /// level, `pages_per_level` of each, so page `i` of a block has level
    /// `(i mod (bits × pages_per_level)) / pages_per_level` (with one page per level, `i mod bits`).
    #[inline]
    pub fn level_of(&self, p: Ppn) -> usize {
        level_in_block(self.page_in_block(p), self.bits_per_cell, self.pages_per_level)
    }
    pub fn split(&self, p: Ppn) -> PageAddr {
        let block = self.block_of(p);
        PageAddr { plane: self.plane_of_block(block), block, page_in_block: self.page_in_block(p) }
    }
}

/// The level of page `i` of a block (see [`Geometry::level_of`]); shared with the engine's
/// precomputed phase costs so the two cannot disagree.
#[inline]
pub fn level_in_block(i: u32, bits_per_cell: u32, pages_per_level: u32) -> usize {
    ((i % (bits_per_cell * pages_per_level)) / pages_per_level) as usize
}

#[cfg(test)]
mod tests {
    use super::*;

    fn g() -> Geometry {
        Geometry {
            channels: 2,
            chips_per_channel: 2,
            dies_per_chip: 1,
            planes_per_die: 2,
            blocks_per_plane: 16,
            pages_per_block: 8,
            page_size: 4096,
            bits_per_cell: 1,
            pages_per_level: 1,
        }
    }

    /// A zero is reported with the field's real minimum (a page size of 0 said "at least 1",
    /// and 1 was then refused as not a multiple of 512; 0 blocks likewise, then "at least 8").
    #[test]
    fn a_zero_field_names_its_real_minimum() {
        let mut x = g();
        x.page_size = 0;
        assert_eq!(x.validate().unwrap_err(), "geometry.page_size must be at least 512 (a multiple of 512 bytes), got 0");
        let mut x = g();
        x.blocks_per_plane = 0;
        assert_eq!(x.validate().unwrap_err(), "geometry.blocks_per_plane must be at least 8 (GC needs them), got 0");
        x.blocks_per_plane = 7;
        assert_eq!(x.validate().unwrap_err(), "geometry.blocks_per_plane = 7 is too few for GC (need at least 8)");
        let mut x = g();
        x.channels = 0;
        assert_eq!(x.validate().unwrap_err(), "geometry.channels must be at least 1, got 0");
    }

    #[test]
    fn channel_first_striping_visits_every_plane_once_per_round() {
        let g = g();
        let mut seen: Vec<u32> = (0..g.planes()).map(|l| g.static_plane(Lpn(l)).0).collect();
        // Consecutive LPNs alternate channels first.
        assert_eq!(g.channel_of(g.static_plane(Lpn(0))), ChannelId(0));
        assert_eq!(g.channel_of(g.static_plane(Lpn(1))), ChannelId(1));
        seen.sort();
        assert_eq!(seen, (0..8).collect::<Vec<_>>());
    }

    #[test]
    fn address_round_trip() {
        let g = g();
        let p = g.ppn(BlockId(37), 5);
        let a = g.split(p);
        assert_eq!(a.block, BlockId(37));
        assert_eq!(a.page_in_block, 5);
        assert_eq!(a.plane, PlaneId(2));
        assert_eq!(g.channel_of(PlaneId(3)), ChannelId(0));
        assert_eq!(g.channel_of(PlaneId(4)), ChannelId(1));
    }

    #[test]
    fn impossible_geometry_is_rejected() {
        let mut bad = g();
        bad.channels = 0;
        assert!(bad.validate().unwrap_err().contains("channels"));
        let mut bad = g();
        bad.page_size = 1000;
        assert!(bad.validate().unwrap_err().contains("page_size"));
        let mut huge = g();
        huge.blocks_per_plane = 1 << 20;
        huge.pages_per_block = 1 << 12;
        assert!(huge.validate().unwrap_err().contains("pages"));
        let mut qlc = g();
        qlc.bits_per_cell = 4;
        qlc.pages_per_level = 4;
        assert!(qlc.validate().unwrap_err().contains("word-lines of 16 pages"));
        qlc.pages_per_block = 32;
        assert_eq!(qlc.validate(), Ok(()));
        qlc.pages_per_level = 0;
        assert!(qlc.validate().unwrap_err().contains("pages_per_level"));
    }

    /// A product of the counts beyond u32 is an error, not a wrapped plane count (65536 x
    /// 65536 planes made `planes()` 0 and the run panicked dividing by it); pages beyond
    /// 1 MiB and a word-line beyond u32 pages are errors naming the field and the true size.
    #[test]
    fn geometry_products_beyond_u32_are_errors() {
        let mut g = g();
        g.channels = 65536;
        g.chips_per_channel = 65536;
        assert_eq!(g.validate().unwrap_err(), "device has 1099511627776 pages; flashtail addresses at most 4294967294 (use larger pages)");
        let mut g = self::g();
        g.page_size = MAX_PAGE_SIZE;
        assert_eq!(g.validate(), Ok(()));
        g.page_size = MAX_PAGE_SIZE + 512;
        assert_eq!(g.validate().unwrap_err(), "geometry.page_size must be at most 1048576 bytes (1 MiB), got 1049088");
        let mut g = self::g();
        g.bits_per_cell = 4;
        g.pages_per_level = 1 << 31;
        assert!(g.validate().unwrap_err().contains("word-lines of 8589934592 pages"));
    }

    /// Pages go level by level within a word-line: with one page per level the level is
    /// `i mod bits`; the WLA-GC paper's QLC word-line is 4 pages of each level in turn.
    #[test]
    fn levels_follow_the_word_line_layout() {
        let mut t = g();
        t.bits_per_cell = 3;
        t.pages_per_block = 12;
        let levels: Vec<usize> = (0..12).map(|i| t.level_of(t.ppn(BlockId(1), i))).collect();
        assert_eq!(levels, [0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2]);
        t.bits_per_cell = 4;
        t.pages_per_level = 4;
        t.pages_per_block = 32;
        let levels: Vec<usize> = (0..32).map(|i| t.level_of(t.ppn(BlockId(0), i))).collect();
        assert_eq!(&levels[..16], &[0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3]);
        assert_eq!(&levels[16..], &levels[..16]);
    }
}
