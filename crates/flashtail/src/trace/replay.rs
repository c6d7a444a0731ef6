//! Replay controls as an adapter over any request source: time window, time scale, loops,
//! page alignment and LBA wrap into the simulated logical capacity.
//!
//! Order per request: window filter (trace seconds, start inclusive, end exclusive) → shift so
//! the window starts at 0 → loop shift in time and address → time scale → alignment → wrap.
//! Without wrap, a request reaching beyond the logical capacity is dropped and counted: the
//! device has no such address, and folding it anyway (as the engine would) is what
//! `--no-wrap` asks not to do.
//! Loops replay the windowed slice again: loop k starts one slice period after loop k-1
//! (period = the slice's last arrival + its mean inter-arrival gap, so the seam looks like an
//! ordinary gap) and is moved by k × loop offset bytes so loops do not simply overwrite the
//! same pages. Looping keeps the windowed slice in memory (slices are what one loops); with
//! one loop nothing is buffered. What it does not do: change read/write mix or sizes.

use crate::host::{Extent, HostRequest, RequestSource, SourceError};
use crate::units::Fingerprint;
use crate::units::Nanos;

/// Replay controls; `Default` replays the trace unchanged apart from wrap and alignment.
#[derive(Clone, Debug, PartialEq)]
pub struct ReplayOptions {
    /// Speed-up factor: 2.0 replays twice as fast (arrival times halved).
    pub time_scale: f64,
    /// Window start in seconds after the trace's first request (inclusive).
    pub start_s: Option<f64>,
    /// Window end in seconds after the trace's first request (exclusive).
    pub end_s: Option<f64>,
    /// Number of passes over the (windowed) slice, ≥ 1.
    pub loops: u32,
    /// Address shift per loop in bytes; `None`: the slice's highest end offset rounded up to
    /// a page, so loop k occupies fresh addresses (before wrapping).
    pub loop_offset: Option<u64>,
    /// Fold offsets into the logical capacity (else drop the requests that reach beyond it
    /// and count them).
    pub wrap: bool,
    /// Round offsets down and ends up to the page size.
    pub align: bool,
}

impl Default for ReplayOptions {
    fn default() -> ReplayOptions {
        ReplayOptions {
            time_scale: 1.0,
            start_s: None,
            end_s: None,
            loops: 1,
            loop_offset: None,
            wrap: true,
            align: true,
        }
    }
}

#[derive(Default, Debug, Clone, PartialEq, Eq)]
pub struct ReplayCounters {
    pub before_window: u64,
    pub emitted: u64,
    pub wrapped: u64,
    pub truncated: u64,
    pub realigned: u64,
    /// Requests dropped without wrap because they reach beyond the capacity.
    pub beyond_capacity: u64,
    /// Requests taken from the source (before the window), to tell why none came out.
    pub pulled: u64,
}

pub struct Replay<S: RequestSource> {
    src: S,
    st: State,
}

/// Everything of a replay but its source, so a request can be shaped while the source is
/// handing it over ([`RequestSource::for_each_request`]).
struct State {
    opts: ReplayOptions,
    capacity: u64,
    page: u64,
    /// The window in ns of the trace clock (from its first request): start, end.
    start: u64,
    end: Option<u64>,
    /// The windowed first pass, kept only when looping.
    slice: Vec<HostRequest>,
    first_pass_done: bool,
    loop_k: u32,
    pos: usize,
    max_end: u64,
    last_rel: u64,
    period: u64,
    counters: ReplayCounters,
}

impl<S: RequestSource> Replay<S> {
    pub fn new(src: S, opts: ReplayOptions, logical_capacity_bytes: u64, page_size: u64) -> Self {
        let page = page_size.max(1);
        let capacity = if opts.align {
            logical_capacity_bytes / page * page
        } else {
            logical_capacity_bytes
        };
        let start = opts.start_s.map_or(0, |s| (s.max(0.0) * 1e9).round() as u64);
        let end = opts.end_s.map(|e| (e.max(0.0) * 1e9).round() as u64);
        let st = State {
            opts,
            capacity,
            page,
            start,
            end,
            slice: Vec::new(),
            first_pass_done: false,
            loop_k: 0,
            pos: 0,
            max_end: 0,
            last_rel: 0,
            period: 0,
            counters: ReplayCounters::default(),
        };
        Replay { src, st }
    }

