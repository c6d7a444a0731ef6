//! `flashtail bench`: the performance reference benchmark (device preset `bench-ref`,
//! workload preset `bench-ref`) for each scheme × integrity-oracle setting, plus optionally
//! the preconditioning of a large device.
//!
//! `--scaling` instead runs base (oracle off) at 100k, 1M and 10M requests on the reference
//! workload and on a steady-state variant whose work per request is constant (see
//! [`steady_device`]), that variant once more with `--latency tail` (bounded latency memory),
//! and reports the cost per request, per event and per flash operation, and peak memory.
//!
//! Each case runs in a fresh child process (this binary re-executed with the hidden `--child`
//! flag) so the peak RSS it reports belongs to that case alone; the child prints one JSON line
//! and the parent tabulates. Reports wall time (which includes waiting for a core on a busy
//! machine) and the child's CPU time. Does not check targets: it measures.

use anyhow::{bail, Context};
use flashtail::config::presets;
use flashtail::gc::build_scheme;
use flashtail::stats::process::{host_info, load_average, peak_rss_bytes, process_cpu_seconds, thread_cpu_seconds, HostInfo};
use flashtail::config::Precondition;
use flashtail::stats::LatencyMode;
use flashtail::{DeviceConfig, SimOptions, Simulation};
use serde_json::{json, Value};
use std::time::Instant;

#[derive(clap::Args)]
pub struct Args {
    /// Requests of the reference workload per case.
    #[arg(long, default_value_t = 1_000_000, value_parser = crate::sim_args::parse_count)]
    pub requests: u64,
    /// Schemes to run, comma-separated (default base,preemptive; with --side-by-side, one
    /// scheme, default base).
    #[arg(long, value_delimiter = ',')]
    pub schemes: Vec<String>,
    /// Integrity oracle: on, off or both.
    #[arg(long, default_value = "both", value_parser = ["on", "off", "both"])]
    pub oracle: String,
    /// Also time preconditioning a device of this many TiB (bench-ref geometry with more
    /// blocks per plane, oracle off), e.g. 1.
    #[arg(long, value_name = "TIB", value_parser = parse_tib)]
    pub precondition_tib: Option<f64>,
    /// Skip the workload runs (with --precondition-tib: only the preconditioning case).
    #[arg(long)]
    pub no_runs: bool,
    /// Scaling study instead of the scheme cases: base, oracle off, at each length of
    /// --scaling-requests, on the reference workload and on its steady-state variant.
    #[arg(long)]
    pub scaling: bool,
    /// Run lengths (requests) of --scaling, comma-separated.
    #[arg(long, value_delimiter = ',', default_value = "100000,1000000,10000000")]
    pub scaling_requests: Vec<u64>,
    /// Run the list of cases this many times, round after round, and summarise each case's
    /// fastest and median run: on a shared machine one run can be far off the machine's
    /// speed. Each run's JSON entry carries its round. The runs must agree on their event
    /// counts (a difference is reported as an error: the simulation is deterministic).
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=1000))]
    pub repeat: u32,
    /// Write the results as a JSON array here.
    #[arg(long)]
    pub json: Option<std::path::PathBuf>,
    /// Measure the engine with one event per phase end (no transfer chaining; the reference
    /// the chained engine is tested against), to see what chaining saves.
    #[arg(long)]
    pub unchained: bool,
    /// Side by side from a trace file: time a whole `flashtail run` on TRACE (parsing,
    /// checks, footprint, preconditioning, run) in a child process, CPU seconds and peak
    /// memory from the kernel, and `--against`'s command after it, round after round.
    #[arg(long, value_name = "TRACE")]
    pub side_by_side: Option<std::path::PathBuf>,
    /// With --side-by-side: the trace's format (as `run --format`), when not detected.
    #[arg(long, requires = "side_by_side")]
    pub format: Option<String>,
    /// With --side-by-side: the device (preset or TOML file).
    #[arg(long, default_value = "mqsim-ref", requires = "side_by_side")]
    pub device: String,
    /// With --side-by-side: another simulator's command on the same trace, run by `sh -c`
    /// after each flashtail run (e.g. "cd ../mqsim && ./MQSim -i ssdconfig.xml -w workload.xml").
    #[arg(long, value_name = "CMD", requires = "side_by_side")]
    pub against: Option<String>,
    /// Internal: run one case in this process and print its result as JSON.
    #[arg(long, hide = true)]
    pub child: Option<String>,
}

