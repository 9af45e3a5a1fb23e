//! The decision, as FRIL makes it: matches (M) at or above an upper weight
//! threshold, possible matches for clerical review (P) between a lower and
//! the upper one, non-matches (U) below. The tool proposes both thresholds
//! from the fitted model, never from a truth:
//!
//! - **upper**: the lowest weight w whose match probability is at least
//!   [`MORE_LIKELY`] (a pair more likely a match than not) such that the
//!   pairs of weight ≥ w have an estimated precision (their mean match
//!   probability, over the pairs the assignment keeps: a doubtful pair's
//!   rivals are not counted) of at least the schema's `decision.precision`
//!   (default 0.98). So it is never a pair the fit thinks more
//!   likely a non-match, and the band below it is the clerk's. A kept pair's
//!   match probability is that of its agreement pattern among the kept pairs
//!   ([`kept_probabilities`]): the fit expects n·p matches among the n
//!   candidates of a pattern of probability p, and a record has at most one
//!   match, so the pairs the assignment drops for a better rival are taken
//!   for the pattern's non-matches. Two "Daniel Smith"s born on different days
//!   are a match half the time among all candidates (p 0.5), nearly always
//!   when neither record has a better partner;
//! - **lower**: the highest weight w such that the pairs of weight ≥ w hold at
//!   least `decision.recall` (default 0.999) of the expected number of true
//!   pairs among the candidates (the sum of all match probabilities), but no
//!   pair below match probability [`REVIEW_FLOOR`]: the band between the two
//!   is what a clerk reviews, not the hundreds of thousands of near-certain
//!   non-matches a long tail of candidates adds up to.
//!
//! Then the assignment: one-to-one keeps, greedily by weight, a pair only when
//! neither record is in a kept pair; many-to-one only when its B record is not.
//! `auto` takes many-to-one when the fit shows B holding several copies of
//! A's records: among the matches many-to-one keeps (each B record with its
//! best A record), more than [`DUPLICATE_SHARE`] of the matched A records have
//! two or more of probability at least [`STRONG`]; one-to-one otherwise.

use super::schema::Assignment;

pub const STRONG: f64 = 0.99;
/// The possible matches (P) are at least this likely matches.
pub const REVIEW_FLOOR: f64 = 0.01;
/// A pair of at least this match probability is at or above the upper threshold.
pub const MORE_LIKELY: f64 = 0.5;
pub const DUPLICATE_SHARE: f64 = 0.01;

/// The two proposed thresholds.
pub fn propose(sorted: &[(f64, f64)], precision: f64, recall: f64) -> (f64, f64) {
    // sorted: (weight, probability), weight descending
    let total: f64 = sorted.iter().map(|(_, p)| p).sum();
    let mut upper = f64::INFINITY;
    let mut lower = None;
    let mut cum = 0.0;
    let mut i = 0;
    while i < sorted.len() {
        let w = sorted[i].0;
        while i < sorted.len() && sorted[i].0 == w {
            cum += sorted[i].1;
            i += 1;
        }
        if cum / i as f64 >= precision && sorted[i - 1].1 >= MORE_LIKELY {
            upper = w;
        }
        if lower.is_none() && cum >= recall * total {
            lower = Some(w);
        }
    }
    // the lowest weight a clerk still reviews
    let floor = sorted.iter().take_while(|(_, p)| *p >= REVIEW_FLOOR).last().map_or(f64::INFINITY, |(w, _)| *w);
    let lower = lower.unwrap_or(f64::NEG_INFINITY).max(floor).min(upper);
    (upper, lower)
}

/// The match probability of each kept pair (`kept`: indices into the
/// candidates, by the assignment), by the module docs: its pattern's expected
/// matches over all candidates (`patterns[i]`, `probabilities[i]`: candidate
/// i's) shared by the pattern's kept pairs, at most 1.
pub fn kept_probabilities(patterns: &[&[u8]], probabilities: &[f64], kept: &[usize]) -> Vec<f64> {
    let mut expected: std::collections::HashMap<&[u8], f64> = std::collections::HashMap::new();
    for (p, q) in patterns.iter().zip(probabilities) {
        *expected.entry(p).or_default() += q;
    }
    let mut count: std::collections::HashMap<&[u8], f64> = std::collections::HashMap::new();
    for &i in kept {
        *count.entry(patterns[i]).or_default() += 1.0;
    }
    kept.iter().map(|&i| (expected[patterns[i]] / count[patterns[i]]).max(probabilities[i]).min(1.0)).collect()
}

