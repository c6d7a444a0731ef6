//! The streaming workload generator: a `RequestSource` built from a validated `GenConfig`.
//!
//! Each concern (arrivals, read/write choice, sizes, write addresses, read addresses, content,
//! sequential runs) draws from its own ChaCha8 stream derived from the seed, so output is a pure
//! function of the configuration and editing one concern leaves the others' draws unchanged.
//! State is O(1) in the number of requests (plus the recent-writes window if used).
//! Does not model the device: offsets are logical bytes, arrival times are open-loop.

use super::address::AddressSampler;
use super::arrival::{mean_interval_ns, ArrivalClock};
use super::config::{ConfigError, GenConfig, BLOCK_4K};
use super::content::ContentSource;
use super::rng::{stream, unit};
use super::size::SizeSampler;
use crate::host::{HostRequest, Op, RequestSource, SourceError};
use crate::units::Nanos;
use rand_chacha::ChaCha8Rng;

/// Random stream ids (fixed forever: changing them changes every generated trace).
mod streams {
    pub const ARRIVAL: u64 = 1;
    pub const OP: u64 = 2;
    pub const SIZE: u64 = 3;
    pub const WRITE_ADDR: u64 = 4;
    pub const READ_ADDR: u64 = 5;
    pub const CONTENT: u64 = 6;
    pub const SEQUENTIAL: u64 = 7;
}

/// A synthetic request stream.
pub struct Generator {
    cfg: GenConfig,
    clock: ArrivalClock,
    sizes: SizeSampler,
    write_addr: AddressSampler,
    read_addr: Option<AddressSampler>,
    content: ContentSource,
    r_arrival: ChaCha8Rng,
    r_op: ChaCha8Rng,
    r_size: ChaCha8Rng,
    r_waddr: ChaCha8Rng,
    r_raddr: ChaCha8Rng,
    r_content: ChaCha8Rng,
    r_seq: ChaCha8Rng,
    /// End offset of the previous write / read (for sequential runs).
    last_end: [Option<u64>; 2],
    limit_ns: Option<f64>,
    emitted: u64,
    reads: u64,
    bytes: u64,
    last_arrival: u64,
    done: bool,
}

impl Generator {
    /// Validates `cfg` and builds the generator.
    pub fn new(cfg: GenConfig) -> Result<Generator, ConfigError> {
        cfg.validate()?;
        let (span, align, seed) = (cfg.span_bytes, cfg.align_bytes, cfg.seed);
        Ok(Generator {
            clock: ArrivalClock::new(&cfg.arrival),
            sizes: SizeSampler::new(&cfg.size, align),
            write_addr: AddressSampler::new(&cfg.address, span, align),
            read_addr: cfg.read_address.as_ref().map(|p| AddressSampler::new(p, span, align)),
            content: ContentSource::new(&cfg.content, seed),
            r_arrival: stream(seed, streams::ARRIVAL),
            r_op: stream(seed, streams::OP),
            r_size: stream(seed, streams::SIZE),
            r_waddr: stream(seed, streams::WRITE_ADDR),
            r_raddr: stream(seed, streams::READ_ADDR),
            r_content: stream(seed, streams::CONTENT),
            r_seq: stream(seed, streams::SEQUENTIAL),
            last_end: [None, None],
            limit_ns: cfg.duration_s.map(|d| d * 1e9),
            emitted: 0,
            reads: 0,
            bytes: 0,
            last_arrival: 0,
            done: false,
            cfg,
        })
    }

    /// The configuration this generator runs.
    pub fn config(&self) -> &GenConfig {
        &self.cfg
    }

    /// Expected request size in bytes.
    pub fn expected_size_bytes(&self) -> f64 {
        self.sizes.mean_bytes()
    }

    /// Expected inter-arrival time in ns.
    pub fn expected_interval_ns(&self) -> f64 {
        mean_interval_ns(&self.cfg.arrival)
    }

    /// Requests emitted so far.
    pub fn emitted(&self) -> u64 {
        self.emitted
    }

