//! `flashtail`: the command-line front end. A thin layer: each subcommand parses its
//! arguments and calls the library.

use clap::{Parser, Subcommand};

mod cmd_gen;
mod cmd_trace;
mod trace_args;

#[derive(Parser)]
#[command(name = "flashtail", version, about = "Trace-driven SSD simulator for GC tail latency")]
struct Cli {
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Subcommand)]
enum Cmd {
    /// Inspect a block trace.
    Trace(cmd_trace::Args),
    /// Generate a synthetic workload trace.
    Gen(cmd_gen::Args),
}

fn main() {
    let cli = Cli::parse();
    let result = match cli.cmd {
        Cmd::Trace(a) => cmd_trace::run(a),
        Cmd::Gen(a) => cmd_gen::run(a),
    };
    if let Err(e) = result {
        eprintln!("error: {e:#}");
        std::process::exit(2);
    }
}
