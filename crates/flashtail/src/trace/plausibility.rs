//! Plausibility checks before a run: request sizes, span and arrival rate that suggest a
//! trace was read in the wrong unit or format, each with the likely cause and the option that
//! fixes it.
//!
//! A bounded scan ([`scan`], at most [`SCAN_REQUESTS`] requests of a freshly opened,
//! replayed source) gathers sizes, bytes and times; [`check`] turns them into [`Finding`]s.
//! The checks and their thresholds:
//!
//! - `size`: a median request of [`HUGE_MEDIAN_BYTES`] or more (tens of MiB; real block
//!   traces have medians of 4-128 KiB): a size column in bytes read as sectors or pages.
//! - `unit`: the reader's own note that a five-column file's values look like bytes while a
//!   sector layout reads them (`format_unit_warning`).
//! - `span`: a span of a day or more at under one request per second for fewer than
//!   [`FEW_REQUESTS`] requests: a time column in a finer unit than assumed.
//! - `time_unit`: a format whose time unit is a reader option (ssdsim, mqsim, flashsim,
//!   linnos), read in its default unit, at under [`SLOW_RATE_PER_S`] requests/s over more than
//!   an hour: the DTRS slice's raw values are 100 x ns, and read as ns it became a 30,000 s
//!   trace at 4.2 requests/s.
//! - `saturation`: the scanned requests ask for more than [`SATURATION_FACTOR`] times the
//!   flash time the device has in the scanned span, at full parallelism: a time column in a
//!   coarser unit than assumed, or a trace meant to be replayed slower.
//!
//! What it does not do: print (the CLI does), or stop a run (`--strict` makes the CLI refuse
//! on any finding). A generated workload is not checked.

use crate::config::DeviceConfig;
use crate::host::{Op, RequestSource, SourceError};

/// Most requests a scan reads.
pub const SCAN_REQUESTS: u64 = 1_000_000;
/// A median request size at or above this is implausible for a block trace (8 MiB).
pub const HUGE_MEDIAN_BYTES: u64 = 8 << 20;
/// A trace of fewer requests than this spanning a day or more is implausible.
pub const FEW_REQUESTS: u64 = 100_000;
/// Below this mean rate (requests/s) over more than an hour, the default time unit of an
/// ASCII layout is suspect.
pub const SLOW_RATE_PER_S: f64 = 10.0;
/// Offered flash time above this many times the device's is implausible.
pub const SATURATION_FACTOR: f64 = 100.0;

const DAY_NS: u64 = 86_400_000_000_000;
const HOUR_NS: u64 = 3_600_000_000_000;

/// What a scan saw.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Scan {
    pub requests: u64,
    /// The scan reached the end of the source (not [`SCAN_REQUESTS`]).
    pub complete: bool,
    pub first_ns: u64,
    pub last_ns: u64,
    pub read_bytes: u64,
    pub write_bytes: u64,
    /// Requests by size class: `size_log2[k]` counts sizes in [2^k, 2^(k+1)).
    pub size_log2: Vec<u64>,
    /// The source's format (its `format` note), if it is a trace.
    pub format: Option<String>,
    /// The reader's warning on the unit of the size/offset columns, if any.
    pub unit_warning: Option<String>,
}

impl Scan {
    /// Lower bound of the median request size (the power of two below it).
    pub fn median_size_floor(&self) -> u64 {
        let mut seen = 0;
        for (k, n) in self.size_log2.iter().enumerate() {
            seen += n;
            if seen * 2 >= self.requests && self.requests > 0 {
                return if k == 0 { 0 } else { 1u64 << k };
            }
        }
        0
    }

    pub fn span_ns(&self) -> u64 {
        self.last_ns.saturating_sub(self.first_ns)
    }

    /// Mean requests per second over the span (0 for a span of 0).
    pub fn rate_per_s(&self) -> f64 {
        match self.span_ns() {
            0 => 0.0,
            s => self.requests as f64 / (s as f64 / 1e9),
        }
    }
}

