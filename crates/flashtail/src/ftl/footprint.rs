//! The replay's footprint: which host logical pages a request stream touches, and which of
//! them it reads before it writes them. Found by one pass over a fresh copy of the stream
//! before the run, so preconditioning can write those pages first, as MQSim's and SSDsim's
//! preconditioning do (`ftl::precondition`, model `workload`; the `aged` model writes the
//! pages read first).
//!
//! Pages are numbered as the engine numbers them (`offset / page_size`, wrapped into the
//! host's logical pages), so the footprint names exactly the pages the run will address.
//! Does not look at content: a content-aware scheme's deduplication happens in the run.

use crate::config::FootprintFill;
use crate::host::{Extent, HostRequest, Op, RequestSource, SourceError};

/// Two bitsets over the host's logical pages.
#[derive(Clone, Debug)]
pub struct Footprint {
    pages: u32,
    /// Pages read or written.
    touched: Vec<u64>,
    /// Pages read before any write to them in the stream.
    read_first: Vec<u64>,
    /// Requests scanned.
    pub requests: u64,
}

impl Footprint {
    /// An empty footprint over `pages` logical pages.
    pub fn empty(pages: u32) -> Footprint {
        let words = (pages as usize).div_ceil(64);
        Footprint { pages, touched: vec![0; words], read_first: vec![0; words], requests: 0 }
    }

    /// Read `src` to its end and note every page it touches. `pages` is the host's logical
    /// page count (the engine wraps into it) and `page_size` its page in bytes.
    pub fn scan(src: &mut dyn RequestSource, pages: u32, page_size: u32) -> Result<Footprint, SourceError> {
        let mut f = Footprint::empty(pages);
        f.scan_rest(src, page_size)?;
        Ok(f)
    }

    /// Read the rest of `src` into this footprint (after a [`Noting`] pass over its start).
    /// The requests come as extents ([`RequestSource::for_each_extent`]): a recorded input
    /// hands them straight from memory.
    pub fn scan_rest(&mut self, src: &mut dyn RequestSource, page_size: u32) -> Result<(), SourceError> {
        src.for_each_extent(u64::MAX, &mut |batch| {
            for &e in batch {
                self.note_extent(e, page_size);
            }
        })?;
        Ok(())
    }

    /// Note every page one request touches, a 64-page word at a time.
    #[inline]
    fn note_extent(&mut self, r: Extent, page_size: u32) {
        let (lp, ps) = (self.pages as u64, page_size as u64);
        self.requests += 1;
        // A power of two, tested without `is_power_of_two` (a software popcount on a
        // baseline x86_64 build).
        let (first, last) = if ps & ps.wrapping_sub(1) == 0 && ps != 0 {
            let sh = ps.trailing_zeros();
            (r.offset >> sh, (r.offset + r.size.max(1) - 1) >> sh)
        } else {
            (r.offset / ps, (r.offset + r.size.max(1) - 1) / ps)
        };
        // A request longer than the logical space touches every page once.
        let mut left = last.min(first + lp - 1) - first + 1;
        // At most one division for the request (none when it starts inside the logical
        // space); its further pages count on and wrap.
        let mut page = if first < lp { first } else { first % lp };
        let read = r.op == Op::Read;
        while left > 0 {
            // The pages from `page` on within its word, before the wrap.
            let bit = page % 64;
            let n = left.min(64 - bit).min(lp - page);
            let mask = if n == 64 { u64::MAX } else { ((1u64 << n) - 1) << bit };
            self.note_word((page / 64) as usize, mask, read);
            page += n;
            if page == lp {
                page = 0;
            }
            left -= n;
        }
    }

    /// Note the pages `mask` selects in word `w` (pages of one request: distinct), in
    /// stream order: those not seen before are touched, and read first when `read`.
    /// Without a branch: whether a page is new, and whether a request reads, are as good
    /// as random, and the mispredictions cost more than updating both words every time.
    /// The pages are counted at the end (`count`), not here: two bit counts per word (in
    /// software on a baseline x86_64 build) were a third of this pass's instructions.
    #[inline]
    fn note_word(&mut self, w: usize, mask: u64, read: bool) {
        let fresh = mask & !self.touched[w];
        self.touched[w] |= fresh;
        let reads = u64::from(read).wrapping_neg();
        self.read_first[w] |= fresh & reads;
    }

