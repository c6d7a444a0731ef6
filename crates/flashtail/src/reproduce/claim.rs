//! A paper's claim beside flashtail's measurement, and the rule that says whether it
//! reproduces: direction first (better, worse or no change against the comparator), then
//! magnitude (the effect within a factor of two of the paper's, on a log scale).
//!
//! Claims are ratios of a scheme's metric to a comparator's (0.66 = 34 % lower), or plain
//! shares (the Bloom filter's screened look-ups). This module only judges numbers it is
//! given; the experiments (`rlgc.rs`, `splitgc.rs`) measure them.

use serde::Serialize;

/// Below this distance from 1 a ratio counts as "no change" (2 %).
pub const NO_CHANGE: f64 = 0.02;

/// How far the effect may stray from the paper's and still count as its magnitude: the
/// effect ln(ratio) within [paper / FACTOR, paper × FACTOR].
pub const FACTOR: f64 = 2.0;

/// What the paper states.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub enum Expect {
    /// A ratio to a comparator in [lo, hi] (lo = hi for a single value; both < 1 for a
    /// reduction, > 1 for an increase).
    Ratio { lo: f64, hi: f64 },
    /// A ratio of about 1 (no gain, no loss): within `tol` of 1.
    Unchanged { tol: f64 },
    /// A share or value of about `value`, within `tol` relative to it.
    Near { value: f64, tol: f64 },
}

/// The verdict on one claim.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// Same direction and a magnitude within the rule.
    Reproduced,
    /// Same direction, magnitude outside the rule.
    DirectionOnly,
    /// Opposite direction, or no effect where the paper has one (or an effect where it has
    /// none).
    NotReproduced,
    /// The run did not measure it (e.g. `--quick` leaves the workload out).
    NotMeasured,
}

impl Verdict {
    pub fn label(self) -> &'static str {
        match self {
            Verdict::Reproduced => "reproduced",
            Verdict::DirectionOnly => "direction only",
            Verdict::NotReproduced => "NOT reproduced",
            Verdict::NotMeasured => "not measured",
        }
    }
}

/// One claim of a paper and flashtail's number for it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Claim {
    /// Short id, stable across runs (`R1`, `S3`, ...).
    pub id: String,
    /// What the paper says, in a few words.
    pub what: String,
    /// Where in the paper.
    pub source: String,
    pub expect: Expect,
    /// flashtail's value (`None`: not measured).
    pub ours: Option<f64>,
    pub verdict: Verdict,
    /// How ours was measured (workloads averaged, setup) and, where it matters, why it
    /// differs.
    pub note: String,
}

impl Claim {
    /// A claim judged by [`judge`].
    pub fn new(id: &str, what: &str, source: &str, expect: Expect, ours: Option<f64>, note: impl Into<String>) -> Claim {
        let verdict = judge(&expect, ours);
        Claim { id: id.into(), what: what.into(), source: source.into(), expect, ours, verdict, note: note.into() }
    }

    /// The paper's number as printed.
    pub fn paper_str(&self) -> String {
        match self.expect {
            Expect::Ratio { lo, hi } if lo == hi => format!("{lo:.2}×"),
            Expect::Ratio { lo, hi } => format!("{lo:.2}-{hi:.2}×"),
            Expect::Unchanged { tol } => format!("≈1× (±{:.0} %)", tol * 100.0),
            Expect::Near { value, .. } => pct(value),
        }
    }

    /// Ours as printed.
    pub fn ours_str(&self) -> String {
        match (self.ours, &self.expect) {
            (None, _) => "—".into(),
            (Some(v), Expect::Near { .. }) => pct(v),
            (Some(v), _) => format!("{v:.2}×"),
        }
    }

    /// The one-line verdict: `[reproduced] R1 ...: paper 0.66×, flashtail 0.71×`.
    pub fn line(&self) -> String {
        format!("[{}] {} {}: paper {}, flashtail {}", self.verdict.label(), self.id, self.what, self.paper_str(), self.ours_str())
    }
}

/// A share as a percentage: one decimal, two from 99.5 % up (so 99.98 % does not print as
/// 100.0 %).
fn pct(v: f64) -> String {
    if (0.995..1.0).contains(&v) {
        format!("{:.2} %", v * 100.0)
    } else {
        format!("{:.1} %", v * 100.0)
    }
}

