//! SplitGC's Bloom filter (§3.2): m = 4.2 n bits and k = 3 hash functions (BKDR, AP and
//! DJB hashes of the fingerprint's bytes), screening fingerprints before the exact table is
//! looked up. A negative answer is certain; a positive one may be false.
//!
//! A plain Bloom filter cannot forget: fingerprints of erased pages keep their bits and the
//! false-positive rate grows as the device is rewritten. The paper does not say how its
//! filter ages; here it is rebuilt from the fingerprint table each time the scrub starts
//! over at group 0 (every `groups` passes), which bounds that growth to one cycle's churn.
//!
//! Does not do: counting or deletable variants.

/// A fingerprint and its bit positions in one filter (`Bloom::probe`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Probe {
    pub fp: u64,
    at: [u64; 3],
}

pub struct Bloom {
    bits: Vec<u64>,
    m: u64,
    /// Membership queries, and how many answered "maybe" (each costs a table look-up).
    pub queries: u64,
    pub positives: u64,
    pub inserted: u64,
}

fn bkdr(b: &[u8]) -> u64 {
    b.iter().fold(0u64, |h, &c| h.wrapping_mul(131).wrapping_add(u64::from(c)))
}

fn ap(b: &[u8]) -> u64 {
    let mut h: u64 = 0xAAAA_AAAA;
    for (i, &c) in b.iter().enumerate() {
        let c = u64::from(c);
        h ^= if i % 2 == 0 { (h << 7) ^ c.wrapping_mul(h >> 3) } else { !((h << 11).wrapping_add(c ^ (h >> 5))) };
    }
    h
}

fn djb(b: &[u8]) -> u64 {
    b.iter().fold(5381u64, |h, &c| h.wrapping_mul(33).wrapping_add(u64::from(c)))
}

impl Bloom {
    /// A filter for about `n` fingerprints at `bits_per_entry` bits each (SplitGC: 4.2).
    pub fn new(n: u64, bits_per_entry: f64) -> Bloom {
        let m = ((n.max(1) as f64 * bits_per_entry).ceil() as u64).max(64);
        Bloom { bits: vec![0; m.div_ceil(64) as usize], m, queries: 0, positives: 0, inserted: 0 }
    }

    /// The three bit positions of fingerprint `fp`. Hashing and the three divisions cost
    /// more than the look-up itself once its words are cached, so a caller that queries and
    /// then inserts, or knows the fingerprint early (SplitGC's scrub), computes them once.
    pub fn probe(&self, fp: u64) -> Probe {
        let b = fp.to_le_bytes();
        Probe { fp, at: [bkdr(&b) % self.m, ap(&b) % self.m, djb(&b) % self.m] }
    }

    /// Start loading the words `p`'s bits live in (no effect on results). The filter is
    /// megabytes and its positions random, so a query misses the cache three times; SplitGC's
    /// scrub knows a page's fingerprint when it issues the page's read, tens of events before
    /// it queries the filter.
    pub fn prefetch(&self, p: &Probe) {
        for i in p.at {
            crate::ftl::mapping::prefetch(&self.bits[(i / 64) as usize]);
        }
    }

    /// Is `fp` possibly in the set? (Counted as a query.)
    pub fn query(&mut self, fp: u64) -> bool {
        let p = self.probe(fp);
        self.query_probe(&p)
    }

    /// `query` with the positions computed by `probe`.
    pub fn query_probe(&mut self, p: &Probe) -> bool {
        self.queries += 1;
        let hit = p.at.iter().all(|&i| self.bits[(i / 64) as usize] & (1 << (i % 64)) != 0);
        self.positives += u64::from(hit);
        hit
    }

    pub fn insert(&mut self, fp: u64) {
        let p = self.probe(fp);
        self.insert_probe(&p);
    }

    /// `insert` with the positions computed by `probe`.
    pub fn insert_probe(&mut self, p: &Probe) {
        self.inserted += 1;
        for i in p.at {
            self.bits[(i / 64) as usize] |= 1 << (i % 64);
        }
    }

    /// Forget every fingerprint (the statistics stay).
    pub fn clear(&mut self) {
        self.bits.fill(0);
    }

    /// Bytes the filter takes.
    pub fn bytes(&self) -> u64 {
        self.bits.len() as u64 * 8
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// No false negatives, and at 4.2 bits per entry with 3 hashes the false-positive rate is
    /// near the textbook (1 − e^(−k n / m))^k ≈ 0.14 for random fingerprints.
    #[test]
    fn no_false_negatives_and_the_expected_false_positive_rate() {
        let n = 20_000u64;
        let mut b = Bloom::new(n, 4.2);
        let fp = |i: u64| crate::workload::content::mix(i ^ 0x1234_5678);
        for i in 0..n {
            b.insert(fp(i));
        }
        assert!((0..n).all(|i| b.query(fp(i))));
        let fpr = (n..3 * n).filter(|&i| b.query(fp(i))).count() as f64 / (2 * n) as f64;
        let want = (1.0 - (-3.0f64 / 4.2).exp()).powi(3);
        assert!((fpr - want).abs() < 0.03, "false-positive rate {fpr:.3}, textbook {want:.3}");
        assert_eq!(b.bytes(), (n as f64 * 4.2).ceil() as u64 / 64 * 8 + 8);
    }

    /// A probe made once (as SplitGC's scrub makes it when it issues a read) answers and
    /// inserts exactly as the fingerprint itself does, and counts the same.
    #[test]
    fn a_probe_answers_as_its_fingerprint() {
        let (mut a, mut b) = (Bloom::new(5_000, 4.2), Bloom::new(5_000, 4.2));
        let fp = |i: u64| crate::workload::content::mix(i ^ 0x9e37);
        let mut hits = 0;
        for i in 0..20_000u64 {
            let f = fp(i % 7_000);
            let p = b.probe(f);
            assert_eq!(p.fp, f);
            b.prefetch(&p);
            let (qa, qb) = (a.query(f), b.query_probe(&p));
            assert_eq!(qa, qb, "fingerprint {i}");
            hits += u64::from(qa);
            if !qa {
                a.insert(f);
                b.insert_probe(&p);
            }
        }
        assert_eq!(a.bits, b.bits);
        assert_eq!((a.queries, a.positives, a.inserted), (b.queries, b.positives, b.inserted));
        assert!(hits > 13_000 && a.inserted < 7_000, "{hits} hits, {} inserted", a.inserted);
    }
}
