//! Thresholds and knobs of the partial-GC schemes, with the RL-GC paper's defaults
//! (Kang, Shin, Yoo, ACM TECS 2017, Table 4 and §5), and their `key=value` overrides taken
//! from the scheme name (`rlgc:t_gc=20,max_copies=8`).
//!
//! Some defaults depend on the device (the GC trigger follows the device's soft threshold,
//! the intensive task size follows its timings); they stay `None` here and are resolved by
//! [`Params::resolve`] once the policy first sees the device. This module does no GC itself.

use crate::config::DeviceConfig;

/// Every knob of `lazy-rtgc`, `rlgc`, `rlgc-aggressive`, `idle-ma` and `idle-es`.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Params {
    /// T_GC: partial GC runs while a plane has `free <= t_gc` blocks. Default: the device's
    /// soft threshold minus one (the RL-GC presets encode T_GC = 10 that way).
    pub t_gc: Option<u32>,
    /// Intensive GC starts at `free <= igc_on` (the paper: one free block left). Default
    /// `None` = the device's hard GC threshold minus one (the RL-GC presets set it to 2
    /// blocks, i.e. one free block left), so intensive GC engages at the same share of a
    /// plane on every device, as urgent GC does under the other schemes; with a fixed 1 it
    /// would never engage on a device whose soft threshold is hundreds of blocks, and a
    /// scheme would postpone all its GC past the end of a run. Intensive GC also starts
    /// when free blocks reach the device's host-write reserve, since host writes block there.
    pub igc_on: Option<u32>,
    /// T_IGC: intensive GC stops once `free > t_igc`. Default `None` = `igc_on` + 2 (the
    /// paper: on at 1, off above 3), before the host-write reserve raises the on-threshold.
    pub t_igc: Option<u32>,
    /// Copies per intensive task (paper: 5 or 7). Default floor(tBERS / (tR + tPROG)) + 1:
    /// 7 on the 128 Gb device, 5 on the 512 Gb one.
    pub igc_copies: Option<u32>,
    /// Copies per normal Lazy-RTGC task (RL-GC's variant: 1-2). 0 = Lazy-RTGC's own
    /// α = floor(tBERS / (tR + tPROG)).
    pub copies: u32,
    /// Largest RL action (actions are 0..=max_copies copies; any non-zero action becomes the
    /// erase when the victim has no valid page left).
    pub max_copies: u32,
    /// T_AGC: the aggressive variant also runs GC at `t_gc < free <= t_agc` ...
    pub t_agc: u32,
    /// ... with at most this many copies per action ...
    pub agc_cap: u32,
    /// ... and only on victims with more than this share (%) of their pages invalid.
    pub agc_invalid_pct: u32,
    /// Read-initiated triggering (aggressive variant): GC after reads too.
    pub read_gc: bool,
    /// Q-learning step size α.
    pub alpha: f64,
    /// Discount γ.
    pub gamma: f64,
    /// Initial Q-value of every (state, action). The paper does not give one. Default
    /// `None` = 1/(1−γ), the largest return the reward allows (optimistic initialisation):
    /// with 0 and mostly positive rewards, the greedy policy sticks to whichever action it
    /// tried first in a state, since untried actions keep looking worse than any tried one.
    pub q_init: Option<f64>,
    /// Exploitation rule: false (default) = greedy argmax, the spec's ε-greedy; true =
    /// `policy=proportional`, the stochastic policy of the paper's footnote 2 (action drawn
    /// with probability ∝ Q, negative values counted as 0), which the paper says its own
    /// experiments used. ε-exploration applies either way. docs/rlgc.md compares the two.
    pub proportional: bool,
    /// Current-interval bins of the state: false (default, `bins=log5`) = five log-spaced
    /// bins per decade from 100 µs to 100 ms; true (`bins=legible`) = Table 3's legible
    /// edges (100 µs, 500 µs, 100 ms) with the bins between 500 µs and 100 ms log-spaced
    /// (`qtable::LEGIBLE_EDGES_NS`). `flashtail reproduce rlgc` runs the legible ones.
    pub legible_bins: bool,
    /// ε during the first `explore_actions` agent decisions ...
    pub eps_start: f64,
    /// ... and after them.
    pub eps_end: f64,
    pub explore_actions: u64,
    /// Recent response times the reward thresholds (p70/p90/p99) are taken from.
    pub reward_window: u32,
    /// Split (µs) of the previous-interval state bin.
    pub prev_split_us: u64,
    /// idle-ma: intervals averaged.
    pub ma_window: u32,
    /// idle-es: smoothing weight of the newest interval.
    pub es_weight: f64,
}

