//! Generator configuration: what a synthetic workload looks like, as plain data.
//!
//! Every field carries its unit in its name or doc. The struct loads from TOML (unknown keys
//! are errors, so typos cannot silently fall back to defaults) and is checked by
//! [`GenConfig::validate`] before a generator is built. This module does no sampling; the
//! samplers live in `address`, `size`, `arrival` and `content`.

use serde::{Deserialize, Serialize};
use std::path::Path;

/// 4 KiB: the default alignment and the content-fingerprint granularity.
pub const BLOCK_4K: u64 = 4096;

/// A complete description of a synthetic workload.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct GenConfig {
    /// Number of requests to generate. `None` means unbounded (then `duration_s` must be set).
    pub count: Option<u64>,
    /// Stop before the first request that would arrive later than this, in seconds of
    /// simulated time. `None` means no time limit. When both limits are set, the first hit wins.
    pub duration_s: Option<f64>,
    /// Size of the logical address space in bytes. 0 means "not set yet": the caller must set it
    /// to the device's logical capacity (see [`GenConfig::with_span`]).
    pub span_bytes: u64,
    /// Alignment of every offset and granularity of every size, in bytes (default 4096).
    pub align_bytes: u64,
    /// Share of requests that are reads, 0..=1.
    pub read_ratio: f64,
    /// Where requests land (writes, and reads too unless `read_address` is set).
    pub address: AddressPattern,
    /// Separate address pattern for reads; `None` reuses `address`.
    pub read_address: Option<AddressPattern>,
    /// Probability (0..=1) that a request starts right where the previous request of the same
    /// kind (read or write) ended, forming sequential runs; otherwise the pattern decides.
    pub sequential_share: f64,
    /// Request size distribution.
    pub size: SizeDist,
    /// Arrival process.
    pub arrival: Arrival,
    /// Content of written data.
    pub content: ContentConfig,
    /// Seed of every random stream of the generator.
    pub seed: u64,
}

impl Default for GenConfig {
    fn default() -> Self {
        GenConfig {
            count: Some(100_000),
            duration_s: None,
            span_bytes: 0,
            align_bytes: BLOCK_4K,
            read_ratio: 0.3,
            address: AddressPattern::Uniform,
            read_address: None,
            sequential_share: 0.0,
            size: SizeDist::Fixed { bytes: BLOCK_4K },
            arrival: Arrival::Poisson { iops: 1000.0 },
            content: ContentConfig::default(),
            seed: 42,
        }
    }
}

/// How start offsets are chosen. Units of "pages" below are `align_bytes`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum AddressPattern {
    /// Every aligned page of the span equally likely.
    Uniform,
    /// Zipf popularity with exponent `theta` (>= 0; 0 is uniform) over aligned pages, or over
    /// extents of `extent_bytes` (a multiple of `align_bytes`) with a uniform page inside the
    /// chosen extent. Rank k is scattered over the span by a fixed bijection (see
    /// `address::scatter`), so hot items are not all at offset 0. With extents, pages past the
    /// last whole extent of the span are never chosen.
    Zipf {
        theta: f64,
        #[serde(default)]
        extent_bytes: Option<u64>,
    },
    /// The first `hot_fraction_of_space` (0..1) of the span receives
    /// `hot_fraction_of_accesses` (0..=1) of the requests, uniformly inside each region.
    Hotcold { hot_fraction_of_space: f64, hot_fraction_of_accesses: f64 },
    /// One sequential stream from offset 0, wrapping at the end of the span.
    Sequential,
    /// Reads of recently written data: the start offset of one of the last `window` writes,
    /// uniformly (falls back to uniform before any write). Memory is O(window).
    RecentWrites { window: u32 },
}

/// Request size distribution. Every size is a positive multiple of `align_bytes`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum SizeDist {
    /// Always `bytes`.
    Fixed { bytes: u64 },
    /// Uniform over the aligned sizes `min_bytes, min_bytes + align, ..., max_bytes`.
    Uniform { min_bytes: u64, max_bytes: u64 },
    /// A weighted list of sizes (weights need not sum to 1).
    Weighted { sizes: Vec<WeightedSize> },
    /// `align * (1 + G)` with G a geometric count truncated so the size stays <= `max_bytes`;
    /// its parameter is solved so the mean size equals `mean_bytes` exactly. Many small
    /// requests, a tail of large ones: the shape of FIU/MSR size histograms, with a given mean.
    Geometric { mean_bytes: f64, max_bytes: u64 },
}

