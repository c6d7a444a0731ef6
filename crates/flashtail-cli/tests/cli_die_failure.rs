//! `--fail-die` / `--fail-plane` on the command line: a run reports the failure's keys and
//! its summary line; a malformed or out-of-range address is refused naming the field and the
//! bound, before any run.

mod support;
use support::*;

/// `base` on `tiny` (2 channels x 2 chips, one plane per die) with die 1/0/0 failing after
/// request 300 of a generated workload: the run goes on to the end and reports what it lost.
#[test]
fn a_die_failure_is_reported() {
    let (out, _) = succeeds_both(&["run", "--device", "tiny", "--scheme", "base", "--gen", "bench-ref", "--gen-count", "2000", "--fail-die", "300:1/0/0"]);
    assert!(out.contains("  die_failures: 1\n"), "{out}");
    assert!(out.contains("  die_failure_retired_blocks: 64\n"), "{out}");
    assert!(out.contains("\ndie failures: 1 | pages lost "), "{out}");
    assert!(out.contains("| 0 violations | 2000/2000 requests completed"), "{out}");
}

#[test]
fn bad_addresses_name_the_field_and_the_bound() {
    let run = ["run", "--device", "tiny", "--scheme", "base", "--gen", "bench-ref", "--gen-count", "100"];
    let with = |extra: &[&'static str]| -> Vec<&'static str> { run.iter().copied().chain(extra.iter().copied()).collect() };
    fails_with(&with(&["--fail-die", "10:2/0/0"]), &["channel 2 is out of range", "numbered 0 to 1"]);
    fails_with(&with(&["--fail-plane", "10:0/0/0/1"]), &["plane 1 is out of range"]);
    fails_with(&with(&["--fail-die", "10:0/0"]), &["--fail-die '10:0/0'", "2 address fields, not 3", "AT:CH/CHIP/DIE"]);
    fails_with(&with(&["--fail-die", "x:0/0/0"]), &["AT 'x' is not a request count"]);
    fails_with(&with(&["--fail-die", "500:0/0/0"]), &["die 0/0/0 was to fail after request 500", "ended after 100 requests"]);
}
