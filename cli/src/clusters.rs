//! `gramlink match a.vec b.vec c.vec …`: the matcher of more than two parties
//! (or of two with `--clusters`). The core links and clusters
//! ([`gramlink::multi`]) and writes the files ([`gramlink::multi::export`],
//! shared with the JS API); this reads the batches, writes one row per record
//! (`party,id,cluster`) and, asked, the pairs sharing a cluster, and scores
//! them against a truth file.

use crate::io::{self, CliError, InFile, Result};
use clap::Args;
use gramlink::clock::{Clock, SystemClock};
use gramlink::multi::{self, export, score, Clusters, Parties, MERGE_THRESHOLD};
use gramlink::protocol::{Party, VectorBatch};
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// `match`'s flags for clusters.
#[derive(Args, Clone)]
pub struct ClusterFlags {
    /// With two batches: write clusters (party,id,cluster) instead of pairs; three or more
    /// always do. With clusters, --truth is a CSV with columns id and person
    /// (`lab corrupt --parties` writes one).
    #[arg(long)]
    pub clusters: bool,
    /// Also write the pairs that share a cluster, as CSV party_a,id_a,party_b,id_b.
    #[arg(long, value_name = "FILE")]
    pub cluster_pairs: Option<PathBuf>,
    /// The share of candidate pairs between two clusters that merges them (anonlink's
    /// probabilistic greedy solver; 1 merges only clusters linked by every pair).
    #[arg(long, default_value_t = MERGE_THRESHOLD)]
    pub merge_threshold: f64,
}

/// What `match` clusters: the batches, where to write, the truth if any.
pub struct ClusterRun<'a> {
    pub files: &'a [PathBuf],
    pub flags: &'a ClusterFlags,
    pub truth: Option<&'a Path>,
    pub out: &'a Path,
    /// The batches whose signatures were checked, by place, with the party of
    /// the key ([`crate::signing::VerifyFlags::check`]).
    pub signed: &'a [(usize, gramlink::protocol::Party)],
}

pub fn run(r: ClusterRun<'_>) -> Result<()> {
    let clock = SystemClock::default();
    let start = clock.now_ms();
    let truth = load_truth(r.truth)?;
    let mut batches = Vec::with_capacity(r.files.len());
    for f in r.files {
        let batch = VectorBatch::read(&io::read_bytes(f)?).map_err(gramlink::Error::from).in_file(f)?;
        if !batch.private {
            eprintln!(
                "warning: {} is marked NOT private (made from a seeded run: tests and experiments only)",
                f.display()
            );
        }
        batches.push(batch);
    }
    for &(i, party) in r.signed {
        crate::signing::signed_party(&r.files[i], party, batches[i].party)?;
    }
    let names: Vec<String> = r.files.iter().map(|f| f.display().to_string()).collect();
    let parties = Parties::new(&batches, &names)?;
    let read = clock.now_ms();
    let clusters = multi::link(&parties, r.flags.merge_threshold)?;
    let linked = clock.now_ms();
    write(&r, &export::roster(&parties), &clusters, (read - start, linked - read), truth)
}

/// Writes the clusters of the records of `roster` (each batch's party and
/// ids, in the clusters' order), and the pairs if asked; prints the counts,
/// the times (reading, linking) and, with a truth, the scores.
pub fn write(
    r: &ClusterRun<'_>,
    roster: &[(Party, &[String])],
    clusters: &Clusters,
    (read_ms, link_ms): (f64, f64),
    truth: Option<(&Path, HashMap<String, String>)>,
) -> Result<()> {
    io::write_atomic(r.out, export::clusters_csv(roster, clusters)?.as_bytes())?;
    if let Some(path) = &r.flags.cluster_pairs {
        io::write_atomic(path, export::pairs_csv(roster, clusters)?.as_bytes())?;
    }
    eprintln!(
        "{} parties, {} records -> {} clusters ({} of two records or more); {} distances \
         computed, {} candidate pairs; read {read_ms:.0} ms, linked {link_ms:.0} ms -> {}",
        roster.len(),
        clusters.cluster.len(),
        clusters.count,
        clusters.spans(roster.len())[2..].iter().sum::<u64>(),
        clusters.compared,
        clusters.candidates,
        r.out.display()
    );
    for w in &clusters.warnings {
        eprintln!("warning: fit: {w}");
    }
    if let Some((path, truth)) = truth {
        report(&export::rows(roster), clusters, path, &truth)?;
    }
    Ok(())
}

/// The truth file, read before any work (a bad truth file fails fast).
pub fn load_truth(truth: Option<&Path>) -> Result<Option<(&Path, HashMap<String, String>)>> {
    truth.map(|p| read_truth(p).map(|t| (p, t))).transpose()
}

/// A truth file: CSV with columns `id` and `person` (any others ignored).
fn read_truth(path: &Path) -> Result<HashMap<String, String>> {
    let what = path.display().to_string();
    match gramlink::matching::truth::read_any_truth(&io::read_bytes(path)?, &what)? {
        gramlink::matching::truth::Truth::Persons(p) => Ok(p),
        gramlink::matching::truth::Truth::Pairs(_) => {
            Err(CliError::usage(format!("{what}: a clusters truth file has the columns id and person")))
        }
    }
}

/// Prints the clusters' scores ([`score::score`]); a record missing from the
/// truth is an error (the truth names every record).
fn report(rows: &[(Party, &str)], c: &Clusters, path: &Path, truth: &HashMap<String, String>) -> Result<()> {
    let mut persons: HashMap<&str, u64> = HashMap::new();
    let mut person = Vec::with_capacity(c.cluster.len());
    for &(party, id) in rows {
        let Some(t) = truth.get(id) else {
            return Err(CliError::usage(format!(
                "{}: party {party}'s id {id:?} is not in the truth (embed with --keep-ids to score)",
                path.display()
            )));
        };
        let next = persons.len() as u64;
        person.push(*persons.entry(t.as_str()).or_insert(next));
    }
    let parties: Vec<u8> = rows.iter().map(|(p, _)| p.index() as u8).collect();
    let s = score::score(&parties, &person, &c.cluster);
    let (p, k) = (s.pair_quality(), s.cluster_quality());
    println!(
        "pairs: precision {:.4} recall {:.4} F1 {:.4} ({} true, {} found, {} correct)",
        p.precision, p.recall, p.f1, s.true_pairs, s.predicted_pairs, s.correct_pairs
    );
    println!(
        "clusters: precision {:.4} recall {:.4} F1 {:.4} ({} true, {} found, {} exact)",
        k.precision, k.recall, k.f1, s.true_clusters, s.predicted_clusters, s.exact_clusters
    );
    let most = s.by_parties.keys().map(|m| m.count_ones()).max().unwrap_or(0);
    for k in 2..=most {
        let (found, all) = s.by_party_count(k);
        println!("persons in {k} parties: {found} of {all} found exactly");
    }
    Ok(())
}
