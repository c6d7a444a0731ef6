//! The content-aware schemes of the SplitGC paper: SplitGC (Nie et al., Electronics 2025) and its
//! comparators DAGC and CAGC. Each is base (greedy, blocking) GC plus:
//!
//! - `splitgc`: read scrub fingerprints one group of blocks per pass (`scrub.rs`, Bloom
//!   filter in `bloom.rs`); the victim is the block with the fewest non-duplicate valid
//!   pages when any block holds duplicates (`victim.rs`); duplicate valid pages are not
//!   copied: their logical pages read another copy until an idle-time deferred write
//!   restores their own (the engine's `content_path`).
//! - `cagc`: GC fingerprints every page it moves; a page whose content another fingerprinted
//!   page already holds is read but not written: its logical page shares that copy. The
//!   pages it does write go by reference count: shared pages (`cold_refs` or more logical
//!   pages read them) to a cold region, apart from unshared ones (the hot region).
//! - `dagc`: the checksums of invalidated pages are kept a while; a host write of the same
//!   content revalidates the old page instead of programming a new one, and victim
//!   selection counts those pages as if valid (so GC moves them too).
//!
//! Names take `key=value` overrides after a colon (`splitgc:groups=5,period_ms=1000`).
//! Paper-versus-earlier behaviour is chosen by `move_kept` (DAGC) and `secondary`
//! (SplitGC/CAGC); `fill_scrubbed` gives SplitGC and CAGC the same starting table.

pub mod bloom;
pub mod scrub;
pub mod victim;

/// Which content-aware mechanism a scheme adds.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum ContentKind {
    SplitGc,
    Cagc,
    Dagc,
}

/// The knobs, with the SplitGC paper's values where it gives them.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct ContentParams {
    /// Block groups (1/α; the paper: 10): one is fingerprinted per scrub pass.
    pub groups: u32,
    /// Time from the end of one scrub pass to the start of the next. The paper gives none;
    /// real drives scrub every few days, far beyond a trace, so the default lets a trace of
    /// minutes see several passes.
    pub period_ms: u64,
    /// Also read (ECC check only) the groups a pass does not fingerprint. Off by default:
    /// that work is the same whatever the GC scheme, and it multiplies the pass by `groups`.
    pub check_all: bool,
    /// Controller time per scrubbed page (pipelined with the next read, so it holds no
    /// plane): ECC check, and for fingerprinted pages SHA-1 and table/Bloom update.
    pub ecc_us: u64,
    pub sha_us: u64,
    pub manage_us: u64,
    /// Bloom filter bits per fingerprint the device can hold (the paper: m = 4.2 n).
    pub bloom_bits: f64,
    /// Share of the preconditioned pages whose content duplicates other preconditioned data
    /// (drawn from a pool of 1 % of the pages, Zipf 0.8). Default 0: every preconditioned
    /// page unique, so only the trace's own writes can be duplicates. The paper fills its
    /// drive to 90 % without saying with what; a drive in service holds its workload's
    /// duplicates, which this sets (`flashtail reproduce splitgc` uses each workload's rate).
    pub fill_dups: f64,
    /// The preconditioned data was fingerprinted before the run (true), or the fingerprint
    /// table starts empty (false). SplitGC: by earlier scrub cycles (its duplicates are
    /// marked); CAGC: by earlier GCs, which put every content in its index. Both start from
    /// the same table, so the comparison is on equal terms. DAGC keeps checksums of
    /// invalidated pages only, and the fill has none, so it starts empty either way.
    pub fill_scrubbed: bool,
    /// DAGC: GC moves the victim's kept (invalid, checksum-cached) pages with its valid ones
    /// (true), or migrates only the valid pages and forgets the kept ones at the erase
    /// (false, the default: the SplitGC paper's description, "selects the block with the
    /// least number of invalid pages with cached checksum plus valid pages as the victim
    /// block and migrates the valid pages in it"). `move_kept=true` was the only behaviour
    /// before; its dropping rules (below the hard threshold, or no gain) still apply.
    pub move_kept: bool,
    /// SplitGC / CAGC: a host overwrite removes the old page from the fingerprint
    /// (secondary) table (true, the default: SplitGC §3.3 updates the list when a copy is
    /// invalidated), except a shared content's last copy, kept until the rescue before its
    /// erase; false (`secondary=until_erase`) keeps invalidated copies listed and readable
    /// until their block is erased, the only behaviour before.
    pub delist_invalid: bool,
    /// DAGC: invalidated pages whose checksums are kept (oldest forgotten first); 0 = 1 % of
    /// the device's pages. ("For a while": the spec gives no size. Kept pages are moved by
    /// GC like valid ones, so the cache must stay well below the over-provisioning.)
    pub cache_pages: u32,
    /// SplitGC: keep scrubbing when nothing was written for a whole cycle of passes (every
    /// group scrubbed since the last host write). Off by default: such passes read the same
    /// pages to learn the same, and over a long idle gap (10^7 s) they cost millions of
    /// events; the timer is parked instead and the next host write re-arms it (a period
    /// later). On, reads of a long write-free stretch keep meeting scrub reads.
    pub rescrub_unchanged: bool,
    /// CAGC: hot/cold placement by reference count. A page CAGC's GC writes goes to its
    /// plane's cold frontier when at least this many logical pages read it (its own and
    /// those sharing its content), and to the hot (ordinary GC) frontier otherwise; 0 turns
    /// placement off (one GC frontier, the only behaviour before). Default 2: shared pages
    /// apart from unshared ones, as the SplitGC paper describes CAGC ("if the page is not
    /// redundant, it writes it to the hot region"; CAGC, Wu et al. IPDPS'21: "reference
    /// count to categorize data pages as hot or cold"). A shared page is invalidated only
    /// when every logical page reading it is overwritten, so it lives long: kept apart, it
    /// does not keep the short-lived pages' blocks from emptying.
    pub cold_refs: u32,
}

