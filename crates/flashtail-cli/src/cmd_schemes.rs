//! `flashtail schemes`: every GC scheme this build has.

#[derive(clap::Args)]
pub struct Args {}

pub fn run(_: Args) -> anyhow::Result<()> {
    for (n, d) in flashtail::gc::scheme_names() {
        println!("{n:<18} {d}");
    }
    println!("\nvictim policies (--victim): greedy, cost-benefit, fifo, random, d-choices[:D], wla");
    Ok(())
}