const SEED: u64 = 1;

fn print_build(host: &HostInfo) {
    println!("  build: {}", build_kind());
    // A 1-minute average: it also counts a benchmark run just before this one.
    let load = host.load_1min.map_or(String::new(), |l| {
        let busy = if l >= 0.5 { " (the machine was busy in the last minute: timings may be slower)" } else { "" };
        format!(", load average {l:.2}{busy}")
    });
    println!("  host: {}, {} logical CPUs{load}", host.cpu_model.as_deref().unwrap_or("unknown CPU"), host.cpus);
    if option_env!("FLASHTAIL_BUILD").is_none() {
        println!("  (scripts/pgo-build.sh builds a profile-guided binary that runs about 6 % fewer instructions)");
    }
}

/// How this binary was built, for the record next to its timings: `scripts/pgo-build.sh`
/// sets `FLASHTAIL_BUILD` (a profile-guided build runs measurably faster than a plain one).
fn build_kind() -> &'static str {
    match option_env!("FLASHTAIL_BUILD") {
        Some(kind) => kind,
        None if cfg!(debug_assertions) => "debug (timings are not meaningful)",
        None => "release (cargo build --release)",
    }
}

pub fn run(a: Args) -> anyhow::Result<()> {
    if let Some(case) = &a.child {
        let result = run_case(case, a.requests, !a.unchained)?;
        println!("{result}");
        return Ok(());
    }
    if a.scaling {
        if a.repeat > 1 {
            bail!("--repeat applies to the scheme cases, not to --scaling");
        }
        return run_scaling(&a);
    }
    if let Some(trace) = &a.side_by_side {
        let scheme = match a.schemes.as_slice() {
            [] => "base",
            [s] => s.as_str(),
            _ => bail!("--side-by-side runs one scheme; --schemes names {}", a.schemes.len()),
        };
        build_scheme(scheme, None, SEED).map_err(anyhow::Error::msg)?;
        return crate::bench_side::run(&crate::bench_side::SideBySide {
            trace,
            format: a.format.as_deref(),
            device: &a.device,
            scheme,
            oracle: a.oracle != "off",
            against: a.against.as_deref(),
            repeat: a.repeat,
            json: a.json.as_deref(),
        });
    }
    let mut a = a;
    if a.schemes.is_empty() {
        a.schemes = vec!["base".into(), "preemptive".into()];
    }
    crate::sim_args::check_no_empty_scheme(&a.schemes)?;
    for s in &a.schemes {
        build_scheme(s, None, SEED).map_err(anyhow::Error::msg)?;
    }
    let mut cases = Vec::new();
    if !a.no_runs {
        let oracles: &[&str] = match a.oracle.as_str() {
            "on" => &["on"],
            "off" => &["off"],
            _ => &["on", "off"],
        };
        for s in &a.schemes {
            for o in oracles {
                cases.push(format!("run:{s}:{o}"));
            }
        }
    }
    if let Some(tib) = a.precondition_tib {
        cases.push(format!("precondition:{tib}"));
    }
    println!("flashtail bench: device bench-ref, workload bench-ref ({} requests), one process per case", a.requests);
    let host = host_info();
    print_build(&host);
    println!(
        "{:<26} {:>9} {:>8} {:>8} {:>8} {:>12} {:>12} {:>11} {:>12} {:>9}",
        "case", "requests", "total s", "precond", "cpu s", "req/s (run)", "req/s (cpu)", "events", "events/s", "peak MiB"
    );
    let mut all = Vec::new();
    for round in 1..=a.repeat {
        if a.repeat > 1 {
            println!("-- round {round} of {}", a.repeat);
        }
        for case in &cases {
            let load = load_average();
            let mut v = run_child(case, a.requests, a.unchained)?;
            v["round"] = json!(round);
            record_host(&mut v, &host, load);
            println!("{}", row(&v));
            all.push(v);
        }
    }
    if a.repeat > 1 {
        print_summary(a.repeat, &all)?;
    }
    write_json(a.json.as_deref(), &all)
}

