//! Start-offset sampling for one address pattern (uniform, Zipf, hot/cold, sequential, reads of
//! recent writes) over an aligned logical space.
//!
//! Produces aligned offsets such that `offset + size <= span`. Zipf ranks are spread over the
//! space by a fixed affine bijection so that the hottest pages are not all adjacent (which
//! would turn "popular pages" into "one popular region" at the FTL). Memory is constant
//! (O(window) for recent writes). Does not choose sizes or read/write.

use super::config::AddressPattern;
use super::rng::{below, unit};
use super::zipf::Zipf;
use rand_chacha::ChaCha8Rng;
use std::collections::VecDeque;

fn gcd(mut a: u64, mut b: u64) -> u64 {
    while b != 0 {
        let t = a % b;
        a = b;
        b = t;
    }
    a
}

/// Multiplier of the scatter bijection for n items: near n / golden ratio, coprime with n.
fn scatter_multiplier(n: u64) -> u64 {
    if n <= 2 {
        return 1;
    }
    let mut a = ((n as f64) * 0.618_033_988_749_895) as u64;
    a = a.clamp(1, n - 1);
    while gcd(a, n) != 1 {
        a += 1;
        if a >= n {
            a = 1;
        }
    }
    a
}

/// The item index (0-based) holding Zipf rank `rank0` (0-based) among n items: a bijection of
/// 0..n, fixed for a given n.
pub fn scatter(rank0: u64, n: u64) -> u64 {
    if n <= 1 {
        return 0;
    }
    let a = scatter_multiplier(n) as u128;
    ((a * rank0 as u128 + (n / 3) as u128) % n as u128) as u64
}

/// Offsets for one pattern.
#[derive(Clone, Debug)]
pub struct AddressSampler {
    kind: Kind,
    span: u64,
    align: u64,
    pages: u64,
}

#[derive(Clone, Debug)]
enum Kind {
    Uniform,
    Zipf { zipf: Zipf, items: u64, mult: u64, shift: u64, pages_per_item: u64 },
    Hotcold { hot_pages: u64, p_hot: f64 },
    Sequential { cursor: u64 },
    RecentWrites { window: usize, ring: VecDeque<u64> },
}

impl AddressSampler {
    /// `p` must have passed `GenConfig::validate` for this span and alignment.
    pub fn new(p: &AddressPattern, span: u64, align: u64) -> AddressSampler {
        let pages = span / align;
        let kind = match p {
            AddressPattern::Uniform => Kind::Uniform,
            AddressPattern::Zipf { theta, extent_bytes } => {
                let pages_per_item = extent_bytes.map(|e| e / align).unwrap_or(1).max(1);
                let items = (pages / pages_per_item).max(1);
                Kind::Zipf {
                    zipf: Zipf::new(items, *theta),
                    items,
                    mult: scatter_multiplier(items),
                    shift: items / 3,
                    pages_per_item,
                }
            }
            AddressPattern::Hotcold { hot_fraction_of_space, hot_fraction_of_accesses } => {
                let hot = ((pages as f64) * hot_fraction_of_space).round() as u64;
                Kind::Hotcold {
                    hot_pages: hot.clamp(1, pages.saturating_sub(1).max(1)),
                    p_hot: *hot_fraction_of_accesses,
                }
            }
            AddressPattern::Sequential => Kind::Sequential { cursor: 0 },
            AddressPattern::RecentWrites { window } => Kind::RecentWrites {
                window: *window as usize,
                ring: VecDeque::with_capacity((*window as usize).min(1 << 16)),
            },
        };
        AddressSampler { kind, span, align, pages }
    }

    /// Number of hot pages (hot/cold pattern only): offsets below `hot_pages * align` are hot.
    pub fn hot_pages(&self) -> Option<u64> {
        match self.kind {
            Kind::Hotcold { hot_pages, .. } => Some(hot_pages),
            _ => None,
        }
    }

    /// Whether this pattern wants to see every write's offset.
    pub fn wants_writes(&self) -> bool {
        matches!(self.kind, Kind::RecentWrites { .. })
    }

    /// Remembers a write's start offset (recent-writes pattern only).
    pub fn record_write(&mut self, offset: u64) {
        if let Kind::RecentWrites { window, ring } = &mut self.kind {
            if ring.len() == *window {
                ring.pop_front();
            }
            ring.push_back(offset);
        }
    }

    /// An aligned start offset for a request of `size` bytes (size <= span, aligned).
    pub fn sample(&mut self, r: &mut ChaCha8Rng, size: u64) -> u64 {
        let page = match &mut self.kind {
            Kind::Uniform => below(r, self.pages),
            Kind::Zipf { zipf, items, mult, shift, pages_per_item } => {
                let rank0 = zipf.sample(r) - 1;
                let item = ((*mult as u128 * rank0 as u128 + *shift as u128) % *items as u128) as u64;
                let inner = if *pages_per_item > 1 { below(r, *pages_per_item) } else { 0 };
                item * *pages_per_item + inner
            }
            Kind::Hotcold { hot_pages, p_hot } => {
                if unit(r) < *p_hot {
                    below(r, *hot_pages)
                } else {
                    *hot_pages + below(r, self.pages - *hot_pages)
                }
            }
            Kind::Sequential { cursor } => {
                if *cursor + size > self.span {
                    *cursor = 0;
                }
                let off = *cursor;
                *cursor += size;
                return off;
            }
            Kind::RecentWrites { ring, .. } => {
                if ring.is_empty() {
                    below(r, self.pages)
                } else {
                    let i = below(r, ring.len() as u64) as usize;
                    return ring[i].min(self.span - size);
                }
            }
        };
        (page * self.align).min(self.span - size)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scatter_is_a_bijection() {
        for n in [1u64, 2, 3, 10, 12, 97, 1000, 4096] {
            let mut seen = vec![false; n as usize];
            for k in 0..n {
                let i = scatter(k, n) as usize;
                assert!(!seen[i], "n {n}: {i} twice");
                seen[i] = true;
            }
        }
    }
}