impl Default for ContentParams {
    fn default() -> Self {
        ContentParams { groups: 10, period_ms: 10_000, check_all: false, ecc_us: 20, sha_us: 80, manage_us: 10, bloom_bits: 4.2, fill_dups: 0.0, fill_scrubbed: true, move_kept: false, delist_invalid: true, cache_pages: 0, rescrub_unchanged: false, cold_refs: 2 }
    }
}

const KEYS: &[&str] = &["groups", "period_ms", "check_all", "ecc_us", "sha_us", "manage_us", "bloom_bits", "fill_dups", "fill_scrubbed", "move_kept", "secondary", "cache_pages", "rescrub_unchanged", "cold_refs"];

/// Bounds of the knobs, named in the errors: a period of 0 scheduled the next scrub pass at
/// the same instant forever; the Bloom filter and the controller times must stay within
/// what memory and the 2^62 ns clock hold.
pub const GROUPS_MAX: u64 = 1 << 16;
pub const PERIOD_MS_MAX: u64 = 1_000_000_000_000;
pub const CONTROLLER_US_MAX: u64 = 1_000_000;
pub const BLOOM_BITS_MAX: f64 = 64.0;

impl ContentParams {
    /// Apply `key=value` pairs (separated by `,` or `+`).
    pub fn apply(&mut self, scheme: &str, spec: &str) -> Result<(), String> {
        for kv in spec.split([',', '+']).filter(|s| !s.is_empty()) {
            let (k, v) = kv.split_once('=').ok_or_else(|| format!("scheme '{scheme}': override '{kv}' is not key=value (keys: {})", KEYS.join(", ")))?;
            let bad = |what: &str| format!("scheme '{scheme}': {k} = '{v}' is not {what}");
            let int = || v.parse::<u64>().map_err(|_| bad("a non-negative integer"));
            match k {
                "groups" => self.groups = u32::try_from(int()?).ok().filter(|&g| (1..=GROUPS_MAX as u32).contains(&g)).ok_or_else(|| bad(&format!("an integer from 1 to {GROUPS_MAX}")))?,
                "period_ms" => self.period_ms = Some(int()?).filter(|p| (1..=PERIOD_MS_MAX).contains(p)).ok_or_else(|| bad(&format!("an integer from 1 to {PERIOD_MS_MAX} (0 would start the next pass at the same instant forever)")))?,
                "check_all" => self.check_all = v.parse().map_err(|_| bad("true or false"))?,
                "ecc_us" | "sha_us" | "manage_us" => {
                    let us = Some(int()?).filter(|u| *u <= CONTROLLER_US_MAX).ok_or_else(|| bad(&format!("an integer from 0 to {CONTROLLER_US_MAX} (1 s per page)")))?;
                    *match k {
                        "ecc_us" => &mut self.ecc_us,
                        "sha_us" => &mut self.sha_us,
                        _ => &mut self.manage_us,
                    } = us;
                }
                "bloom_bits" => self.bloom_bits = v.parse::<f64>().ok().filter(|b| *b > 0.0 && *b <= BLOOM_BITS_MAX).ok_or_else(|| bad(&format!("a number above 0 and at most {BLOOM_BITS_MAX} (bits per fingerprint)")))?,
                "fill_dups" => self.fill_dups = v.parse::<f64>().ok().filter(|d| (0.0..=1.0).contains(d)).ok_or_else(|| bad("a share in 0..=1"))?,
                "fill_scrubbed" => self.fill_scrubbed = v.parse().map_err(|_| bad("true or false"))?,
                "rescrub_unchanged" => self.rescrub_unchanged = v.parse().map_err(|_| bad("true or false"))?,
                "move_kept" => self.move_kept = v.parse().map_err(|_| bad("true or false"))?,
                "secondary" => {
                    self.delist_invalid = match v {
                        "paper" => true,
                        "until_erase" => false,
                        _ => return Err(bad("paper or until_erase")),
                    }
                }
                "cold_refs" => self.cold_refs = u32::try_from(int()?).ok().filter(|&r| r != 1).ok_or_else(|| bad("0 (off) or a reference count of at least 2 below 2^32"))?,
                "cache_pages" => self.cache_pages = u32::try_from(int()?).map_err(|_| bad("below 2^32"))?,
                _ => return Err(format!("scheme '{scheme}': unknown override '{k}' (keys: {})", KEYS.join(", "))),
            }
        }
        Ok(())
    }
}

