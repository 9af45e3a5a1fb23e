//! The multi-party linker on small batches: clusters across three parties,
//! and every refusal named.

use super::*;
use crate::alphabet::Alphabet;
use crate::config::Config;
use crate::dataset::RawRecord;
use crate::dp::{Epsilon, Randomness};
use crate::party::{merge_bases, DataOwner, EmbedOptions};

const PEOPLE: [&str; 8] = ["SMITH", "JOHNSON", "WILLIAMS", "BROWN", "JONES", "GARCIA", "MILLER", "DAVIS"];

fn owner(prefix: &str, texts: &[&str]) -> DataOwner {
    let raw = texts.iter().enumerate().map(|(i, t)| RawRecord { id: format!("{prefix}{i}"), text: t.to_string() });
    DataOwner::from_raw(raw.collect(), &Alphabet::default(), Epsilon::ONE, Randomness::seeded(prefix.len() as u64))
        .unwrap()
}

/// Party A's clean names, B's and C's copies with one typo each (C lacks two
/// people), over a base mined from A's and B's.
fn batches() -> Vec<VectorBatch> {
    let config = Config::default();
    let none = &mut crate::progress::NoProgress;
    let mut a = owner("a", &PEOPLE);
    let mut b = owner("b", &["SMITH", "JOHNSEN", "WILLIAMS", "BROWNE", "JONES", "GARCIA", "MILER", "DAVIS"]);
    let c = owner("c", &["SMYTH", "JOHNSON", "WILLIAMS", "JONES", "GARSIA", "DAVIS"]);
    let (na, nb) = (a.mine(&config.mine, none).unwrap(), b.mine(&config.mine, none).unwrap());
    let shared = merge_bases(&na, &nb, &config.mine).unwrap();
    let embed = |o: &DataOwner, p: Party| {
        let mut options = EmbedOptions::new(p, &config).local();
        options.thresholds = Some(config.thresholds.clone());
        o.embed(&shared, &options, &mut crate::progress::NoProgress).unwrap().batch
    };
    vec![embed(&a, Party::A), embed(&b, Party::B), embed(&c, Party::nth(2).unwrap())]
}

fn names(n: usize) -> Vec<String> {
    (0..n).map(|i| format!("batch{i}")).collect()
}

#[test]
fn three_parties_cluster_each_person_once() {
    let batches = batches();
    let parties = Parties::new(&batches, &names(3)).unwrap();
    let clusters = link(&parties, MERGE_THRESHOLD).unwrap();
    // the person of each record: the index into PEOPLE (C lacks BROWN and MILLER)
    let person: Vec<u64> =
        [vec![0, 1, 2, 3, 4, 5, 6, 7], vec![0, 1, 2, 3, 4, 5, 6, 7], vec![0, 1, 2, 4, 5, 7]].concat();
    let s = score::score(&parties.parties(), &person, &clusters.cluster);
    assert_eq!((s.pair_quality().precision, s.cluster_quality().precision), (1.0, 1.0), "{s:?}");
    assert!(s.pair_quality().recall >= 0.8, "{s:?}");
    // at most one record of each party in a cluster
    let party = parties.parties();
    for (x, y) in clusters.pairs() {
        assert_ne!(party[x as usize], party[y as usize]);
    }
    assert_eq!(parties.member(8), Member { batch: 1, row: 0 });
    // the spans count every cluster once, and every record
    let spans = clusters.spans(3);
    assert_eq!(spans.iter().sum::<u64>(), clusters.count as u64);
    assert_eq!(spans.iter().enumerate().map(|(k, n)| k as u64 * n).sum::<u64>(), 22);
    assert!(spans[3] >= 4, "{spans:?}");
    // one row per record, in the global numbering; a pair per two records sharing a cluster
    let rows = export::clusters_csv(&export::roster(&parties), &clusters).unwrap();
    let rows: Vec<&str> = rows.lines().collect();
    assert_eq!(rows[0], "party,id,cluster");
    assert_eq!(rows.len(), 1 + 22);
    assert_eq!(rows[9], format!("B,{},{}", batches[1].ids[0], clusters.cluster[8]));
    let pairs = export::pairs_csv(&export::roster(&parties), &clusters).unwrap();
    assert_eq!(pairs.lines().next(), Some("party_a,id_a,party_b,id_b"));
    assert_eq!(pairs.lines().count(), 1 + clusters.pairs().len());
}