    /// Logical pages the footprint spans.
    pub fn pages(&self) -> u32 {
        self.pages
    }

    /// Whether preconditioning under `fill` writes page `lpn` first.
    #[inline]
    pub fn holds(&self, fill: FootprintFill, lpn: u32) -> bool {
        self.word(fill, lpn as usize / 64) >> (lpn % 64) & 1 == 1
    }

    /// The 64 pages from `64 * w` on that preconditioning under `fill` writes first, as
    /// the bits of one word (page `64 * w + j` is bit `j`).
    #[inline]
    pub fn word(&self, fill: FootprintFill, w: usize) -> u64 {
        match fill {
            FootprintFill::Touched => self.touched.get(w).copied().unwrap_or(0),
            FootprintFill::Reads => self.read_first.get(w).copied().unwrap_or(0),
            FootprintFill::None => 0,
        }
    }

    /// How many pages `fill` writes first.
    pub fn count(&self, fill: FootprintFill) -> u64 {
        use super::mapping::ones;
        match fill {
            FootprintFill::Touched => ones(&self.touched),
            FootprintFill::Reads => ones(&self.read_first),
            FootprintFill::None => 0,
        }
    }
}

/// A source that passes requests on and notes each in a footprint, so another pass over the
/// input (the plausibility checks) builds the footprint as it goes; [`Footprint::scan_rest`]
/// then reads what that pass left.
pub struct Noting<'a> {
    pub src: &'a mut dyn RequestSource,
    pub footprint: &'a mut Footprint,
    pub page_size: u32,
    /// The source failed while read through this one: the footprint is incomplete.
    pub failed: bool,
}

