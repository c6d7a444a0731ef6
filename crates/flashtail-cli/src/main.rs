//! `flashtail`: the command-line front end. A thin layer: each subcommand parses its
//! arguments and calls the library.

use clap::{CommandFactory, FromArgMatches, Parser, Subcommand};

mod bench_side;
mod cmd_bench;
mod cmd_compare;
mod cmd_gen;
mod cmd_presets;
mod cmd_reproduce;
mod cmd_run;
mod cmd_schemes;
mod cmd_sweep;
mod cmd_trace;
mod cmd_wla_toy;
mod out_args;
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
    /// Rerun a seed paper's experiment in its setup: its numbers beside ours, a verdict per claim.
    Reproduce(cmd_reproduce::Args),
    /// List the GC schemes.
    Schemes(cmd_schemes::Args),
    /// Run a parameter sweep (devices × overrides × workloads × seeds) from a TOML spec.
    Sweep(cmd_sweep::Args),
    /// Inspect a block trace.
    Trace(cmd_trace::Args),
    /// Generate a synthetic workload trace.
    Gen(cmd_gen::Args),
    /// The WLA-GC paper's idealised word-line and block-pool models (no device timing).
    WlaToy(cmd_wla_toy::Args),
}

fn main() {
    exit_quietly_on_closed_pipe();
    let cmd = allow_negative_values(Cli::command());
    let cli = match Cli::from_arg_matches(&cmd.get_matches()) {
        Ok(c) => c,
        Err(e) => e.exit(),
    };
    let result = match cli.cmd {
        Cmd::Bench(a) => cmd_bench::run(a),
        Cmd::Compare(a) => cmd_compare::run(a),
        Cmd::Run(a) => cmd_run::run(a),
        Cmd::Presets(a) => cmd_presets::run(a),
        Cmd::Reproduce(a) => cmd_reproduce::run(a),
        Cmd::Schemes(a) => cmd_schemes::run(a),
        Cmd::Sweep(a) => cmd_sweep::run(a),
        Cmd::Trace(a) => cmd_trace::run(a),
        Cmd::Gen(a) => cmd_gen::run(a),
        Cmd::WlaToy(a) => cmd_wla_toy::run(a),
    };
    if let Err(e) = result {
        eprintln!("error: {}", error_text(&e));
        std::process::exit(2);
    }
}

/// Let every option that takes a value accept a negative number as its value, so a typo
/// like `--time-scale -1` meets the option's own range check ("time scale must be a
/// number > 0, got '-1'") instead of clap's "unexpected argument '-1'". No flashtail flag
/// looks like a number, so nothing else changes.
fn allow_negative_values(cmd: clap::Command) -> clap::Command {
    cmd.mut_args(|a| if a.get_action().takes_values() { a.allow_negative_numbers(true) } else { a })
        .mut_subcommands(allow_negative_values)
}

/// The error and its causes, `: `-separated, skipping a cause whose text the message before
/// it already ends with (an error that quotes its own source would print it twice).
fn error_text(e: &anyhow::Error) -> String {
    let mut out = String::new();
    for cause in e.chain() {
        let c = cause.to_string();
        if out.ends_with(&c) {
            continue;
        }
        if !out.is_empty() {
            out.push_str(": ");
        }
        out.push_str(&c);
    }
    out
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
