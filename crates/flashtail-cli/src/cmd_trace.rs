//! `flashtail trace ...`: inspect block traces.
//!
//! `trace stats FILE` prints the statistics of one trace (text or JSON) plus what the reader
//! skipped; `trace show` prints the first requests after replay controls, to check options,
//! folded into the same capacity a default `run` uses. Both take the file as a positional
//! argument or as `--trace FILE`. Statistics logic lives in the library (`trace::stats`);
//! this file only wires arguments.

use crate::sim_args::DeviceArgs;
use crate::trace_args::{trace_warnings, TraceInput, TraceParseArgs};
use flashtail::trace::{self, stats};
use flashtail::RequestSource;
use std::path::PathBuf;

#[derive(clap::Args)]
pub struct Args {
    #[command(subcommand)]
    cmd: Sub,
}

#[derive(clap::Subcommand)]
enum Sub {
    /// Statistics of a trace: mix, sizes, timing, idleness, footprint, overwrites, dedup.
    Stats(StatsArgs),
    /// Print the first requests of a trace after replay controls.
    Show(Box<ShowArgs>),
}

#[derive(clap::Args)]
struct StatsArgs {
    /// Trace file (gz/bz2/zst read transparently).
    #[arg(required_unless_present = "trace", conflicts_with = "trace")]
    file: Option<PathBuf>,
    /// The trace file, as `run` and `trace show` take it (same as the positional FILE).
    #[arg(long, value_name = "FILE")]
    trace: Option<PathBuf>,
    #[command(flatten)]
    parse: TraceParseArgs,
    /// Print JSON instead of text.
    #[arg(long)]
    json: bool,
}

#[derive(clap::Args)]
struct ShowArgs {
    /// Trace file (same as --trace; default: the bundled DTRS slice).
    #[arg(conflicts_with = "trace")]
    file: Option<PathBuf>,
    #[command(flatten)]
    input: TraceInput,
    /// Device whose host capacity and page size the replay controls use, as `run` does
    /// with the default scheme (RAIN schemes and `compare` fold into less: use --capacity).
    #[command(flatten)]
    device: DeviceArgs,
    /// Number of requests to print.
    #[arg(short = 'n', long, default_value_t = 20, value_parser = crate::sim_args::parse_usize)]
    count: usize,
    /// Logical capacity for LBA wrap (suffixes K, M, G, T). Default: the device's host
    /// capacity, the one a default `run` folds into.
    #[arg(long, value_parser = crate::trace_args::parse_bytes)]
    capacity: Option<u64>,
    /// Page size for alignment. Default: the device's page size.
    #[arg(long, value_parser = crate::trace_args::parse_bytes)]
    page_size: Option<u64>,
}

pub fn run(a: Args) -> anyhow::Result<()> {
    match a.cmd {
        Sub::Stats(s) => stats_cmd(s),
        Sub::Show(s) => show_cmd(s),
    }
}

fn stats_cmd(a: StatsArgs) -> anyhow::Result<()> {
    let started = std::time::Instant::now();
    // clap requires exactly one of the two.
    let Some(file) = a.file.or(a.trace) else {
        anyhow::bail!("give the trace file (positional or --trace FILE)");
    };
    let mut reader = trace::open_trace(&file, &a.parse.trace_options())?;
    // The plausibility checks first, on a copy of their own (no device: no saturation check).
    if let Ok(mut probe) = trace::open_trace(&file, &a.parse.trace_options()) {
        let name = file.display().to_string();
        crate::trace_args::check_plausibility(&mut probe, &name, a.parse.time_unit.is_some(), None, a.parse.strict)?;
    }
    let st = stats::collect(&mut reader)?;
    let mut summary = reader.summary();
    let mut warnings = trace_warnings(summary.iter().map(|(k, v)| (k.as_str(), v.as_str())));
    // A table of zeros said nothing of why (a wrong --volume, only a header, every line bad
    // under --on-error skip): the reader's reason goes to the notes and to stderr.
    if let Some(why) = reader.empty_reason() {
        warnings.push(format!("warning: {}: {why}", file.display()));
        summary.push(("empty_reason".to_string(), why));
    }
    if a.json {
        let src: serde_json::Map<String, serde_json::Value> = summary
            .into_iter()
            .map(|(k, v)| (k, serde_json::Value::String(v)))
            .collect();
        let out = serde_json::json!({ "stats": st, "source": src });
        println!("{}", serde_json::to_string_pretty(&out)?);
    } else {
        print!("{}", st.to_text());
        println!("-- reader");
        for (k, v) in summary {
            println!("{k:<22} {v}");
        }
    }
    for w in warnings {
        eprintln!("{w}");
    }
    // Throughput goes to stderr so stdout stays byte-identical between runs.
    let secs = started.elapsed().as_secs_f64();
    eprintln!(
        "read {} lines in {:.3} s ({:.2} M lines/s)",
        reader.counters.lines,
        secs,
        reader.counters.lines as f64 / secs.max(1e-9) / 1e6
    );
    Ok(())
}

fn show_cmd(a: Box<ShowArgs>) -> anyhow::Result<()> {
    let mut input = a.input.clone();
    if a.file.is_some() {
        input.trace = a.file.clone();
    }
    let dev = a.device.load()?;
    let (capacity, whose) = match a.capacity {
        Some(c) => (c, "--capacity".to_string()),
        None => (
            flashtail::runner::host_capacity_bytes(&dev, "base")?,
            format!("host capacity of device {}, as `run` with the default scheme", dev.name),
        ),
    };
    let page = a.page_size.unwrap_or(dev.geometry.page_size as u64);
    // The replay folds offsets into whole pages of the capacity: with no whole page (or a page
    // of 0 bytes) it would print unfolded offsets or absurd sizes under a "folded" header.
    if page == 0 {
        anyhow::bail!("--page-size must be more than 0 bytes");
    }
    if capacity < page {
        anyhow::bail!("the capacity ({capacity} bytes, {whose}) must hold at least one page of {page} bytes (--capacity, --page-size)");
    }
    let mut src = input.open(capacity, page)?;
    println!("# {}", src.describe());
    if input.no_wrap {
        println!("# requests beyond {capacity} bytes ({whose}) dropped (--no-wrap)");
    } else {
        println!("# offsets folded into {capacity} bytes ({whose})");
    }
    println!("# arrival_ns op offset size");
    let mut shown = 0;
    while shown < a.count {
        let Some(r) = src.next_request()? else { break };
        let op = match r.op {
            flashtail::Op::Read => "R",
            flashtail::Op::Write => "W",
        };
        println!("{} {op} {} {}", r.arrival.0, r.offset, r.size);
        shown += 1;
    }
    // An empty listing says why, as `run` does ("nothing to simulate: ...").
    if shown == 0 && a.count > 0 {
        println!("# no requests: {}", src.empty_reason().unwrap_or_else(|| "the workload yielded no requests".to_string()));
    }
    Ok(())
}
