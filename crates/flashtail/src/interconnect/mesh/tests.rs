//! Unit tests of whole reservations (`Mesh::new`, `reserve`, `release`): configuration
//! errors, the reasons a reservation fails, GC bypass's priorities and ports, determinism,
//! and a proptest of random reserve/release sequences against the invariant check and a
//! model.
//!
//! Not here: the tests of one part's own rules (the walk in `scout.rs`, the flood fill in
//! `flood.rs`, the geometry in `topo.rs`, release in `hold.rs`).

use super::test_util::{at, cfg, force, mesh, resources, routers, run_sequence};
use super::*;
use proptest::prelude::*;
use std::collections::HashMap;

#[test]
fn new_rejects_bad_config() {
    let bad = [
        (MeshConfig { rows: 0, ..cfg(4, 8, 8, 0) }, "rows"),
        (MeshConfig { cols: 0, ..cfg(4, 8, 8, 0) }, "cols"),
        (MeshConfig { io_ports: 0, ..cfg(4, 8, 8, 0) }, "io_ports"),
        (MeshConfig { max_visits: 0, ..cfg(4, 8, 8, 0) }, "max_visits"),
    ];
    for (c, field) in bad {
        let err = Mesh::new(&c).expect_err(field);
        assert!(err.contains(field), "{err:?} should name {field}");
    }
    assert_eq!(mesh(4, 8, 8, 0).chips(), 32);
}

#[test]
fn busy_target_chip_fails_at_once() {
    let mut m = mesh(4, 8, 8, 0);
    let chip = at(&m, 2, 2);
    m.reserve(1, chip, Entry::Io, Prio::High, false).unwrap();
    let held = m.held_links();
    assert_eq!(m.reserve(2, chip, Entry::Io, Prio::High, false), Err(ScoutFail::ChipBusy));
    assert_eq!(m.held_links(), held);
    assert!(!m.holds(2));
}

#[test]
fn all_ports_busy_is_no_port() {
    let mut m = mesh(4, 8, 2, 0);
    m.reserve(1, 0, Entry::Io, Prio::High, false).unwrap();
    m.reserve(2, 31, Entry::Io, Prio::High, false).unwrap();
    assert_eq!(m.reserve(3, 12, Entry::Io, Prio::High, false), Err(ScoutFail::NoPort));
    // Without GC ports, GC shares the (busy) I/O ports.
    assert_eq!(m.reserve(3, 12, Entry::Gc, Prio::High, false), Err(ScoutFail::NoPort));
    assert_eq!(m.held_links(), resources(&m, 1).len() + resources(&m, 2).len());
}

#[test]
fn high_scout_takes_over_a_low_path_whole() {
    // One column, one port: the High scout needs the Low path's port, links and chip.
    let mut m = mesh(4, 1, 1, 0);
    m.reserve(7, 3, Entry::Gc, Prio::Low, false).unwrap();
    let r = m.reserve(8, 3, Entry::Io, Prio::High, true).expect("preempts");
    assert_eq!(r.preempted, [7], "listed once although every resource was its");
    assert!(!m.holds(7) && m.holds(8));
    assert_eq!(m.held_links(), 5);
    m.check().unwrap();
    // Only the port is shared: the Low owner still loses everything.
    let mut m = mesh(4, 1, 1, 0);
    m.reserve(7, 3, Entry::Gc, Prio::Low, false).unwrap();
    let r = m.reserve(8, 0, Entry::Io, Prio::High, true).expect("preempts");
    assert_eq!((r.preempted, r.hops), (vec![7], 0));
    assert_eq!(m.held_links(), 2);
    m.check().unwrap();
}

#[test]
fn wall_of_low_paths_falls_to_a_high_scout() {
    let mut m = mesh(4, 8, 8, 0);
    force(&mut m, 10, 2, &[(0, 2), (1, 2), (1, 3), (1, 4)], Prio::Low);
    force(&mut m, 11, 3, &[(0, 3), (1, 3), (2, 3)], Prio::Low);
    let chip = at(&m, 1, 3);
    assert!(matches!(
        m.reserve(1, chip, Entry::Io, Prio::High, false),
        Err(ScoutFail::Unwound { .. })
    ));
    let r = m.reserve(1, chip, Entry::Io, Prio::High, true).expect("preempts the wall");
    assert_eq!(r.preempted.len(), 1, "one way in is enough: {r:?}");
    let other = if r.preempted[0] == 10 { 11 } else { 10 };
    assert!(m.holds(other) && !m.holds(r.preempted[0]));
    m.check().unwrap();
}

#[test]
fn low_scouts_never_preempt() {
    let mut m = mesh(4, 1, 1, 0);
    m.reserve(7, 3, Entry::Io, Prio::Low, false).unwrap();
    assert_eq!(m.reserve(8, 0, Entry::Io, Prio::Low, true), Err(ScoutFail::NoPort));
    // High without GC bypass does not preempt either.
    assert_eq!(m.reserve(8, 0, Entry::Io, Prio::High, false), Err(ScoutFail::NoPort));
    assert!(m.holds(7));
}

#[test]
fn high_never_preempts_high() {
    let mut m = mesh(4, 1, 1, 0);
    m.reserve(7, 3, Entry::Io, Prio::High, false).unwrap();
    assert_eq!(m.reserve(8, 0, Entry::Io, Prio::High, true), Err(ScoutFail::NoPort));
    let mut m = mesh(4, 1, 2, 0);
    m.reserve(7, 3, Entry::Io, Prio::High, false).unwrap();
    assert_eq!(m.reserve(8, 3, Entry::Io, Prio::High, true), Err(ScoutFail::ChipBusy));
    assert!(m.holds(7) && !m.holds(8));
}

