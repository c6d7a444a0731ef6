//! The host-side cost of a run: peak resident memory and CPU time, read from the OS (Linux
//! `/proc`). Elsewhere these read as 0 / `None`.

/// Peak resident set size of this process in bytes (Linux `VmHWM`), 0 when unknown.
pub fn peak_rss_bytes() -> u64 {
    let Ok(s) = std::fs::read_to_string("/proc/self/status") else { return 0 };
    s.lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        .map_or(0, |kb| kb * 1024)
}

/// CPU time (user + system) of the calling thread in seconds, from
/// `/proc/thread-self/stat` (10 ms resolution: Linux reports it in USER_HZ = 100 ticks).
/// On a shared machine wall time includes waiting for a core; CPU time is the cost of the
/// work itself.
pub fn thread_cpu_seconds() -> Option<f64> {
    cpu_seconds_from("/proc/thread-self/stat")
}

/// CPU time (user + system) of the whole process, every thread included, in seconds (same
/// source and resolution as [`thread_cpu_seconds`]): preconditioning runs on every core.
pub fn process_cpu_seconds() -> Option<f64> {
    cpu_seconds_from("/proc/self/stat")
}

/// The machine a measurement was taken on, for the record next to the timings: the same
/// simulation runs at very different speeds on different CPUs, and on a shared machine with
/// other work running (docs/performance.md). Fields read as `None` where the
/// platform does not report them (Linux `/proc/cpuinfo` and `/proc/loadavg`).
#[derive(Clone, Debug, PartialEq)]
pub struct HostInfo {
    /// CPU model name as the kernel reports it (`model name`), e.g. "AMD EPYC".
    pub cpu_model: Option<String>,
    /// Logical CPUs this process may use.
    pub cpus: usize,
    /// System load average over the last minute.
    pub load_1min: Option<f64>,
}

/// Describe this machine now (see [`HostInfo`]).
pub fn host_info() -> HostInfo {
    let cpu_model = std::fs::read_to_string("/proc/cpuinfo").ok().and_then(|s| {
        s.lines()
            .find_map(|l| l.strip_prefix("model name"))
            .and_then(|v| v.split_once(':'))
            .map(|(_, name)| name.trim().to_string())
            .filter(|name| !name.is_empty())
    });
    HostInfo { cpu_model, cpus: std::thread::available_parallelism().map_or(1, |n| n.get()), load_1min: load_average() }
}

/// The 1-minute system load average (Linux `/proc/loadavg`), `None` when unknown.
pub fn load_average() -> Option<f64> {
    std::fs::read_to_string("/proc/loadavg").ok()?.split_whitespace().next()?.parse().ok()
}

fn cpu_seconds_from(stat: &str) -> Option<f64> {
    let s = std::fs::read_to_string(stat).ok()?;
    // Field 2 (the command name) may hold spaces: count fields after its closing parenthesis.
    let rest = &s[s.rfind(')')? + 1..];
    let f: Vec<&str> = rest.split_whitespace().collect();
    let ticks = f.get(11)?.parse::<u64>().ok()? + f.get(12)?.parse::<u64>().ok()?;
    Some(ticks as f64 / 100.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_this_process_on_linux() {
        if !std::path::Path::new("/proc/thread-self/stat").exists() {
            println!("skipped: no /proc on this system");
            return;
        }
        // Some memory is resident and the CPU clock reads (it may still be 0 ticks).
        assert!(peak_rss_bytes() > 0);
        assert!(thread_cpu_seconds().is_some_and(|s| s >= 0.0));
        assert!(process_cpu_seconds().is_some_and(|s| s >= thread_cpu_seconds().unwrap_or(0.0)));
        let host = host_info();
        assert!(host.cpus >= 1);
        assert!(host.load_1min.is_some_and(|l| l >= 0.0));
        // Every Linux architecture names its CPU somewhere, but not always as `model name`.
        assert!(host.cpu_model.as_deref().is_none_or(|m| !m.is_empty()));
    }
}
