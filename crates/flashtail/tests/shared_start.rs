//! One preconditioned device per starting state, copied into each scheme's run
//! (`runner::run_many`, `sim::SharedStart`): every scheme's report is byte for byte the one
//! it gives when its run preconditions its own device, and the one it gives alone.
use flashtail::config::{presets, Precondition};
use flashtail::runner::{run_many_with, run_opened, RunSpec, StartSharing};
use flashtail::trace::{self, ReplayOptions, TraceOptions};
use flashtail::{DeviceConfig, RequestSource, RunReport};

fn opener(dev: &DeviceConfig) -> impl Fn() -> Result<Box<dyn RequestSource + Send>, String> + Sync {
    let (cap, page) = (dev.host_bytes(), u64::from(dev.geometry.page_size));
    let window = ReplayOptions { end_s: Some(30.0), ..Default::default() };
    move || Ok(trace::replay(trace::embedded::dtrs(&TraceOptions::default()), &window, cap, page))
}

fn json(r: &RunReport) -> String {
    let mut r = r.clone();
    r.cost.strip_machine();
    serde_json::to_string(&r).unwrap()
}

fn spec(dev: &DeviceConfig, scheme: &str, seed: u64) -> RunSpec {
    flashtail::job::RunSettings { seed, ..Default::default() }.spec(dev, scheme)
}

/// Each scheme's summary with the device shared, and each preconditioned per run.
fn both(dev: &DeviceConfig, specs: &[RunSpec]) -> (Vec<String>, Vec<String>) {
    let open = opener(dev);
    let run = |sharing| -> Vec<String> {
        run_many_with(specs, &open, &[], sharing).iter().map(|r| json(r.as_ref().expect("run"))).collect()
    };
    (run(StartSharing::Shared), run(StartSharing::PerRun))
}

fn small_demo() -> DeviceConfig {
    let mut dev = presets::load("dtrs-demo").unwrap();
    dev.geometry.blocks_per_plane = 256;
    dev
}

#[test]
fn every_scheme_reports_the_same_from_a_shared_start() {
    // Plain schemes, RAIN schemes (their own starting state: parity stripes), a policy with
    // timers, a content-aware scheme (its tables set up on the copy), two seeds (two states).
    let dev = small_demo();
    let names = ["base", "nogc", "ttflash-rgc", "ttflash", "lazy-rtgc", "rlgc", "cagc"];
    let mut specs: Vec<RunSpec> = names.iter().map(|s| spec(&dev, s, 1)).collect();
    specs.push(spec(&dev, "base", 2));
    let (shared, own) = both(&dev, &specs);
    for (k, s) in specs.iter().enumerate() {
        assert!(shared[k] == own[k], "{} (seed {}) differs with a shared start", s.scheme, s.settings.seed);
    }
    // Different seeds start from different devices, and the copies did not mix them up.
    assert_ne!(shared[0], shared[names.len()]);
    // And alone, as `flashtail run` runs it.
    let alone = json(&run_opened(&specs[3], &opener(&dev), None).unwrap());
    assert!(alone == shared[3], "ttflash alone and in the comparison differ");
}

#[test]
fn a_settled_aged_device_is_shared_as_settled() {
    // Settling moves pages before the run (settle.rs): the copies must carry the moves, the
    // oracle's versions and the summary's settle counts.
    let mut dev = small_demo();
    dev.geometry.blocks_per_plane = 512;
    dev.precondition = Precondition::Aged { ratio: 0.71, settle: true };
    let specs: Vec<RunSpec> = ["base", "nogc", "ttflash-gtr", "ttflash"].iter().map(|s| spec(&dev, s, 1)).collect();
    let (shared, own) = both(&dev, &specs);
    assert_eq!(shared, own);
    let r: serde_json::Value = serde_json::from_str(&shared[0]).unwrap();
    assert!(r["config"]["precondition"]["settle_victims"].as_u64().unwrap() > 0, "the device was settled");
}

#[test]
fn runs_that_fail_before_preconditioning_fail_as_alone() {
    // An unknown scheme and a RAIN scheme on a device with dynamic allocation share nothing
    // and say why; the others still share and run.
    let mut dev = small_demo();
    dev.ftl.allocation = flashtail::config::Allocation::Dynamic;
    let specs: Vec<RunSpec> = ["base", "nosuch", "ttflash", "nogc"].iter().map(|s| spec(&dev, s, 1)).collect();
    let open = opener(&dev);
    let shared = run_many_with(&specs, &open, &[], StartSharing::Shared);
    let own = run_many_with(&specs, &open, &[], StartSharing::PerRun);
    for (a, b) in shared.iter().zip(&own) {
        match (a, b) {
            (Ok(a), Ok(b)) => assert_eq!(json(a), json(b)),
            (Err(a), Err(b)) => assert_eq!(a.to_string(), b.to_string()),
            _ => panic!("one run failed, the other did not"),
        }
    }
    assert!(shared[0].is_ok() && shared[3].is_ok());
    assert!(shared[1].as_ref().unwrap_err().to_string().contains("nosuch"));
    assert!(shared[2].as_ref().unwrap_err().to_string().contains("static"));
}
