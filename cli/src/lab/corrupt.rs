//! `gramlink lab corrupt`: writes the docs/SCENARIO.md pair of files — party A's normalized
//! records and party B's corrupted copy in a seeded random order — so that another
//! tool (benches/peers/) can be run on exactly the data gramlink's `lab eval` uses.
//! B's corruption is drawn from the same stream as in `run_scenario` (the first
//! fork of the seeded generator), so `eval --seed S` and `corrupt --seed S` agree.

use crate::io::{self, csv_bytes, Result};
use clap::Args;
use gramlink::alphabet::Alphabet;
use gramlink::dp::Randomness;
use gramlink::eval::scenario::corrupted_copy;
use std::path::PathBuf;

#[derive(Args)]
pub struct CorruptArgs {
    /// The dataset (one record a line).
    #[arg(long)]
    data: PathBuf,
    /// Use only the first N records (after normalization).
    #[arg(long)]
    limit: Option<usize>,
    /// Instead of the records themselves, N distinct records of two of them each
    /// ("SURNAME SURNAME", drawn with the seed): the scale data of the benchmarks.
    #[arg(long, conflicts_with = "limit")]
    two_words: Option<usize>,
    /// Instead: N person records in FEBRL's columns (given names, streets and
    /// places drawn from the FEBRL originals in --febrl, surnames from --data),
    /// and B's duplicate of each with 1–3 realistic errors (typos, OCR, phonetic,
    /// missing values, swapped names, date and digit errors); link them with
    /// data/febrl/schema.toml.
    #[arg(long, conflicts_with_all = ["limit", "two_words", "ed", "alphabet"])]
    people: Option<u64>,
    /// With --people: the folder of FEBRL's split files (dataset{1,2,3}-a.csv)
    /// [default: the folder febrl beside --data: data/febrl for data/names.txt,
    /// wherever the command runs]
    #[arg(long, requires = "people")]
    febrl: Option<PathBuf>,
    /// Also write the truth as CSV `a_id,b_id` (the form `--truth` of `link` and
    /// `match` reads).
    #[arg(long)]
    truth: Option<PathBuf>,
    /// Exact number of random edits per B record.
    #[arg(long, default_value_t = 1)]
    ed: u32,
    /// Seed of the corruption and of B's order (the same stream as `eval --seed`).
    #[arg(long, default_value_t = 42)]
    seed: u64,
    /// The public alphabet: letters, letters+digits, or its symbols. [default: letters]
    #[arg(long)]
    alphabet: Option<String>,
    /// Instead: N parties' files with known clusters under --out-dir (party_a.csv, …,
    /// and truth.csv: party,id,person): each record of the dataset is a person, held by
    /// each party with probability --presence, every copy with --ed edits; ids are the
    /// party's letter and the person's number (c17). With --people M: M persons in
    /// FEBRL's columns, party A holding originals and every other party its own
    /// duplicates (ids rec-17-0, rec-17-2, …).
    #[arg(long, requires = "out_dir", conflicts_with_all = ["two_words", "truth", "out_a", "out_b"])]
    parties: Option<usize>,
    /// With --parties: the probability that a party holds a person.
    #[arg(long, default_value_t = 0.7, requires = "parties")]
    presence: f64,
    /// With --parties: the folder of the parties' files.
    #[arg(long, requires = "parties")]
    out_dir: Option<PathBuf>,
    /// Party A's file: CSV `id,name`, normalized records, ids a1, a2, …
    #[arg(long, required_unless_present = "parties")]
    out_a: Option<PathBuf>,
    /// Party B's file: CSV `id,name`, B's records in a seeded order; the id is the
    /// id of the A record it was made from (the truth, for scoring only). Records
    /// that normalize to the empty string after corruption are left out, as a
    /// party would.
    #[arg(long, required_unless_present = "parties")]
    out_b: Option<PathBuf>,
}