impl RequestSource for Noting<'_> {
    fn next_request(&mut self) -> Result<Option<HostRequest>, SourceError> {
        let r = self.src.next_request().inspect_err(|_| self.failed = true)?;
        if let Some(r) = &r {
            self.footprint.note_extent(Extent::of(r), self.page_size);
        }
        Ok(r)
    }
    fn for_each_extent(&mut self, limit: u64, f: &mut dyn FnMut(&[Extent])) -> Result<u64, SourceError> {
        let (footprint, page_size) = (&mut *self.footprint, self.page_size);
        let n = self.src.for_each_extent(limit, &mut |batch| {
            for &e in batch {
                footprint.note_extent(e, page_size);
            }
            f(batch)
        });
        n.inspect_err(|_| self.failed = true)
    }
    fn describe(&self) -> String {
        self.src.describe()
    }
    // The plausibility checks read the format from the summary notes.
    fn summary(&self) -> Vec<(String, String)> {
        self.src.summary()
    }
    fn empty_reason(&self) -> Option<String> {
        self.src.empty_reason()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::host::{HostRequest, VecSource};
    use crate::units::Nanos;

    #[test]
    fn reads_before_writes_are_told_apart_and_pages_wrap() {
        let reqs = vec![
            HostRequest::new(Nanos(0), 0, 8192, Op::Write),        // pages 0, 1 written
            HostRequest::new(Nanos(1), 4096, 8192, Op::Read),      // 1 (written), 2 read first
            HostRequest::new(Nanos(2), 10 * 4096, 4096, Op::Read), // page 10 wraps to 2 (already seen)
            HostRequest::new(Nanos(3), 5 * 4096, 4096, Op::Write), // 5 written
            HostRequest::new(Nanos(4), 5 * 4096, 4096, Op::Read),  // 5: written before
            HostRequest::new(Nanos(5), 7 * 4096, 100, Op::Read),   // 7 read first
        ];
        let f = Footprint::scan(&mut VecSource::new(reqs), 8, 4096).unwrap();
        assert_eq!((f.count(FootprintFill::Touched), f.count(FootprintFill::Reads), f.requests), (5, 2, 6));
        let touched: Vec<u32> = (0..8).filter(|&l| f.holds(FootprintFill::Touched, l)).collect();
        let reads: Vec<u32> = (0..8).filter(|&l| f.holds(FootprintFill::Reads, l)).collect();
        assert_eq!((touched, reads), (vec![0, 1, 2, 5, 7], vec![2, 7]));
        assert!(!(0..8).any(|l| f.holds(FootprintFill::None, l)));
    }

    #[test]
    fn a_noting_pass_and_the_rest_give_the_footprint_of_one_scan() {
        let reqs: Vec<HostRequest> =
            (0..50u64).map(|i| HostRequest::new(Nanos(i), (i * 7 % 23) * 4096, 4096 * (1 + i % 3), if i % 4 == 0 { Op::Write } else { Op::Read })).collect();
        let whole = Footprint::scan(&mut VecSource::new(reqs.clone()), 16, 4096).unwrap();
        let mut src = VecSource::new(reqs);
        let mut f = Footprint::empty(16);
        let mut noting = Noting { src: &mut src, footprint: &mut f, page_size: 4096, failed: false };
        for _ in 0..20 {
            noting.next_request().unwrap();
        }
        let mut seen = 0;
        assert_eq!(noting.for_each_extent(10, &mut |b| seen += b.len()).unwrap(), 10);
        assert_eq!(seen, 10);
        f.scan_rest(&mut src, 4096).unwrap();
        assert_eq!((&f.touched, &f.read_first, f.requests), (&whole.touched, &whole.read_first, 50));
    }

    /// Word-at-a-time noting gives the bitsets and counts of noting page by page, on
    /// requests across word boundaries and the wrap, over a space of no whole words.
    #[test]
    fn words_at_a_time_match_page_by_page() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(5);
        let pages = 1000u32;
        let reqs: Vec<HostRequest> = (0..3000u64)
            .map(|i| {
                let op = if rng.gen_bool(0.5) { Op::Read } else { Op::Write };
                HostRequest::new(Nanos(i), rng.gen_range(0..1200u64) * 4096 + rng.gen_range(0..4096), rng.gen_range(1..300u64) * 1024, op)
            })
            .collect();
        let f = Footprint::scan(&mut VecSource::new(reqs.clone()), pages, 4096).unwrap();
        let (mut touched, mut read_first) = (vec![false; pages as usize], vec![false; pages as usize]);
        for r in &reqs {
            let (first, last) = (r.offset / 4096, (r.offset + r.size - 1) / 4096);
            for p in first..=last.min(first + u64::from(pages) - 1) {
                let p = (p % u64::from(pages)) as usize;
                if !touched[p] {
                    touched[p] = true;
                    read_first[p] = r.op == Op::Read;
                }
            }
        }
        let count = |v: &[bool]| v.iter().filter(|x| **x).count() as u64;
        assert_eq!((f.count(FootprintFill::Touched), f.count(FootprintFill::Reads)), (count(&touched), count(&read_first)));
        for p in 0..pages {
            assert_eq!(f.holds(FootprintFill::Touched, p), touched[p as usize], "page {p}");
            assert_eq!(f.holds(FootprintFill::Reads, p), read_first[p as usize], "page {p}");
            assert!(!f.holds(FootprintFill::None, p), "page {p}");
        }
        assert_eq!(f.word(FootprintFill::Touched, pages as usize), 0, "past the end");
        let (t, r) = (f.count(FootprintFill::Touched), f.count(FootprintFill::Reads));
        assert!(t > 900 && r > 300, "{t} {r}");
    }

    #[test]
    fn a_request_longer_than_the_device_touches_each_page_once() {
        let reqs = vec![HostRequest::new(Nanos(0), 4096, 100 * 4096, Op::Read)];
        let f = Footprint::scan(&mut VecSource::new(reqs), 10, 4096).unwrap();
        assert_eq!((f.count(FootprintFill::Touched), f.count(FootprintFill::Reads)), (10, 10));
    }
}