/// Add the machine to a run's JSON entry: CPU model, logical CPUs, and the load average just
/// before the run started (`load`), so entries from different machines or busy moments can
/// be told apart.
fn record_host(v: &mut Value, host: &HostInfo, load: Option<f64>) {
    v["cpu_model"] = json!(host.cpu_model);
    v["cpus"] = json!(host.cpus);
    v["load_avg_1min"] = json!(load);
}

/// Per case, over the rounds of `--repeat`: the fastest and the median total time and the
/// request rates of the fastest and the median run. Fails if a case's rounds disagree on the
/// number of events, which would mean a run is not deterministic.
fn print_summary(rounds: u32, all: &[Value]) -> anyhow::Result<()> {
    let mut names: Vec<&str> = Vec::new();
    for v in all {
        let name = v["case"].as_str().unwrap_or("?");
        if !names.contains(&name) {
            names.push(name);
        }
    }
    println!("summary over {rounds} rounds (fastest / median):");
    println!("{:<26} {:>17} {:>23}", "case", "total s", "req/s (run)");
    for name in names {
        let runs: Vec<&Value> = all.iter().filter(|v| v["case"].as_str() == Some(name)).collect();
        let events: Vec<u64> = runs.iter().map(|v| v["events"].as_u64().unwrap_or(0)).collect();
        if events.windows(2).any(|w| w[0] != w[1]) {
            bail!("case {name}: the rounds simulated different numbers of events ({events:?}); the same run must be identical");
        }
        let f = |k: &str| -> Vec<f64> { runs.iter().map(|v| v[k].as_f64().unwrap_or(0.0)).collect() };
        let (total_min, total_med) = fastest_and_median(f("total_seconds"));
        let (run_min, run_med) = fastest_and_median(f("run_seconds"));
        let requests = runs[0]["requests"].as_f64().unwrap_or(0.0);
        let rates = if requests > 0.0 && run_min > 0.0 {
            format!("{:.0} / {:.0}", requests / run_min, requests / run_med)
        } else {
            "-".into()
        };
        println!("{:<26} {:>17} {:>23}", name, format!("{total_min:.3} / {total_med:.3}"), rates);
    }
    Ok(())
}

/// The smallest value and the median (the mean of the middle two for an even count).
fn fastest_and_median(mut xs: Vec<f64>) -> (f64, f64) {
    if xs.is_empty() {
        return (0.0, 0.0);
    }
    xs.sort_by(f64::total_cmp);
    let n = xs.len();
    let median = if n % 2 == 1 { xs[n / 2] } else { (xs[n / 2 - 1] + xs[n / 2]) / 2.0 };
    (xs[0], median)
}

/// Run one case in a fresh process (this binary with `--child`) and parse its JSON line.
fn run_child(case: &str, requests: u64, unchained: bool) -> anyhow::Result<Value> {
    let exe = std::env::current_exe().context("locating the flashtail binary to re-run per case")?;
    let mut args = vec!["bench".to_string(), "--child".into(), case.into(), "--requests".into(), requests.to_string()];
    if unchained {
        args.push("--unchained".into());
    }
    let out = std::process::Command::new(&exe)
        .args(&args)
        .output()
        .with_context(|| format!("starting the child process for case {case}"))?;
    if !out.status.success() {
        bail!("case {case} failed: {}", String::from_utf8_lossy(&out.stderr).trim());
    }
    let text = String::from_utf8_lossy(&out.stdout);
    let line = text.lines().last().unwrap_or_default();
    serde_json::from_str(line).with_context(|| format!("case {case}: unreadable child output {line:?}"))
}