pub fn cmd_corrupt(a: CorruptArgs) -> Result<()> {
    if let Some(n) = a.people {
        return people(&a, n);
    }
    let alphabet = Alphabet::parse(a.alphabet.as_deref().unwrap_or("letters"))?;
    let d = io::load_dataset(&a.data, gramlink::dataset::FormatHint::Text, None, None, &alphabet)?;
    if let (Some(n), Some(dir)) = (a.parties, &a.out_dir) {
        let records = &d.records()[..a.limit.unwrap_or(d.len()).min(d.len())];
        let run = super::corrupt_parties::PartiesRun { parties: n, presence: a.presence, ed: a.ed, seed: a.seed };
        return super::corrupt_parties::write(records, &run, &alphabet, dir);
    }
    let (out_a, out_b) = (a.out_a.clone().unwrap_or_default(), a.out_b.clone().unwrap_or_default());
    let mut rng = Randomness::seeded(a.seed);
    // the same stream as run_scenario's corruption
    let mut rng_corrupt = rng.fork();
    let two_words;
    let records: &[String] = match a.two_words {
        Some(n) => {
            // drawn from a stream of their own, after the corruption's
            two_words =
                gramlink::eval::corrupt::two_word_records(d.records(), n, &mut rng.fork()).ok_or_else(|| {
                    io::CliError::usage(format!("--two-words {n}: {} records make too few distinct pairs", d.len()))
                })?;
            &two_words
        }
        None => &d.records()[..a.limit.unwrap_or(d.len()).min(d.len())],
    };
    let n = records.len();
    if n == 0 {
        return Err(io::CliError::usage("--limit and --two-words must be at least 1"));
    }
    let (b, truth) = corrupted_copy(records, a.ed, &alphabet, &mut rng_corrupt);
    let mut b_id = vec![String::new(); b.len()];
    for (i, t) in truth.iter().enumerate() {
        if let Some(j) = t {
            b_id[*j as usize] = format!("a{}", i + 1);
        }
    }
    let a_rows = records.iter().enumerate().map(|(i, s)| (format!("a{}", i + 1), s.clone()));
    let kept = b.iter().zip(&b_id).filter(|(s, _)| !s.is_empty()).count();
    // B's records keep the id of the A record they were made from: the truth
    let truth = match &a.truth {
        Some(_) => Some(csv_bytes(
            &["a_id", "b_id"],
            b.iter().zip(&b_id).filter(|(s, _)| !s.is_empty()).map(|(_, id)| (id.clone(), id.clone())),
        )?),
        None => None,
    };
    let b_rows = b.into_iter().zip(b_id).filter(|(s, _)| !s.is_empty()).map(|(s, id)| (id, s));
    io::write_atomic(&out_a, &csv_bytes(&["id", "name"], a_rows)?)?;
    io::write_atomic(&out_b, &csv_bytes(&["id", "name"], b_rows)?)?;
    if let (Some(path), Some(bytes)) = (&a.truth, truth) {
        io::write_atomic(path, &bytes)?;
    }
    eprintln!(
        "{n} A records -> {}; {kept} B records ({} empty after corruption, left out), ed {}, seed {} -> {}",
        out_a.display(),
        n - kept,
        a.ed,
        a.seed,
        out_b.display()
    );
    Ok(())
}

/// `--people N`: A's originals in index order, B's duplicates in a seeded
/// order, the truth in A's order ([`gramlink::eval::people`]).
fn people(a: &CorruptArgs, n: u64) -> Result<()> {
    use gramlink::eval::people::{duplicate, person, Lists, Person, COLUMNS};
    if n == 0 || n > 100_000_000 {
        return Err(io::CliError::usage("--people must be between 1 and 100,000,000"));
    }
    let surnames: Vec<String> =
        io::read_text(&a.data)?.lines().map(str::trim).filter(|l| !l.is_empty()).map(String::from).collect();
    let febrl =
        a.febrl.clone().unwrap_or_else(|| a.data.parent().unwrap_or_else(|| std::path::Path::new(".")).join("febrl"));
    let mut files = Vec::new();
    for k in 1..=3 {
        files.push(io::read_bytes(&febrl.join(format!("dataset{k}-a.csv")))?);
    }
    let lists = Lists::from_febrl(&files.iter().map(|f| f.as_slice()).collect::<Vec<_>>(), &surnames)
        .map_err(|e| io::CliError::usage(format!("--people: {e}")))?;
    if let (Some(k), Some(dir)) = (a.parties, &a.out_dir) {
        let run = super::corrupt_parties::PartiesRun { parties: k, presence: a.presence, ed: a.ed, seed: a.seed };
        return super::corrupt_parties::write_people(&lists, n, &run, dir);
    }
    let err = |e: csv::Error| io::CliError::failed(format!("cannot write CSV: {e}"));
    let write = |rows: &mut dyn Iterator<Item = Person>| -> Result<Vec<u8>> {
        let mut w = csv::Writer::from_writer(Vec::new());
        w.write_record(COLUMNS).map_err(err)?;
        for p in rows {
            w.write_record(&p).map_err(err)?;
        }
        w.into_inner().map_err(|e| io::CliError::failed(format!("cannot write CSV: {e}")))
    };
    let (out_a, out_b) = (a.out_a.clone().unwrap_or_default(), a.out_b.clone().unwrap_or_default());
    let order = Randomness::seeded(a.seed).permutation(n as usize);
    io::write_atomic(&out_a, &write(&mut (0..n).map(|i| person(&lists, a.seed, i)))?)?;
    io::write_atomic(&out_b, &write(&mut order.iter().map(|&i| duplicate(&lists, a.seed, i as u64)))?)?;
    if let Some(path) = &a.truth {
        let rows = (0..n).map(|i| (format!("rec-{i}-org"), format!("rec-{i}-dup-0")));
        io::write_atomic(path, &csv_bytes(&["a_id", "b_id"], rows)?)?;
    }
    eprintln!("{n} originals -> {}; {n} duplicates (seed {}) -> {}", out_a.display(), a.seed, out_b.display());
    Ok(())
}