    /// Time spent in on/off idle gaps so far, in ns (0 for other arrival processes).
    pub fn idle_ns(&self) -> f64 {
        self.clock.idle_total_ns()
    }

    /// (written 4 KiB blocks, duplicate blocks, distinct contents) so far.
    pub fn content_counts(&self) -> (u64, u64, u64) {
        self.content.counts()
    }

    /// Number of hot pages of the write pattern, when it is hot/cold.
    pub fn hot_pages(&self) -> Option<u64> {
        self.write_addr.hot_pages()
    }

    fn make(&mut self, arrival_ns: f64) -> HostRequest {
        let op = if unit(&mut self.r_op) < self.cfg.read_ratio { Op::Read } else { Op::Write };
        let size = self.sizes.sample(&mut self.r_size);
        let slot = if op == Op::Write { 0 } else { 1 };
        let span = self.cfg.span_bytes;
        let seq = self.cfg.sequential_share > 0.0 && unit(&mut self.r_seq) < self.cfg.sequential_share;
        let offset = match self.last_end[slot] {
            Some(end) if seq && end + size <= span => end,
            _ => match (op, self.read_addr.as_mut()) {
                (Op::Read, Some(ra)) => ra.sample(&mut self.r_raddr, size),
                _ => self.write_addr.sample(&mut self.r_waddr, size),
            },
        };
        self.last_end[slot] = Some(offset + size);
        let mut req = HostRequest::new(Nanos(arrival_ns.round() as u64), offset, size, op);
        if op == Op::Write {
            if let Some(ra) = self.read_addr.as_mut() {
                if ra.wants_writes() {
                    ra.record_write(offset);
                }
            }
            if self.cfg.content.fingerprints {
                let blocks = size.div_ceil(BLOCK_4K);
                // A plain loop of pushes: `collect` into the SmallVec went through its generic
                // `extend`, which the compiler stopped inlining after unrelated changes.
                for _ in 0..blocks {
                    req.fingerprints.push(self.content.next_block(&mut self.r_content));
                }
            }
        } else {
            self.reads += 1;
        }
        req
    }
}

impl RequestSource for Generator {
    fn next_request(&mut self) -> Result<Option<HostRequest>, SourceError> {
        if self.done || self.cfg.count.is_some_and(|c| self.emitted >= c) {
            self.done = true;
            return Ok(None);
        }
        let t = self.clock.next(&mut self.r_arrival);
        if self.limit_ns.is_some_and(|l| t > l) {
            self.done = true;
            return Ok(None);
        }
        let req = self.make(t);
        self.emitted += 1;
        self.bytes += req.size;
        self.last_arrival = req.arrival.0;
        Ok(Some(req))
    }

    fn describe(&self) -> String {
        let c = &self.cfg;
        format!(
            "generator seed {} span {} B read_ratio {} mean size {:.0} B mean interval {:.1} us",
            c.seed,
            c.span_bytes,
            c.read_ratio,
            self.sizes.mean_bytes(),
            self.expected_interval_ns() / 1e3
        )
    }

    fn summary(&self) -> Vec<(String, String)> {
        let n = self.emitted.max(1) as f64;
        let mut v = vec![
            ("requests".to_string(), self.emitted.to_string()),
            ("read share".to_string(), format!("{:.4}", self.reads as f64 / n)),
            ("mean size bytes".to_string(), format!("{:.1}", self.bytes as f64 / n)),
        ];
        if self.emitted > 1 {
            let mi = self.last_arrival as f64 / (self.emitted - 1) as f64;
            v.push(("mean interval us".to_string(), format!("{:.3}", mi / 1e3)));
            if self.clock.idle_gaps() > 0 && self.last_arrival > 0 {
                v.push(("idle share".to_string(), format!("{:.4}", self.idle_ns() / self.last_arrival as f64)));
            }
        }
        let (blocks, dups, _) = self.content.counts();
        if blocks > 0 {
            v.push(("duplicate block share".to_string(), format!("{:.4}", dups as f64 / blocks as f64)));
        }
        v
    }
}