    /// The next request of the first pass, window-filtered and shifted to start at 0.
    fn next_in_window(&mut self) -> Result<Option<HostRequest>, SourceError> {
        loop {
            let Some(mut r) = self.src.next_request()? else {
                return Ok(None);
            };
            match self.st.window(r.arrival) {
                Windowed::Before => continue,
                Windowed::In(t) => {
                    r.arrival = t;
                    return Ok(Some(r));
                }
                Windowed::After => return Ok(None),
            }
        }
    }
}

/// Where a request of the first pass falls against the window.
enum Windowed {
    Before,
    /// In it: the arrival shifted so the window starts at 0.
    In(Nanos),
    After,
}

impl State {
    /// A request of the first pass against the window (counted as pulled).
    #[inline]
    fn window(&mut self, arrival: Nanos) -> Windowed {
        self.counters.pulled += 1;
        if arrival.0 < self.start {
            self.counters.before_window += 1;
            return Windowed::Before;
        }
        if self.end.is_some_and(|e| arrival.0 >= e) {
            return Windowed::After;
        }
        Windowed::In(Nanos(arrival.0 - self.start))
    }

    /// A windowed request of the first pass: noted, kept when looping, and shaped (`None`:
    /// dropped).
    #[inline]
    fn first_pass(&mut self, r: HostRequest) -> Option<HostRequest> {
        if self.opts.loops > 1 {
            self.slice.push(r.clone());
        }
        let mut e = Extent::of(&r);
        self.first_pass_extent(&mut e).then(|| HostRequest { arrival: e.arrival, offset: e.offset, size: e.size, ..r })
    }

    /// A windowed request of the first pass, as its extent: noted and shaped (`false`:
    /// dropped). The caller keeps it for the loops.
    #[inline]
    fn first_pass_extent(&mut self, e: &mut Extent) -> bool {
        self.max_end = self.max_end.max(e.offset.saturating_add(e.size));
        self.last_rel = e.arrival.0;
        self.shape(e, 0)
    }

    /// The first pass is over: the loops' period and address shift.
    fn end_first_pass(&mut self) -> Result<(), SourceError> {
        self.first_pass_done = true;
        let n = self.slice.len() as u64;
        let gap = if n > 1 { self.last_rel / (n - 1) } else { 1_000_000 };
        self.period = self.last_rel + gap.max(1);
        self.loop_k = 1;
        self.pos = 0;
        self.check_loop_shift()
    }

    fn loop_offset(&self) -> u64 {
        self.opts
            .loop_offset
            .unwrap_or_else(|| self.max_end.div_ceil(self.page) * self.page)
    }

    /// The last loop's address shift must keep the slice's offsets within 64 bits: they
    /// saturated, and every request of the later loops landed on the same last page.
    fn check_loop_shift(&self) -> Result<(), SourceError> {
        if self.opts.loops < 2 || self.slice.is_empty() {
            return Ok(());
        }
        let last = u64::from(self.opts.loops - 1);
        let shift = self.loop_offset().checked_mul(last);
        if shift.and_then(|s| s.checked_add(self.max_end)).is_some() {
            return Ok(());
        }
        Err(SourceError {
            location: format!("--loops {}", self.opts.loops),
            message: format!(
                "loop {last} would shift the slice (offsets up to {} bytes) by {last} x {} bytes, \
                 beyond 64-bit byte offsets: use fewer --loops or a smaller --loop-offset",
                self.max_end,
                self.loop_offset()
            ),
        })
    }

    /// Applies loop shift, scale, alignment and wrap; `false` when the request is dropped
    /// (beyond the capacity without wrap).
    #[inline]
    fn shape(&mut self, r: &mut Extent, k: u32) -> bool {
        // Loop k's shifts in time and address (none for the first pass).
        let (t, shift) = match u64::from(k) {
            0 => (r.arrival.0, 0),
            k => (r.arrival.0.saturating_add(self.period.saturating_mul(k)), self.loop_offset().saturating_mul(k)),
        };
        let scale = if self.opts.time_scale > 0.0 {
            self.opts.time_scale
        } else {
            1.0
        };
        // At scale 1 a time below 2^53 ns is exact in an f64: it stays as it is.
        r.arrival = if scale == 1.0 && t < 1 << 53 { Nanos(t) } else { Nanos((t as f64 / scale).round() as u64) };
        r.offset = r.offset.saturating_add(shift);
        if self.opts.align {
            let off = round_down(r.offset, self.page);
            let end = round_up(r.offset.saturating_add(r.size), self.page);
            if off != r.offset || end - off != r.size {
                self.counters.realigned += 1;
            }
            r.offset = off;
            r.size = (end - off).max(self.page);
        }
        let end = r.offset.saturating_add(r.size);
        if self.capacity > 0 && end > self.capacity {
            if self.opts.wrap {
                self.counters.wrapped += 1;
                if r.size > self.capacity {
                    self.counters.truncated += 1;
                    r.size = self.capacity;
                }
                r.offset %= self.capacity;
                if r.offset + r.size > self.capacity {
                    r.offset = self.capacity - r.size;
                }
            } else {
                self.counters.beyond_capacity += 1;
                return false;
            }
        }
        self.counters.emitted += 1;
        true
    }
}