/// A content-aware scheme's mechanism and knobs.
#[derive(Clone, Debug)]
pub struct ContentScheme {
    pub kind: ContentKind,
    pub params: ContentParams,
}

/// Base names of the schemes built here, with one-line descriptions.
pub const SCHEMES: &[(&str, &str)] = &[
    ("splitgc", "SplitGC (Nie et al. 2025): scrub-learned duplicates guide the victim; duplicate pages skip GC and are rewritten in idle time"),
    ("cagc", "CAGC (Wu et al. IPDPS'21): GC fingerprints moved pages and writes one copy per content (the rest share it), shared pages in a cold region"),
    ("dagc", "DAGC: checksums of invalidated pages are kept; a write of the same content revalidates the page, and GC keeps such pages"),
];

/// Whether `name` (with or without `:overrides`) is one of ours.
pub fn handles(name: &str) -> bool {
    super::schemes::in_family(SCHEMES, name)
}

/// The mechanism of `base[:key=value,...]`.
pub fn build(name: &str) -> Result<ContentScheme, String> {
    let (base, spec) = name.split_once(':').unwrap_or((name, ""));
    let kind = match base {
        "splitgc" => ContentKind::SplitGc,
        "cagc" => ContentKind::Cagc,
        "dagc" => ContentKind::Dagc,
        _ => return Err(format!("unknown content-aware scheme '{base}'")),
    };
    let mut params = ContentParams::default();
    params.apply(base, spec)?;
    Ok(ContentScheme { kind, params })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn overrides_parse_and_errors_name_the_key() {
        let s = build("splitgc:groups=5,period_ms=250+check_all=true").unwrap();
        assert_eq!((s.kind, s.params.groups, s.params.period_ms, s.params.check_all), (ContentKind::SplitGc, 5, 250, true));
        assert_eq!(build("dagc").unwrap().params, ContentParams::default());
        assert_eq!((build("cagc").unwrap().params.cold_refs, build("cagc:cold_refs=0").unwrap().params.cold_refs), (2, 0));
        for (bad, needle) in [("splitgc:groups=0", "groups = '0'"), ("cagc:nope=1", "unknown override 'nope'"), ("splitgc:groups", "not key=value"), ("splitgc:bloom_bits=-1", "bloom_bits"), ("splitgc:period_ms=0", "from 1 to 1000000000000"), ("splitgc:bloom_bits=1e300", "at most 64"), ("splitgc:groups=4294967295", "from 1 to 65536"), ("cagc:cold_refs=1", "at least 2"), ("splitgc:sha_us=18446744073709551615", "from 0 to 1000000")] {
            let e = build(bad).unwrap_err();
            assert!(e.contains(needle), "{bad}: {e}");
        }
    }
}
