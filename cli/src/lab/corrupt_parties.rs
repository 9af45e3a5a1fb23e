//! `gramlink lab corrupt --parties N`: N parties' files with known clusters
//! ([`gramlink::eval::parties`]) for `match a.vec b.vec c.vec …` and for
//! benches/peers/multi.py, which runs anonlink's multi-party solver on the
//! same files.

use crate::io::{self, csv_bytes, CliError, Result};
use gramlink::alphabet::Alphabet;
use gramlink::dp::Randomness;
use gramlink::eval::people;
use gramlink::protocol::Party;
use std::path::Path;

/// What `corrupt --parties` was asked.
pub struct PartiesRun {
    pub parties: usize,
    pub presence: f64,
    pub ed: u32,
    pub seed: u64,
}

impl PartiesRun {
    /// The presence in per mille, once the run is checked; `dir` created.
    fn check(&self, dir: &Path) -> Result<u32> {
        if !(2..=Party::MAX).contains(&self.parties) {
            return Err(CliError::usage(format!("--parties must be between 2 and {}", Party::MAX)));
        }
        if !(self.presence > 0.0 && self.presence <= 1.0) {
            return Err(CliError::usage("--presence must be in (0, 1]"));
        }
        std::fs::create_dir_all(dir).map_err(|e| CliError::io(format!("cannot create {}: {e}", dir.display())))?;
        Ok((self.presence * 1000.0).round().max(1.0) as u32)
    }
}

/// Writes `party_a.csv`, … (`id,name`) and `truth.csv` (`party,id,person`)
/// under `dir`.
pub fn write(records: &[String], r: &PartiesRun, alphabet: &Alphabet, dir: &Path) -> Result<()> {
    if records.is_empty() {
        return Err(CliError::usage("--limit must be at least 1"));
    }
    let per_mille = r.check(dir)?;
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

/// `--people N --parties K`: `party_a.csv`, … in FEBRL's columns (party A the
/// originals, each other party its own duplicates: [`people::party_copy`]),
/// each in a seeded order, and `truth.csv` (`party,id,person`) under `dir`.
/// Rows are made one at a time from `(seed, person)`, so no party's file is
/// held as records.
pub fn write_people(lists: &people::Lists, n: u64, r: &PartiesRun, dir: &Path) -> Result<()> {
    let per_mille = r.check(dir)?;
    let err = |e: csv::Error| CliError::failed(format!("cannot write CSV: {e}"));
    let mut truth = csv::Writer::from_writer(Vec::new());
    truth.write_record(["party", "id", "person"]).map_err(err)?;
    let holders: Vec<u64> = (0..n).map(|i| people::holders(r.seed, i, r.parties as u32, per_mille)).collect();
    let mut sizes = Vec::new();
    for k in 0..r.parties {
        let name = Party::nth(k).map_or("?", Party::name);
        let held: Vec<u64> = (0..n).filter(|&i| holders[i as usize] >> k & 1 == 1).collect();
        // each party's own order, from a stream of its own
        let order =
            Randomness::seeded(r.seed ^ (k as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15)).permutation(held.len());
        let mut w = csv::Writer::from_writer(Vec::new());
        w.write_record(people::COLUMNS).map_err(err)?;
        for j in order {
            let p = people::party_copy(lists, r.seed, held[j], k as u64);
            truth.write_record([name, &p[0], &(held[j] + 1).to_string()]).map_err(err)?;
            w.write_record(&p).map_err(err)?;
        }
        let bytes = w.into_inner().map_err(|e| CliError::failed(format!("cannot write CSV: {e}")))?;
        io::write_atomic(&dir.join(format!("party_{}.csv", name.to_ascii_lowercase())), &bytes)?;
        sizes.push(held.len().to_string());
    }
    let truth = truth.into_inner().map_err(|e| CliError::failed(format!("cannot write CSV: {e}")))?;
    io::write_atomic(&dir.join("truth.csv"), &truth)?;
    eprintln!(
        "{n} persons, {} parties holding {} records in FEBRL's columns (presence {}, seed {}) -> {}",
        r.parties,
        sizes.join(" + "),
        r.presence,
        r.seed,
        dir.display()
    );
    Ok(())
}
