//! Fields compared as one when their disagreements go together among matches.
//!
//! The Fellegi–Sunter model takes the fields' levels as independent given the
//! class. A person who moved breaks it: a census record and a W-2 record of
//! the same person then differ in street number *and* street name at once.
//! On pseudopeople's census against W-2 (docs/RECORDS.md), 3 % of the true
//! pairs disagree on both, where the product of the two fields' own
//! disagreement rates predicts 0.002 %; the model multiplies two rare
//! disagreements, a mover's pair loses about 14 bits of weight, and 200 of
//! 6,715 true pairs with every name agreeing fall below the match threshold.
//!
//! **The test, per pair of fields i and j, on the independent fit.** The
//! candidates that the *other* fields alone make near-certain matches (match
//! probability at least [`SURE`] from the prior and every weight but i's and
//! j's) are matches that i and j had no say in choosing. Among those n with
//! both fields present, n_i disagree on i (its last level), n_j on j and n_ij
//! on both. When n_ij/n ≥ [`RATIO`] · (n_i/n)(n_j/n), and at least
//! [`MIN_PAIRS`] of those n_ij are pairs the independent fit takes for
//! non-matches (match probability below one half: the cost of the broken
//! assumption; on FEBRL 2 its address fields disagree together, 11 times more
//! often than independent ones, when the two are swapped, but the other eight
//! fields keep those pairs matches), the two are compared as one ([`crate::em::Joint`]): the joint level is the
//! sum of the two levels (0: both at their closest level; the last: both
//! disagree), missing when either is, and the model is fitted again with it,
//! m and u of the joint levels learned as any field's. The greedy choice takes
//! the most dependent pair first, and a field joins at most one pair. Fields
//! with a fixed m or u (the schema's) are never joined: their levels are the
//! schema's to weigh.
//!
//! The matcher learns nothing new by it: it is the same levels, weighed
//! together.

use crate::em::{comparison_fields, frequencies, strongest_disjoint, Fit, Joint, Start, MISSING};

/// A candidate is taken for a match by the other fields at this probability.
pub const SURE: f64 = 0.99;
/// Both disagree at least this many times more often than independence predicts.
pub const RATIO: f64 = 10.0;
/// ... and the independent fit takes at least this many of the sure pairs
/// that disagree on both for non-matches.
pub const MIN_PAIRS: u64 = 20;

/// The pairs of fields to compare as one, by the test of the module docs, on
/// `fit` (one comparison per field, no joint yet) and the candidates'
/// `patterns` (distinct, with counts); `fixed[f]`: field f's m or u is fixed.
pub fn dependent(fit: &Fit, patterns: &[(Vec<u8>, u64)], fixed: &[bool]) -> Vec<Joint> {
    let nf = fit.fields.len();
    let last: Vec<u8> = fit.fields.iter().map(|f| (f.weights.len() - 1) as u8).collect();
    let weight = |f: usize, l: u8| if l == MISSING { 0.0 } else { fit.fields[f].weights[l as usize] };
    let mut found: Vec<(f64, Joint)> = Vec::new();
    for i in 0..nf {
        for j in i + 1..nf {
            if fixed[i] || fixed[j] {
                continue;
            }
            let (mut n, mut ni, mut nj, mut nij, mut lost) = (0u64, 0u64, 0u64, 0u64, 0u64);
            for (p, c) in patterns {
                if p[i] == MISSING || p[j] == MISSING {
                    continue;
                }
                let others: f64 = (0..nf).filter(|&f| f != i && f != j).map(|f| weight(f, p[f])).sum();
                if fit.probability(others) < SURE {
                    continue;
                }
                let (di, dj) = (p[i] == last[i], p[j] == last[j]);
                n += c;
                ni += c * u64::from(di);
                nj += c * u64::from(dj);
                nij += c * u64::from(di && dj);
                // a sure pair the independent weights take for a non-match
                let all = others + weight(i, p[i]) + weight(j, p[j]);
                lost += c * u64::from(di && dj && fit.probability(all) < 0.5);
            }
            if n == 0 || lost < MIN_PAIRS {
                continue;
            }
            let both = nij as f64 / n as f64;
            let independent = (ni as f64 / n as f64) * (nj as f64 / n as f64);
            if both >= RATIO * independent {
                found.push((both / independent, Joint { first: i, second: j, both_disagree: both, independent }));
            }
        }
    }
    strongest_disjoint(found, nf, |j| (j.first, j.second))
}

/// The fit's starts for the comparisons of `joint` (see [`crate::em::joined`]):
/// the fields' own where they stand alone, one per joint pair, u from the
/// random pairs' patterns `random` joined as the candidates' are. Counted,
/// not the two fields' u multiplied: two address parts agree together among
/// non-matches (neighbours, a household) far more often than the product
/// says, and the count knows it (census against W-2: the product gives an
/// agreeing address 18.7 bits, the count 9.5, and a household member with
/// another first name stays a non-match).
pub fn starts(fields: &[Start], joint: &[Joint], random: &[(Vec<u8>, u64)]) -> Vec<Start> {
    let mut out: Vec<Start> = comparison_fields(fields.len(), joint)
        .into_iter()
        .map(|c| match c.as_slice() {
            [k] => fields[*k].clone(),
            _ => {
                let (s, other) = (&fields[c[0]], &fields[c[1]]);
                let top = s.levels.len() + other.levels.len() - 2;
                let levels = (0..=top)
                    .map(|l| match l {
                        0 => "sum 0 (both exact)".to_string(),
                        l if l == top => format!("sum {l} (both disagree)"),
                        l => format!("sum {l}"),
                    })
                    .collect();
                Start {
                    name: format!("{} + {}", s.name, other.name),
                    levels,
                    u_random: Vec::new(),
                    fixed_m: None,
                    fixed_u: None,
                }
            }
        })
        .collect();
    let counts: Vec<usize> = out.iter().map(|s| s.levels.len()).collect();
    for (s, u) in out.iter_mut().zip(frequencies(random, &counts)) {
        s.u_random = u;
    }
    out
}

