//! `flashtail gen`: writes a synthetic workload (a preset or a TOML config) as an MQSim or FIU
//! text trace, to a file or stdout; `--list` shows the presets. Argument parsing only: the
//! generator and writer live in `flashtail::workload`.

use anyhow::{bail, Context};
use flashtail::workload::{preset, preset_description, preset_names, write_trace, GenConfig, Generator, TraceFormat};
use flashtail::RequestSource;
use std::io::{BufWriter, Write};
use std::path::PathBuf;

#[derive(clap::Args)]
pub struct Args {
    /// List the presets with one-line descriptions and exit.
    #[arg(long)]
    list: bool,
    /// Named preset (see --list).
    #[arg(long, conflicts_with = "config")]
    preset: Option<String>,
    /// Workload configuration file (TOML, fields of GenConfig).
    #[arg(long)]
    config: Option<PathBuf>,
    /// Number of requests, at least 1 (overrides the preset/config).
    #[arg(long, value_parser = crate::sim_args::parse_count)]
    count: Option<u64>,
    /// Random seed (overrides the preset/config).
    #[arg(long, value_parser = crate::sim_args::parse_u64)]
    seed: Option<u64>,
    /// Logical address space in bytes (overrides the preset/config).
    #[arg(long, conflicts_with = "span_gib", value_parser = crate::sim_args::parse_u64)]
    span: Option<u64>,
    /// Logical address space in GiB (overrides the preset/config).
    #[arg(long, value_parser = crate::sim_args::parse_u64)]
    span_gib: Option<u64>,
    /// Output format: mqsim, fiu or linnos (LinnOS/Heimdall/FlashNet input: ms and bytes).
    #[arg(long, default_value = "mqsim")]
    format: String,
    /// Output file (stdout when absent).
    #[arg(short = 'o', long)]
    output: Option<PathBuf>,
    /// Print the effective configuration as TOML (a starting point for --config) and exit.
    #[arg(long)]
    print_config: bool,
    /// Print the generator's summary (read share, mean size, ...) to stderr at the end.
    #[arg(long)]
    summary: bool,
}

pub fn run(a: Args) -> anyhow::Result<()> {
    if a.list {
        for n in preset_names() {
            println!("{n:<28} {}", preset_description(n).unwrap_or(""));
        }
        return Ok(());
    }
    let format: TraceFormat = a.format.parse().map_err(anyhow::Error::msg)?;
    let mut cfg: GenConfig = match (&a.preset, &a.config) {
        (Some(p), None) => match preset(p) {
            Some(c) => c,
            None => bail!(
                "unknown preset '{p}'{} (see `flashtail gen --list`)",
                flashtail::suggest::did_you_mean(p, preset_names().iter().copied())
            ),
        },
        (None, Some(path)) => GenConfig::from_toml_file(path)?,
        _ => bail!("give exactly one of --preset NAME or --config FILE.toml (or --list)"),
    };
    if let Some(c) = a.count {
        cfg.count = Some(c);
    }
    if let Some(s) = a.seed {
        cfg.seed = s;
    }
    if let Some(s) = a.span {
        cfg.span_bytes = s;
    }
    if let Some(g) = a.span_gib {
        cfg.span_bytes = g.checked_mul(1 << 30).context("--span-gib too large")?;
    }
    if cfg.span_bytes == 0 && a.span.is_none() && a.span_gib.is_none() {
        // Presets leave the span to the device they run on; a trace file needs one now.
        let dev = flashtail::config::presets::load(crate::sim_args::DEFAULT_DEVICE).map_err(anyhow::Error::msg)?;
        cfg.span_bytes = dev.host_bytes();
        eprintln!(
            "note: no --span-gib or --span given: addresses span {:.1} GiB, the logical capacity of the default device {}",
            cfg.span_bytes as f64 / (1u64 << 30) as f64,
            crate::sim_args::DEFAULT_DEVICE
        );
    }
    if a.print_config {
        print!("{}", cfg.to_toml_string()?);
        return Ok(());
    }
    let origin = match (&a.preset, &a.config) {
        (Some(p), _) => format!("preset {p}"),
        (_, Some(path)) => path.display().to_string(),
        _ => String::new(),
    };
    let mut gen = Generator::new(cfg).with_context(|| format!("{origin} (after command-line overrides)"))?;
    let n = match &a.output {
        Some(path) => {
            let f = std::fs::File::create(path).with_context(|| format!("creating {}", path.display()))?;
            let mut w = BufWriter::new(f);
            let n = write_trace(&mut gen, format, &mut w).with_context(|| format!("writing {}", path.display()))?;
            w.flush().with_context(|| format!("writing {}", path.display()))?;
            n
        }
        None => {
            let stdout = std::io::stdout();
            let mut w = BufWriter::new(stdout.lock());
            write_trace(&mut gen, format, &mut w).context("writing stdout")?
        }
    };
    if a.summary {
        eprintln!("{}", gen.describe());
        eprintln!("written requests: {n}");
        for (k, v) in gen.summary() {
            eprintln!("{k}: {v}");
        }
    }
    Ok(())
}