fn write_json(path: Option<&std::path::Path>, all: &[Value]) -> anyhow::Result<()> {
    if let Some(path) = path {
        std::fs::write(path, serde_json::to_string_pretty(all)? + "\n").with_context(|| format!("writing {}", path.display()))?;
        println!("JSON results: {}", path.display());
    }
    Ok(())
}

/// The workloads of `--scaling`: the reference one (its write amplification grows with the
/// run length), the steady-state variant (constant work per request), and the steady variant
/// with tail latency recording (constant memory: exact samples cost 8 bytes a request).
const SCALING_VARIANTS: [&str; 3] = ["reference", "steady", "steady-tail"];

fn run_scaling(a: &Args) -> anyhow::Result<()> {
    if a.scaling_requests.is_empty() || a.scaling_requests.contains(&0) {
        bail!("--scaling-requests needs run lengths > 0");
    }
    println!("flashtail bench --scaling: scheme base, oracle off, one process per run");
    let host = host_info();
    print_build(&host);
    println!("  reference: device bench-ref, workload bench-ref (WAF grows as random writes fill the logical space)");
    println!("  steady:    bench-ref with over-provisioning 25%, preconditioned 100% full (steady model), same workload");
    println!("  steady-tail: steady with --latency tail (histogram + exact top 1.5%: p99 and up exact, bounded memory)");
    println!("  ns/... from the run's CPU time (preconditioning excluded); flash ops = page reads + programs + erases");
    println!(
        "{:<11} {:>10} {:>6} {:>13} {:>8} {:>8} {:>11} {:>9} {:>12} {:>9}",
        "variant", "requests", "WAF", "events", "wall s", "cpu s", "ns/request", "ns/event", "ns/flash op", "peak MiB"
    );
    let mut all = Vec::new();
    for variant in SCALING_VARIANTS {
        let mut per_request = Vec::new();
        for &n in &a.scaling_requests {
            let load = load_average();
            let mut v = run_child(&format!("scale:{variant}"), n, a.unchained)?;
            record_host(&mut v, &host, load);
            println!("{}", scaling_row(&v));
            per_request.push(v["ns_per_request"].as_f64().unwrap_or(0.0));
            all.push(v);
        }
        if let Some(spread) = spread(&per_request) {
            println!("{variant}: ns/request spans {:+.0}% .. {:+.0}% of its mean", spread.0 * 100.0, spread.1 * 100.0);
        }
    }
    write_json(a.json.as_deref(), &all)
}

/// Smallest and largest relative deviation from the mean (`None` without positive values).
fn spread(xs: &[f64]) -> Option<(f64, f64)> {
    let mean = xs.iter().sum::<f64>() / xs.len() as f64;
    if xs.is_empty() || mean <= 0.0 {
        return None;
    }
    let dev = |x: &f64| x / mean - 1.0;
    Some((xs.iter().map(dev).fold(f64::INFINITY, f64::min), xs.iter().map(dev).fold(f64::NEG_INFINITY, f64::max)))
}

fn scaling_row(v: &Value) -> String {
    let f = |k: &str| v[k].as_f64().unwrap_or(0.0);
    format!(
        "{:<11} {:>10} {:>6.2} {:>13} {:>8.2} {:>8.2} {:>11.0} {:>9.1} {:>12.1} {:>9.1}",
        v["variant"].as_str().unwrap_or("?"),
        f("requests"),
        f("waf"),
        f("events"),
        f("total_seconds"),
        f("cpu_seconds"),
        f("ns_per_request"),
        f("ns_per_event"),
        f("ns_per_flash_op"),
        f("peak_rss_bytes") / (1u64 << 20) as f64,
    )
}