/// Reads up to `limit` requests of `src` (as extents: a recorded input hands them straight
/// from memory).
pub fn scan(src: &mut dyn RequestSource, limit: u64) -> Result<Scan, SourceError> {
    let mut s = Scan::default();
    let mut size_log2 = [0u64; 64];
    let n = src.for_each_extent(limit, &mut |batch| {
        for r in batch {
            if s.requests == 0 {
                s.first_ns = r.arrival.0;
            }
            s.last_ns = s.last_ns.max(r.arrival.0);
            s.requests += 1;
            match r.op {
                Op::Read => s.read_bytes = s.read_bytes.saturating_add(r.size),
                Op::Write => s.write_bytes = s.write_bytes.saturating_add(r.size),
            }
            size_log2[(63 - r.size.max(1).leading_zeros()) as usize] += 1;
        }
    })?;
    s.complete = n < limit;
    s.size_log2 = size_log2.to_vec();
    for (k, v) in src.summary() {
        match k.as_str() {
            "format" => s.format = Some(v),
            "format_unit_warning" => s.unit_warning = Some(v),
            _ => {}
        }
    }
    Ok(s)
}

/// What the checks need to know besides the scan.
#[derive(Clone, Debug, Default)]
pub struct Context {
    /// The time unit was given (`--time-unit`, or fixed, as for the bundled slice).
    pub time_unit_given: bool,
}

/// The device's flash service capacity, for the saturation check.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DeviceLimits {
    pub planes: u64,
    pub channels: u64,
    pub page_size: u64,
    pub read_ns: u64,
    pub program_ns: u64,
    /// Channel time per page transferred.
    pub transfer_ns: u64,
}

impl DeviceLimits {
    pub fn of(dev: &DeviceConfig) -> DeviceLimits {
        let g = &dev.geometry;
        DeviceLimits {
            planes: u64::from(g.planes()),
            channels: u64::from(g.channels),
            page_size: u64::from(g.page_size),
            read_ns: dev.timing.read(0).0,
            program_ns: dev.timing.program(0).0,
            transfer_ns: dev.timing.transfer(u64::from(g.page_size)).0,
        }
    }

    /// How many times the device's flash time per second the scanned requests ask for, at
    /// full parallelism (every plane and channel busy): array time spread over the planes,
    /// transfers over the channels, the larger of the two.
    pub fn load(&self, s: &Scan) -> f64 {
        let span = s.span_ns();
        if span == 0 {
            return 0.0;
        }
        let pages = |b: u64| b.div_ceil(self.page_size.max(1)) as f64;
        let (r, w) = (pages(s.read_bytes), pages(s.write_bytes));
        let array = (r * self.read_ns as f64 + w * self.program_ns as f64) / self.planes.max(1) as f64;
        let bus = (r + w) * self.transfer_ns as f64 / self.channels.max(1) as f64;
        array.max(bus) / span as f64
    }
}

/// One implausible property, with its likely cause and fix.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Finding {
    /// Which check: `size`, `unit`, `span`, `time_unit`, `saturation`.
    pub check: &'static str,
    pub message: String,
}

fn size(b: u64) -> String {
    if b >= 1 << 20 {
        format!("{} MiB", b >> 20)
    } else {
        format!("{} KiB", b >> 10)
    }
}

fn takes_time_unit(format: Option<&str>) -> bool {
    matches!(format, Some("ssdsim" | "mqsim" | "flashsim" | "linnos"))
}

