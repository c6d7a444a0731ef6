//! The mesh's invariant check (the tests', and the engine's once a run is done): every
//! recorded path is a contiguous route from its port's edge router to its chip, held by its
//! owner alone, nothing else is held, and the link sets, port counters and flood masks say
//! what the holders say.
//!
//! Does not repair anything, and does not judge a path's quality (whether it is minimal).

use super::{Flood, Mesh, OwnerPath, Prio, NONE};

impl Mesh {
    /// Invariants: each recorded path is contiguous from its port's edge router to its chip,
    /// each resource on it is held by its owner and listed once, and nothing else is held.
    pub fn check(&self) -> Result<(), String> {
        let t = self.topo;
        let mut seen = vec![false; self.holder.len()];
        let mut listed = 0usize;
        for (owner, path) in self.paths.iter().enumerate() {
            if path.port == NONE {
                if !path.routers.is_empty() {
                    return Err(format!("idle owner {owner} records routers"));
                }
                continue;
            }
            self.check_shape(owner, path)?;
            for res in t.path_resources(path.port, &path.routers) {
                if std::mem::replace(&mut seen[res as usize], true) {
                    return Err(format!("resource {res} listed twice (owner {owner})"));
                }
                let h = self.holder[res as usize];
                if h as usize != owner {
                    return Err(format!("resource {res} on owner {owner}'s path is held by {h}"));
                }
                listed += 1;
            }
        }
        let held = self.holder.iter().filter(|&&h| h != NONE).count();
        if held != listed || held != self.held {
            return Err(format!(
                "{held} resources held, {listed} on recorded paths, count says {}",
                self.held
            ));
        }
        self.check_tracking()
    }

    /// The link sets and port counters say what `holder` and the owners' priorities say.
    fn check_tracking(&self) -> Result<(), String> {
        let t = self.topo;
        let low_holder = |res: u32| {
            let h = self.holder[res as usize];
            h != NONE && self.paths[h as usize].prio == Prio::Low
        };
        for link in 0..t.chip0 {
            let free = self.holder[link as usize] == NONE;
            if self.free.has(link) != free || self.low.has(link) != low_holder(link) {
                return Err(format!("mesh link {link}: free/low bits disagree with its holder"));
            }
        }
        if let Some(f) = &self.flood {
            let want = self.flood_now().expect("a flood table exists only up to 64 routers");
            let masks = |f: &Flood| [f.free_down, f.free_right, f.low_down, f.low_right, f.port_free, f.port_low];
            if masks(f) != masks(&want) {
                return Err(format!("flood masks {:x?}, the link sets say {:x?}", masks(f), masks(&want)));
            }
        }
        let mut free = [0u32; 2];
        let mut low = [0u32; 2];
        for port in 0..t.io_ports + t.gc_ports {
            let (k, res) = (t.kind_of_port(port), t.port_link(port));
            free[k] += u32::from(self.holder[res as usize] == NONE);
            low[k] += u32::from(low_holder(res));
        }
        if free != self.ports_free || low != self.ports_low {
            return Err(format!(
                "port counters free {:?} low {:?}, holders say {free:?} {low:?}",
                self.ports_free, self.ports_low
            ));
        }
        Ok(())
    }

    /// A recorded path starts at its port's edge router and moves between neighbours.
    fn check_shape(&self, owner: usize, path: &OwnerPath) -> Result<(), String> {
        let t = self.topo;
        if path.port >= t.io_ports + t.gc_ports {
            return Err(format!("owner {owner}: no port {}", path.port));
        }
        let Some(&first) = path.routers.first() else {
            return Err(format!("owner {owner}: path without routers"));
        };
        if first != t.port_router(path.port) {
            return Err(format!("owner {owner}: path starts at {first}, not at its port"));
        }
        if let Some(&k) = path.routers.iter().find(|&&k| k >= t.routers()) {
            return Err(format!("owner {owner}: no router {k}"));
        }
        if let Some(w) = path.routers.windows(2).find(|w| t.dist(w[0], w[1]) != 1) {
            return Err(format!("owner {owner}: {} → {} is not a link", w[0], w[1]));
        }
        Ok(())
    }
}
