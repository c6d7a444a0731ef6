//! Helpers shared by the mesh's unit tests: small meshes, routers by (row, column), an
//! exact path forced onto an owner, an owner's path read back, and a fixed busy sequence
//! of reservations and releases.
//!
//! Compiled for tests only; no tests of its own.

use super::{Entry, Mesh, MeshConfig, Prio, Reserved, ScoutFail, SplitMix64};

pub(super) fn cfg(rows: u32, cols: u32, io_ports: u32, gc_ports: u32) -> MeshConfig {
    MeshConfig { rows, cols, io_ports, gc_ports, max_visits: 3, seed: 1 }
}

pub(super) fn mesh(rows: u32, cols: u32, io_ports: u32, gc_ports: u32) -> Mesh {
    Mesh::new(&cfg(rows, cols, io_ports, gc_ports)).expect("valid test config")
}

/// Chip (= router) at (row, col).
pub(super) fn at(m: &Mesh, row: u32, col: u32) -> u32 {
    m.topo.router(row, col)
}

/// Hold an exact path for `owner`, as if a scout had found it.
pub(super) fn force(m: &mut Mesh, owner: u32, port: u32, cells: &[(u32, u32)], prio: Prio) {
    m.stack.clear();
    for &(r, c) in cells {
        let k = at(m, r, c);
        m.stack.push(k);
    }
    let preempted = m.commit(owner, port, prio, false);
    assert!(preempted.is_empty());
    m.check().expect("forced path is consistent");
}

pub(super) fn resources(m: &Mesh, owner: u32) -> Vec<u32> {
    let p = &m.paths[owner as usize];
    m.topo.path_resources(p.port, &p.routers).collect()
}

pub(super) fn routers(m: &Mesh, owner: u32) -> Vec<(u32, u32)> {
    m.paths[owner as usize].routers.iter().map(|&k| (m.topo.row(k), m.topo.col(k))).collect()
}

/// Every result of a run, and the final (port, routers) of each owner.
pub(super) type Outcome = (Vec<Result<Reserved, ScoutFail>>, Vec<(u32, Vec<u32>)>);

/// A busy mixed sequence of reservations and releases on a 4×4 mesh.
pub(super) fn run_sequence(seed: u64) -> Outcome {
    run_sequence_pruned(seed, true)
}

pub(super) fn run_sequence_pruned(seed: u64, pruning: bool) -> Outcome {
    let mut m = Mesh::new(&MeshConfig { seed, ..cfg(4, 4, 4, 2) }).unwrap();
    m.set_pruning(pruning);
    let mut ops = SplitMix64(99);
    let mut out = Vec::new();
    for _ in 0..2000 {
        let owner = ops.below(12) as u32;
        if m.holds(owner) {
            if ops.below(2) == 0 {
                m.release(owner);
            }
            continue;
        }
        let chip = ops.below(16) as u32;
        let entry = if ops.below(3) == 0 { Entry::Gc } else { Entry::Io };
        let prio = if ops.below(3) == 0 { Prio::Low } else { Prio::High };
        out.push(m.reserve(owner, chip, entry, prio, true));
    }
    let paths = m.paths.iter().map(|p| (p.port, p.routers.clone())).collect();
    (out, paths)
}
