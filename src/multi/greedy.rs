//! Clusters from scored candidate pairs, at most one record per party: the
//! probabilistic greedy solver of anonlink (`anonlink/solving/
//! _multiparty_solving_python.py`, `probabilistic_greedy_solve_python`, with
//! `deduplicated`), rewritten over a party mask.
//!
//! Every record starts as a cluster of its own. Pairs are read from the most
//! similar; two clusters merge when their parties are disjoint and at least
//! `merge_threshold` of the record pairs between them were candidates (this
//! one included). A refused pair is remembered, so a later pair between the
//! same clusters may tip the share. `merge_threshold` 1 merges only clusters
//! linked by every pair (anonlink's `greedy_solve` with deduplication);
//! anonlink's default is 0.5.

use std::collections::HashMap;

/// A candidate pair of records by global index (see `Records`);
/// `score` is a distance: lower is more similar.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Edge {
    pub x: u32,
    pub y: u32,
    pub score: f64,
}

/// The cluster of every record (numbered from 0 in the order of their first
/// record), given each record's party (`party[r]`, below 32) and the candidate
/// pairs. Deterministic: ties of score are broken by the records' indexes.
pub fn solve(party: &[u8], edges: &mut [Edge], merge_threshold: f64) -> Vec<u32> {
    crate::sorting::sort_by(edges, |p, q| {
        p.score.total_cmp(&q.score).then((p.x.min(p.y), p.x.max(p.y)).cmp(&(q.x.min(q.y), q.x.max(q.y))))
    });
    let n = party.len();
    let mut group: Vec<u32> = (0..n as u32).collect();
    // a cluster's members, kept by its representative (empty: the record alone)
    let mut members: Vec<Vec<u32>> = vec![Vec::new(); n];
    let mut mask: Vec<u32> = party.iter().map(|&p| 1u32 << p).collect();
    // refused candidate pairs between two clusters, by representative, both ways
    let mut seen: HashMap<u32, HashMap<u32, u32>> = HashMap::new();
    let size = |members: &[Vec<u32>], g: u32| members[g as usize].len().max(1);
    for e in edges.iter() {
        let (g0, g1) = (group[e.x as usize], group[e.y as usize]);
        if g0 == g1 {
            continue;
        }
        let overlap = seen.get(&g0).and_then(|m| m.get(&g1)).copied().unwrap_or(0) + 1;
        let total = size(&members, g0) * size(&members, g1);
        let disjoint = mask[g0 as usize] & mask[g1 as usize] == 0;
        if !disjoint || (overlap as f64) < merge_threshold * total as f64 {
            *seen.entry(g0).or_default().entry(g1).or_default() += 1;
            *seen.entry(g1).or_default().entry(g0).or_default() += 1;
            continue;
        }
        // the larger cluster absorbs the smaller
        let (keep, gone) = if size(&members, g0) >= size(&members, g1) { (g0, g1) } else { (g1, g0) };
        let mut moved = std::mem::take(&mut members[gone as usize]);
        if moved.is_empty() {
            moved.push(gone);
        }
        for &r in &moved {
            group[r as usize] = keep;
        }
        let kept = &mut members[keep as usize];
        if kept.is_empty() {
            kept.push(keep);
        }
        kept.extend(moved);
        mask[keep as usize] |= mask[gone as usize];
        // the absorbed cluster's refused pairs become the survivor's
        if let Some(m) = seen.remove(&gone) {
            for (other, count) in m {
                if let Some(back) = seen.get_mut(&other) {
                    back.remove(&gone);
                }
                if other == keep {
                    continue;
                }
                *seen.entry(keep).or_default().entry(other).or_default() += count;
                *seen.entry(other).or_default().entry(keep).or_default() += count;
            }
        }
        if let Some(m) = seen.get_mut(&keep) {
            m.remove(&gone);
        }
    }
    let mut id = vec![u32::MAX; n];
    let mut next = 0;
    group
        .iter()
        .map(|&g| {
            if id[g as usize] == u32::MAX {
                id[g as usize] = next;
                next += 1;
            }
            id[g as usize]
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn e(x: u32, y: u32, score: f64) -> Edge {
        Edge { x, y, score }
    }

    #[test]
    fn a_cluster_never_holds_two_records_of_one_party() {
        // records 0, 1 of party 0; 2 of party 1: 0–2 is the best pair, 1–2 is refused
        let c = solve(&[0, 0, 1], &mut [e(1, 2, 0.2), e(0, 2, 0.1)], 0.5);
        assert_eq!(c, vec![0, 1, 0]);
    }

    #[test]
    fn clusters_merge_when_enough_pairs_agree() {
        // parties 0, 1, 2, 3: {0,1} and {2,3} form first; 1–2 is one of four pairs
        let mut edges = [e(0, 1, 0.1), e(2, 3, 0.1), e(1, 2, 0.3), e(0, 3, 0.4)];
        assert_eq!(solve(&[0, 1, 2, 3], &mut edges.clone(), 1.0), vec![0, 0, 1, 1]);
        // at 0.5, the second pair between them (2 of 4) merges them
        assert_eq!(solve(&[0, 1, 2, 3], &mut edges, 0.5), vec![0, 0, 0, 0]);
        // a cluster of three takes a fourth record on one pair only below 1/3
        let mut chain = [e(0, 1, 0.1), e(1, 2, 0.2), e(2, 3, 0.3)];
        assert_eq!(solve(&[0, 1, 2, 3], &mut chain.clone(), 0.5), vec![0, 0, 0, 1]);
        assert_eq!(solve(&[0, 1, 2, 3], &mut chain, 0.3), vec![0, 0, 0, 0]);
    }

    #[test]
    fn the_order_of_the_pairs_given_does_not_matter() {
        let party = [0, 1, 2, 0, 1, 2];
        let edges = vec![e(0, 1, 0.1), e(3, 4, 0.1), e(1, 2, 0.2), e(4, 5, 0.2), e(0, 5, 0.15), e(2, 3, 0.3)];
        let want = solve(&party, &mut edges.clone(), 0.5);
        let mut reversed: Vec<Edge> = edges.iter().rev().map(|p| e(p.y, p.x, p.score)).collect();
        assert_eq!(solve(&party, &mut reversed, 0.5), want);
    }
}
