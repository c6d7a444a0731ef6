//! Content fingerprints of written 4 KiB blocks, with a chosen duplicate rate and duplicate
//! popularity.
//!
//! Each block is either new content (the next id of a growing pool) or, with probability
//! `dup_rate`, a copy of an earlier content picked by Zipf(`dup_theta`) over the pool (oldest
//! most popular: zero-filled and template blocks are old and popular in FIU traces). Content
//! ids become fingerprints through a fixed bijective mixer, so distinct contents never share a
//! fingerprint and nothing per content is stored: memory does not grow with the trace. The
//! simulator never needs bytes. Does not model partial-block writes (a block is all new or
//! all duplicate).

use super::config::ContentConfig;
use super::rng::unit;
use super::zipf::Zipf;
use crate::units::Fingerprint;
use rand_chacha::ChaCha8Rng;

/// The splitmix64 output function: a bijection on u64 with good avalanche.
pub fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// Fingerprints for one generator.
#[derive(Clone, Debug)]
pub struct ContentSource {
    dup_rate: f64,
    zipf: Zipf,
    salt: u64,
    /// Distinct contents created so far.
    distinct: u64,
    blocks: u64,
    dups: u64,
}

impl ContentSource {
    pub fn new(c: &ContentConfig, seed: u64) -> ContentSource {
        ContentSource {
            dup_rate: c.dup_rate,
            zipf: Zipf::new(1, c.dup_theta),
            // Different seeds give disjoint-looking fingerprint sets.
            salt: mix(seed ^ 0x6a09_e667_f3bc_c909),
            distinct: 0,
            blocks: 0,
            dups: 0,
        }
    }

    /// The fingerprint of content id `id` (never 0).
    pub fn fingerprint_of(&self, id: u64) -> Fingerprint {
        let f = mix(id ^ self.salt);
        // The one id that maps to 0 gets a fixed non-zero value: 0 means "unknown content".
        if f == 0 {
            0x9e37_79b9_7f4a_7c15
        } else {
            f
        }
    }

    /// The fingerprint of the next written block.
    #[inline]
    pub fn next_block(&mut self, r: &mut ChaCha8Rng) -> Fingerprint {
        self.blocks += 1;
        // No draw when no duplicate is possible: the content stream is this source's own, so
        // skipping it changes nothing else (and saves a random number per written block).
        let dup = self.distinct > 0 && self.dup_rate > 0.0 && unit(r) < self.dup_rate;
        let id = if dup {
            self.dups += 1;
            self.zipf.sample_n(r, self.distinct) - 1
        } else {
            self.distinct += 1;
            self.distinct - 1
        };
        self.fingerprint_of(id)
    }

    /// (blocks written, blocks that duplicated earlier content, distinct contents).
    pub fn counts(&self) -> (u64, u64, u64) {
        (self.blocks, self.dups, self.distinct)
    }
}