fn row(v: &Value) -> String {
    let f = |k: &str| v[k].as_f64().unwrap_or(0.0);
    let requests = f("requests");
    let run_s = f("run_seconds");
    let per = |n: f64, s: f64| if s > 0.0 && n > 0.0 { format!("{:.0}", n / s) } else { "-".into() };
    format!(
        "{:<26} {:>9} {:>8.3} {:>8.3} {:>8.2} {:>12} {:>12} {:>11} {:>12} {:>9.1}",
        v["case"].as_str().unwrap_or("?"),
        requests,
        f("total_seconds"),
        f("precondition_seconds"),
        f("cpu_seconds"),
        per(requests, run_s),
        per(requests, f("cpu_seconds")),
        f("events"),
        per(f("events"), run_s),
        f("peak_rss_bytes") / (1u64 << 20) as f64,
    )
}

/// Run one case in this process: `run:<scheme>:<on|off>` or `precondition:<TiB>`.
fn run_case(case: &str, requests: u64, chain: bool) -> anyhow::Result<Value> {
    let parts: Vec<&str> = case.split(':').collect();
    match parts.as_slice() {
        ["run", scheme, oracle @ ("on" | "off")] => run_workload(scheme, *oracle == "on", requests, chain),
        ["scale", variant @ ("reference" | "steady" | "steady-tail")] => run_scaling_case(variant, requests, chain),
        ["precondition", tib] => {
            let tib: f64 = tib.parse().with_context(|| format!("case {case}: bad size"))?;
            precondition_only(tib)
        }
        _ => bail!("unknown bench case '{case}'"),
    }
}

/// The reference workload (`requests` of workload preset bench-ref over the device's logical
/// space) and a preconditioned simulation of `scheme` on `dev`, ready to run. With
/// `input_memory` > 0 the workload is drawn once into memory and replayed from there for the
/// footprint pass and the run, as a user's `flashtail run` does (`job::record_input`); with
/// 0 it is drawn anew for each (constant memory, for `--scaling`).
fn reference_run(
    dev: DeviceConfig,
    scheme: &str,
    oracle: bool,
    requests: u64,
    latency: LatencyMode,
    chain_transfers: bool,
    input_memory: u64,
) -> anyhow::Result<(Simulation, Box<dyn flashtail::host::RequestSource + Send>)> {
    let cfg = flashtail::workload::preset("bench-ref")
        .context("workload preset bench-ref is missing")?
        .with_span(dev.host_bytes())
        .with_count(requests);
    let open: flashtail::job::Opener = Box::new(move || {
        Ok(Box::new(flashtail::workload::Generator::new(cfg.clone()).map_err(|e| e.to_string())?) as Box<dyn flashtail::host::RequestSource + Send>)
    });
    let open = flashtail::job::record_input(open, input_memory, &[scheme.to_string()]);
    // The footprint pass, when the device's preconditioning asks for one, is part of the
    // measured time: a user's run does it too.
    let footprint = flashtail::runner::scan_footprint(&dev, &open)?;
    let src = open().map_err(anyhow::Error::msg)?;
    let scheme_def = build_scheme(scheme, None, SEED).map_err(anyhow::Error::msg)?;
    let opts = SimOptions { seed: SEED, oracle, latency, chain_transfers, footprint, ..Default::default() };
    let sim = Simulation::new(dev, scheme_def, opts)?;
    Ok((sim, src))
}

fn run_workload(scheme: &str, oracle: bool, requests: u64, chain: bool) -> anyhow::Result<Value> {
    let dev = presets::load("bench-ref").map_err(anyhow::Error::msg)?;
    let t0 = Instant::now();
    let (sim, mut src) = reference_run(dev, scheme, oracle, requests, LatencyMode::Exact, chain, flashtail::job::INPUT_MEMORY_DEFAULT)?;
    let report = sim.run(&mut src)?;
    let total = t0.elapsed().as_secs_f64();
    Ok(json!({
        "case": format!("{scheme}, oracle {}", if oracle { "on" } else { "off" }),
        "requests": report.integrity.requests_completed,
        "total_seconds": total,
        "precondition_seconds": report.cost.precondition_seconds,
        "run_seconds": report.cost.wall_seconds,
        "cpu_seconds": process_cpu_seconds(),
        "events": report.cost.events,
        "peak_rss_bytes": peak_rss_bytes(),
        "waf": report.flash.waf,
        "build": build_kind(),
    }))
}

