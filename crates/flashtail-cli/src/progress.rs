//! Progress bars for long runs: one line per scheme with requests done and simulated time.
//! Hidden automatically when stderr is not a terminal (CI, pipes).

use flashtail::sim::Progress;
use indicatif::{MultiProgress, ProgressBar, ProgressStyle};
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;

/// Run `work` while drawing one bar per label from its `Progress` counters.
pub fn with_bars<T: Send>(labels: &[String], progress: &[Arc<Progress>], work: impl FnOnce() -> T + Send) -> T {
    let multi = MultiProgress::new();
    let style = ProgressStyle::with_template("{spinner} {prefix:<14} {msg}").unwrap_or_else(|_| ProgressStyle::default_spinner());
    let bars: Vec<ProgressBar> = labels
        .iter()
        .map(|l| {
            let b = multi.add(ProgressBar::new_spinner());
            b.set_style(style.clone());
            b.set_prefix(l.clone());
            b
        })
        .collect();
    std::thread::scope(|s| {
        let handle = s.spawn(work);
        while !handle.is_finished() {
            for (b, p) in bars.iter().zip(progress) {
                let done = p.finished.load(Ordering::Relaxed) == 1;
                let msg = format!(
                    "{} requests, {:.1} s simulated{}",
                    p.requests(),
                    p.sim_time_ns() as f64 / 1e9,
                    if done { "  done" } else { "" }
                );
                b.set_message(msg);
                b.tick();
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        for b in &bars {
            b.finish_and_clear();
        }
        handle.join().expect("simulation thread panicked")
    })
}
