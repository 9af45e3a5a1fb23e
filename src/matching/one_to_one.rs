//! One-to-one linkage: greedy assignment by increasing distance among the pairs
//! within threshold; each A and each B record is linked at most once. Ties are
//! broken by (distance, a, b), so the result is deterministic.

use super::pairs::Pair;
use super::qgram::Scored;

/// The greedy one-to-one subset of `pairs`, sorted by (a, distance, b).
pub fn one_to_one(pairs: &[Pair]) -> Vec<Pair> {
    let mut order: Vec<&Pair> = pairs.iter().collect();
    crate::sorting::sort_by(&mut order, |x, y| {
        x.distance.total_cmp(&y.distance).then(x.a.cmp(&y.a)).then(x.b.cmp(&y.b))
    });
    let max_a = pairs.iter().map(|p| p.a as usize + 1).max().unwrap_or(0);
    let max_b = pairs.iter().map(|p| p.b as usize + 1).max().unwrap_or(0);
    let (mut used_a, mut used_b) = (vec![false; max_a], vec![false; max_b]);
    let mut out = Vec::new();
    for p in order {
        if !used_a[p.a as usize] && !used_b[p.b as usize] {
            used_a[p.a as usize] = true;
            used_b[p.b as usize] = true;
            out.push(*p);
        }
    }
    super::pairs::sort_by_a(&mut out);
    out
}

/// Greedy one-to-one by increasing score (ties: distance, then a, then b); each
/// A and each B row is linked at most once. Sorted by (a, distance, b).
pub fn one_to_one_scored(pairs: &[Scored]) -> Vec<Pair> {
    // each pair's score as a plain key in `total_cmp`'s order (the standard
    // library's own map of an f64's bits onto an ordered integer) beside its
    // index: most comparisons end on the key, without reading the pair
    let ordered = |x: f64| {
        let k = x.to_bits() as i64;
        k ^ (((k >> 63) as u64) >> 1) as i64
    };
    let mut order: Vec<(i64, u32)> = pairs.iter().enumerate().map(|(i, s)| (ordered(s.score), i as u32)).collect();
    crate::par::sort_strict_by(&mut order, |x, y| {
        x.0.cmp(&y.0).then_with(|| {
            let (p, q) = (&pairs[x.1 as usize].pair, &pairs[y.1 as usize].pair);
            p.distance.total_cmp(&q.distance).then(p.a.cmp(&q.a)).then(p.b.cmp(&q.b)).then(x.1.cmp(&y.1))
        })
    });
    let max_a = pairs.iter().map(|p| p.pair.a as usize + 1).max().unwrap_or(0);
    let max_b = pairs.iter().map(|p| p.pair.b as usize + 1).max().unwrap_or(0);
    let (mut used_a, mut used_b) = (vec![false; max_a], vec![false; max_b]);
    let mut out = Vec::new();
    for &(_, i) in &order {
        let p = pairs[i as usize].pair;
        if !used_a[p.a as usize] && !used_b[p.b as usize] {
            used_a[p.a as usize] = true;
            used_b[p.b as usize] = true;
            out.push(p);
        }
    }
    super::pairs::sort_by_a(&mut out);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::matching::pairs::pair as p;

    #[test]
    fn greedy_by_distance() {
        // a0-b0 is closest; a1 then cannot take b0 and takes b1
        let pairs = [p(0, 0, 0.5), p(0, 1, 1.0), p(1, 0, 0.7), p(1, 1, 2.0)];
        assert_eq!(one_to_one(&pairs), vec![p(0, 0, 0.5), p(1, 1, 2.0)]);
    }

    #[test]
    fn ties_break_by_a_then_b() {
        // all at distance 1: (0,0) comes first, then (0,1) and (1,0) are blocked
        let pairs = [p(1, 0, 1.0), p(0, 1, 1.0), p(0, 0, 1.0), p(1, 1, 1.0)];
        assert_eq!(one_to_one(&pairs), vec![p(0, 0, 1.0), p(1, 1, 1.0)]);
    }

    #[test]
    fn each_record_at_most_once() {
        let pairs: Vec<Pair> =
            (0..20).flat_map(|a| (0..20).map(move |b| p(a, b, ((a * 7 + b * 13) % 11) as f64))).collect();
        let out = one_to_one(&pairs);
        let mut sa = std::collections::HashSet::new();
        let mut sb = std::collections::HashSet::new();
        for x in &out {
            assert!(sa.insert(x.a) && sb.insert(x.b));
        }
    }
}