#[test]
fn gc_entry_uses_its_own_ports_when_it_has_them() {
    // Plain Venice: GC enters through the I/O port on the top edge and takes it.
    let mut m = mesh(4, 4, 1, 0);
    m.reserve(1, at(&m, 2, 1), Entry::Gc, Prio::High, false).unwrap();
    assert_eq!(m.paths[1].port, 0);
    assert_eq!(routers(&m, 1)[0].0, 0, "starts on the top edge");
    assert_eq!(
        m.reserve(2, at(&m, 0, 3), Entry::Io, Prio::High, false),
        Err(ScoutFail::NoPort)
    );
    // GC bypass: a GC read enters from the bottom edge; the I/O port stays free.
    let mut m = mesh(4, 4, 1, 1);
    let r = m.reserve(1, at(&m, 2, 1), Entry::Gc, Prio::High, false).unwrap();
    assert_eq!(m.paths[1].port, 1);
    assert_eq!(routers(&m, 1)[0], (3, 2));
    assert_eq!(r.hops, 2);
    m.reserve(2, at(&m, 0, 3), Entry::Io, Prio::High, false).expect("I/O port still free");
    m.check().unwrap();
}

#[test]
fn same_seed_same_results() {
    let (a, pa) = run_sequence(42);
    let (b, pb) = run_sequence(42);
    assert_eq!(a, b);
    assert_eq!(pa, pb);
    // The sequence exercises every branch: misroutes, back-offs, later scouts,
    // preemption, unwinding.
    let ok: Vec<_> = a.iter().filter_map(|r| r.as_ref().ok()).collect();
    assert!(ok.iter().any(|r| r.misroutes > 0));
    assert!(ok.iter().any(|r| !r.preempted.is_empty()));
    assert!(ok.iter().any(|r| r.backoffs > 0));
    assert!(ok.iter().any(|r| r.scouts > 1));
    assert!(a.iter().any(|r| matches!(r, Err(ScoutFail::Unwound { .. }))));
}

#[derive(Clone, Debug)]
enum Op {
    Reserve { owner: u32, chip: u32, gc: bool, low: bool, preempt: bool },
    Release { owner: u32 },
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        3 => (0u32..6, 0u32..16, any::<bool>(), any::<bool>(), any::<bool>()).prop_map(
            |(owner, chip, gc, low, preempt)| Op::Reserve { owner, chip, gc, low, preempt }
        ),
        1 => (0u32..6).prop_map(|owner| Op::Release { owner }),
    ]
}

proptest! {
    #[test]
    fn random_reserve_release_keeps_invariants(
        rows in 1u32..=4,
        cols in 1u32..=4,
        io_ports in 1u32..=4,
        gc_ports in 0u32..=2,
        max_visits in 1u32..=4,
        seed in any::<u64>(),
        ops in prop::collection::vec(op(), 1..80),
    ) {
        let c = MeshConfig { rows, cols, io_ports, gc_ports, max_visits, seed };
        let mut m = Mesh::new(&c).unwrap();
        // A twin that walks every scout must answer every call the same (module doc).
        let mut twin = Mesh::new(&c).unwrap();
        twin.set_pruning(false);
        // Model: owner → (prio, hops) of its committed path.
        let mut model: HashMap<u32, (Prio, u32)> = HashMap::new();
        for op in ops {
            let before = m.held_links();
            match op {
                Op::Release { owner } => {
                    m.release(owner);
                    twin.release(owner);
                    model.remove(&owner);
                }
                Op::Reserve { owner, chip, gc, low, preempt } => {
                    if m.holds(owner) {
                        continue;
                    }
                    let chip = chip % m.chips();
                    let entry = if gc { Entry::Gc } else { Entry::Io };
                    let prio = if low { Prio::Low } else { Prio::High };
                    let got = m.reserve(owner, chip, entry, prio, preempt);
                    prop_assert_eq!(&got, &twin.reserve(owner, chip, entry, prio, preempt));
                    match got {
                        Ok(r) => {
                            prop_assert!(r.moves >= r.hops);
                            prop_assert!(r.misroutes + r.backoffs <= r.moves);
                            prop_assert!(r.scouts >= 1);
                            if !(preempt && prio == Prio::High) {
                                prop_assert!(r.preempted.is_empty());
                            }
                            for v in &r.preempted {
                                prop_assert_eq!(model.remove(v).map(|e| e.0), Some(Prio::Low));
                                prop_assert!(!m.holds(*v));
                            }
                            let p = &m.paths[owner as usize];
                            prop_assert_eq!(p.routers.last().copied(), Some(chip));
                            prop_assert_eq!(p.routers.len() as u32, r.hops + 1);
                            model.insert(owner, (prio, r.hops));
                        }
                        Err(_) => {
                            prop_assert_eq!(m.held_links(), before);
                            prop_assert!(!m.holds(owner));
                        }
                    }
                }
            }
            prop_assert_eq!(m.check(), Ok(()));
            let committed: usize = model.values().map(|&(_, h)| h as usize + 2).sum();
            prop_assert_eq!(m.held_links(), committed);
            for o in 0..6 {
                prop_assert_eq!(m.holds(o), model.contains_key(&o));
            }
        }
    }
}
