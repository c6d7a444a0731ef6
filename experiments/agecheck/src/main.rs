//! Per-plane free blocks right after aged preconditioning, for the ttFlash aging study
//! (docs/ttflash.md). `flashtail run --json` reports only the total and the minimum over
//! planes; finding the ratio at which *every* plane starts under the GC soft threshold needs
//! the maximum too. This probe runs the library's own preconditioning (same seed, same layout
//! as the engine: RAIN placement for parity-keeping schemes, static placement otherwise) and
//! prints min / mean / max free blocks per plane. It models nothing itself and times nothing.
//!
//! Usage: agecheck DEVICE SEED RATIO [RATIO...]   (DEVICE: preset name or TOML path)

use flashtail::config::{overrides, presets};
use flashtail::ftl::precondition::precondition;
use flashtail::ftl::rain::Rain;
use flashtail::ftl::Ftl;
use flashtail::units::{Lpn, PlaneId};

fn main() -> Result<(), String> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.len() < 3 {
        return Err("usage: agecheck DEVICE SEED RATIO [RATIO...]".into());
    }
    let base = presets::load_any(&args[0])?;
    let seed: u64 = args[1].parse().map_err(|e| format!("SEED '{}': {e}", args[1]))?;
    println!("ratio\tlayout\tsoft\tmin_free\tmean_free\tmax_free\tplanes_at_or_above_soft");
    for r in &args[2..] {
        let dev = overrides::apply(&base, &[format!("precondition.ratio={r}")])?;
        let geo = dev.geometry.clone();
        let soft = dev.soft_threshold_blocks();
        // Both layouts the engine can build: without parity (nogc, base, preemptive, pbl)
        // and with RAIN parity (gtr, rgc, ttflash).
        for with_rain in [false, true] {
            let rain = if with_rain {
                Some(Rain::new(&geo, Rain::data_capacity(dev.logical_pages(), geo.channels))?)
            } else {
                None
            };
            let (data, slots) = match &rain {
                Some(rn) => (rn.data_pages, rn.data_pages + rn.stripes),
                None => (dev.logical_pages(), dev.logical_pages()),
            };
            let mut ftl = Ftl::new(&geo, data, slots);
            let place = |id: u32| match &rain {
                Some(rn) => rn.plane_of(id),
                None => geo.static_plane(Lpn(id)),
            };
            precondition(&mut ftl, &dev, seed, &place, rain.as_ref(), |_, _| {})?;
            let free: Vec<u32> = (0..geo.planes()).map(|p| ftl.free_blocks(PlaneId(p))).collect();
            let min = free.iter().copied().min().unwrap_or(0);
            let max = free.iter().copied().max().unwrap_or(0);
            let mean = free.iter().map(|&f| f as f64).sum::<f64>() / free.len().max(1) as f64;
            let above = free.iter().filter(|&&f| f >= soft).count();
            let layout = if with_rain { "rain" } else { "plain" };
            println!("{r}\t{layout}\t{soft}\t{min}\t{mean:.1}\t{max}\t{above}");
        }
    }
    Ok(())
}