impl Default for Params {
    fn default() -> Self {
        Params {
            t_gc: None,
            igc_on: None,
            t_igc: None,
            igc_copies: None,
            copies: 2,
            max_copies: 10,
            t_agc: 100,
            agc_cap: 2,
            agc_invalid_pct: 60,
            read_gc: false,
            alpha: 0.3,
            gamma: 0.8,
            q_init: None,
            proportional: false,
            legible_bins: false,
            eps_start: 0.8,
            eps_end: 0.01,
            explore_actions: 1000,
            reward_window: 1000,
            prev_split_us: 100,
            ma_window: 10,
            es_weight: 0.5,
        }
    }
}

/// Device-dependent values, fixed once the device is known.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Resolved {
    pub t_gc: u32,
    /// Effective intensive-on threshold: max(igc_on, host-write reserve).
    pub igc_on: u32,
    /// Intensive mode ends once free blocks exceed this.
    pub t_igc: u32,
    pub igc_copies: u32,
    pub copies: u32,
    /// Victims taken in the early (T_GC < free <= T_AGC) zone need at least this many
    /// invalid pages: more than `agc_invalid_pct`% of the block.
    pub agc_min_invalid: u32,
    /// Estimated time of one valid-page move through the controller, ns (sizes the idle
    /// predictors' tasks).
    pub copy_ns: u64,
}

/// Lazy-RTGC's α = floor(tBERS / (tR + tPROG)): the copies that fit in one erase time.
pub fn lazy_alpha(dev: &DeviceConfig) -> u32 {
    let t = &dev.timing;
    (t.erase_ns / (t.read(0).0 + t.program(0).0)).max(1) as u32
}

impl Params {
    pub fn resolve(&self, dev: &DeviceConfig, soft_blocks: u32) -> Resolved {
        let t = &dev.timing;
        let alpha = lazy_alpha(dev);
        let ppb = dev.geometry.pages_per_block;
        let on = self.igc_on.unwrap_or(dev.hard_threshold_blocks().saturating_sub(1)).max(1);
        let igc_on = on.max(dev.ftl.gc_reserved_blocks);
        Resolved {
            t_gc: self.t_gc.unwrap_or(soft_blocks.saturating_sub(1)),
            igc_on,
            t_igc: self.t_igc.unwrap_or(on + 2),
            igc_copies: self.igc_copies.unwrap_or(alpha + 1),
            copies: if self.copies == 0 { alpha } else { self.copies },
            agc_min_invalid: (ppb as u64 * self.agc_invalid_pct as u64 / 100) as u32 + 1,
            copy_ns: t.read(0).0 + t.program(0).0 + 2 * t.transfer(dev.geometry.page_size as u64).0,
        }
    }