/// The findings for a scan (none for a plausible trace).
pub fn check(s: &Scan, ctx: &Context, dev: Option<&DeviceLimits>) -> Vec<Finding> {
    let mut out = Vec::new();
    if s.requests == 0 {
        return out;
    }
    let fmt = s.format.as_deref().unwrap_or("this");
    let scanned = if s.complete { format!("{} requests", s.requests) } else { format!("the first {} requests", s.requests) };
    if let Some(w) = &s.unit_warning {
        out.push(Finding { check: "unit", message: w.clone() });
    }
    let median = s.median_size_floor();
    if median >= HUGE_MEDIAN_BYTES {
        out.push(Finding {
            check: "size",
            message: format!(
                "half of {scanned} are {} or larger (real block traces have medians of 4-128 KiB): the size column is probably \
                 in a smaller unit than the {fmt} format assumes; a byte-unit trace in the LinnOS/Heimdall/FlashNet layout needs \
                 --format linnos, another layout its own --format",
                size(median)
            ),
        });
    }
    let span = s.span_ns();
    let rate = s.rate_per_s();
    if s.complete && s.requests < FEW_REQUESTS && span >= DAY_NS && rate < 1.0 {
        out.push(Finding {
            check: "span",
            message: format!(
                "{scanned} span {:.1} days ({rate:.3} requests/s): the time column is probably in a finer unit than the {fmt} \
                 format assumes; set it with --time-unit (ssdsim, mqsim, flashsim, linnos) or compress the replay with --time-scale",
                span as f64 / DAY_NS as f64
            ),
        });
    } else if !ctx.time_unit_given && takes_time_unit(s.format.as_deref()) && span > HOUR_NS && rate < SLOW_RATE_PER_S {
        out.push(Finding {
            check: "time_unit",
            message: format!(
                "{scanned} span {:.0} s at {rate:.1} requests/s in the {fmt} format's default time unit ({}), slow for a \
                 block trace: if the time column is in another unit, set --time-unit (the DTRS slice's raw values are \
                 100 x ns: --time-unit 0.01)",
                span as f64 / 1e9,
                if fmt == "flashsim" || fmt == "linnos" { "ms" } else { "ns" }
            ),
        });
    }
    if let Some(d) = dev {
        let load = d.load(s);
        if load > SATURATION_FACTOR {
            out.push(Finding {
                check: "saturation",
                message: format!(
                    "{scanned} ask for {load:.0} times the flash time the device has in their {:.3} s span, even with every \
                     plane and channel busy: the time column is probably in a coarser unit than the {fmt} format assumes \
                     (--time-unit), or replay it slower (--time-scale {:.2e})",
                    span as f64 / 1e9,
                    1.0 / load
                ),
            });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::host::{HostRequest, VecSource};
    use crate::units::Nanos;

    fn reqs(n: u64, gap_ns: u64, size: u64) -> VecSource {
        VecSource::new((0..n).map(|i| HostRequest::new(Nanos(i * gap_ns), i * size, size, if i % 2 == 0 { Op::Read } else { Op::Write })).collect())
    }

    fn dev() -> DeviceLimits {
        DeviceLimits { planes: 4, channels: 2, page_size: 4096, read_ns: 50_000, program_ns: 500_000, transfer_ns: 10_000 }
    }

    #[test]
    fn plausible_traces_have_no_findings() {
        // 10,000 requests of 8 KiB, 1 ms apart: 20,000 pages in 10 s, 0.14 of the planes' time.
        let s = scan(&mut reqs(10_000, 1_000_000, 8192), SCAN_REQUESTS).unwrap();
        assert_eq!((s.requests, s.complete, s.median_size_floor()), (10_000, true, 8192));
        assert!((dev().load(&s) - 0.1375).abs() < 0.001, "{}", dev().load(&s));
        assert_eq!(check(&s, &Context::default(), Some(&dev())), vec![]);
    }

    #[test]
    fn each_check_names_its_cause_and_flag() {
        let one = |src: &mut VecSource, ctx: &Context, fmt: Option<&str>| {
            let mut s = scan(src, SCAN_REQUESTS).unwrap();
            s.format = fmt.map(String::from);
            check(&s, ctx, Some(&dev()))
        };
        let f = one(&mut reqs(100, 1_000_000_000, 16 << 20), &Context::default(), Some("ssdsim"));
        assert_eq!(f.len(), 1, "{f:?}");
        assert!(f[0].check == "size" && f[0].message.contains("16 MiB") && f[0].message.contains("--format linnos"), "{f:?}");
        // 5,000 requests over 5 days.
        let f = one(&mut reqs(5_000, 86_400_000_000, 4096), &Context::default(), Some("msr"));
        assert_eq!(f.iter().map(|x| x.check).collect::<Vec<_>>(), vec!["span"]);
        assert!(f[0].message.contains("--time-unit") && f[0].message.contains("5.0 days"), "{}", f[0].message);
        // 127,043 requests at 4.2/s in ns (the DTRS slice without --time-unit 0.01).
        let f = one(&mut reqs(127_043, 236_000_000, 65536), &Context::default(), Some("ssdsim"));
        assert_eq!(f.iter().map(|x| x.check).collect::<Vec<_>>(), vec!["time_unit"]);
        assert!(f[0].message.contains("--time-unit 0.01") && f[0].message.contains("4.2 requests/s"), "{}", f[0].message);
        assert_eq!(one(&mut reqs(127_043, 236_000_000, 65536), &Context { time_unit_given: true }, Some("ssdsim")), vec![]);
        // 1,000 requests of 64 KiB within 1 µs.
        let f = one(&mut reqs(1000, 1, 65536), &Context::default(), Some("ssdsim"));
        assert_eq!(f.iter().map(|x| x.check).collect::<Vec<_>>(), vec!["saturation"]);
        assert!(f[0].message.contains("--time-scale"), "{}", f[0].message);
    }

    #[test]
    fn a_scan_stops_at_its_limit() {
        let s = scan(&mut reqs(50, 1, 4096), 10).unwrap();
        assert_eq!((s.requests, s.complete, s.last_ns), (10, false, 9));
    }
}
