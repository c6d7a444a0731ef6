//! `flashtail`: the command-line front end. A thin layer: each subcommand parses its
//! arguments and calls the library.

use clap::{Parser, Subcommand};

mod cmd_bench;
mod cmd_compare;
mod cmd_gen;
mod cmd_presets;
mod cmd_run;
mod cmd_schemes;
mod cmd_trace;
mod cmd_wla_toy;
mod progress;
mod sim_args;
mod trace_args;

#[derive(Parser)]
#[command(name = "flashtail", version, about = "Trace-driven SSD simulator for GC tail latency")]
struct Cli {
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Subcommand)]
enum Cmd {
    /// Measure simulator speed and memory on the reference workload (one process per case).
    Bench(cmd_bench::Args),
    /// Compare GC schemes on one device and workload (default: the bundled DTRS slice).
    Compare(cmd_compare::Args),
    /// Run one GC scheme and print its tail latency.
    Run(cmd_run::Args),
    /// List the device presets (or show one).
    Presets(cmd_presets::Args),
    /// List the GC schemes.
    Schemes(cmd_schemes::Args),
    /// Inspect a block trace.
    Trace(cmd_trace::Args),
    /// Generate a synthetic workload trace.
    Gen(cmd_gen::Args),
    /// The WLA-GC paper's idealised word-line and block-pool models (no device timing).
    WlaToy(cmd_wla_toy::Args),
}

fn main() {
    exit_quietly_on_closed_pipe();
    let cli = Cli::parse();
    let result = match cli.cmd {
        Cmd::Bench(a) => cmd_bench::run(a),
        Cmd::Compare(a) => cmd_compare::run(a),
        Cmd::Run(a) => cmd_run::run(a),
        Cmd::Presets(a) => cmd_presets::run(a),
        Cmd::Schemes(a) => cmd_schemes::run(a),
        Cmd::Trace(a) => cmd_trace::run(a),
        Cmd::Gen(a) => cmd_gen::run(a),
        Cmd::WlaToy(a) => cmd_wla_toy::run(a),
    };
    if let Err(e) = result {
        eprintln!("error: {e:#}");
        std::process::exit(2);
    }
}

/// Let a closed standard output end the process as it does any Unix filter
/// (`flashtail compare | head`): the Rust runtime ignores SIGPIPE, which turns the failed write
/// into a panic with a backtrace from deep inside `println!`.
fn exit_quietly_on_closed_pipe() {
    // SAFETY: called first thing in `main`, before any other thread exists; restoring the
    // default action of one signal touches no Rust state.
    #[cfg(unix)]
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}