/// The steady-state variant of the reference device for `--scaling`: bench-ref with 25%
/// over-provisioning, every logical page written before the run (steady preconditioning
/// at fill 1.0, the used blocks' valid ratios spread as greedy GC leaves them).
///
/// Why: on the reference device 20% of the logical space starts unwritten, and uniform
/// random writes fill it over millions of requests, so the valid ratio of GC victims, and
/// with it the write amplification, climbs the whole time (3.5 at 1M requests, over 10 at
/// 10M). Starting full removes that drift. At bench-ref's own 12.5% over-provisioning a
/// full device has WAF ~16-18 (some 120 events per request: a 10M run would take minutes);
/// at 25% the WAF is ~3, close to the reference run's 1M-request work per request.
pub fn steady_device() -> anyhow::Result<DeviceConfig> {
    let mut dev = presets::load("bench-ref").map_err(anyhow::Error::msg)?;
    // Every logical page written, one free block above the soft threshold and the reserve.
    dev.precondition = Precondition::Steady { fill: 1.0, free_blocks_margin: 1 };
    dev.ftl.over_provisioning = 0.25;
    dev.name = "bench-ref-steady".into();
    dev.validate().map_err(|e| anyhow::anyhow!("steady bench device: {e}"))?;
    Ok(dev)
}

/// One `--scaling` run: base, oracle off, `requests` of the reference workload on the
/// reference device or its steady variant. Costs per unit of work come from the CPU time of
/// the run alone (after preconditioning).
fn run_scaling_case(variant: &str, requests: u64, chain: bool) -> anyhow::Result<Value> {
    let dev = if variant.starts_with("steady") { steady_device()? } else { presets::load("bench-ref").map_err(anyhow::Error::msg)? };
    let latency = if variant.ends_with("-tail") { LatencyMode::Tail } else { LatencyMode::Exact };
    let t0 = Instant::now();
    let (sim, mut src) = reference_run(dev, "base", false, requests, latency, chain, 0)?;
    let cpu0 = precise_thread_cpu_seconds();
    let report = sim.run(&mut src)?;
    let cpu1 = precise_thread_cpu_seconds();
    let total = t0.elapsed().as_secs_f64();
    let run_cpu = match (cpu0, cpu1) {
        (Some(a), Some(b)) => b - a,
        _ => report.cost.wall_seconds,
    };
    let fl = &report.flash;
    // Every GC move reads its page once, whether or not the remap still applies.
    let reads = fl.host_pages_read + fl.gc_pages_programmed;
    let flash_ops = reads + fl.host_pages_programmed + fl.gc_pages_programmed + fl.parity_pages_programmed + fl.erases;
    let done = report.integrity.requests_completed;
    let per = |n: u64| if n > 0 { run_cpu * 1e9 / n as f64 } else { 0.0 };
    Ok(json!({
        "case": format!("scaling {variant}"),
        "variant": variant,
        "requests": done,
        "waf": fl.waf,
        "events": report.cost.events,
        "flash_ops": flash_ops,
        "total_seconds": total,
        "precondition_seconds": report.cost.precondition_seconds,
        "run_seconds": report.cost.wall_seconds,
        "cpu_seconds": process_cpu_seconds().or(cpu1),
        "run_cpu_seconds": run_cpu,
        "ns_per_request": per(done),
        "ns_per_event": per(report.cost.events),
        "ns_per_flash_op": per(flash_ops),
        "peak_rss_bytes": peak_rss_bytes(),
    }))
}

/// CPU time of the calling thread in seconds with nanosecond resolution (Linux
/// `/proc/thread-self/schedstat`, first field), else the 10 ms-resolution
/// `thread_cpu_seconds`: a 100k-request run takes ~0.2 s, where 10 ms ticks are a 5% error.
fn precise_thread_cpu_seconds() -> Option<f64> {
    let precise = std::fs::read_to_string("/proc/thread-self/schedstat")
        .ok()
        .and_then(|s| s.split_whitespace().next().and_then(|ns| ns.parse::<u64>().ok()));
    match precise {
        Some(ns) => Some(ns as f64 / 1e9),
        None => thread_cpu_seconds(),
    }
}