/// One entry of [`SizeDist::Weighted`].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WeightedSize {
    /// Size in bytes.
    pub bytes: u64,
    /// Relative weight (>= 0).
    pub weight: f64,
}

/// Arrival process.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum Arrival {
    /// Poisson arrivals: exponential gaps with mean `1 / iops` seconds.
    Poisson { iops: f64 },
    /// Bursts of Poisson arrivals at `burst_iops`, separated by idle gaps of mean `mean_idle_ms`
    /// milliseconds, drawn from `idle_dist`. Burst lengths are geometric with the mean that
    /// makes the long-run share of time spent in idle gaps equal `target_idle_share` (0..1).
    Onoff {
        burst_iops: f64,
        target_idle_share: f64,
        mean_idle_ms: f64,
        #[serde(default)]
        idle_dist: GapDist,
    },
    /// Gaps of mean `mean_us` microseconds drawn from `dist` (constant by default).
    FixedInterval {
        mean_us: f64,
        #[serde(default = "GapDist::constant")]
        dist: GapDist,
    },
}

/// Shape of a gap distribution with a given mean.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, Default)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum GapDist {
    /// Every gap equals the mean.
    Constant,
    /// Exponential (memoryless) gaps.
    #[default]
    Exponential,
    /// Lognormal gaps with log-space standard deviation `sigma` (> 0); mu is derived from the
    /// mean, so larger sigma means a heavier tail at the same mean.
    Lognormal { sigma: f64 },
}

impl GapDist {
    fn constant() -> GapDist {
        GapDist::Constant
    }
}

/// Content of written 4 KiB blocks.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ContentConfig {
    /// Whether write requests carry fingerprints at all.
    pub fingerprints: bool,
    /// Share (0..1) of written 4 KiB blocks whose content duplicates an earlier block's.
    pub dup_rate: f64,
    /// Zipf exponent (>= 0) of duplicate popularity over the pool of earlier distinct
    /// contents, the oldest content being the most popular.
    pub dup_theta: f64,
}

impl Default for ContentConfig {
    fn default() -> Self {
        ContentConfig { fingerprints: true, dup_rate: 0.0, dup_theta: 0.0 }
    }
}

/// A configuration problem: which field, and why.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("{file}: {message}")]
    Parse { file: String, message: String },
    #[error("{file}: cannot read: {error}")]
    Io { file: String, error: std::io::Error },
    #[error("workload config field `{field}`: {message}")]
    Invalid { field: &'static str, message: String },
}

fn invalid(field: &'static str, message: impl Into<String>) -> ConfigError {
    ConfigError::Invalid { field, message: message.into() }
}

fn check_share(field: &'static str, v: f64, allow_one: bool) -> Result<(), ConfigError> {
    let ok = v.is_finite() && v >= 0.0 && (if allow_one { v <= 1.0 } else { v < 1.0 });
    if ok {
        Ok(())
    } else {
        let range = if allow_one { "0..=1" } else { "0..1 (1 excluded)" };
        Err(invalid(field, format!("{v} is outside {range}")))
    }
}

fn check_positive(field: &'static str, v: f64) -> Result<(), ConfigError> {
    if v.is_finite() && v > 0.0 {
        Ok(())
    } else {
        Err(invalid(field, format!("{v} must be a positive finite number")))
    }
}

impl GenConfig {
    /// The same workload over a logical space of `bytes`.
    pub fn with_span(mut self, bytes: u64) -> GenConfig {
        self.span_bytes = bytes;
        self
    }

    /// The same workload over the largest span that fits in `bytes` and is a whole number of
    /// the workload's `align_bytes` (a device whose capacity is not a multiple of 4 KiB, with
    /// 512 B pages, takes 4 KiB-aligned requests over all but its last partial 4 KiB).
    pub fn with_span_within(self, bytes: u64) -> GenConfig {
        let align = self.align_bytes.max(1);
        self.with_span(bytes - bytes % align)
    }

