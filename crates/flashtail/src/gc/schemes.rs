//! The scheme registry: a scheme is a GC policy, a victim policy and mechanism switches,
//! assembled by name. Adding a scheme means adding one arm here.

use super::policy::GcPolicy;
use super::threshold::{ThresholdGc, ThresholdMode};
use super::rotating::RotatingGc;
use super::victim::{build_victim, VictimPolicy};
use crate::interconnect::Interconnect;

/// One GC scheme, ready to plug into the engine.
pub struct Scheme {
    pub name: String,
    pub gc: Box<dyn GcPolicy>,
    pub victim: Box<dyn VictimPolicy>,
    /// Move valid pages by intra-plane copyback (no data on the channel).
    pub copyback: bool,
    /// The scheme reclaims at no time cost (NoGC): reported so tables can normalise to it.
    pub ideal: bool,
    /// Keep RAIN parity (ttFlash): one parity page per stripe of N−1 data pages.
    pub rain: bool,
    /// Rebuild reads that would wait on a GC'ing plane from their stripe (needs `rain`).
    pub gc_tolerant_read: bool,
    /// ttFlash's rotating GC (`ttflash-rgc`, `ttflash`): at most one collecting plane per
    /// stripe group while rotation holds.
    pub rotating: bool,
    /// ttFlash's capacitor-backed stripe buffer with GC-avoiding flushes (needs `rain`).
    pub gc_tolerant_flush: bool,
    /// The transfer path: shared channel buses, the Venice mesh, or the mesh with GC bypass.
    pub interconnect: Interconnect,
    /// A content-aware mechanism (SplitGC, CAGC, DAGC; `content/`).
    pub content: Option<super::content::ContentScheme>,
}

/// Whether `name` (with or without `:overrides`) is one of a family's base names.
pub(super) fn in_family(family: &[(&str, &str)], name: &str) -> bool {
    let base = name.split_once(':').map_or(name, |(b, _)| b);
    family.iter().any(|(n, _)| *n == base)
}

/// Every scheme name the build knows, with a one-line description.
pub fn scheme_names() -> Vec<(&'static str, &'static str)> {
    vec![
        ("nogc", "ideal: GC reclaims instantly at no time cost (the lower bound)"),
        ("base", "greedy blocking GC: a victim is collected to the end while its plane serves nothing else"),
        ("preemptive", "semi-preemptive GC (Lee et al. ISPASS'11): steps yield to user I/O; urgent below the hard threshold"),
        ("ttflash-pbl", "ttFlash +plane-blocking GC: base with intra-plane copyback (the channel stays free)"),
        ("ttflash-gtr", "ttFlash +GC-tolerant read: pbl + RAIN parity; reads on a GC'ing plane are rebuilt from their stripe"),
        ("ttflash-rgc", "ttFlash +rotating GC: gtr + at most one GC'ing plane per plane group (dropped under the device's ttflash.rotation rule)"),
        ("ttflash", "ttFlash (FAST'17): rgc + GC-tolerant flush (capacitor-backed stripe buffer, 64 MiB unless buffer.capacity_pages)"),
        ("wla-gc", "WLA-GC (de Campos et al.): base with the word-line-aware victim (fewest t_read + t_program of the valid pages' levels)"),
        ("venice", "Venice (ISCA'23): base GC with the channels replaced by a mesh of routers, path reservation and adaptive routing"),
        ("gc-bypass", "GC bypass (Nie et al. 2026): Venice + a GC controller with its own ports; GC write-back paths yield to host I/O"),
    ]
    .into_iter()
    .chain(super::partial::SCHEMES.iter().copied())
    .chain(super::content::SCHEMES.iter().copied())
    .collect()
}

/// The schemes `compare` runs when none are named: every scheme, less those that cannot run
/// on this device (RAIN on fewer than 3 channels) or would only repeat another on this
/// device or workload, each with the reason it was left out.
/// WLA-GC weighs pages by level, so on single-level cells it is base (tests/wla_gc.rs).
/// The content-aware schemes act on duplicate content: they run when the workload's writes
/// carry content fingerprints that can repeat (`fingerprinted`: an FIU trace, or a generator
/// with duplicates such as `--gen splitgc-*`); on any other workload they are base plus
/// their scrub or fingerprinting cost.
pub fn default_schemes(dev: &crate::config::DeviceConfig, fingerprinted: bool) -> (Vec<&'static str>, Vec<(&'static str, String)>) {
    let geo = &dev.geometry;
    let mut skipped = Vec::new();
    let mut run = Vec::new();
    for (n, _) in scheme_names() {
        // RAIN stripes one page per channel with one of them parity (`ftl/rain.rs`).
        let rain = build_scheme(n, None, 0).is_ok_and(|s| s.rain);
        if rain && geo.channels < 3 {
            skipped.push((n, "RAIN parity needs at least 3 channels".to_string()));
        } else if let Some(Err(e)) = rain.then(|| dev.rain_fits()) {
            skipped.push((n, e));
        } else if n == "wla-gc" && geo.bits_per_cell == 1 {
            skipped.push((n, "one bit per cell: every page costs the same, so it is base".to_string()));
        } else if super::content::handles(n) && !fingerprinted {
            skipped.push((n, "content-aware: this workload's writes carry no content fingerprints with duplicates to find, as an FIU trace or `--gen splitgc-*` does".to_string()));
        } else {
            run.push(n);
        }
    }
    (run, skipped)
}

