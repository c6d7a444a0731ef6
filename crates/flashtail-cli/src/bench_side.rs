//! `flashtail bench --side-by-side TRACE`: the cost of a whole `flashtail run` from a trace
//! file, as a user pays it (parsing, plausibility checks, footprint pass, preconditioning,
//! the run, the report), beside another simulator's command on the same machine, one after
//! the other. Each command runs as a child process and the kernel reports its cost when it
//! ends (`wait4`): user + system CPU seconds and peak resident memory, its children
//! included. Does not build or know the other simulator: `--against` is any shell command.

use anyhow::{bail, Context};
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

/// Above this ratio of flashtail's slowest round to its fastest, the report notes the
/// host's drift (the same run repeated should cost the same CPU).
const DRIFT_NOTE: f64 = 1.15;

/// What the kernel says a finished child cost.
#[derive(Clone, Copy, Debug)]
pub struct ChildCost {
    pub wall_s: f64,
    pub cpu_s: f64,
    pub peak_mib: f64,
    pub exit_code: i32,
}

/// Run `cmd` to its end with its output discarded, and measure it.
#[cfg(unix)]
pub fn measure(mut cmd: Command) -> anyhow::Result<ChildCost> {
    use std::process::Stdio;
    let t0 = Instant::now();
    let child = cmd.stdout(Stdio::null()).stderr(Stdio::null()).spawn().with_context(|| format!("starting {cmd:?}"))?;
    let pid = child.id() as libc::pid_t;
    let mut status: libc::c_int = 0;
    // SAFETY: a zeroed rusage is a valid value of the plain C struct wait4 fills.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: `pid` is our own child, not yet waited for; both pointers are to live locals.
    let r = unsafe { libc::wait4(pid, &mut status, 0, &mut ru) };
    if r != pid {
        bail!("waiting for {cmd:?}: {}", std::io::Error::last_os_error());
    }
    let wall_s = t0.elapsed().as_secs_f64();
    let tv = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 * 1e-6;
    let exit_code = if libc::WIFEXITED(status) { libc::WEXITSTATUS(status) } else { -1 };
    // Linux reports ru_maxrss in KiB.
    Ok(ChildCost { wall_s, cpu_s: tv(ru.ru_utime) + tv(ru.ru_stime), peak_mib: ru.ru_maxrss as f64 / 1024.0, exit_code })
}

#[cfg(not(unix))]
pub fn measure(_cmd: Command) -> anyhow::Result<ChildCost> {
    bail!("--side-by-side needs a Unix kernel's wait4 to measure a child's CPU time and memory")
}

/// The side-by-side options of `bench`.
pub struct SideBySide<'a> {
    pub trace: &'a Path,
    pub format: Option<&'a str>,
    pub device: &'a str,
    pub scheme: &'a str,
    pub oracle: bool,
    pub against: Option<&'a str>,
    pub repeat: u32,
    pub json: Option<&'a Path>,
}