    /// The same workload with another seed.
    pub fn with_seed(mut self, seed: u64) -> GenConfig {
        self.seed = seed;
        self
    }

    /// The same workload with another request count.
    pub fn with_count(mut self, count: u64) -> GenConfig {
        self.count = Some(count);
        self
    }

    /// Parses TOML text; `file` names the source in error messages (toml reports line and column).
    pub fn from_toml_str(text: &str, file: &str) -> Result<GenConfig, ConfigError> {
        toml::from_str(text).map_err(|e| ConfigError::Parse { file: file.to_string(), message: e.to_string() })
    }

    /// Reads and parses a TOML file.
    pub fn from_toml_file(path: &Path) -> Result<GenConfig, ConfigError> {
        let file = path.display().to_string();
        let text = std::fs::read_to_string(path).map_err(|error| ConfigError::Io { file: file.clone(), error })?;
        GenConfig::from_toml_str(&text, &file)
    }

    /// Serializes to TOML (for `--print-config`-style use and round-trip tests).
    pub fn to_toml_string(&self) -> Result<String, ConfigError> {
        toml::to_string(self).map_err(|e| ConfigError::Parse { file: "<config>".into(), message: e.to_string() })
    }

    /// Checks every field; a generator is only built from a valid configuration.
    pub fn validate(&self) -> Result<(), ConfigError> {
        if self.count.is_none() && self.duration_s.is_none() {
            return Err(invalid("count", "neither `count` nor `duration_s` is set: the workload would never end"));
        }
        if self.count == Some(0) {
            return Err(invalid("count", "must be at least 1 (0 requests make an empty workload)"));
        }
        if let Some(d) = self.duration_s {
            check_positive("duration_s", d)?;
        }
        let align = self.align_bytes;
        if align == 0 || !align.is_multiple_of(512) {
            return Err(invalid("align_bytes", format!("{align} must be a positive multiple of 512")));
        }
        if self.span_bytes == 0 {
            return Err(invalid("span_bytes", "is 0: set the address span (`flashtail gen --span-gib N` or `--span BYTES`; `run` and `compare` use the device's logical capacity)"));
        }
        if !self.span_bytes.is_multiple_of(align) {
            return Err(invalid("span_bytes", format!("{} is not a multiple of align_bytes {align}", self.span_bytes)));
        }
        check_share("read_ratio", self.read_ratio, true)?;
        check_share("sequential_share", self.sequential_share, true)?;
        validate_pattern("address", &self.address, self.span_bytes, align)?;
        if let AddressPattern::RecentWrites { .. } = self.address {
            return Err(invalid("address", "recent_writes is only meaningful for `read_address`"));
        }
        if let Some(p) = &self.read_address {
            validate_pattern("read_address", p, self.span_bytes, align)?;
        }
        let max = validate_size(&self.size, align)?;
        if max > self.span_bytes {
            return Err(invalid("size", format!("largest size {max} exceeds span_bytes {}", self.span_bytes)));
        }
        validate_arrival(&self.arrival)?;
        check_share("content.dup_rate", self.content.dup_rate, false)?;
        if !(self.content.dup_theta.is_finite() && self.content.dup_theta >= 0.0) {
            return Err(invalid("content.dup_theta", format!("{} must be >= 0", self.content.dup_theta)));
        }
        Ok(())
    }
}

fn validate_pattern(field: &'static str, p: &AddressPattern, span: u64, align: u64) -> Result<(), ConfigError> {
    match p {
        AddressPattern::Uniform | AddressPattern::Sequential => Ok(()),
        AddressPattern::Zipf { theta, extent_bytes } => {
            if !(theta.is_finite() && *theta >= 0.0) {
                return Err(invalid(field, format!("zipf theta {theta} must be >= 0")));
            }
            if let Some(e) = extent_bytes {
                if *e == 0 || !e.is_multiple_of(align) || *e > span {
                    return Err(invalid(
                        field,
                        format!("zipf extent_bytes {e} must be a multiple of {align} within the span"),
                    ));
                }
            }
            Ok(())
        }
        AddressPattern::Hotcold { hot_fraction_of_space, hot_fraction_of_accesses } => {
            check_share(field, *hot_fraction_of_accesses, true)?;
            let s = *hot_fraction_of_space;
            if !(s.is_finite() && s > 0.0 && s < 1.0) {
                return Err(invalid(field, format!("hot_fraction_of_space {s} must be strictly between 0 and 1")));
            }
            if span / align < 2 {
                return Err(invalid(field, "hot/cold needs a span of at least two aligned pages"));
            }
            Ok(())
        }
        AddressPattern::RecentWrites { window } => {
            if *window == 0 {
                return Err(invalid(field, "recent_writes window must be >= 1"));
            }
            Ok(())
        }
    }
}

