//! Partial, idle-time-aware GC: Lazy-RTGC and the schemes of the RL-GC paper (Kang, Shin,
//! Yoo, ACM TECS 2017): the RL agent, its aggressive variant and the simple idle-time
//! predictors it is compared with. All share one task runner (`task.rs`): a task is a few
//! valid-page copies or one erase, run right after a request is served.
//!
//! Scheme names take `key=value` overrides after a colon (`rlgc:t_gc=20,max_copies=8`, or
//! with `+` between pairs where the name sits in a comma-separated list;
//! keys in `params.rs`).

pub mod idle_predict;
pub mod intervals;
pub mod lazy_rtgc;
pub mod params;
pub mod qtable;
pub mod reward;
pub mod rlgc;
pub mod task;

use super::policy::GcPolicy;
pub use params::Params;

/// Base names of the schemes built here, with one-line descriptions.
pub const SCHEMES: &[(&str, &str)] = &[
    ("lazy-rtgc", "Lazy-RTGC (Zhang et al. TODAES'15) as in RL-GC: 2-copy partial tasks after writes at free <= T_GC, intensive at one free block"),
    ("rlgc", "RL-assisted GC (Kang et al. TECS'17): Q-learning agent sizes partial GC to the idle time; overrides: rlgc:key=value,..."),
    ("rlgc-aggressive", "RL-GC with max-limited early triggering (T_AGC = 100, <= 2 copies, victims > 60% invalid) and read-initiated GC"),
    ("idle-ma", "partial GC sized to the idle gap predicted by a moving average of inter-request intervals"),
    ("idle-es", "partial GC sized to the idle gap predicted by exponential smoothing of inter-request intervals"),
];

/// Whether `name` (with or without `:overrides`) is one of ours.
pub fn handles(name: &str) -> bool {
    super::schemes::in_family(SCHEMES, name)
}

/// Build a policy from `base[:key=value,...]`; `seed` seeds the RL agent's exploration.
pub fn build(name: &str, seed: u64) -> Result<Box<dyn GcPolicy>, String> {
    let (base, spec) = name.split_once(':').unwrap_or((name, ""));
    let mut p = Params::default();
    p.apply(base, spec)?;
    Ok(match base {
        "lazy-rtgc" => Box::new(lazy_rtgc::LazyRtgc::new(p)),
        "rlgc" => Box::new(rlgc::RlGc::new(p, false, seed)),
        "rlgc-aggressive" => Box::new(rlgc::RlGc::new(p, true, seed)),
        "idle-ma" => {
            let n = p.ma_window;
            Box::new(idle_predict::IdlePredictGc::new(
                p,
                idle_predict::Predictor::moving_average(n),
            ))
        }
        "idle-es" => {
            let w = p.es_weight;
            Box::new(idle_predict::IdlePredictGc::new(
                p,
                idle_predict::Predictor::smoothing(w),
            ))
        }
        _ => return Err(format!("unknown partial-GC scheme '{base}'")),
    })
}