/// Whether the fit with `joint` bears the dependence out: the joint
/// comparison's "both disagree" level keeps at least half the share the test
/// found among sure pairs. If the fit takes those pairs for non-matches
/// (twins: the same surname and date of birth, another first name and sex),
/// the other fields' certainty was wrong, and the fields stay apart.
pub fn confirmed(fit: &Fit, j: &Joint) -> bool {
    fit.fields[place(fit, j)].m.last().is_some_and(|m| *m >= 0.5 * j.both_disagree)
}

/// The joint pair's comparison in `fit.fields`: its first field's place,
/// less the second fields before it.
fn place(fit: &Fit, j: &Joint) -> usize {
    j.first - fit.joint.iter().filter(|o| o.second < j.first).count()
}

/// What the fit's health says of each joint pair: the comparison and why.
pub fn describe(fit: &Fit) -> Vec<String> {
    fit.joint
        .iter()
        .map(|j| {
            format!(
                "  {} compared as one (levels summed): among the pairs the other fields make sure matches, both \
                 disagree in {:.2} %, where independent fields would in {:.4} %",
                fit.fields[place(fit, j)].name,
                100.0 * j.both_disagree,
                100.0 * j.independent
            )
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::em::{joined, FieldFit};

    fn field(name: &str, weights: Vec<f64>) -> FieldFit {
        let n = weights.len();
        FieldFit {
            name: name.into(),
            levels: (0..n).map(|l| format!("l{l}")).collect(),
            m: vec![1.0 / n as f64; n],
            u: vec![1.0 / n as f64; n],
            u_random: vec![1.0 / n as f64; n],
            weights,
            fixed_m: false,
            fixed_u: false,
        }
    }

    /// Three fields: a name that makes pairs sure (+20 exact), and two
    /// address parts (levels exact, close, disagree).
    fn fit() -> Fit {
        Fit {
            lambda: 1e-4,
            fields: vec![
                field("name", vec![25.0, -5.0]),
                field("number", vec![8.0, 0.0, -7.0]),
                field("street", vec![9.0, 2.0, -6.0]),
            ],
            iterations: 1,
            converged: true,
            expected_matches: 0.0,
            repairs: Vec::new(),
            joint: Vec::new(),
            interactions: Vec::new(),
        }
    }

    #[test]
    fn moves_join_the_address_parts_and_independent_errors_do_not() {
        // 1,000 sure pairs (name exact); 40 movers (both parts disagree), 10
        // with only the number off and 10 with only the street off
        let moved = vec![
            (vec![0, 0, 0], 940),
            (vec![0, 2, 2], 40),
            (vec![0, 2, 0], 10),
            (vec![0, 0, 2], 10),
            (vec![1, 2, 2], 5000),
        ];
        let j = dependent(&fit(), &moved, &[false; 3]);
        assert_eq!(j.len(), 1);
        assert_eq!((j[0].first, j[0].second), (1, 2));
        assert!((j[0].both_disagree - 0.04).abs() < 1e-12);
        assert!((j[0].independent - 0.05 * 0.05).abs() < 1e-12);
        // disagreements of 7 % each, independent: 0.5 % both
        let independent = vec![(vec![0, 0, 0], 8650), (vec![0, 2, 2], 50), (vec![0, 2, 0], 650), (vec![0, 0, 2], 650)];
        assert!(dependent(&fit(), &independent, &[false; 3]).is_empty());
        // a field with fixed weights is never joined
        assert!(dependent(&fit(), &moved, &[false, false, true]).is_empty());
        // pairs the name does not make sure (level 1) are not counted: without the sure ones, nothing
        assert!(dependent(&fit(), &moved[4..], &[false; 3]).is_empty());
    }

    #[test]
    fn a_joint_pair_is_one_comparison_of_summed_levels() {
        let j = [Joint { first: 1, second: 2, both_disagree: 0.04, independent: 0.0049 }];
        assert_eq!(joined(&[0, 1, 2], &j), vec![0, 3]);
        assert_eq!(joined(&[1, MISSING, 2], &j), vec![1, MISSING]);
        let start = |name: &str, n: usize| Start {
            name: name.into(),
            levels: (0..n).map(|l| format!("l{l}")).collect(),
            u_random: vec![1.0 / n as f64; n],
            fixed_m: None,
            fixed_u: None,
        };
        let fields = [start("name", 2), start("number", 3), start("street", 3)];
        let random = vec![(joined(&[1, 2, 2], &j), 97), (joined(&[1, 0, 0], &j), 1)];
        let s = starts(&fields, &j, &random);
        assert_eq!(s.iter().map(|s| s.name.as_str()).collect::<Vec<_>>(), ["name", "number + street"]);
        assert_eq!(s[1].levels.len(), 5);
        assert_eq!(s[1].levels[4], "sum 4 (both disagree)");
        // u counted on the joined random pairs (one pseudo-count a level): 98 of 103 at
        // "both disagree", 2 of 103 at "both exact"
        assert!((s[1].u_random[4] - 98.0 / 103.0).abs() < 1e-9);
        assert!((s[1].u_random[0] - 2.0 / 103.0).abs() < 1e-9);
    }
}