impl<S: RequestSource> RequestSource for Replay<S> {
    fn next_request(&mut self) -> Result<Option<HostRequest>, SourceError> {
        while !self.st.first_pass_done {
            match self.next_in_window()? {
                Some(r) => {
                    if let Some(r) = self.st.first_pass(r) {
                        return Ok(Some(r));
                    }
                }
                None => self.st.end_first_pass()?,
            }
        }
        let st = &mut self.st;
        while st.loop_k < st.opts.loops && !st.slice.is_empty() {
            if st.pos < st.slice.len() {
                let mut e = Extent::of(&st.slice[st.pos]);
                st.pos += 1;
                if st.shape(&mut e, st.loop_k) {
                    let r = &st.slice[st.pos - 1];
                    return Ok(Some(HostRequest { arrival: e.arrival, offset: e.offset, size: e.size, op: r.op, fingerprints: r.fingerprints.clone() }));
                }
                continue;
            }
            st.loop_k += 1;
            st.pos = 0;
        }
        Ok(None)
    }

    /// The first pass straight through the source's own `for_each_request`, each request
    /// shaped as it comes (without loops: with them, the first pass is kept as requests and
    /// goes through `next_request`); the loops after it as `next_request` gives them.
    fn for_each_request(&mut self, f: &mut dyn FnMut(&mut Extent, &[Fingerprint]) -> bool) -> Result<(), SourceError> {
        if !self.st.first_pass_done && self.st.opts.loops <= 1 {
            let st = &mut self.st;
            // The source stopped because `f` is done (else it ended, or the window did).
            let mut done = false;
            self.src.for_each_request(&mut |e, fps| match st.window(e.arrival) {
                Windowed::Before => true,
                Windowed::After => false,
                Windowed::In(t) => {
                    e.arrival = t;
                    done = st.first_pass_extent(e) && !f(e, fps);
                    !done
                }
            })?;
            if done {
                return Ok(());
            }
            self.st.end_first_pass()?;
        }
        while let Some(r) = self.next_request()? {
            if !f(&mut Extent::of(&r), &r.fingerprints) {
                break;
            }
        }
        Ok(())
    }

    fn describe(&self) -> String {
        self.src.describe()
    }

    fn empty_reason(&self) -> Option<String> {
        let c = &self.st.counters;
        if c.emitted > 0 {
            None
        } else if c.pulled == 0 {
            self.src.empty_reason()
        } else if c.beyond_capacity > 0 {
            Some(format!(
                "every request reaches beyond the logical capacity ({} bytes) and --no-wrap \
                 drops such requests ({} dropped)",
                self.st.capacity, c.beyond_capacity
            ))
        } else {
            // The source had requests and none was dropped: the window held none of them.
            let o = &self.st.opts;
            let win = |x: Option<f64>| x.map_or(String::new(), |s| format!("{s}"));
            Some(format!(
                "no request in --window {}:{} ({} requests before its start)",
                win(o.start_s),
                win(o.end_s),
                c.before_window
            ))
        }
    }

    fn summary(&self) -> Vec<(String, String)> {
        let mut v = self.src.summary();
        let o = &self.st.opts;
        let c = &self.st.counters;
        let win = |x: Option<f64>| x.map_or("-".to_string(), short);
        v.push(("replay_time_scale".into(), short(o.time_scale)));
        v.push((
            "replay_window_s".into(),
            format!("{}:{}", win(o.start_s), win(o.end_s)),
        ));
        v.push((
            "replay_skipped_before_window".into(),
            c.before_window.to_string(),
        ));
        v.push(("replay_loops".into(), o.loops.to_string()));
        if o.loops > 1 {
            v.push(("replay_loop_period_ns".into(), self.st.period.to_string()));
            v.push((
                "replay_loop_offset_bytes".into(),
                self.st.loop_offset().to_string(),
            ));
        }
        v.push((
            "replay_align_bytes".into(),
            if o.align {
                self.st.page.to_string()
            } else {
                "off".into()
            },
        ));
        v.push(("replay_realigned".into(), c.realigned.to_string()));
        v.push((
            "replay_wrap_capacity_bytes".into(),
            if o.wrap {
                self.st.capacity.to_string()
            } else {
                "off".into()
            },
        ));
        v.push(("replay_wrapped".into(), c.wrapped.to_string()));
        v.push((
            "replay_truncated_to_capacity".into(),
            c.truncated.to_string(),
        ));
        if !o.wrap {
            v.push((
                "replay_beyond_capacity".into(),
                c.beyond_capacity.to_string(),
            ));
        }
        v.push(("replay_requests".into(), c.emitted.to_string()));
        v
    }
}

