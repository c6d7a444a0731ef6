//! `flashtail schemes`: every GC scheme this build has, and the victim policies `--victim`
//! accepts (the same list its error message gives).

#[derive(clap::Args)]
pub struct Args {}

pub fn run(_: Args) -> anyhow::Result<()> {
    for (n, d) in flashtail::gc::scheme_names() {
        println!("{n:<18} {d}");
    }
    println!("\nvictim policies (--victim): {} (default: each scheme's own, greedy for most)", flashtail::gc::victim::victim_policy_names());
    for (n, d) in flashtail::gc::victim::VICTIM_POLICIES {
        println!("  {n:<16} {d}");
    }
    Ok(())
}
