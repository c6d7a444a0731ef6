//! Power-loss audits (`SimOptions::power_loss_every`, `sim::power_loss`): at every audit a
//! recovery from flash's spare areas (plus capacitor-backed memory) must find every write
//! the host saw complete, under every scheme the audit covers, with and without power-loss
//! protection; audits do not change the run; what the model does not cover is refused. (The
//! content-aware schemes' audits are in `splitgc.rs`, beside their workload.)
mod common;
use common::*;
use flashtail::gc::build_scheme;
use flashtail::{DeviceConfig, HostRequest, RunReport, SimError, SimOptions, Simulation, VecSource};

fn audited(dev: &DeviceConfig, scheme: &str, reqs: Vec<HostRequest>, every: u64) -> Result<RunReport, SimError> {
    let s = build_scheme(scheme, None, 3).expect("scheme");
    let sim = Simulation::new(dev.clone(), s, SimOptions { seed: 3, oracle: true, check_every: 1000, power_loss_every: every, ..Default::default() })?;
    sim.run(&mut VecSource::new(reqs))
}

#[test]
fn every_acknowledged_write_survives_an_audited_power_loss_under_every_covered_scheme() {
    for protected in [None, Some(false)] {
        // 400 µs apart: the device falls behind, so audits meet writes queued and in flight.
        let (dev, reqs) = power_loss_load(400_000, protected);
        let schemes = ["base", "preemptive", "ttflash-pbl", "venice", "gc-bypass", "lazy-rtgc", "rlgc", "rlgc-aggressive", "wla-gc", "idle-ma"];
        for scheme in schemes {
            let r = audited(&dev, scheme, reqs.clone(), 37).unwrap_or_else(|e| panic!("{scheme}, protection {protected:?}: {e}"));
            assert_eq!(r.integrity.violations, 0, "{scheme}");
            assert_eq!(extra(&r, "power_loss_audits"), 12_000 / 37, "{scheme}");
            let unacked = extra(&r, "power_loss_unacked_pages");
            if protected == Some(false) {
                // Without protection a write being programmed would be lost (the host was
                // not told it completed): the audits did meet such writes.
                assert!(unacked > 100, "{scheme}: {unacked} unacknowledged pages lost over the audits");
            } else {
                // With it, every accepted write survives (capacitors finish its program).
                assert_eq!(unacked, 0, "{scheme}");
            }
        }
    }
}

#[test]
fn rain_parity_and_the_ttflash_stripe_buffer_survive_audited_power_losses() {
    for protected in [None, Some(false)] {
        let (mut dev, reqs) = power_loss_load(400_000, protected);
        dev.geometry.channels = 3;
        for scheme in ["ttflash-gtr", "ttflash-rgc"] {
            let r = audited(&dev, scheme, reqs.clone(), 41).unwrap_or_else(|e| panic!("{scheme}: {e}"));
            assert_eq!(r.integrity.violations, 0, "{scheme}");
            assert!(r.flash.erases > 500, "{scheme}: the audits ran through GC ({} erases)", r.flash.erases);
        }
        // A small stripe buffer flushes all the time: its dirty pages and the flushed pages
        // still being programmed are durable (capacitor), so nothing is lost either way.
        dev.buffer.enabled = true;
        dev.buffer.capacity_pages = 16;
        let r = audited(&dev, "ttflash", reqs.clone(), 41).unwrap_or_else(|e| panic!("ttflash: {e}"));
        assert_eq!(r.integrity.violations, 0);
        assert_eq!(extra(&r, "power_loss_unacked_pages"), 0, "buffered writes are durable on arrival");
        assert!(extra(&r, "flush_stripes") > 1000);
    }
}

/// Audits only read the engine's state: the run is the same with or without them.
#[test]
fn audits_do_not_change_the_run() {
    for protected in [None, Some(false)] {
        let (dev, reqs) = power_loss_load(400_000, protected);
        let plain = audited(&dev, "base", reqs.clone(), 0).expect("plain run");
        let mut with = audited(&dev, "base", reqs, 25).expect("audited run");
        assert!(!plain.flash.extra.contains_key("power_loss_audits"));
        with.flash.extra.remove("power_loss_audits");
        with.flash.extra.remove("power_loss_unacked_pages");
        assert_eq!(plain.flash, with.flash);
        assert_eq!(plain.reads, with.reads);
        assert_eq!(plain.writes, with.writes);
        assert_eq!(plain.sim_time_ns, with.sim_time_ns);
    }
}

/// Without power-loss protection, an erase waits for the programs that supersede its
/// block's pages: the run differs from the protected one, and stays loss-free (the engine
/// test `an_unguarded_erase_loses_acknowledged_writes_at_a_power_loss` shows the loss
/// without the wait).
#[test]
fn without_protection_erases_wait_for_superseding_programs() {
    let (dev, reqs) = power_loss_load(400_000, Some(false));
    let unprotected = audited(&dev, "base", reqs.clone(), 50).expect("unprotected");
    let (dev, _) = power_loss_load(400_000, None);
    let protected = audited(&dev, "base", reqs, 50).expect("protected");
    assert_eq!(unprotected.integrity.violations, 0);
    assert_ne!(unprotected.sim_time_ns, protected.sim_time_ns, "the erase waits change the run");
}

#[test]
fn what_the_audit_does_not_cover_is_refused_with_a_reason() {
    let (dev, reqs) = power_loss_load(1_000_000, None);
    let (unprotected, _) = power_loss_load(1_000_000, Some(false));
    // The content-aware schemes' tables are flushed by supercapacitor (SplitGC paper): audited
    // with protection (tests/splitgc.rs), refused without.
    for scheme in ["splitgc", "cagc", "dagc"] {
        match audited(&unprotected, scheme, reqs.clone(), 10) {
            Err(SimError::Device(msg)) => assert!(msg.contains("supercapacitor"), "{scheme}: {msg}"),
            other => panic!("{scheme}: expected a refusal, got {:?}", other.map(|r| r.integrity.violations)),
        }
    }
    let mut buffered = dev.clone();
    buffered.buffer.enabled = true;
    match audited(&buffered, "base", reqs.clone(), 10) {
        Err(SimError::Device(msg)) => assert!(msg.contains("buffer.enabled"), "{msg}"),
        other => panic!("expected a refusal, got {:?}", other.map(|r| r.integrity.violations)),
    }
    match audited(&unprotected, "nogc", reqs.clone(), 10) {
        Err(SimError::Device(msg)) => assert!(msg.contains("ftl.power_loss_protection"), "{msg}"),
        other => panic!("expected a refusal, got {:?}", other.map(|r| r.integrity.violations)),
    }
    let s = build_scheme("base", None, 3).expect("scheme");
    match Simulation::new(dev, s, SimOptions { oracle: false, power_loss_every: 10, ..Default::default() }) {
        Err(SimError::Device(msg)) => assert!(msg.contains("oracle"), "{msg}"),
        Err(e) => panic!("expected a refusal naming the oracle, got {e}"),
        Ok(_) => panic!("expected a refusal naming the oracle"),
    }
}