#[test]
fn bad_linkages_are_refused_by_name() {
    let batches = batches();
    let code = |b: &[VectorBatch]| Parties::new(b, &names(b.len())).err().unwrap().code();
    assert_eq!(code(&batches[..1]), "INVALID_PARAMETER");
    let twice = vec![batches[0].clone(), batches[1].clone(), batches[0].clone()];
    assert_eq!(code(&twice), "BATCH_TWICE");
    let mut relabelled = batches[0].clone();
    relabelled.party = Party::nth(3).unwrap();
    assert_eq!(code(&[batches[0].clone(), relabelled]), "BATCH_TWICE");
    let mut other = batches[2].clone();
    other.party = Party::B;
    assert_eq!(code(&[batches[0].clone(), batches[1].clone(), other]), "PARTY_TWICE");
    let mut clash = batches[2].clone();
    clash.ids[0] = batches[1].ids[3].clone();
    let e = Parties::new(&[batches[0].clone(), batches[1].clone(), clash], &names(3)).err().unwrap();
    assert_eq!(e.code(), "ID_CLASH");
    assert!(e.to_string().contains("party B's batch (batch1)"), "{e}");
    let mut empty = batches[2].clone();
    empty.ids.clear();
    assert_eq!(code(&[batches[0].clone(), empty]), "NO_RECORDS");
    let mut silent = batches[1].clone();
    silent.thresholds = None;
    assert!(Parties::new(&[batches[0].clone(), silent], &names(2))
        .err()
        .unwrap()
        .to_string()
        .contains("no thresholds"));
    let mut moved = batches[2].clone();
    moved.fingerprint = "another base".into();
    assert_eq!(code(&[batches[0].clone(), moved]), "FINGERPRINT_MISMATCH");
    let parties = Parties::new(&batches, &names(3)).unwrap();
    assert_eq!(link(&parties, 0.0).err().unwrap().code(), "INVALID_PARAMETER");
}

#[test]
fn shards_of_rows_in_any_order_give_link_s_clusters() {
    let batches = batches();
    let parties = Parties::new(&batches, &names(3)).unwrap();
    let whole = link(&parties, MERGE_THRESHOLD).unwrap();
    // the default embedding: ed auto, so each way's cut-off is fitted on its shards' union
    assert!(batches.iter().all(|b| b.thresholds.as_ref().unwrap().auto));
    let offsets = [0u32, 8, 16];
    let mut edges = Vec::new();
    let mut compared = 0;
    for i in 0..3 {
        for j in i + 1..3 {
            let way = |x: usize, y: usize, compared: &mut u64| {
                let (a, b) = (&batches[x], &batches[y]);
                let mut candidates = Vec::new();
                // shards of 3 rows, the last first: each against the whole other batch
                for start in (0..a.ids.len()).step_by(3).rev() {
                    let (c, n) = edges::one_way(&a.rows(start..start + 3), b, start as u32).unwrap();
                    candidates.extend(c);
                    *compared += n;
                }
                edges::Way { head: a, rows: a.ids.len(), offset: offsets[x], candidates }
            };
            let (wi, wj) = (way(i, j, &mut compared), way(j, i, &mut compared));
            edges.extend(edges::pair_edges(wi, wj));
        }
    }
    assert_eq!(cluster(&parties.parties(), edges, compared, MERGE_THRESHOLD), whole);
    assert!(whole.count < 22);
}
