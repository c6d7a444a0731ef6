//! `flashtail presets`: the bundled device presets, or one of them in full.

use flashtail::config::presets;

#[derive(clap::Args)]
pub struct Args {
    /// Print this preset's TOML (a starting point for your own device file).
    #[arg(long)]
    pub show: Option<String>,
}

pub fn run(a: Args) -> anyhow::Result<()> {
    if let Some(name) = a.show {
        let (_, text) = presets::PRESETS
            .iter()
            .find(|(n, _)| *n == name)
            .ok_or_else(|| anyhow::anyhow!("unknown device preset '{name}' (known: {})", presets::names().join(", ")))?;
        print!("{text}");
        return Ok(());
    }
    for n in presets::names() {
        let d = presets::load(n).map_err(anyhow::Error::msg)?;
        let g = &d.geometry;
        let raw = g.raw_bytes() as f64;
        let size = if raw >= (1u64 << 30) as f64 { format!("{:.1} GiB", raw / (1u64 << 30) as f64) } else { format!("{:.0} MiB", raw / (1u64 << 20) as f64) };
        println!(
            "{n:<12} {size:>10} raw, {}ch x {}chip x {}die x {}pl, {} blk x {} pg x {} KiB — {}",
            g.channels,
            g.chips_per_channel,
            g.dies_per_chip,
            g.planes_per_die,
            g.blocks_per_plane,
            g.pages_per_block,
            g.page_size / 1024,
            d.description
        );
    }
    Ok(())
}
