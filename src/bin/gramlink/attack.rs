//! `gramlink attack`: the matcher's dictionary, frequency and norm attacks on
//! party A's vectors, without and with the keyed transform (src/research/attack.rs).

use crate::io::{self, Result};
use crate::options::{MineFlags, PresetArg};
use crate::progress_bar::Bar;
use clap::Args;
use gramlink::alphabet::Alphabet;
use gramlink::research::attack::{run_attack, AttackOptions};
use std::path::PathBuf;

#[derive(Args)]
pub struct AttackArgs {
    /// A's population, in public frequency-rank order (one name a line).
    #[arg(long, default_value = "data/names.txt")]
    names: PathBuf,
    /// C's public name list.
    #[arg(long, default_value = "data/names_all.txt")]
    dictionary: PathBuf,
    /// A's records (distinct names; also the size of the Zipf multiset).
    #[arg(long, default_value_t = 20_000)]
    sample: usize,
    /// A records attacked by nearest neighbour.
    #[arg(long, default_value_t = 500)]
    targets: usize,
    #[command(flatten)]
    preset: PresetArg,
    #[command(flatten)]
    mine: MineFlags,
    /// The seed of every random step (an experiment). [default: 42]
    #[arg(long)]
    seed: Option<u64>,
    /// Print one JSON object.
    #[arg(long)]
    json: bool,
}

pub fn cmd_attack(a: AttackArgs) -> Result<()> {
    let alphabet = Alphabet::default();
    let mut config = a.preset.config();
    a.mine.apply(&mut config);
    config.mine.validate(alphabet.len())?;
    let text = gramlink::dataset::FormatHint::Text;
    let names = io::load_dataset(&a.names, text, None, None, &alphabet)?;
    let dict = io::load_dataset(&a.dictionary, text, None, None, &alphabet)?;
    let o = AttackOptions { sample: a.sample, targets: a.targets, seed: a.seed.unwrap_or(42), mine: config.mine };
    let bar = &mut Bar::new();
    let r = run_attack(names.records(), dict.records(), &alphabet, &o, bar)?;
    bar.finish();
    if a.json {
        println!("{}", serde_json::to_string(&r).unwrap_or_default());
        return Ok(());
    }
    let pct = |x: f64| format!("{:6.2}%", 100.0 * x);
    println!(
        "A: {} distinct names of {} (seed {}), shared base {} grams ({}…), C's dictionary {} names",
        o.sample,
        a.names.display(),
        o.seed,
        r.dim,
        &r.fingerprint[..16],
        r.dictionary_size
    );
    println!("re-identified share of A's records   unkeyed   keyed");
    println!(
        "dictionary (NN, {} targets)        {}  {}",
        o.targets,
        pct(r.unkeyed.dictionary),
        pct(r.keyed.dictionary)
    );
    println!(
        "frequency (Zipf multiset, {} groups) {}  {}",
        r.frequency_groups,
        pct(r.unkeyed.frequency),
        pct(r.keyed.frequency)
    );
    println!("norm (uniform among equal norms)    {}  {}", pct(r.unkeyed.norm), pct(r.keyed.norm));
    println!("chance (uniform guess): {:.6}%", 100.0 * r.chance);
    Ok(())
}
