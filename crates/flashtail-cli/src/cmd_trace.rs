//! `flashtail trace ...`: inspect block traces.
//!
//! `trace stats FILE` prints the statistics of one trace (text or JSON) plus what the reader
//! skipped; `trace show` prints the first requests after replay controls, to check options.
//! Statistics logic lives in the library (`trace::stats`); this file only wires arguments.

use crate::trace_args::{TraceInput, TraceParseArgs};
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
    file: PathBuf,
    #[command(flatten)]
    parse: TraceParseArgs,
    /// Print JSON instead of text.
    #[arg(long)]
    json: bool,
}

#[derive(clap::Args)]
struct ShowArgs {
    #[command(flatten)]
    input: TraceInput,
    /// Number of requests to print.
    #[arg(short = 'n', long, default_value_t = 20)]
    count: usize,
    /// Logical capacity for LBA wrap (suffixes K, M, G, T).
    #[arg(long, default_value = "256G", value_parser = crate::trace_args::parse_bytes)]
    capacity: u64,
    /// Page size for alignment.
    #[arg(long, default_value = "4K", value_parser = crate::trace_args::parse_bytes)]
    page_size: u64,
}

pub fn run(a: Args) -> anyhow::Result<()> {
    match a.cmd {
        Sub::Stats(s) => stats_cmd(s),
        Sub::Show(s) => show_cmd(s),
    }
}

fn stats_cmd(a: StatsArgs) -> anyhow::Result<()> {
    let started = std::time::Instant::now();
    let mut reader = trace::open_trace(&a.file, &a.parse.trace_options())?;
    let st = stats::collect(&mut reader)?;
    let summary = reader.summary();
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
    let mut src = a.input.open(a.capacity, a.page_size)?;
    println!("# {}", src.describe());
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
    Ok(())
}
