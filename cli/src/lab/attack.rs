//! `gramlink lab attack`: the matcher's attacks on party A's vectors as the chosen
//! preset's pipeline makes them (dictionary, frequency, norm, reconstruction by
//! an Eulerian decoder; axis recovery on keyed vectors), without and with the
//! keyed transform (src/research/attack.rs); with `--bootstrap` or
//! `--schema`, the exact algebra attacks on keyed batches (attack_algebra.rs).

use crate::io::{self, Result};
use crate::options::MiningFlags;
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
    /// Keyed vectors (distinct names) the axis-recovery search runs on; 0 skips it.
    #[arg(long, default_value_t = 30_000)]
    axis_vectors: usize,
    /// Directions the axis-recovery search looks for (each costs passes over the vectors).
    #[arg(long, default_value_t = 64)]
    axis_searches: usize,
    #[command(flatten)]
    mining: MiningFlags,
    /// The seed of every random step (an experiment). [default: 42]
    #[arg(long)]
    seed: Option<u64>,
    /// Print one JSON object.
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    algebra: super::attack_algebra::AlgebraArgs,
}

pub fn cmd_attack(a: AttackArgs) -> Result<()> {
    let alphabet = Alphabet::default();
    let config = a.mining.config();
    config.mine.validate(alphabet.len())?;
    let seed = a.seed.unwrap_or(42);
    if let Some(schema) = &a.algebra.schema {
        return super::attack_algebra::cmd_records(schema, &a.algebra, seed, a.json);
    }
    if a.algebra.bootstrap {
        return super::attack_algebra::cmd_bootstrap(&a.names, &a.algebra, config, seed, a.json);
    }
    let preset = a.mining.preset.preset.unwrap_or_default().name();
    let text = gramlink::dataset::FormatHint::Text;
    let names = io::load_dataset(&a.names, text, None, None, &alphabet)?;
    let dict = io::load_dataset(&a.dictionary, text, None, None, &alphabet)?;
    let o = AttackOptions {
        sample: a.sample,
        targets: a.targets,
        axis_vectors: a.axis_vectors,
        axis_searches: a.axis_searches,
        seed: a.seed.unwrap_or(42),
        config,
    };
    let bar = &mut Bar::new();
    let r = run_attack(names.records(), dict.records(), &alphabet, &o, bar)?;
    bar.finish();
    if a.json {
        println!("{}", serde_json::to_string(&r).unwrap_or_default());
        return Ok(());
    }
    let pct = |x: f64| format!("{:6.2}%", 100.0 * x);
    println!(
        "preset {preset}: A: {} distinct names of {} (seed {}), shared base {} grams ({}…), C's dictionary {} names",
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
    let (u, k) = (&r.unkeyed.reconstruction, &r.keyed.reconstruction);
    if r.decodable {
        println!("reconstruction, unique (no dictionary) {}  {}", pct(u.unique), pct(k.unique));
        println!("reconstruction, counting guesses    {}  {}", pct(u.guessing), pct(k.guessing));
        println!("  (decoder gave up: {} unkeyed, {} keyed)", pct(u.too_many), pct(k.too_many));
    } else {
        println!("reconstruction: the base has no complete padded 2-gram class: nothing to decode (0%)");
    }
    if let Some(x) = &r.axes {
        println!(
            "axis recovery on {} keyed vectors: {} of {} searches ended on a gram axis (|corr| > 0.9999): \
             {} of {} active gram axes ({})",
            x.vectors,
            x.recovered,
            x.searches,
            x.recovered,
            x.active,
            pct(x.share()).trim()
        );
    }
    println!("chance (uniform guess): {:.6}%", 100.0 * r.chance);
    Ok(())
}
