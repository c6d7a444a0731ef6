//! RAIN (Redundant Array of Independent NAND) layout, as ttFlash uses it (FAST'17 §4.2):
//! logical pages are striped RAID-5 style over the N channels;
//! a stripe holds N−1 data pages and one parity page, parity rotating from stripe to stripe.
//!
//! Layout (the artifact's, with one correction): stripe s = lpn / (N−1); all pages of a stripe
//! sit at the same (chip, die, plane) position of their channels — a *plane group* — chosen as
//! g = s mod G (G = planes per channel); data page i goes to channel i, shifted by one at or
//! past the parity channel. The parity channel rotates among the stripes *of a group*:
//! (s / G) mod N. (Taking s mod N, as a literal reading of the artifact suggests, ties the
//! parity channel to the group whenever G is a multiple of N, piling every parity page of a
//! group onto one plane.) Parity pages are mapped like data pages, under
//! logical ids `logical_pages + s`, so GC moves them and the oracle checks them.
//! Not modelled: the controller's XOR engine beyond a fixed `timing.xor_ns`.

use crate::nand::Geometry;
use crate::units::{Lpn, PlaneId};

#[derive(Clone, Debug)]
pub struct Rain {
    /// Stripe width N (= channels).
    pub width: u32,
    planes_per_channel: u32,
    /// Host-visible logical pages (parity ids start here).
    pub data_pages: u32,
    pub stripes: u32,
}

impl Rain {
    pub fn new(geo: &Geometry, data_pages: u32) -> Result<Rain, String> {
        if geo.channels < 3 {
            return Err(format!("RAIN needs at least 3 channels (got {})", geo.channels));
        }
        let width = geo.channels;
        Ok(Rain { width, planes_per_channel: geo.planes_per_channel(), data_pages, stripes: data_pages.div_ceil(width - 1) })
    }

    /// Host capacity left once one page in N holds parity.
    pub fn data_capacity(logical_pages: u32, channels: u32) -> u32 {
        (logical_pages as u64 * (channels as u64 - 1) / channels as u64) as u32
    }

    #[inline]
    pub fn stripe_of(&self, lpn: u32) -> u32 {
        lpn / (self.width - 1)
    }
    #[inline]
    pub fn parity_id(&self, stripe: u32) -> u32 {
        self.data_pages + stripe
    }
    #[inline]
    pub fn is_parity(&self, id: u32) -> bool {
        id >= self.data_pages
    }
    #[inline]
    fn group_of_stripe(&self, stripe: u32) -> u32 {
        stripe % self.planes_per_channel
    }
    #[inline]
    fn plane_at(&self, channel: u32, group: u32) -> PlaneId {
        PlaneId(channel * self.planes_per_channel + group)
    }
    /// Plane group (stripe group) of a plane: planes at the same position on every channel.
    #[inline]
    pub fn group_of_plane(&self, plane: PlaneId) -> u32 {
        plane.0 % self.planes_per_channel
    }
    #[inline]
    pub fn parity_channel(&self, stripe: u32) -> u32 {
        (stripe / self.planes_per_channel) % self.width
    }

    /// Plane of a data page or a parity id.
    #[inline]
    pub fn plane_of(&self, id: u32) -> PlaneId {
        if self.is_parity(id) {
            let s = id - self.data_pages;
            return self.plane_at(self.parity_channel(s), self.group_of_stripe(s));
        }
        let s = self.stripe_of(id);
        let i = id % (self.width - 1);
        let pc = self.parity_channel(s);
        let ch = if i >= pc { i + 1 } else { i };
        self.plane_at(ch, self.group_of_stripe(s))
    }

    /// The data pages of stripe `s` (the last stripe may be short).
    #[inline]
    pub fn data_members(&self, s: u32) -> std::ops::Range<u32> {
        let first = s * (self.width - 1);
        first..(first + self.width - 1).min(self.data_pages)
    }

    /// Every other member of `lpn`'s stripe (data pages that exist, then the parity id).
    pub fn other_members(&self, lpn: u32) -> impl Iterator<Item = u32> + '_ {
        let s = self.stripe_of(lpn);
        self.data_members(s).filter(move |&l| l != lpn).chain(std::iter::once(self.parity_id(s)))
    }

    /// The planes of a plane group, one per channel.
    pub fn group_planes(&self, group: u32) -> impl Iterator<Item = PlaneId> + '_ {
        (0..self.width).map(move |ch| self.plane_at(ch, group))
    }

    pub fn lpn_plane(&self, lpn: Lpn) -> PlaneId {
        self.plane_of(lpn.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::presets;

    #[test]
    fn stripe_members_are_on_distinct_channels_of_one_group() {
        let dev = presets::load("ttflash").unwrap();
        let g = &dev.geometry;
        let r = Rain::new(g, 7 * 1000).unwrap();
        for lpn in [0u32, 6, 7, 13, 4242, 6999] {
            let mut chans: Vec<u32> = r.other_members(lpn).chain(std::iter::once(lpn)).map(|m| g.channel_of(r.plane_of(m)).0).collect();
            let groups: Vec<u32> = r.other_members(lpn).map(|m| r.group_of_plane(r.plane_of(m))).collect();
            assert!(groups.iter().all(|&x| x == r.group_of_plane(r.plane_of(lpn))));
            chans.sort();
            assert_eq!(chans, (0..8).collect::<Vec<_>>(), "lpn {lpn}");
        }
        // Parity rotates among the stripes of a group: stripes 0, 8, 16 (group 0) put their
        // parity on channels 0, 1, 2; every plane holds the same share of parity.
        assert_eq!(g.channel_of(r.plane_of(r.parity_id(0))).0, 0);
        assert_eq!(g.channel_of(r.plane_of(r.parity_id(8))).0, 1);
        assert_eq!(g.channel_of(r.plane_of(r.parity_id(16))).0, 2);
        let mut per_plane = vec![0u32; g.planes() as usize];
        for s in 0..64 * 8 {
            per_plane[r.plane_of(r.parity_id(s)).idx()] += 1;
        }
        assert!(per_plane.iter().all(|&c| c == 8), "{per_plane:?}");
        // Data page 0 of stripe 0 is shifted past the parity channel.
        assert_eq!(g.channel_of(r.plane_of(0)).0, 1);
        assert_eq!(Rain::data_capacity(800, 8), 700);
    }
}
