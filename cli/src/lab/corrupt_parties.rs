//! `gramlink lab corrupt --parties N`: N parties' files with known clusters
//! ([`gramlink::eval::parties`]) for `match a.vec b.vec c.vec …` and for
//! benches/peers/multi.py, which runs anonlink's multi-party solver on the
//! same files.

use crate::io::{self, csv_bytes, CliError, Result};
use gramlink::alphabet::Alphabet;
use gramlink::dp::Randomness;
use gramlink::protocol::Party;
use std::path::Path;

/// What `corrupt --parties` was asked.
pub struct PartiesRun {
    pub parties: usize,
    pub presence: f64,
    pub ed: u32,
    pub seed: u64,
}

/// Writes `party_a.csv`, … (`id,name`) and `truth.csv` (`party,id,person`)
/// under `dir`.
pub fn write(records: &[String], r: &PartiesRun, alphabet: &Alphabet, dir: &Path) -> Result<()> {
    if !(2..=Party::MAX).contains(&r.parties) {
        return Err(CliError::usage(format!("--parties must be between 2 and {}", Party::MAX)));
    }
    if !(r.presence > 0.0 && r.presence <= 1.0) {
        return Err(CliError::usage("--presence must be in (0, 1]"));
    }
    if records.is_empty() {
        return Err(CliError::usage("--limit must be at least 1"));
    }
    std::fs::create_dir_all(dir).map_err(|e| CliError::io(format!("cannot create {}: {e}", dir.display())))?;
    let per_mille = (r.presence * 1000.0).round() as u32;
    let copies = gramlink::eval::parties::multi_party(
        records,
        r.parties,
        per_mille,
        r.ed,
        alphabet,
        &mut Randomness::seeded(r.seed),
    );
    let mut truth = csv::Writer::from_writer(Vec::new());
    let err = |e: csv::Error| CliError::failed(format!("cannot write CSV: {e}"));
    truth.write_record(["party", "id", "person"]).map_err(err)?;
    let mut sizes = Vec::new();
    for (k, party) in copies.iter().enumerate() {
        let name = Party::nth(k).map_or("?", Party::name);
        let id = |person: u64| format!("{}{}", name.to_ascii_lowercase(), person + 1);
        for (person, _) in party {
            truth.write_record([name, &id(*person), &(person + 1).to_string()]).map_err(err)?;
        }
        let rows = party.iter().map(|(person, text)| (id(*person), text.clone()));
        let path = dir.join(format!("party_{}.csv", name.to_ascii_lowercase()));
        io::write_atomic(&path, &csv_bytes(&["id", "name"], rows)?)?;
        sizes.push(party.len().to_string());
    }
    let truth = truth.into_inner().map_err(|e| CliError::failed(format!("cannot write CSV: {e}")))?;
    io::write_atomic(&dir.join("truth.csv"), &truth)?;
    eprintln!(
        "{} persons, {} parties holding {} records (presence {}, ed {}, seed {}) -> {}",
        records.len(),
        r.parties,
        sizes.join(" + "),
        r.presence,
        r.ed,
        r.seed,
        dir.display()
    );
    Ok(())
}
