//! The scheme registry: a scheme is a GC policy, a victim policy and mechanism switches,
//! assembled by name. Adding a scheme means adding one arm here.

use super::policy::GcPolicy;
use super::threshold::{ThresholdGc, ThresholdMode};
use super::victim::{build_victim, VictimPolicy};

/// One GC scheme, ready to plug into the engine.
pub struct Scheme {
    pub name: String,
    pub gc: Box<dyn GcPolicy>,
    pub victim: Box<dyn VictimPolicy>,
    /// Move valid pages by intra-plane copyback (no data on the channel).
    pub copyback: bool,
    /// The scheme reclaims at no time cost (NoGC): reported so tables can normalise to it.
    pub ideal: bool,
}

/// Every scheme name the build knows, with a one-line description.
pub fn scheme_names() -> Vec<(&'static str, &'static str)> {
    vec![
        ("nogc", "ideal: GC reclaims instantly at no time cost (the lower bound)"),
        ("base", "greedy blocking GC: a victim is collected to the end while its plane serves nothing else"),
        ("preemptive", "semi-preemptive GC (Lee et al. ISPASS'11): steps yield to user I/O; urgent below the hard threshold"),
    ]
    .into_iter()
    .chain(super::partial::SCHEMES.iter().copied())
    .collect()
}

/// Build a scheme by name; `victim` overrides its victim policy (default greedy).
pub fn build_scheme(name: &str, victim: Option<&str>, seed: u64) -> Result<Scheme, String> {
    let v = build_victim(victim.unwrap_or("greedy"), seed)?;
    let (gc, copyback, ideal): (Box<dyn GcPolicy>, bool, bool) = match name {
        "nogc" => (Box::new(ThresholdGc { mode: ThresholdMode::Instant }), false, true),
        "base" => (Box::new(ThresholdGc { mode: ThresholdMode::Blocking }), false, false),
        "preemptive" => (Box::new(ThresholdGc { mode: ThresholdMode::Preemptive }), false, false),
        n if super::partial::handles(n) => (super::partial::build(n, seed)?, false, false),
        _ => {
            let known: Vec<&str> = scheme_names().iter().map(|(n, _)| *n).collect();
            return Err(format!("unknown scheme '{name}' (known: {})", known.join(", ")));
        }
    };
    Ok(Scheme { name: name.to_string(), gc, victim: v, copyback, ideal })
}
