//! An up-front estimate of the memory a run's device and scheme take, and the refusal of a
//! run whose estimate exceeds a limit (by default 80 % of the memory the machine has
//! available when the run starts: the rest is left to the other runs of a comparison and to
//! what grows with the requests), so that a valid but
//! huge device (`geometry.blocks_per_plane=65535` on `ttflash`: about 18 GB) fails at once
//! with the figure and the override, instead of aborting on an allocation minutes later.
//!
//! The estimate is per flash page, measured with peak RSS on `bench-ref` at 256 and 1,024
//! blocks per plane (6.3 million pages apart, oracle on): 15.2 bytes a page for `base`,
//! 16.5 with RAIN (`ttflash`), 19.6 for the content-aware schemes (`splitgc`); rounded up
//! here, plus a fixed 48 MiB. It does not cover what grows with the request count (the
//! `--latency exact` recorder, 8 bytes a request) or with the trace (its reader).

use super::DeviceConfig;
use crate::gc::Scheme;

/// Bytes per flash page: every scheme (mapping, block tables, oracle).
pub const BYTES_PER_PAGE: u64 = 16;
/// Extra bytes per page for RAIN parity bookkeeping.
pub const RAIN_BYTES_PER_PAGE: u64 = 2;
/// Extra bytes per page for the content tables of splitgc, cagc and dagc.
pub const CONTENT_BYTES_PER_PAGE: u64 = 5;
/// Fixed cost of a run (code, buffers, thread stacks).
pub const FIXED_BYTES: u64 = 48 << 20;

/// Estimated peak bytes of a run of `scheme` on `dev`, before any request.
pub fn estimate(dev: &DeviceConfig, scheme: &Scheme) -> u64 {
    let pages = dev.geometry.total_pages_u64();
    let mut per = BYTES_PER_PAGE;
    if scheme.rain {
        per += RAIN_BYTES_PER_PAGE;
    }
    if scheme.content.is_some() {
        per += CONTENT_BYTES_PER_PAGE;
    }
    let buffer = if scheme.gc_tolerant_flush || dev.buffer.enabled {
        u64::from(super::buffer::buffer_pages(dev, scheme.gc_tolerant_flush)) * 16
    } else {
        0
    };
    pages.saturating_mul(per).saturating_add(buffer).saturating_add(FIXED_BYTES)
}

/// Share of the available memory a run may take by default (percent).
pub const DEFAULT_SHARE_PCT: u64 = 80;

/// 80 % of the memory available now (`MemAvailable` of /proc/meminfo), if it can be read.
pub fn machine_bytes() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = text.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024 / 100 * DEFAULT_SHARE_PCT)
}

/// The limit a run is held to: `limit` bytes when given (0: none), else [`machine_bytes`].
pub fn effective_limit(limit: Option<u64>) -> Option<u64> {
    match limit {
        Some(0) => None,
        Some(n) => Some(n),
        None => machine_bytes(),
    }
}

fn gib(b: u64) -> String {
    format!("{:.1} GiB", b as f64 / f64::from(1u32 << 30))
}

/// Refuses a run whose estimate exceeds the limit, with the figures and the override.
pub fn check(dev: &DeviceConfig, scheme: &Scheme, limit: Option<u64>) -> Result<u64, String> {
    let need = estimate(dev, scheme);
    match effective_limit(limit) {
        Some(max) if need > max => Err(format!(
            "device '{}' under scheme '{}' needs about {} of memory ({} flash pages at about {} bytes each), more than the limit of {}{}: \
             use a smaller device (geometry.blocks_per_plane, geometry.pages_per_block), or raise the limit with --max-memory \
             (0 for none) if the machine has the memory",
            dev.name,
            scheme.name,
            gib(need),
            dev.geometry.total_pages_u64(),
            (need - FIXED_BYTES.min(need)) / dev.geometry.total_pages_u64().max(1),
            gib(max),
            if limit.is_none() { " (80 % of the memory this machine has available)" } else { "" }
        )),
        _ => Ok(need),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::presets;
    use crate::gc::build_scheme;

    #[test]
    fn a_huge_device_is_refused_with_the_figures() {
        let mut dev = presets::load("ttflash").unwrap();
        let s = build_scheme("ttflash", None, 0).unwrap();
        // 64 planes x 4096 blocks x 256 pages at 18 bytes + the 64 MiB stripe buffer's
        // 16,384 pages at 16 bytes + 48 MiB.
        assert_eq!(estimate(&dev, &s), 67_108_864 * 18 + 16_384 * 16 + (48 << 20));
        assert!(check(&dev, &s, Some(2 << 30)).is_ok());
        dev.geometry.blocks_per_plane = 65_535;
        let e = check(&dev, &s, Some(16 << 30)).unwrap_err();
        assert!(e.contains("needs about 18.0 GiB") && e.contains("limit of 16.0 GiB") && e.contains("--max-memory"), "{e}");
        assert!(check(&dev, &s, Some(0)).is_ok());
        let base = build_scheme("base", None, 0).unwrap();
        let split = build_scheme("splitgc", None, 0).unwrap();
        assert!(estimate(&dev, &base) < estimate(&dev, &s) && estimate(&dev, &s) < estimate(&dev, &split));
    }
}