/// Build a scheme by name; `victim` overrides its victim policy (default greedy; `wla` for
/// wla-gc, which is base GC with WLA-GC's victim rule, the WLA-GC paper: `--victim wla` gives any other
/// scheme the same rule).
pub fn build_scheme(name: &str, victim: Option<&str>, seed: u64) -> Result<Scheme, String> {
    let content = if super::content::handles(name) { Some(super::content::build(name)?) } else { None };
    let own_victim = match content.as_ref().map(|c| c.kind) {
        _ if name == "wla-gc" => "wla",
        Some(super::content::ContentKind::SplitGc) => "splitgc",
        Some(super::content::ContentKind::Dagc) => "dagc",
        _ => "greedy",
    };
    let v = build_victim(victim.unwrap_or(own_victim), seed)?;
    let blocking = || -> Box<dyn GcPolicy> { Box::new(ThresholdGc::new(ThresholdMode::Blocking)) };
    // (policy, copyback, ideal, rain, gc-tolerant read)
    let (gc, copyback, ideal, rain, gtr): (Box<dyn GcPolicy>, bool, bool, bool, bool) = match name {
        "nogc" => (Box::new(ThresholdGc::new(ThresholdMode::Instant)), false, true, false, false),
        "base" | "wla-gc" | "venice" | "gc-bypass" => (blocking(), false, false, false, false),
        "preemptive" => (Box::new(ThresholdGc::new(ThresholdMode::Preemptive)), false, false, false, false),
        "ttflash-pbl" => (blocking(), true, false, false, false),
        "ttflash-gtr" => (blocking(), true, false, true, true),
        "ttflash-rgc" | "ttflash" => (Box::new(RotatingGc::new(true)), true, false, true, true),
        n if super::partial::handles(n) => (super::partial::build(n, seed)?, false, false, false, false),
        _ if content.is_some() => (blocking(), false, false, false, false),
        _ => {
            let known: Vec<&str> = scheme_names().iter().map(|(n, _)| *n).collect();
            let hint = crate::suggest::did_you_mean(name, known.iter().copied());
            return Err(format!("unknown scheme '{name}'{hint} (known: {})", known.join(", ")));
        }
    };
    let gc_tolerant_flush = name == "ttflash";
    let rotating = matches!(name, "ttflash-rgc" | "ttflash");
    let interconnect = match name {
        "venice" => Interconnect::Venice,
        "gc-bypass" => Interconnect::GcBypass,
        _ => Interconnect::Bus,
    };
    Ok(Scheme { name: name.to_string(), gc, victim: v, copyback, ideal, rain, gc_tolerant_read: gtr, rotating, gc_tolerant_flush, interconnect, content })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The engine skips `on_arrival` / `on_complete` for policies that say they do not watch
    /// requests: only the partial-GC policies (which plan idle-time GC from the request
    /// stream) may say they do, and every one of them must.
    #[test]
    fn only_the_partial_gc_policies_watch_requests() {
        let partial: Vec<&str> = crate::gc::partial::SCHEMES.iter().map(|&(n, _)| n).collect();
        assert!(!partial.is_empty());
        for (name, _) in scheme_names() {
            let s = build_scheme(name, None, 1).unwrap();
            assert_eq!(s.gc.watches_requests(), partial.contains(&name), "scheme {name}");
        }
    }

    /// Content-aware schemes run by default exactly when the workload is fingerprinted;
    /// WLA-GC exactly on cells of more than one bit, whatever the workload.
    #[test]
    fn default_schemes_follow_the_device_and_the_workload() {
        let content: Vec<&str> = crate::gc::content::SCHEMES.iter().map(|&(n, _)| n).collect();
        assert_eq!(content, ["splitgc", "cagc", "dagc"]);
        let slc = crate::config::presets::load("tiny").unwrap();
        let mut qlc = crate::config::presets::load("qlc").unwrap();
        assert_eq!(slc.geometry.bits_per_cell, 1);
        assert!(qlc.geometry.bits_per_cell > 1);
        for (dev, fp) in [(&slc, false), (&slc, true), (&qlc, false), (&qlc, true)] {
            let (run, skipped) = default_schemes(dev, fp);
            assert_eq!(run.len() + skipped.len(), scheme_names().len());
            for c in &content {
                assert_eq!(run.contains(c), fp, "{c} fingerprinted={fp}");
                assert_eq!(skipped.iter().any(|(n, _)| n == c), !fp);
            }
            assert_eq!(run.contains(&"wla-gc"), dev.geometry.bits_per_cell > 1);
            assert!(run.contains(&"base") && run.contains(&"nogc"));
        }
        // tiny has 2 channels: no RAIN schemes.
        let rain = ["ttflash-gtr", "ttflash-rgc", "ttflash"];
        let (run, skipped) = default_schemes(&slc, true);
        assert_eq!(slc.geometry.channels, 2);
        for r in rain {
            assert!(!run.contains(&r) && skipped.contains(&(r, "RAIN parity needs at least 3 channels".to_string())), "{r}");
        }
        assert!(run.contains(&"ttflash-pbl"));
        // qlc has 8 channels and 12.5 % spare: parity (1/7 of the data) does not fit the
        // spare area, so the RAIN schemes are left out saying how to make room ...
        let (run, skipped) = default_schemes(&qlc, true);
        for r in rain {
            let why = &skipped.iter().find(|(n, _)| *n == r).expect("left out").1;
            assert!(!run.contains(&r) && why.contains("ftl.rain_parity = \"reserved\""), "{r}: {why}");
        }
        // ... and with the parity reserved in the logical space they all run.
        qlc.ftl.rain_parity = crate::config::RainParity::Reserved;
        let (run, _) = default_schemes(&qlc, true);
        assert!(rain.iter().all(|r| run.contains(r)));
    }
}
