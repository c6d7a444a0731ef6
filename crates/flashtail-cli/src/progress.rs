//! Progress of long runs. On a terminal: one bar per scheme with requests done of the
//! total, percent and ETA (a spinner with the count until the total is known). Otherwise
//! (logs, CI, `nohup`): one plain line on stderr every [`PLAIN_EVERY`] (or
//! `FLASHTAIL_PROGRESS_EVERY` seconds), so a long job shows it is alive.
//!
//! The total is counted while the runs go on, by reading the workload once more in a
//! thread of its own with the same replay options (`count`); a workload's parsing is a
//! small fraction of its simulation, and the count stops when the runs end.

use flashtail::sim::Progress;
use indicatif::{MultiProgress, ProgressBar, ProgressStyle};
use std::io::IsTerminal;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Interval of the plain progress line when stderr is not a terminal.
pub const PLAIN_EVERY: Duration = Duration::from_secs(10);

/// The plain line's interval: `FLASHTAIL_PROGRESS_EVERY` (seconds, may be fractional) or
/// [`PLAIN_EVERY`].
fn plain_every() -> Duration {
    std::env::var("FLASHTAIL_PROGRESS_EVERY")
        .ok()
        .and_then(|v| v.parse::<f64>().ok())
        .filter(|s| s.is_finite() && *s > 0.0)
        .map(Duration::from_secs_f64)
        .unwrap_or(PLAIN_EVERY)
}

/// Run `work` while reporting progress from the runs' `Progress` counters (one per label).
/// `count` gives the workload's request count (or `None`), polling the flag it is given to
/// stop early once the runs are over.
pub fn with_bars<T: Send>(
    labels: &[String],
    progress: &[Arc<Progress>],
    count: impl FnOnce(&AtomicBool) -> Option<u64> + Send,
    work: impl FnOnce() -> T + Send,
) -> T {
    let total = AtomicU64::new(0);
    let stop = AtomicBool::new(false);
    let tty = std::io::stderr().is_terminal();
    std::thread::scope(|s| {
        s.spawn(|| {
            if let Some(n) = count(&stop) {
                total.store(n, Ordering::Relaxed);
            }
        });
        let handle = s.spawn(work);
        if tty {
            draw_bars(labels, progress, &total, || handle.is_finished());
        } else {
            plain_lines(progress, &total, || handle.is_finished());
        }
        stop.store(true, Ordering::Relaxed);
        handle.join().expect("simulation thread panicked")
    })
}

fn draw_bars(labels: &[String], progress: &[Arc<Progress>], total: &AtomicU64, done: impl Fn() -> bool) {
    let multi = MultiProgress::new();
    let spinner = ProgressStyle::with_template("{spinner} {prefix:<16} {pos} requests, {msg}").unwrap_or_else(|_| ProgressStyle::default_spinner());
    let bar = ProgressStyle::with_template("{prefix:<16} [{bar:30}] {percent:>3}% {pos}/{len} requests, {msg}, ETA {eta}")
        .unwrap_or_else(|_| ProgressStyle::default_bar())
        .progress_chars("=> ");
    let bars: Vec<ProgressBar> = labels
        .iter()
        .map(|l| {
            let b = multi.add(ProgressBar::new_spinner());
            b.set_style(spinner.clone());
            b.set_prefix(l.clone());
            b
        })
        .collect();
    let mut sized = false;
    while !done() {
        let n = total.load(Ordering::Relaxed);
        if n > 0 && !sized {
            for b in &bars {
                b.set_length(n);
                b.set_style(bar.clone());
            }
            sized = true;
        }
        for (b, p) in bars.iter().zip(progress) {
            b.set_position(p.requests());
            let fin = if p.finished.load(Ordering::Relaxed) == 1 { " done" } else { "" };
            b.set_message(format!("{:.1} s simulated{fin}", p.sim_time_ns() as f64 / 1e9));
            b.tick();
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    for b in &bars {
        b.finish_and_clear();
    }
}

fn plain_lines(progress: &[Arc<Progress>], total: &AtomicU64, done: impl Fn() -> bool) {
    let start = Instant::now();
    let every = plain_every();
    let mut next = every;
    while !done() {
        if start.elapsed() >= next {
            next += every;
            let finished = progress.iter().filter(|p| p.finished.load(Ordering::Relaxed) == 1).count();
            let requests: u64 = progress.iter().map(|p| p.requests()).sum();
            eprintln!("{}", plain_line(finished, progress.len(), requests, total.load(Ordering::Relaxed), start.elapsed()));
        }
        std::thread::sleep(Duration::from_millis(50).min(every));
    }
}

/// One plain progress line: runs finished, requests done over all runs (of the total when
/// known, `total` being one run's), elapsed time and the estimate of the time left.
pub fn plain_line(finished: usize, runs: usize, requests: u64, total: u64, elapsed: Duration) -> String {
    let secs = elapsed.as_secs_f64();
    let mut s = format!("progress: {finished}/{runs} runs finished, {requests} requests simulated");
    if total > 0 {
        let all = total * runs as u64;
        let frac = requests as f64 / all as f64;
        s += &format!(" of {all} ({:.0}%)", 100.0 * frac);
        s += &format!(", {secs:.0} s elapsed");
        if frac > 0.0 {
            s += &format!(", about {:.0} s left", secs * (1.0 - frac) / frac);
        }
    } else {
        s += &format!(", {secs:.0} s elapsed (total still being counted)");
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_line_gives_share_and_time_left() {
        assert_eq!(
            plain_line(1, 2, 150, 100, Duration::from_secs(30)),
            "progress: 1/2 runs finished, 150 requests simulated of 200 (75%), 30 s elapsed, about 10 s left"
        );
        assert_eq!(
            plain_line(0, 1, 5, 0, Duration::from_secs(10)),
            "progress: 0/1 runs finished, 5 requests simulated, 10 s elapsed (total still being counted)"
        );
    }
}