/// Returns the largest size the distribution can produce.
fn validate_size(s: &SizeDist, align: u64) -> Result<u64, ConfigError> {
    let aligned = |b: u64| b > 0 && b.is_multiple_of(align);
    match s {
        SizeDist::Fixed { bytes } => {
            if !aligned(*bytes) {
                return Err(invalid("size", format!("fixed size {bytes} must be a positive multiple of {align}")));
            }
            Ok(*bytes)
        }
        SizeDist::Uniform { min_bytes, max_bytes } => {
            if !aligned(*min_bytes) || !aligned(*max_bytes) || min_bytes > max_bytes {
                return Err(invalid(
                    "size",
                    format!("uniform {min_bytes}..={max_bytes} must be multiples of {align}, min <= max"),
                ));
            }
            Ok(*max_bytes)
        }
        SizeDist::Weighted { sizes } => {
            if sizes.is_empty() {
                return Err(invalid("size", "weighted list is empty"));
            }
            let mut total = 0.0;
            for w in sizes {
                if !aligned(w.bytes) {
                    return Err(invalid(
                        "size",
                        format!("weighted size {} must be a positive multiple of {align}", w.bytes),
                    ));
                }
                if !(w.weight.is_finite() && w.weight >= 0.0) {
                    return Err(invalid("size", format!("weight {} of size {} must be >= 0", w.weight, w.bytes)));
                }
                total += w.weight;
            }
            if total <= 0.0 {
                return Err(invalid("size", "weights sum to 0"));
            }
            Ok(sizes.iter().map(|w| w.bytes).max().unwrap_or(align))
        }
        SizeDist::Geometric { mean_bytes, max_bytes } => {
            if !aligned(*max_bytes) {
                return Err(invalid(
                    "size",
                    format!("geometric max_bytes {max_bytes} must be a positive multiple of {align}"),
                ));
            }
            let lo = align as f64;
            let hi = *max_bytes as f64;
            // The mean of a distribution on [align, max] must lie strictly inside it (or equal
            // align when max == align).
            let ok =
                mean_bytes.is_finite() && (*mean_bytes == lo && hi == lo || (*mean_bytes > lo && *mean_bytes < hi));
            if !ok {
                return Err(invalid(
                    "size",
                    format!("geometric mean_bytes {mean_bytes} must lie strictly between {lo} and {hi}"),
                ));
            }
            if max_bytes / align > super::size::MAX_TABLE_PAGES {
                return Err(invalid(
                    "size",
                    format!("geometric max_bytes {max_bytes} spans more than {} pages", super::size::MAX_TABLE_PAGES),
                ));
            }
            Ok(*max_bytes)
        }
    }
}

fn validate_gap(field: &'static str, g: &GapDist) -> Result<(), ConfigError> {
    match g {
        GapDist::Constant | GapDist::Exponential => Ok(()),
        GapDist::Lognormal { sigma } => check_positive(field, *sigma),
    }
}

fn validate_arrival(a: &Arrival) -> Result<(), ConfigError> {
    match a {
        Arrival::Poisson { iops } => check_positive("arrival.iops", *iops),
        Arrival::Onoff { burst_iops, target_idle_share, mean_idle_ms, idle_dist } => {
            check_positive("arrival.burst_iops", *burst_iops)?;
            check_share("arrival.target_idle_share", *target_idle_share, false)?;
            if *target_idle_share > 0.0 {
                check_positive("arrival.mean_idle_ms", *mean_idle_ms)?;
            }
            validate_gap("arrival.idle_dist", idle_dist)
        }
        Arrival::FixedInterval { mean_us, dist } => {
            check_positive("arrival.mean_us", *mean_us)?;
            validate_gap("arrival.dist", dist)
        }
    }
}
