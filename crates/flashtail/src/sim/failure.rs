//! Die and plane failures a run is asked to enact (`--fail-die AT:CH/CHIP/DIE`,
//! `--fail-plane AT:CH/CHIP/DIE/PLANE`): what fails, and when, as the user wrote it, checked
//! against the device. What a failure does to the run is the engine's (`die_failure`,
//! `reprotect`; docs/failures.md).
//!
//! `AT` counts requests as `--power-cut-at` does: the failure happens just before request
//! `AT + 1` arrives. Addresses count from 0 within their parent (channel, chip of the
//! channel, die of the chip, plane of the die).
//!
//! Does not model: partial failures (a bad block, a failed word-line, read disturb), failures
//! at an instant other than a request boundary, or a die that comes back.

use crate::nand::Geometry;
use crate::units::PlaneId;

/// Re-protection jobs (rebuild one page from its stripe, write it to a healthy plane) in
/// flight at once after a failure under RAIN, by default (`FailurePlan::reprotect_parallel`).
pub const DEFAULT_REPROTECT_PARALLEL: u32 = 4;

/// One failure: a die (`plane: None`) or one plane of it, after request `at`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Failure {
    pub at: u64,
    pub channel: u32,
    pub chip: u32,
    pub die: u32,
    pub plane: Option<u32>,
}

impl Failure {
    /// `AT:CH/CHIP/DIE` (`--fail-die`).
    pub fn parse_die(s: &str) -> Result<Failure, String> {
        let (at, parts) = split(s, "--fail-die", "AT:CH/CHIP/DIE", 3)?;
        Ok(Failure { at, channel: parts[0], chip: parts[1], die: parts[2], plane: None })
    }

    /// `AT:CH/CHIP/DIE/PLANE` (`--fail-plane`).
    pub fn parse_plane(s: &str) -> Result<Failure, String> {
        let (at, parts) = split(s, "--fail-plane", "AT:CH/CHIP/DIE/PLANE", 4)?;
        Ok(Failure { at, channel: parts[0], chip: parts[1], die: parts[2], plane: Some(parts[3]) })
    }

    /// What fails, as the user named it: `die 1/0/0`, `plane 1/0/0/1`.
    pub fn describe(&self) -> String {
        match self.plane {
            None => format!("die {}/{}/{}", self.channel, self.chip, self.die),
            Some(p) => format!("plane {}/{}/{}/{p}", self.channel, self.chip, self.die),
        }
    }

    /// The planes that fail (every plane of the die, or the one plane), or which address
    /// field is out of the device's range.
    pub fn planes(&self, geo: &Geometry) -> Result<Vec<PlaneId>, String> {
        let what = self.describe();
        let fields = [
            ("channel", self.channel, geo.channels),
            ("chip", self.chip, geo.chips_per_channel),
            ("die", self.die, geo.dies_per_chip),
            ("plane", self.plane.unwrap_or(0), geo.planes_per_die),
        ];
        for (name, v, n) in fields {
            if v >= n {
                return Err(format!(
                    "{what} after request {}: {name} {v} is out of range (the device has {n} {name}{}, numbered 0 to {})",
                    self.at,
                    if n == 1 { "" } else { "s" },
                    n - 1
                ));
            }
        }
        let first = ((self.channel * geo.chips_per_channel + self.chip) * geo.dies_per_chip + self.die) * geo.planes_per_die;
        Ok(match self.plane {
            None => (first..first + geo.planes_per_die).map(PlaneId).collect(),
            Some(p) => vec![PlaneId(first + p)],
        })
    }
}

/// The failures of a run and how the engine answers them (`SimOptions::failures`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FailurePlan {
    pub failures: Vec<Failure>,
    /// Under RAIN: re-protection jobs in flight at once (each rebuilds one page of a failed
    /// plane from its stripe and writes it to a healthy plane); 0 leaves the failed planes'
    /// data unprotected (every read of it rebuilt, for ever). Jobs use the same queues as host
    /// I/O, so this is the rate limit on what re-protection takes from the host.
    pub reprotect_parallel: u32,
}

impl Default for FailurePlan {
    fn default() -> Self {
        FailurePlan { failures: Vec::new(), reprotect_parallel: DEFAULT_REPROTECT_PARALLEL }
    }
}

impl FailurePlan {
    pub fn is_empty(&self) -> bool {
        self.failures.is_empty()
    }
}

/// `AT:A/B/C...` with `n` address fields.
fn split(s: &str, flag: &str, form: &str, n: usize) -> Result<(u64, Vec<u32>), String> {
    let bad = |why: String| format!("{flag} '{s}': {why} (expected {form}, e.g. {})", example(n));
    let (at, addr) = s.trim().split_once(':').ok_or_else(|| bad("no ':' between the request count and the address".into()))?;
    let at: u64 = at.trim().parse().map_err(|_| bad(format!("AT '{}' is not a request count (a whole number)", at.trim())))?;
    if at == 0 {
        return Err(bad("AT is 0: a failure comes after the N-th request, N at least 1".into()));
    }
    let names = ["CH", "CHIP", "DIE", "PLANE"];
    let parts: Vec<&str> = addr.split('/').collect();
    if parts.len() != n {
        return Err(bad(format!("{} address fields, not {n}", parts.len())));
    }
    let mut out = Vec::with_capacity(n);
    for (i, p) in parts.iter().enumerate() {
        out.push(p.trim().parse::<u32>().map_err(|_| bad(format!("{} '{}' is not a whole number", names[i], p.trim())))?);
    }
    Ok((at, out))
}

fn example(n: usize) -> &'static str {
    if n == 3 {
        "5000:1/0/0"
    } else {
        "5000:1/0/0/1"
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::presets;

    #[test]
    fn parses_and_resolves_dies_and_planes() {
        let geo = presets::load("tiny").unwrap().geometry;
        let f = Failure::parse_die("100:1/0/0").unwrap();
        assert_eq!(f, Failure { at: 100, channel: 1, chip: 0, die: 0, plane: None });
        let planes = f.planes(&geo).unwrap();
        assert_eq!(planes.len() as u32, geo.planes_per_die);
        assert!(planes.iter().all(|&p| geo.channel_of(p).0 == 1));
        assert_eq!(planes, vec![PlaneId(2)], "channel-major numbering: channel 1 starts after channel 0's 2 planes");
        let p = Failure::parse_plane("7:0/1/0/0").unwrap();
        assert_eq!(p.planes(&geo).unwrap(), vec![PlaneId(1)]);
    }

    #[test]
    fn errors_name_the_field_and_the_bound() {
        let geo = presets::load("tiny").unwrap().geometry;
        let e = Failure::parse_die(&format!("5:{}/0/0", geo.channels)).unwrap().planes(&geo).unwrap_err();
        assert!(e.contains(&format!("channel {} is out of range", geo.channels)) && e.contains(&format!("0 to {}", geo.channels - 1)), "{e}");
        let e = Failure::parse_die("5:0/0/9").unwrap().planes(&geo).unwrap_err();
        assert!(e.contains("die 9 is out of range"), "{e}");
        for (s, want) in [("x:0/0/0", "AT 'x'"), ("0:0/0/0", "AT is 0"), ("5:0/0", "2 address fields, not 3"), ("5-0/0/0", "no ':'"), ("5:0/a/0", "CHIP 'a'")] {
            let e = Failure::parse_die(s).unwrap_err();
            assert!(e.contains(want) && e.contains("--fail-die"), "{s}: {e}");
        }
        assert!(Failure::parse_plane("5:0/0/0").unwrap_err().contains("3 address fields, not 4"));
    }
}