/// `--precondition-tib`: a size [`large_device`] can build, checked before any case runs
/// (a child process reported "0.000000001 TiB does not fit 32-bit page numbers" after the
/// header was printed).
fn parse_tib(s: &str) -> Result<f64, String> {
    let tib: f64 = s.trim().parse().map_err(|_| format!("'{s}' is not a number of TiB"))?;
    if tib.is_finite() && large_device(tib).is_ok() {
        return Ok(tib);
    }
    // large_device grows blocks per plane: from the fewest the device checks accept to the
    // most that keep page numbers within 32 bits.
    let dev = presets::load("bench-ref").map_err(|e| e.to_string())?;
    let g = &dev.geometry;
    let row_tib = f64::from(g.planes()) * f64::from(g.pages_per_block) * g.page_size as f64 / (1u64 << 40) as f64;
    let max_blocks = u64::from(u32::MAX) / (u64::from(g.planes()) * u64::from(g.pages_per_block));
    let min_blocks = (1..=max_blocks).find(|&b| large_device(b as f64 * row_tib).is_ok()).unwrap_or(max_blocks);
    Err(format!(
        "must be from {:.6} TiB ({min_blocks} blocks per plane of the bench-ref geometry, the fewest it runs with) \
         to {:.6} TiB (32-bit page numbers with {} B pages)",
        min_blocks as f64 * row_tib,
        max_blocks as f64 * row_tib,
        g.page_size
    ))
}

/// The bench-ref geometry grown (more blocks per plane) to `tib` TiB of raw flash.
pub fn large_device(tib: f64) -> anyhow::Result<DeviceConfig> {
    let mut dev = presets::load("bench-ref").map_err(anyhow::Error::msg)?;
    let g = &dev.geometry;
    let per_block = g.pages_per_block as f64 * g.page_size as f64;
    let blocks = (tib * (1u64 << 40) as f64 / (g.planes() as f64 * per_block)).round();
    if blocks < 1.0 || blocks * per_block * g.planes() as f64 / g.page_size as f64 > u32::MAX as f64 {
        bail!("a {tib} TiB device does not fit 32-bit page numbers with {} B pages", g.page_size);
    }
    dev.geometry.blocks_per_plane = blocks as u32;
    dev.name = format!("bench-ref-{tib}tib");
    dev.validate().map_err(|e| anyhow::anyhow!("{tib} TiB device: {e}"))?;
    Ok(dev)
}

