//! Expanding a spec into points: every (device, workload, override values, seed), in that
//! nesting order (the seed fastest). A point runs all of the spec's schemes on one
//! preconditioned device state and one request stream. Each point has a stable id, a hash
//! of everything that decides its results, which names its result file for resuming.

use super::spec::{Sweep, Value};
use sha1::{Digest, Sha1};

/// One point of a sweep.
#[derive(Clone, Debug, PartialEq)]
pub struct Point {
    /// Position in the expansion (0-based).
    pub index: usize,
    /// Index into the spec's `devices` and its text.
    pub device: String,
    /// Index into the spec's `workloads`.
    pub workload: usize,
    pub workload_label: String,
    /// `(key, value)` of each override, in the spec's key order.
    pub set: Vec<(String, Value)>,
    pub seed: u64,
    /// 16 hex digits of SHA-1 over the point's description (see [`Point::key`]).
    pub id: String,
}

impl Point {
    /// `--set` arguments for this point.
    pub fn overrides(&self) -> Vec<String> {
        self.set.iter().map(|(k, v)| format!("{k}={}", v.text())).collect()
    }
}

/// Everything that decides a point's results, as one line of JSON: device, workload
/// settings, overrides, seed, schemes and run settings. Two points with the same key
/// give the same tables (the device's and trace's file contents are not part of it: edit a
/// device file and rerun without `--resume`).
fn key(sweep: &Sweep, device: &str, workload: usize, set: &[(String, Value)], seed: u64) -> String {
    let s = &sweep.spec;
    serde_json::json!({
        "device": device,
        "workload": &s.workloads[workload],
        "set": set,
        "seed": seed,
        "schemes": &s.schemes,
        "run": &s.run,
    })
    .to_string()
}

/// Every point of the sweep, in order.
pub fn expand(sweep: &Sweep) -> Result<Vec<Point>, String> {
    let s = &sweep.spec;
    let seeds: Vec<u64> = s.seeds.expand("seeds")?.iter().map(|v| v.text().parse().unwrap_or(0)).collect();
    // The cross product of the override values, the last key fastest.
    let mut combos: Vec<Vec<(String, Value)>> = vec![Vec::new()];
    for (k, vals) in &s.set {
        let vals = vals.expand(&format!("set.\"{k}\""))?;
        combos = combos
            .into_iter()
            .flat_map(|c| {
                vals.iter().map(move |v| {
                    let mut c = c.clone();
                    c.push((k.clone(), v.clone()));
                    c
                })
            })
            .collect();
    }
    let mut out = Vec::new();
    for device in &s.devices {
        for (w, ws) in s.workloads.iter().enumerate() {
            for set in &combos {
                for &seed in &seeds {
                    let hash = Sha1::digest(key(sweep, device, w, set, seed).as_bytes());
                    let id: String = hash.iter().take(8).map(|b| format!("{b:02x}")).collect();
                    out.push(Point { index: out.len(), device: device.clone(), workload: w, workload_label: ws.label(), set: set.clone(), seed, id });
                }
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    #[test]
    fn the_cross_product_runs_seeds_fastest_with_stable_ids() {
        let text = "schemes = [\"base\", \"nogc\"]\nseeds = { start = 1, stop = 3 }\n[set]\n\"ftl.over_provisioning\" = [0.07, 0.14, 0.28]\n";
        let sw = Sweep::from_toml("s", text, Path::new(".")).unwrap();
        let p = expand(&sw).unwrap();
        assert_eq!(p.len(), 9);
        assert_eq!((p[0].seed, p[1].seed, p[3].seed), (1, 2, 1));
        assert_eq!(p[3].overrides(), ["ftl.over_provisioning=0.14"]);
        let ids: std::collections::BTreeSet<&str> = p.iter().map(|x| x.id.as_str()).collect();
        assert_eq!(ids.len(), 9);
        // The same spec text gives the same ids; another scheme list gives others.
        assert_eq!(expand(&sw).unwrap()[4].id, p[4].id);
        let other = Sweep::from_toml("s", &text.replace("\"nogc\"", "\"preemptive\""), Path::new(".")).unwrap();
        assert_ne!(expand(&other).unwrap()[4].id, p[4].id);
    }
}