/// The verdict rule (module doc).
pub fn judge(expect: &Expect, ours: Option<f64>) -> Verdict {
    let Some(v) = ours.filter(|v| v.is_finite() && *v >= 0.0) else { return Verdict::NotMeasured };
    match *expect {
        Expect::Unchanged { tol } => {
            if (v - 1.0).abs() <= tol {
                Verdict::Reproduced
            } else {
                Verdict::NotReproduced
            }
        }
        Expect::Near { value, tol } => {
            if (v - value).abs() <= tol * value.abs() {
                Verdict::Reproduced
            } else {
                Verdict::NotReproduced
            }
        }
        Expect::Ratio { lo, hi } => {
            let dir = |r: f64| {
                if (r - 1.0).abs() <= NO_CHANGE {
                    0
                } else if r < 1.0 {
                    -1
                } else {
                    1
                }
            };
            let want = dir(0.5 * (lo + hi));
            if want == 0 || dir(v) != want {
                return Verdict::NotReproduced;
            }
            if v == 0.0 {
                return Verdict::DirectionOnly;
            }
            // Effects on a log scale: a band from the smaller paper effect / FACTOR to the
            // larger × FACTOR.
            let (a, b) = (lo.ln().abs(), hi.ln().abs());
            let e = v.ln().abs();
            if e >= a.min(b) / FACTOR && e <= a.max(b) * FACTOR {
                Verdict::Reproduced
            } else {
                Verdict::DirectionOnly
            }
        }
    }
}

/// The claims as an aligned table: id, claim, paper, flashtail, verdict, then each claim's
/// note indented under the table.
pub fn claims_table(claims: &[Claim]) -> String {
    let headers = ["claim", "what the paper says", "where", "paper", "flashtail", "verdict"];
    let rows: Vec<Vec<String>> = claims
        .iter()
        .map(|c| vec![c.id.clone(), c.what.clone(), c.source.clone(), c.paper_str(), c.ours_str(), c.verdict.label().to_string()])
        .collect();
    let mut out = crate::report::render_rows(&headers, rows);
    for c in claims.iter().filter(|c| !c.note.is_empty()) {
        out.push_str(&format!("  {}: {}\n", c.id, c.note));
    }
    out
}

/// Mean of the values present (`None` when there are none).
pub fn mean(vals: impl IntoIterator<Item = f64>) -> Option<f64> {
    let (mut s, mut n) = (0.0, 0usize);
    for v in vals.into_iter().filter(|v| v.is_finite()) {
        s += v;
        n += 1;
    }
    (n > 0).then(|| s / n as f64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_rule_checks_direction_then_magnitude() {
        let r = |lo, hi| Expect::Ratio { lo, hi };
        // Paper 0.66: 0.70 is the same effect, 0.95 a small one (ln 0.95 = 0.05 < 0.42 / 2),
        // 1.2 the wrong way, 1.01 no change.
        assert_eq!(judge(&r(0.66, 0.66), Some(0.70)), Verdict::Reproduced);
        assert_eq!(judge(&r(0.66, 0.66), Some(0.95)), Verdict::DirectionOnly);
        assert_eq!(judge(&r(0.66, 0.66), Some(0.10)), Verdict::DirectionOnly);
        assert_eq!(judge(&r(0.66, 0.66), Some(1.2)), Verdict::NotReproduced);
        assert_eq!(judge(&r(0.66, 0.66), Some(1.01)), Verdict::NotReproduced);
        assert_eq!(judge(&r(0.66, 0.66), None), Verdict::NotMeasured);
        // A range: -38 % to -67 %.
        assert_eq!(judge(&r(0.33, 0.62), Some(0.5)), Verdict::Reproduced);
        assert_eq!(judge(&r(0.33, 0.62), Some(1.07)), Verdict::NotReproduced);
        assert_eq!(judge(&Expect::Unchanged { tol: 0.1 }, Some(1.08)), Verdict::Reproduced);
        assert_eq!(judge(&Expect::Unchanged { tol: 0.1 }, Some(2.3)), Verdict::NotReproduced);
        assert_eq!(judge(&Expect::Near { value: 0.9, tol: 0.2 }, Some(0.75)), Verdict::Reproduced);
        assert_eq!(judge(&Expect::Near { value: 0.9, tol: 0.2 }, Some(0.5)), Verdict::NotReproduced);
    }

    #[test]
    fn lines_and_table_show_both_numbers() {
        let c = Claim::new("R1", "aggressive vs Lazy-RTGC, write p99.99, 128 Gb", "Table 6", Expect::Ratio { lo: 0.66, hi: 0.66 }, Some(2.1), "home1 only");
        assert_eq!(c.line(), "[NOT reproduced] R1 aggressive vs Lazy-RTGC, write p99.99, 128 Gb: paper 0.66×, flashtail 2.10×");
        let t = claims_table(&[c]);
        assert!(t.contains("NOT reproduced") && t.contains("  R1: home1 only"), "{t}");
        assert_eq!(mean([1.0, 2.0, f64::NAN]), Some(1.5));
        assert_eq!(mean([]), None);
        let near = Claim::new("V1", "first try", "evaluation", Expect::Near { value: 0.9998, tol: 0.005 }, Some(0.6), "");
        assert_eq!((near.paper_str().as_str(), near.ours_str().as_str()), ("99.98 %", "60.0 %"));
    }
}