/// Whether B holds several copies of A's records, by the rule of the module docs.
/// `matches`: (a, b, probability) of the pairs above the upper threshold.
pub fn has_duplicates(matches: &[(u32, u32, f64)]) -> bool {
    let mut strong: std::collections::HashMap<u32, u32> = std::collections::HashMap::new();
    let mut rows = std::collections::HashSet::new();
    for &(a, _, p) in matches {
        rows.insert(a);
        if p >= STRONG {
            *strong.entry(a).or_default() += 1;
        }
    }
    let multi = strong.values().filter(|&&c| c >= 2).count();
    multi >= 2 && multi as f64 > DUPLICATE_SHARE * rows.len() as f64
}

/// The indices of `matches` (a, b, weight) the assignment keeps, in weight
/// order (ties by a, then b). `Auto` must be resolved first.
pub fn assign(matches: &[(u32, u32, f64)], assignment: Assignment) -> Vec<usize> {
    let mut order: Vec<usize> = (0..matches.len()).collect();
    crate::sorting::sort_by(&mut order, |&x, &y| {
        let (a, b) = (matches[x], matches[y]);
        b.2.total_cmp(&a.2).then(a.0.cmp(&b.0)).then(a.1.cmp(&b.1))
    });
    if assignment == Assignment::All {
        return order;
    }
    let mut used_a = std::collections::HashSet::new();
    let mut used_b = std::collections::HashSet::new();
    order
        .into_iter()
        .filter(|&i| {
            let (a, b, _) = matches[i];
            if used_b.contains(&b) || (assignment == Assignment::OneToOne && used_a.contains(&a)) {
                return false;
            }
            used_a.insert(a);
            used_b.insert(b);
            true
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thresholds_follow_the_targets() {
        // ten sure pairs, then two at 0.5, then many near 0
        let mut s: Vec<(f64, f64)> = vec![(20.0, 1.0); 10];
        s.extend([(5.0, 0.5), (5.0, 0.5)]);
        s.extend(vec![(-10.0, 0.001); 100]);
        let (upper, lower) = propose(&s, 0.99, 0.999);
        assert_eq!(upper, 20.0); // adding the 0.5s drops precision to 11/12
        assert_eq!(lower, 5.0); // the tail holds 0.1 expected, above 0.1 % of 11.1, but each pair is below 1 %
        let mut tail = s.clone();
        tail[12..].iter_mut().for_each(|p| p.1 = 0.02);
        assert_eq!(propose(&tail, 0.99, 0.999).1, -10.0); // 2 % each: a clerk reviews them
        assert_eq!(propose(&s, 0.9, 0.5).0, 5.0);
        // a long run of sure pairs keeps the mean high, but a pair less likely a match than not is not one
        let mut t: Vec<(f64, f64)> = vec![(20.0, 1.0); 1000];
        t.push((-3.0, 0.2));
        assert_eq!(propose(&t, 0.99, 0.999).0, 20.0);
        assert_eq!(propose(&[], 0.99, 0.99).0, f64::INFINITY);
    }

    #[test]
    fn assignments() {
        let m = [(0, 0, 10.0), (0, 1, 9.0), (1, 1, 8.0), (2, 1, 12.0)];
        assert_eq!(assign(&m, Assignment::OneToOne), vec![3, 0]);
        assert_eq!(assign(&m, Assignment::ManyToOne), vec![3, 0]);
        let m2 = [(0, 0, 10.0), (0, 1, 9.0)];
        assert_eq!(assign(&m2, Assignment::ManyToOne), vec![0, 1]);
        assert_eq!(assign(&m2, Assignment::OneToOne), vec![0]);
        assert_eq!(assign(&m2, Assignment::All).len(), 2);
        assert!(!has_duplicates(&[(0, 0, 1.0), (0, 1, 1.0)]));
        assert!(has_duplicates(&[(0, 0, 1.0), (0, 1, 1.0), (1, 2, 1.0), (1, 3, 1.0)]));
    }

    #[test]
    fn a_kept_pair_takes_its_pattern_s_matches() {
        // pattern x: four candidates at 0.5 (two expected matches), two kept;
        // pattern y: two at 0.9, one kept; pattern z: one at 0.2, kept
        let (x, y, z): (&[u8], &[u8], &[u8]) = (&[0, 3], &[0, 0], &[3, 3]);
        let patterns = [x, x, x, x, y, y, z];
        let p = [0.5, 0.5, 0.5, 0.5, 0.9, 0.9, 0.2];
        assert_eq!(kept_probabilities(&patterns, &p, &[0, 2, 4, 6]), vec![1.0, 1.0, 1.0, 0.2]);
        assert_eq!(kept_probabilities(&patterns, &p, &[0, 1, 2, 3]), vec![0.5; 4], "all kept: as fitted");
    }
}
