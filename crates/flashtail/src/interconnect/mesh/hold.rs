//! Who holds which resource: committing a scout's path to its owner (GC bypass: first
//! releasing whole the low-priority paths it takes over), releasing an owner's path, and
//! keeping the link sets, port counters and flood masks in step with `holder`.
//!
//! Does not choose a path (`scout.rs`) or decide when a transfer gives its path up (the
//! engine, `sim/engine/mesh_path.rs`).

use super::{takes_over, Adj, Mesh, OwnerPath, Prio, NONE};

impl Mesh {
    /// Free everything `owner` holds (nothing if it holds nothing).
    pub fn release(&mut self, owner: u32) {
        if !self.holds(owner) {
            return;
        }
        let path = &mut self.paths[owner as usize];
        let (port, prio) = (path.port, path.prio);
        // Taken out and put back (cleared) to keep their capacity.
        let mut routers = std::mem::take(&mut path.routers);
        let mut resources = std::mem::take(&mut self.resources);
        self.resources_into(port, &routers, &mut resources);
        for &res in &resources {
            assert_eq!(self.holder[res as usize], owner, "resource {res} on owner {owner}'s path");
            self.holder[res as usize] = NONE;
            self.held -= 1;
            self.track(res, prio, false);
        }
        self.resources = resources;
        routers.clear();
        let path = &mut self.paths[owner as usize];
        path.routers = routers;
        path.port = NONE;
    }

    /// Keep the link sets and port counters in step with `holder`: resource `res` was just
    /// taken (`held`) or given up by an owner of priority `prio`.
    fn track(&mut self, res: u32, prio: Prio, held: bool) {
        let t = self.topo;
        // Now held by a preemptible (low-priority) owner.
        let low_held = held && prio == Prio::Low;
        if res < t.chip0 {
            if held {
                self.free.unset(res);
                if low_held {
                    self.low.set(res);
                }
            } else {
                self.free.set(res);
                self.low.unset(res);
            }
            if let Some(f) = &mut self.flood {
                f.set(res, !held, low_held);
            }
        } else if res >= t.port0 {
            let kind = t.kind_of_port(res - t.port0);
            let low = u32::from(prio == Prio::Low);
            if let Some(f) = &mut self.flood {
                f.set_port(res - t.port0, !held, low_held);
            }
            if held {
                self.ports_free[kind] -= 1;
                self.ports_low[kind] += low;
            } else {
                self.ports_free[kind] += 1;
                self.ports_low[kind] -= low;
            }
        }
    }

    /// `Topo::path_resources` into `out`, with the mesh links from the table (commit and
    /// release run once per transfer each; `Topo::link` divides). A plain loop: the
    /// `extend` over a mapped iterator became a call of its own once this moved out of the
    /// file of its callers (+0.6 % instructions on a GC-bypass run).
    fn resources_into(&self, port: u32, routers: &[u32], out: &mut Vec<u32>) {
        let t = self.topo;
        out.clear();
        out.reserve(routers.len() + 1);
        out.push(t.port_link(port));
        for w in routers.windows(2) {
            out.push(Adj::link_between(&self.adj, w[0], w[1]));
        }
        if let Some(&k) = routers.last() {
            out.push(t.chip_link(k));
        }
        debug_assert!(out.iter().copied().eq(t.path_resources(port, routers)));
    }

    /// Commit the scout's path (`stack`) from `port` to `owner`. Low owners holding any of
    /// its resources are released whole first (GC bypass: the preempted write-back
    /// re-reserves later) and returned, each once.
    pub(super) fn commit(&mut self, owner: u32, port: u32, prio: Prio, preempt: bool) -> Vec<u32> {
        let mut victims = Vec::new();
        let mut resources = std::mem::take(&mut self.resources);
        self.resources_into(port, &self.stack, &mut resources);
        for &res in &resources {
            let h = self.holder[res as usize];
            if h == NONE {
                continue;
            }
            assert!(
                takes_over(prio, preempt) && self.paths[h as usize].prio == Prio::Low,
                "scout took resource {res} from owner {h} without the right to preempt"
            );
            if !victims.contains(&h) {
                victims.push(h);
            }
        }
        for &v in &victims {
            self.release(v);
        }
        if self.paths.len() <= owner as usize {
            let idle = OwnerPath { port: NONE, prio: Prio::High, routers: Vec::new() };
            self.paths.resize(owner as usize + 1, idle);
        }
        let stack = std::mem::take(&mut self.stack);
        for &res in &resources {
            assert_eq!(self.holder[res as usize], NONE, "resource {res} still held at commit");
            self.holder[res as usize] = owner;
            self.held += 1;
            self.track(res, prio, true);
        }
        self.resources = resources;
        let path = &mut self.paths[owner as usize];
        path.port = port;
        path.prio = prio;
        path.routers.clear();
        path.routers.extend_from_slice(&stack);
        self.stack = stack;
        victims
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_util::{at, mesh, resources};
    use super::super::{Entry, Prio, NONE};

    #[test]
    fn release_frees_exactly_what_was_held() {
        let mut m = mesh(4, 8, 8, 2);
        let a = m.reserve(1, at(&m, 3, 5), Entry::Io, Prio::High, false).unwrap();
        let b = m.reserve(2, at(&m, 0, 1), Entry::Gc, Prio::Low, false).unwrap();
        assert_eq!(m.held_links(), (a.hops + b.hops + 4) as usize);
        let kept = resources(&m, 2);
        m.release(1);
        assert!(!m.holds(1) && m.holds(2));
        assert_eq!(m.held_links(), (b.hops + 2) as usize);
        let held: Vec<u32> =
            (0..m.holder.len() as u32).filter(|&r| m.holder[r as usize] != NONE).collect();
        let mut kept_sorted = kept.clone();
        kept_sorted.sort_unstable();
        assert_eq!(held, kept_sorted);
        m.check().unwrap();
        m.release(1);
        m.release(12_345);
        assert_eq!(m.held_links(), (b.hops + 2) as usize);
        m.release(2);
        assert_eq!(m.held_links(), 0);
        m.check().unwrap();
        // The freed owner can reserve again.
        m.reserve(1, at(&m, 3, 5), Entry::Io, Prio::High, false).unwrap();
    }
}