pub fn run(s: &SideBySide) -> anyhow::Result<()> {
    if !s.trace.is_file() {
        bail!("--side-by-side: trace file {} not found", s.trace.display());
    }
    let exe = std::env::current_exe().context("finding this binary to re-run it")?;
    let mut args: Vec<String> = vec!["run".into(), "--device".into(), s.device.into(), "--trace".into(), path_arg(s.trace)];
    if let Some(f) = s.format {
        args.extend(["--format".into(), f.into()]);
    }
    args.extend(["--scheme".into(), s.scheme.into()]);
    if !s.oracle {
        args.push("--no-oracle".into());
    }
    println!("flashtail bench --side-by-side: one process after the other, cost from the kernel (wait4)");
    println!("  flashtail: {} {}", exe.display(), args.join(" "));
    if let Some(c) = s.against {
        println!("  against:   sh -c '{c}'");
    }
    println!("{:<10} {:>6} {:>9} {:>9} {:>10} {:>5}", "command", "round", "wall s", "cpu s", "peak MiB", "exit");
    let mut all = Vec::new();
    let (mut ours, mut theirs, mut ratios) = (Vec::new(), Vec::new(), Vec::new());
    for round in 1..=s.repeat {
        let mut cmd = Command::new(&exe);
        cmd.args(&args);
        let c = measure(cmd)?;
        if c.exit_code != 0 {
            bail!("flashtail run exited with {} (run it by hand to see why: {} {})", c.exit_code, exe.display(), args.join(" "));
        }
        all.push(row("flashtail", round, &c));
        ours.push(c);
        if let Some(against) = s.against {
            let mut cmd = Command::new("sh");
            cmd.arg("-c").arg(against);
            let c = measure(cmd)?;
            // Some simulators exit non-zero after a normal run: reported, not refused.
            let mut r = row("against", round, &c);
            // This round's pair ran back to back: its ratio is the least exposed to the
            // host's drift between rounds.
            let ratio = c.cpu_s / ours[ours.len() - 1].cpu_s.max(1e-9);
            r["cpu_ratio"] = json!(ratio);
            all.push(r);
            theirs.push(c);
            ratios.push(ratio);
        }
    }
    if !theirs.is_empty() {
        let med = |v: &[ChildCost], f: fn(&ChildCost) -> f64| {
            let mut x: Vec<f64> = v.iter().map(f).collect();
            x.sort_by(f64::total_cmp);
            x[x.len() / 2]
        };
        let (oc, tc) = (med(&ours, |c| c.cpu_s), med(&theirs, |c| c.cpu_s));
        let (ow, tw) = (med(&ours, |c| c.wall_s), med(&theirs, |c| c.wall_s));
        let (om, tm) = (med(&ours, |c| c.peak_mib), med(&theirs, |c| c.peak_mib));
        println!(
            "median of {} round{}: CPU {:.1}× less than the other command ({oc:.2} s vs {tc:.2} s), wall {:.1}×, peak memory {:.1}× less ({om:.1} vs {tm:.1} MiB)",
            s.repeat,
            if s.repeat == 1 { "" } else { "s" },
            tc / oc,
            tw / ow,
            tm / om
        );
        let each: Vec<String> = ratios.iter().map(|r| format!("{r:.1}×")).collect();
        let mut sorted = ratios.clone();
        sorted.sort_by(f64::total_cmp);
        println!(
            "CPU ratio per round (the other command's CPU over flashtail's, each pair run back to back): {} (median {:.1}×, {:.1}× to {:.1}×)",
            each.join(", "),
            sorted[sorted.len() / 2],
            sorted[0],
            sorted[sorted.len() - 1]
        );
        let total = |v: &[ChildCost]| v.iter().map(|c| c.cpu_s).sum::<f64>();
        let (ot, tt) = (total(&ours), total(&theirs));
        println!("total CPU over the rounds: {:.1}× less ({ot:.2} s vs {tt:.2} s; the ratio of mean costs, slow rounds included)", tt / ot.max(1e-9));
        if let Some(note) = drift_note(&ours) {
            println!("{note}");
        }
    }
    if let Some(p) = s.json {
        let text = serde_json::to_string_pretty(&Value::Array(all))?;
        std::fs::write(p, text + "\n").with_context(|| format!("writing {}", p.display()))?;
    }
    Ok(())
}

/// A note when flashtail's rounds, the same work, cost unequal CPU: the host's speed drifted
/// (a sub-second run feels a busy moment of a shared host that a long run averages out).
fn drift_note(ours: &[ChildCost]) -> Option<String> {
    let (lo, hi) = ours.iter().fold((f64::MAX, 0f64), |(lo, hi), c| (lo.min(c.cpu_s), hi.max(c.cpu_s)));
    (hi > lo * DRIFT_NOTE).then(|| {
        format!("note: flashtail's CPU varied from {lo:.2} to {hi:.2} s over the rounds (the same work): this host's speed drifts, and each round's ratio with it; more rounds (--repeat) narrow the medians")
    })
}

fn row(which: &str, round: u32, c: &ChildCost) -> Value {
    println!("{which:<10} {round:>6} {:>9.2} {:>9.2} {:>10.1} {:>5}", c.wall_s, c.cpu_s, c.peak_mib, c.exit_code);
    json!({"command": which, "round": round, "wall_seconds": c.wall_s, "cpu_seconds": c.cpu_s, "peak_rss_mib": c.peak_mib, "exit_code": c.exit_code})
}

fn path_arg(p: &Path) -> String {
    PathBuf::from(p).to_string_lossy().into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cpu(s: f64) -> ChildCost {
        ChildCost { wall_s: s, cpu_s: s, peak_mib: 1.0, exit_code: 0 }
    }

    #[test]
    fn drift_is_noted_above_fifteen_percent() {
        assert_eq!(drift_note(&[cpu(0.80), cpu(0.91), cpu(0.85)]), None);
        let note = drift_note(&[cpu(0.80), cpu(0.93), cpu(0.85)]).expect("0.93 s is 16 % above 0.80 s");
        assert!(note.contains("from 0.80 to 0.93 s"), "{note}");
        assert_eq!(drift_note(&[cpu(0.8)]), None);
    }
}