    /// Apply `k=v,k=v` overrides (`+` separates too, for lists that are themselves
    /// comma-separated, like `compare --schemes`); errors name the scheme and the bad key.
    pub fn apply(&mut self, scheme: &str, spec: &str) -> Result<(), String> {
        for kv in spec
            .split([',', '+'])
            .map(str::trim)
            .filter(|s| !s.is_empty())
        {
            let (k, v) = kv.split_once('=').ok_or_else(|| {
                format!("scheme '{scheme}': parameter '{kv}' must look like key=value")
            })?;
            let (k, v) = (k.trim(), v.trim());
            let bad = |what: &str| {
                format!("scheme '{scheme}': parameter '{k}': expected {what}, got '{v}'")
            };
            let uint = || v.parse::<u32>().map_err(|_| bad("a non-negative integer"));
            // A knob that sizes a table or a loop: bounded, the bound named (4294967295
            // aborted on allocation, 20000000 took 12 GB).
            let upto = |lo: u32, hi: u32, what: &str| {
                v.parse::<u32>().ok().filter(|x| (lo..=hi).contains(x)).ok_or_else(|| bad(&format!("an integer from {lo} to {hi} ({what})")))
            };
            let frac = || {
                v.parse::<f64>()
                    .ok()
                    .filter(|x| (0.0..=1.0).contains(x))
                    .ok_or_else(|| bad("a number in [0, 1]"))
            };
            match k {
                "t_gc" => self.t_gc = Some(uint()?),
                "igc_on" => self.igc_on = Some(uint()?),
                "t_igc" => self.t_igc = Some(uint()?),
                "igc_copies" => self.igc_copies = Some(upto(1, MAX_COPIES, "copies per intensive task")?),
                "copies" => self.copies = if v == "alpha" { 0 } else { upto(1, MAX_COPIES, "copies per task, or alpha")? },
                "max_copies" => self.max_copies = upto(1, MAX_COPIES, "the largest action; the Q-table holds one column per action")?,
                "t_agc" => self.t_agc = uint()?,
                "agc_cap" => self.agc_cap = upto(0, MAX_COPIES, "copies per early action")?,
                "agc_invalid_pct" => self.agc_invalid_pct = uint()?.min(99),
                "read_gc" => self.read_gc = v.parse::<bool>().map_err(|_| bad("true or false"))?,
                "alpha" => self.alpha = frac()?,
                "gamma" => self.gamma = frac()?,
                "q_init" => {
                    self.q_init = Some(
                        v.parse::<f64>()
                            .ok()
                            .filter(|x| x.is_finite())
                            .ok_or_else(|| bad("a number"))?,
                    )
                }
                "policy" => {
                    self.proportional = match v {
                        "greedy" => false,
                        "proportional" => true,
                        _ => return Err(bad("greedy or proportional")),
                    }
                }
                "bins" => {
                    self.legible_bins = match v {
                        "log5" => false,
                        "legible" => true,
                        _ => return Err(bad("log5 or legible")),
                    }
                }
                "eps_start" => self.eps_start = frac()?,
                "eps_end" => self.eps_end = frac()?,
                "explore_actions" => {
                    self.explore_actions = v
                        .parse::<u64>()
                        .map_err(|_| bad("a non-negative integer"))?
                }
                "reward_window" => self.reward_window = upto(1, MAX_WINDOW, "response times kept for the reward thresholds")?,
                "prev_split_us" => {
                    self.prev_split_us = v
                        .parse::<u64>()
                        .ok()
                        .filter(|x| *x <= MAX_SPLIT_US)
                        .ok_or_else(|| bad(&format!("an integer from 0 to {MAX_SPLIT_US} (µs)")))?
                }
                "ma_window" => self.ma_window = upto(1, MAX_WINDOW, "intervals averaged")?,
                "es_weight" => self.es_weight = frac()?,
                _ => {
                    return Err(format!(
                        "scheme '{scheme}': unknown parameter '{k}' (known: {})",
                        KEYS.join(", ")
                    ))
                }
            }
        }
        Ok(())
    }
}

/// Most copies per task or action (`max_copies`, `copies`, `igc_copies`, `agc_cap`): a
/// block's worth on the largest devices; the Q-table has `max_copies + 1` columns.
pub const MAX_COPIES: u32 = 4096;
/// Longest `reward_window` / `ma_window` (entries kept in memory).
pub const MAX_WINDOW: u32 = 1_000_000;
/// Largest `prev_split_us` (1000 s).
pub const MAX_SPLIT_US: u64 = 1_000_000_000;