/// A replay option as the notes print it: plainly in the usual range, in scientific notation
/// beyond it (`--time-scale 1e300` printed 301 digits).
fn short(x: f64) -> String {
    if x == 0.0 || (1e-6..1e15).contains(&x.abs()) {
        format!("{x}")
    } else {
        format!("{x:e}")
    }
}

/// Whether `x` is a power of two (`is_power_of_two` is a software popcount on a baseline
/// x86_64 build).
#[inline]
fn pow2(x: u64) -> bool {
    x & x.wrapping_sub(1) == 0 && x != 0
}

/// `x` rounded down to a multiple of `page` (a mask for a power of two: no division).
#[inline]
fn round_down(x: u64, page: u64) -> u64 {
    if pow2(page) {
        x & !(page - 1)
    } else {
        x / page * page
    }
}

/// `x` rounded up to a multiple of `page`, saturating at the largest one below 2^64.
#[inline]
fn round_up(x: u64, page: u64) -> u64 {
    if pow2(page) {
        ((x >> page.trailing_zeros()) + u64::from(x & (page - 1) != 0)).saturating_mul(page)
    } else {
        x.div_ceil(page).saturating_mul(page)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::host::{Fingerprints, Op, VecSource};

    fn requests() -> Vec<HostRequest> {
        (0..200u64)
            .map(|i| {
                let mut r = HostRequest::new(Nanos(i * 7_000_000), (i * 37 % 101) * 3000, 512 + (i % 9) * 2048, if i % 4 == 0 { Op::Write } else { Op::Read });
                if i % 5 == 0 {
                    r.fingerprints = Fingerprints::from_slice(&[i, i + 1]);
                }
                r
            })
            .collect()
    }


    /// Handed over in bulk or one by one, a replay gives the same requests and notes: with a
    /// window, time scale, wrap or drops, and loops, stopped part way or not.
    #[test]
    fn bulk_and_one_by_one_replays_agree() {
        let window = ReplayOptions { start_s: Some(0.1), end_s: Some(1.2), time_scale: 2.0, ..ReplayOptions::default() };
        let no_wrap = ReplayOptions { wrap: false, align: false, ..ReplayOptions::default() };
        let loops = ReplayOptions { loops: 3, end_s: Some(0.5), ..ReplayOptions::default() };
        for opts in [ReplayOptions::default(), window, no_wrap, loops] {
            let mut one = Replay::new(VecSource::new(requests()), opts.clone(), 200_000, 4096);
            let mut want = Vec::new();
            while let Some(q) = one.next_request().unwrap() {
                want.push((Extent::of(&q), q.fingerprints.to_vec()));
            }
            assert!(want.len() > 20, "{opts:?}");
            for stop in [usize::MAX, 1, 17] {
                let mut r = Replay::new(VecSource::new(requests()), opts.clone(), 200_000, 4096);
                let got = crate::host::request::bulk_then_one_by_one(&mut r, stop);
                assert_eq!(got, want, "{opts:?}, stop {stop}");
                assert_eq!(r.summary(), one.summary(), "{opts:?}, stop {stop}");
            }
        }
    }

    #[test]
    fn page_rounding_with_and_without_division_agree() {
        for page in [1u64, 512, 4096, 16384, 3000] {
            for x in [0u64, 1, 511, 512, 4095, 4096, 4097, 123_456_789, u64::MAX - 5000, u64::MAX - 1, u64::MAX] {
                assert_eq!(round_down(x, page), x / page * page, "{x} {page}");
                assert_eq!(round_up(x, page), x.div_ceil(page).saturating_mul(page), "{x} {page}");
            }
        }
    }

    #[test]
    fn notes_print_extreme_scales_briefly() {
        assert_eq!(super::short(2.0), "2");
        assert_eq!(super::short(0.25), "0.25");
        assert_eq!(super::short(1e300), "1e300");
        assert_eq!(super::short(1e-9), "1e-9");
    }
}
