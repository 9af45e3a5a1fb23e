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
///
/// **Solved per connected component of the candidate graph, in parallel.** A
/// merge only ever follows an edge, so two components never touch: each is
/// solved alone over its own records, numbered in the same order as
/// globally, so its edges sort in the same relative order and every merge and
/// refusal is the one the whole graph would make (a test compares the two on
/// random graphs). At scale this is what lets the solver be split across
/// workers (docs/PERFORMANCE.md, the plan for 26 parties).
pub fn solve(party: &[u8], edges: &mut [Edge], merge_threshold: f64) -> Vec<u32> {
    let n = party.len();
    let comps = components(n, edges);
    // each component's records (ascending) and edges in local numbering
    let mut local = vec![0u32; n];
    let mut records: Vec<Vec<u32>> = vec![Vec::new(); comps.count];
    for r in 0..n {
        if let Some(c) = comps.of[r] {
            local[r] = records[c as usize].len() as u32;
            records[c as usize].push(r as u32);
        }
    }
    let mut local_edges: Vec<Vec<Edge>> = vec![Vec::new(); comps.count];
    for e in edges.iter() {
        let c = comps.of[e.x as usize].expect("an edge's record is in a component") as usize;
        local_edges[c].push(Edge { x: local[e.x as usize], y: local[e.y as usize], score: e.score });
    }
    let work: Vec<(Vec<u32>, Vec<Edge>)> = records.into_iter().zip(local_edges).collect();
    let solved: Vec<Vec<u32>> = crate::par::map(&work, |(rs, es)| {
        let parties: Vec<u8> = rs.iter().map(|&r| party[r as usize]).collect();
        solve_connected(&parties, &mut es.clone(), merge_threshold)
    });
    // global numbering: in the order of each cluster's first record
    let mut offset = vec![0usize; comps.count + 1];
    for (c, s) in solved.iter().enumerate() {
        offset[c + 1] = offset[c] + s.len();
    }
    let mut id = vec![u32::MAX; offset[comps.count]];
    let mut next = 0u32;
    (0..n)
        .map(|r| match comps.of[r] {
            None => {
                next += 1;
                next - 1
            }
            Some(c) => {
                let slot = &mut id[offset[c as usize] + solved[c as usize][local[r] as usize] as usize];
                if *slot == u32::MAX {
                    *slot = next;
                    next += 1;
                }
                *slot
            }
        })
        .collect()
}

/// The connected components of the candidate graph over `n` records: each
/// record's component (`None`: no edge), numbered in order of first record.
struct Components {
    of: Vec<Option<u32>>,
    count: usize,
}

fn components(n: usize, edges: &[Edge]) -> Components {
    let mut parent: Vec<u32> = (0..n as u32).collect();
    fn root(parent: &mut [u32], mut x: u32) -> u32 {
        while parent[x as usize] != x {
            let up = parent[parent[x as usize] as usize];
            parent[x as usize] = up;
            x = up;
        }
        x
    }
    let mut linked = vec![false; n];
    for e in edges {
        let (a, b) = (root(&mut parent, e.x), root(&mut parent, e.y));
        linked[e.x as usize] = true;
        linked[e.y as usize] = true;
        if a != b {
            let (lo, hi) = (a.min(b), a.max(b));
            parent[hi as usize] = lo;
        }
    }
    let mut number = vec![u32::MAX; n];
    let mut count = 0usize;
    let of = (0..n)
        .map(|r| {
            if !linked[r] {
                return None;
            }
            let g = root(&mut parent, r as u32) as usize;
            if number[g] == u32::MAX {
                number[g] = count as u32;
                count += 1;
            }
            Some(number[g])
        })
        .collect();
    Components { of, count }
}

/// [`solve`] on one piece of the graph (any piece: the whole graph gives the
/// same clusters, which the test checks).
fn solve_connected(party: &[u8], edges: &mut [Edge], merge_threshold: f64) -> Vec<u32> {
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

    // proptest is a native dev-dependency (Cargo.toml)
    #[cfg(not(target_arch = "wasm32"))]
    proptest::proptest! {
        #[test]
        fn solving_per_component_gives_the_whole_graphs_clusters(
            party in proptest::collection::vec(0u8..4, 2..40),
            raw in proptest::collection::vec((0u32..40, 0u32..40, 0u8..6), 0..80),
            threshold in proptest::sample::select(vec![0.3, 0.5, 1.0]),
        ) {
            let n = party.len() as u32;
            let edges: Vec<Edge> = raw
                .into_iter()
                .map(|(x, y, s)| e(x % n, y % n, s as f64 / 10.0))
                .filter(|p| p.x != p.y)
                .collect();
            let whole = solve_connected(&party, &mut edges.clone(), threshold);
            proptest::prop_assert_eq!(solve(&party, &mut edges.clone(), threshold), whole);
        }
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
