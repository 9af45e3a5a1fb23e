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
    let way = |x: usize, candidates| edges::Way {
        head: &batches[x],
        rows: batches[x].ids.len(),
        offset: offsets[x],
        candidates,
    };
    // shards of 3 rows of one batch, the last first, each against the whole other batch
    let shards = |a: &VectorBatch| -> Vec<(usize, VectorBatch)> {
        (0..a.ids.len()).step_by(3).rev().map(|s| (s, a.rows(s..s + 3))).collect()
    };
    // as the Spark job splits it: both ways from the shards of i's rows
    let (mut edges, mut compared) = (Vec::new(), 0);
    // the former split: each way from its own rows' shards
    let (mut old_edges, mut old_compared) = (Vec::new(), 0);
    for i in 0..3 {
        for j in i + 1..3 {
            let (mut forth, mut back) = (Vec::new(), Vec::new());
            for (start, shard) in shards(&batches[i]) {
                let (f, b, n) = edges::both_ways(&shard, &batches[j], start as u32).unwrap();
                forth.extend(f);
                back.extend(b);
                compared += n;
            }
            edges.extend(edges::pair_edges(way(i, forth), way(j, back)));
            let mut one_way = |x: usize, y: usize| {
                let mut candidates = Vec::new();
                for (start, shard) in shards(&batches[x]) {
                    let (c, n) = edges::one_way(&shard, &batches[y], start as u32).unwrap();
                    candidates.extend(c);
                    old_compared += n;
                }
                way(x, candidates)
            };
            let (wi, wj) = (one_way(i, j), one_way(j, i));
            old_edges.extend(edges::pair_edges(wi, wj));
        }
    }
    assert_eq!(cluster(&parties.parties(), edges, compared, MERGE_THRESHOLD), whole);
    let old = cluster(&parties.parties(), old_edges, old_compared, MERGE_THRESHOLD);
    assert_eq!((&old.cluster, old.candidates, old.count), (&whole.cluster, whole.candidates, whole.count));
    // one pass verifies each pair of parties' candidates once for both ways
    assert!(whole.compared < old_compared, "{} against {old_compared}", whole.compared);
    assert!(whole.count < 22);
}

fn way(v: &VectorBatch, offset: u32, candidates: Vec<crate::matching::Scored>) -> edges::Way<'_> {
    edges::Way { head: v, rows: v.ids.len(), offset, candidates }
}

/// Words of one or two letters over five: many rows have more candidates than
/// [`crate::matching::PER_ROW`], so the way back's best per row is cut from
/// the union of the shards' (each shard keeps its own best) and must be the
/// whole batch's.
#[test]
fn the_way_back_keeps_each_row_s_best_of_every_shard() {
    let config = Config::default();
    let mut rng = Randomness::seeded(5);
    let mut words = |n: usize| -> Vec<String> {
        (0..n)
            .map(|_| (0..1 + rng.next_u32() % 2).map(|_| char::from(b'A' + (rng.next_u32() % 5) as u8)).collect())
            .collect()
    };
    let (ta, tb) = (words(300), words(150));
    let (ta, tb): (Vec<&str>, Vec<&str>) =
        (ta.iter().map(|s| s.as_str()).collect(), tb.iter().map(|s| s.as_str()).collect());
    let (mut a, mut b) = (owner("a", &ta), owner("b", &tb));
    let none = &mut crate::progress::NoProgress;
    let shared =
        merge_bases(&a.mine(&config.mine, none).unwrap(), &b.mine(&config.mine, none).unwrap(), &config.mine).unwrap();
    let embed = |o: &DataOwner, p: Party, ed: crate::config::Ed| {
        let mut options = EmbedOptions::new(p, &config).local();
        options.thresholds = Some(crate::config::ThresholdOptions { ed, ..config.thresholds.clone() });
        o.embed(&shared, &options, &mut crate::progress::NoProgress).unwrap().batch
    };
    use crate::config::Ed::{Auto, Fixed};
    // one pass for both ways (with ed auto's cut-off, and without), and a pass each way
    for (ed_a, ed) in [(Auto, Auto), (Fixed(2), Fixed(2)), (Fixed(2), Fixed(1))] {
        let (va, vb) = (embed(&a, Party::A, ed_a), embed(&b, Party::B, ed));
        let (forth, back, compared) = edges::both_ways(&va, &vb, 0).unwrap();
        let per_row = |v: &[crate::matching::Scored], r: u32| v.iter().filter(|s| s.pair.a == r).count();
        assert!((0..150).any(|r| per_row(&back, r) == crate::matching::PER_ROW), "{ed:?}: no row was cut");
        let kept_back = back.len();
        let mut whole = edges::pair_edges(way(&va, 0, forth), way(&vb, 300, back));
        let (mut f, mut k, mut n) = (Vec::new(), Vec::new(), 0);
        for start in (0..300).step_by(7) {
            let (x, y, c) = edges::both_ways(&va.rows(start..(start + 7).min(300)), &vb, start as u32).unwrap();
            f.extend(x);
            k.extend(y);
            n += c;
        }
        assert!(k.len() > kept_back, "{ed:?}: the shards' union holds more than a row keeps");
        let mut sharded = edges::pair_edges(way(&va, 0, f), way(&vb, 300, k));
        let order = |e: &mut Vec<greedy::Edge>| e.sort_by(|x, y| (x.x, x.y).cmp(&(y.x, y.y)));
        order(&mut whole);
        order(&mut sharded);
        assert_eq!(sharded, whole, "{ed:?}");
        if ed_a == ed {
            assert_eq!(n, compared, "one pass: each A row's candidates, however sharded");
        }
    }
}
