//! How well clusters recover known ones (the evaluation of a multi-party
//! linkage): pairwise precision, recall and F1 over the pairs that share a
//! cluster; cluster precision and recall over exact clusters of two records or
//! more; and the share of persons found for each set of parties holding them.

use crate::matching::truth::Quality;
use std::collections::{BTreeMap, HashMap};

/// The scores of predicted clusters against the truth.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Score {
    /// Pairs sharing a predicted cluster, a true one, and both.
    pub predicted_pairs: u64,
    pub true_pairs: u64,
    pub correct_pairs: u64,
    /// Clusters of two records or more: predicted, true, and predicted exactly.
    pub predicted_clusters: u64,
    pub true_clusters: u64,
    pub exact_clusters: u64,
    /// For each set of parties (a mask, bit `p` for party index `p`) holding a
    /// person, of two parties or more: (persons found exactly, persons).
    pub by_parties: BTreeMap<u32, (u64, u64)>,
}

impl Score {
    /// Pairwise precision, recall and F1 (`pairs`: those predicted,
    /// `true_pairs`: those predicted correctly).
    pub fn pair_quality(&self) -> Quality {
        Quality::of_counts(self.correct_pairs, self.predicted_pairs, self.true_pairs)
    }

    /// Cluster precision, recall and F1 over exact clusters (`pairs`: the
    /// clusters predicted, `true_pairs`: those predicted exactly).
    pub fn cluster_quality(&self) -> Quality {
        Quality::of_counts(self.exact_clusters, self.predicted_clusters, self.true_clusters)
    }

    /// The found share of persons held by exactly `k` parties, over every set
    /// of `k` parties: (found, persons).
    pub fn by_party_count(&self, k: u32) -> (u64, u64) {
        self.by_parties.iter().filter(|(m, _)| m.count_ones() == k).fold((0, 0), |s, (_, v)| (s.0 + v.0, s.1 + v.1))
    }
}

/// Scores `predicted` (each record's cluster) against `truth` (each record's
/// person), `party[r]` each record's party index (below 32).
pub fn score(party: &[u8], truth: &[u64], predicted: &[u32]) -> Score {
    let pairs = |n: u64| n * n.saturating_sub(1) / 2;
    let mut true_size: HashMap<u64, u64> = HashMap::new();
    let mut pred_size: HashMap<u32, u64> = HashMap::new();
    let mut both: HashMap<(u32, u64), u64> = HashMap::new();
    let mut mask: HashMap<u64, u32> = HashMap::new();
    for ((&p, &t), &c) in party.iter().zip(truth).zip(predicted) {
        *true_size.entry(t).or_default() += 1;
        *pred_size.entry(c).or_default() += 1;
        *both.entry((c, t)).or_default() += 1;
        *mask.entry(t).or_default() |= 1 << p;
    }
    let mut s = Score {
        predicted_pairs: pred_size.values().map(|&n| pairs(n)).sum(),
        true_pairs: true_size.values().map(|&n| pairs(n)).sum(),
        correct_pairs: both.values().map(|&n| pairs(n)).sum(),
        predicted_clusters: pred_size.values().filter(|&&n| n >= 2).count() as u64,
        true_clusters: true_size.values().filter(|&&n| n >= 2).count() as u64,
        ..Score::default()
    };
    let mut found: HashMap<u64, bool> = HashMap::new();
    for (&(c, t), &n) in &both {
        // exact: the whole person, and nobody else, in this cluster
        if n == true_size[&t] && n == pred_size[&c] {
            found.insert(t, true);
        }
    }
    for (&t, &n) in &true_size {
        if n < 2 {
            continue;
        }
        let hit = found.contains_key(&t);
        s.exact_clusters += hit as u64;
        let e = s.by_parties.entry(mask[&t]).or_default();
        e.0 += hit as u64;
        e.1 += 1;
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scores_count_pairs_and_exact_clusters() {
        // persons 1 (parties 0, 1, 2), 2 (parties 0, 1), 3 (party 2 only)
        let party = [0, 1, 2, 0, 1, 2];
        let truth = [1, 1, 1, 2, 2, 3];
        // person 1 split {0,1} {2}, person 2 whole, person 3 joined to it wrongly
        let predicted = [0, 0, 1, 2, 2, 2];
        let s = score(&party, &truth, &predicted);
        assert_eq!((s.true_pairs, s.predicted_pairs, s.correct_pairs), (4, 4, 2));
        assert_eq!((s.true_clusters, s.predicted_clusters, s.exact_clusters), (2, 2, 0));
        assert_eq!((s.pair_quality().precision, s.pair_quality().recall, s.pair_quality().f1), (0.5, 0.5, 0.5));
        assert_eq!(s.cluster_quality().f1, 0.0);
        let exact = score(&party, &truth, &[0, 0, 0, 1, 1, 2]);
        assert_eq!((exact.pair_quality().f1, exact.cluster_quality().f1), (1.0, 1.0));
        assert_eq!(exact.by_parties, BTreeMap::from([(0b111, (1, 1)), (0b011, (1, 1))]));
        assert_eq!((exact.by_party_count(3), s.by_party_count(2)), ((1, 1), (0, 1)));
    }
}