/// Every key `apply` accepts.
pub const KEYS: &[&str] = &[
    "t_gc",
    "igc_on",
    "t_igc",
    "igc_copies",
    "copies",
    "max_copies",
    "t_agc",
    "agc_cap",
    "agc_invalid_pct",
    "read_gc",
    "alpha",
    "gamma",
    "q_init",
    "policy",
    "bins",
    "eps_start",
    "eps_end",
    "explore_actions",
    "reward_window",
    "prev_split_us",
    "ma_window",
    "es_weight",
];

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::presets;

    #[test]
    fn overrides_parse_and_errors_name_the_key() {
        let mut p = Params::default();
        p.apply(
            "rlgc",
            "t_gc=20, max_copies=8,read_gc=true+alpha=0.5,policy=greedy",
        )
        .unwrap();
        assert_eq!(
            (p.t_gc, p.max_copies, p.read_gc, p.alpha, p.proportional),
            (Some(20), 8, true, 0.5, false)
        );
        p.apply("rlgc", "policy=proportional").unwrap();
        assert!(p.proportional);
        assert!(p
            .apply("rlgc", "policy=softmax")
            .unwrap_err()
            .contains("'policy'"));
        for (kv, bound) in [
            ("reward_window=4294967295", "from 1 to 1000000"),
            ("max_copies=4294967295", "from 1 to 4096"),
            ("max_copies=20000000", "from 1 to 4096"),
            ("max_copies=0", "from 1 to 4096"),
            ("ma_window=0", "from 1 to 1000000"),
            ("prev_split_us=18446744073709551615", "from 0 to 1000000000"),
        ] {
            let e = Params::default().apply("rlgc", kv).unwrap_err();
            assert!(e.contains(bound) && e.contains(kv.split('=').next().unwrap()), "{kv}: {e}");
        }
        let e = p.apply("rlgc", "max_copiez=3").unwrap_err();
        assert!(e.contains("'max_copiez'") && e.contains("rlgc"), "{e}");
        let e = p.apply("rlgc", "t_gc=ten").unwrap_err();
        assert!(e.contains("'t_gc'") && e.contains("'ten'"), "{e}");
        let e = p.apply("rlgc", "gamma=1.5").unwrap_err();
        assert!(e.contains("'gamma'"), "{e}");
        let e = p.apply("rlgc", "t_gc").unwrap_err();
        assert!(e.contains("key=value"), "{e}");
    }

    #[test]
    fn device_dependent_defaults_match_the_paper() {
        let d128 = presets::load("rlgc-128gb").unwrap();
        let d512 = presets::load("rlgc-512gb").unwrap();
        // α = floor(4000 / 649) = 6 and floor(3500 / 760) = 4.
        assert_eq!(lazy_alpha(&d128), 6);
        assert_eq!(lazy_alpha(&d512), 4);
        let r = Params::default().resolve(&d128, d128.soft_threshold_blocks());
        assert_eq!((r.t_gc, r.igc_copies, r.copies, r.igc_on, r.t_igc), (10, 7, 2, 2, 3));
        // > 60% of 384 pages invalid = at least 231.
        assert_eq!(r.agc_min_invalid, 231);
        let r = Params::default().resolve(&d512, d512.soft_threshold_blocks());
        assert_eq!((r.t_gc, r.igc_copies, r.agc_min_invalid), (10, 5, 461));
        // With the paper's one-block reserve: on at one free block, off above 3 (Table 4).
        let mut paper = d128.clone();
        paper.ftl.gc_reserved_blocks = 1;
        let r = Params::default().resolve(&paper, paper.soft_threshold_blocks());
        assert_eq!((r.igc_on, r.t_igc), (1, 3));
        // A device with a share-based hard threshold: intensive GC scales with the plane.
        let demo = presets::load("dtrs-demo").unwrap();
        let r = Params::default().resolve(&demo, demo.soft_threshold_blocks());
        assert_eq!(r.igc_on, demo.hard_threshold_blocks() - 1);
        assert!(r.igc_on > 2 && r.t_igc >= r.igc_on + 2 && r.t_gc > r.t_igc, "{r:?}");
    }
}