fn precondition_only(tib: f64) -> anyhow::Result<Value> {
    let dev = large_device(tib)?;
    let pages = dev.geometry.total_pages_u64();
    let t0 = Instant::now();
    let scheme = build_scheme("base", None, SEED).map_err(anyhow::Error::msg)?;
    let sim = Simulation::new(dev, scheme, SimOptions { seed: SEED, oracle: false, check_every: 0, progress: None, ..Default::default() })?;
    let total = t0.elapsed().as_secs_f64();
    let mapped = sim.ftl().l2p.iter().filter(|&&p| p != flashtail::ftl::NONE).count();
    Ok(json!({
        "case": format!("precondition {tib} TiB"),
        "requests": 0,
        "total_seconds": total,
        "precondition_seconds": total,
        "run_seconds": 0.0,
        "cpu_seconds": process_cpu_seconds(),
        "events": 0,
        "peak_rss_bytes": peak_rss_bytes(),
        "physical_pages": pages,
        "mapped_pages": mapped,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fastest_and_median_of_odd_and_even_counts() {
        assert_eq!(fastest_and_median(vec![3.0, 1.0, 2.0]), (1.0, 2.0));
        assert_eq!(fastest_and_median(vec![4.0, 1.0, 3.0, 2.0]), (1.0, 2.5));
        assert_eq!(fastest_and_median(vec![7.5]), (7.5, 7.5));
        assert_eq!(fastest_and_median(Vec::new()), (0.0, 0.0));
    }

    #[test]
    fn large_device_has_the_requested_raw_size() {
        let dev = large_device(1.0).unwrap();
        assert_eq!(dev.geometry.blocks_per_plane, 32_768);
        assert_eq!(dev.geometry.total_pages_u64(), 1 << 28);
        assert_eq!(dev.geometry.raw_bytes(), 1 << 40);
        // 64 TiB of 4 KiB pages does not fit 32-bit page numbers.
        assert!(large_device(64.0).is_err());
    }

    /// `--precondition-tib` takes what large_device builds, and says the range otherwise (a
    /// tiny size was reported as "does not fit 32-bit page numbers", after the header).
    #[test]
    fn precondition_tib_range() {
        let range = "must be from 0.000977 TiB (32 blocks per plane of the bench-ref geometry, the \
                     fewest it runs with) to 15.999969 TiB (32-bit page numbers with 4096 B pages)";
        for bad in ["1e-9", "0", "-1", "NaN", "inf", "16", "1e300"] {
            assert_eq!(parse_tib(bad), Err(range.to_string()), "{bad}");
        }
        assert_eq!(parse_tib("abc"), Err("'abc' is not a number of TiB".to_string()));
        assert_eq!(parse_tib("1"), Ok(1.0));
        assert_eq!(parse_tib("15.999969"), Ok(15.999969));
        assert_eq!(parse_tib("0.000977"), Ok(0.000977));
        assert!(parse_tib("0.0009").is_err());
    }

    #[test]
    fn steady_variant_starts_full_with_more_spare() {
        let dev = steady_device().unwrap();
        let reference = presets::load("bench-ref").unwrap();
        assert_eq!(dev.geometry.total_pages_u64(), reference.geometry.total_pages_u64());
        assert_eq!(dev.ftl.over_provisioning, 0.25);
        assert!(matches!(dev.precondition, Precondition::Steady { fill, .. } if fill == 1.0));
        // 2^21 raw pages, 25% spare: 1,572,864 logical pages of 4 KiB.
        assert_eq!(dev.logical_pages(), 1_572_864);
    }

    #[test]
    fn spread_is_relative_to_the_mean() {
        let (lo, hi) = spread(&[90.0, 100.0, 110.0]).unwrap();
        assert!((lo + 0.1).abs() < 1e-12 && (hi - 0.1).abs() < 1e-12);
        assert_eq!(spread(&[0.0, 0.0]), None);
    }

    /// A scaling case runs in-process and its per-unit costs are consistent with its counts.
    #[test]
    fn scaling_case_reports_consistent_costs() {
        let v = run_scaling_case("steady", 2000, true).unwrap();
        assert_eq!(v["requests"], 2000);
        let events = v["events"].as_f64().unwrap();
        let ops = v["flash_ops"].as_f64().unwrap();
        assert!(events > 2000.0 && ops > 2000.0);
        // Both are the run's CPU time, split two ways (it may read 0 at 10 ms resolution).
        let by_event = v["ns_per_event"].as_f64().unwrap() * events;
        let by_request = v["ns_per_request"].as_f64().unwrap() * 2000.0;
        assert!((by_event - by_request).abs() <= 1e-6 * by_request.max(1.0));
        assert!(v["waf"].as_f64().unwrap() >= 1.0);
        assert!(run_case("scale:other", 10, true).is_err());
        // --unchained: same work, more events (one per phase end).
        let u = run_scaling_case("steady", 2000, false).unwrap();
        assert_eq!(u["flash_ops"], v["flash_ops"]);
        assert!(u["events"].as_f64().unwrap() > 1.3 * events, "{} vs {events}", u["events"]);
    }

    #[test]
    fn unknown_case_is_an_error() {
        assert!(run_case("run:base:maybe", 10, true).is_err());
        assert!(run_case("precondition:x", 10, true).is_err());
    }
}
