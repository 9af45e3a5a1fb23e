//! Comparisons that agree together among non-matches, weighed once.
//!
//! The Fellegi–Sunter model takes the fields' levels as independent given the
//! class, among non-matches too. A household breaks it: two members share a
//! surname *and* an address, so a pair agreeing on both is far likelier a
//! non-match than the product of the two agreements' u says. On pseudopeople's
//! census against W-2 (docs/RECORDS.md) the model added the surname's +11.4
//! bits to the address's +9.5, a household member with another first name
//! and middle initial still weighed 5.75, and 21 such pairs were the false
//! matches at the upper threshold.
//!
//! **The test, per pair of comparisons i and j** (after [`super::joint`]).
//! Where some blocking rule holds for every pair that agrees exactly on the
//! fields of i and j, every such pair is a candidate, so the candidates count
//! them all: n pairs, over d distinct B records. A B record has one match at
//! most (under every assignment: many-to-one lets an A record have copies in
//! B, never the reverse), so at least C = n − d of them are non-matches, and
//! C over |A|·|B| is the non-matches' share agreeing on both (a lower bound:
//! the rule errs towards weighing as before). Not each pair's 1 − match
//! probability: the independent fit takes a household member for a likely
//! match, which is the error to mend; nor the fit's expected matches times
//! the two m's: where B holds copies (FEBRL 3) those matches are more than
//! the fit's bound of min(|A|, |B|). When C ≥ [`MIN_PAIRS`] and that share is at least [`RATIO`] times
//! the product of the two comparisons' u of agreement, the pair becomes an
//! [`Interaction`]: a pattern agreeing on both weighs log2(share / product)
//! less. The most dependent pair goes first, and a comparison takes part in
//! one interaction at most. Comparisons with a fixed m or u (the schema's)
//! are left as written. The rules are those that made the candidates, as
//! their counts carry them ([`RuleCount::fields`]): the schema's, or the ones
//! the matcher designed (`blocking = "auto"`), so a shard's fit
//! ([`super::shard`]) finds what the single machine's does.
//!
//! The matcher learns nothing new by it: the candidates' levels, counted.

use super::blocking::RuleCount;
use super::schema::Schema;
use crate::em::{comparison_fields, strongest_disjoint, Fit, Interaction};

/// Agreeing on both at least this many times more often than independence says.
pub const RATIO: f64 = 10.0;
/// ... over at least this many non-matches among the candidates.
pub const MIN_PAIRS: f64 = 20.0;

/// The interactions of the module docs on `fit` (joints made, no interaction
/// yet), the `candidates` (a, b) that `rules` made and their `patterns` (one
/// level per sent field), among `na` × `nb` pairs.
pub fn found(
    schema: &Schema,
    rules: &[RuleCount],
    fit: &Fit,
    candidates: &[(u32, u32)],
    patterns: &[&[u8]],
    na: usize,
    nb: usize,
) -> Vec<Interaction> {
    if na == 0 || nb == 0 {
        return Vec::new();
    }
    let sent: Vec<_> = schema.sent().collect();
    // each comparison's sent fields, and its agreeing levels (a joint pair's:
    // level sum 0, both fields at their closest level)
    let fields = comparison_fields(sent.len(), &fit.joint);
    let agree: Vec<Vec<u8>> = fields
        .iter()
        .map(|f| match f.as_slice() {
            [k] if sent[*k].splits_exact() => vec![0, 1],
            _ => vec![0],
        })
        .collect();
    let nc = fields.len();
    if nc != fit.fields.len() {
        return Vec::new();
    }
    // per comparison, which candidates agree on it (a missing level never does)
    let agrees: Vec<Vec<bool>> = (0..nc)
        .map(|k| match fields[k].as_slice() {
            [f] => patterns.iter().map(|p| agree[k].contains(&p[*f])).collect(),
            fs => patterns.iter().map(|p| fs.iter().all(|&f| p[f] == 0)).collect(),
        })
        .collect();
    let covered = |i: usize, j: usize| {
        let names: Vec<&str> = fields[i].iter().chain(&fields[j]).map(|&k| sent[k].name.as_str()).collect();
        rules.iter().any(|r| !r.fields.is_empty() && r.fields.iter().all(|f| names.contains(&f.as_str())))
    };
    let all = na as f64 * nb as f64;
    let mut seen = vec![false; nb];
    let mut found: Vec<(f64, Interaction)> = Vec::new();
    for i in 0..nc {
        for j in i + 1..nc {
            let fixed = |k: usize| fit.fields[k].fixed_m || fit.fields[k].fixed_u;
            if fixed(i) || fixed(j) || !covered(i, j) {
                continue;
            }
            seen.iter_mut().for_each(|s| *s = false);
            let (mut n, mut d) = (0u64, 0u64);
            for (r, &(_, b)) in candidates.iter().enumerate() {
                if agrees[i][r] && agrees[j][r] {
                    n += 1;
                    d += u64::from(!std::mem::replace(&mut seen[b as usize], true));
                }
            }
            let c = (n - d) as f64;
            // each comparison's u of agreement
            let u = |k: usize| agree[k].iter().map(|&l| fit.fields[k].u[l as usize]).sum::<f64>();
            let independent = u(i) * u(j);
            let both_agree = c / all;
            if c >= MIN_PAIRS && independent > 0.0 && both_agree >= RATIO * independent {
                let agree_first = agree[i].clone();
                let agree_second = agree[j].clone();
                let x = Interaction { first: i, second: j, agree_first, agree_second, both_agree, independent };
                found.push((both_agree / independent, x));
            }
        }
    }
    strongest_disjoint(found, nc, |x| (x.first, x.second))
}

/// What the fit's health says of each interaction.
pub fn describe(fit: &Fit) -> Vec<String> {
    fit.interactions
        .iter()
        .map(|x| {
            format!(
                "  {} and {} agree together among non-matches: {:.5} % of all pairs, where independent \
                 comparisons would in {:.7} %; agreeing on both weighs {:.2} bits less",
                fit.fields[x.first].name,
                fit.fields[x.second].name,
                100.0 * x.both_agree,
                100.0 * x.independent,
                (x.both_agree / x.independent).log2()
            )
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::em::FieldFit;

    fn field(name: &str, m: Vec<f64>, u: Vec<f64>) -> FieldFit {
        let weights = m.iter().zip(&u).map(|(a, b)| (a / b).log2()).collect();
        let levels = (0..m.len()).map(|l| format!("l{l}")).collect();
        FieldFit { name: name.into(), levels, u_random: u.clone(), m, u, weights, fixed_m: false, fixed_u: false }
    }

    /// A first name, a surname and an address, each exact or disagree.
    fn fit() -> Fit {
        Fit {
            lambda: 1e-4,
            fields: vec![
                field("first", vec![0.95, 0.05], vec![0.01, 0.99]),
                field("surname", vec![0.999, 0.001], vec![0.001, 0.999]),
                field("address", vec![0.999, 0.001], vec![0.001, 0.999]),
            ],
            iterations: 1,
            converged: true,
            expected_matches: 900.0,
            repairs: Vec::new(),
            joint: Vec::new(),
            interactions: Vec::new(),
        }
    }

    fn schema(blocks: &str) -> Schema {
        let fields = r#"{"name": "first", "kind": "string"}, {"name": "surname", "kind": "string"},
            {"name": "address", "kind": "string"}"#;
        Schema::parse_json(&format!(r#"{{"version": 1, "field": [{fields}]{blocks}}}"#)).unwrap()
    }

    #[test]
    fn households_make_the_surname_and_address_one_agreement() {
        let (surname, first) = (r#", "block": [{"field": "surname"}]"#, r#", "block": [{"field": "first"}]"#);
        let rules = |blocks: &str| {
            let s = schema(blocks);
            s.block_rules().iter().map(|r| RuleCount::of(&s, r, 0)).collect::<Vec<_>>()
        };
        // 1,000 × 1,000 records: 900 true pairs agree on all three; 400
        // household members agree on surname and address only, where
        // independence expects 1e-6 of a million pairs: one
        // (a household of two in each file: each member's pair with the other's record)
        let household: Vec<&[u8]> = [&[0u8, 0, 0][..]; 900].into_iter().chain([&[1u8, 0, 0][..]; 400]).collect();
        let pairs: Vec<(u32, u32)> = (0..900).map(|r| (r, r)).chain((0..400).map(|r| (r ^ 1, r))).collect();
        let x = found(&schema(surname), &rules(surname), &fit(), &pairs, &household, 1000, 1000);
        assert_eq!(x.len(), 1, "{x:?}");
        assert_eq!((x[0].first, x[0].second), (1, 2));
        // 1,300 pairs agree on both, over 900 B records: 400 non-matches at least
        assert!((x[0].both_agree * 1e6 - 400.0).abs() < 1e-6, "{}", x[0].both_agree * 1e6);
        let mut corrected = fit();
        let before = corrected.weight(&[1, 0, 0]);
        corrected.interactions = x;
        let bits = before - corrected.weight(&[1, 0, 0]);
        assert!((bits - (400e-6f64 / 1e-6).log2()).abs() < 0.01, "{bits}");
        // one agreement alone is as weighed before
        assert_eq!(corrected.weight(&[1, 0, 1]), fit().weight(&[1, 0, 1]));
        // without households: nothing; nor where B holds copies (every pair another B record)
        assert!(
            found(&schema(surname), &rules(surname), &fit(), &pairs[..900], &household[..900], 1000, 1000).is_empty()
        );
        let copies: Vec<(u32, u32)> = (0..1300).map(|r| (r % 900, r)).collect();
        assert!(found(&schema(surname), &rules(surname), &fit(), &copies, &household, 1000, 1300).is_empty());
        // a rule on the first name alone does not hold for every pair agreeing
        // on surname and address: not counted
        assert!(found(&schema(first), &rules(first), &fit(), &pairs, &household, 1000, 1000).is_empty());
        // a schema whose rules the matcher designs: the designed rule's fields
        // count, and the design's pilot (a union of rules, no fields) does not
        let auto = Schema { blocking: Some("auto".into()), blocks: Vec::new(), ..schema(surname) };
        let designed = rules(surname);
        assert_eq!(found(&auto, &designed, &fit(), &pairs, &household, 1000, 1000).len(), 1);
        let pilot = [RuleCount { rule: "pilot".into(), pairs: 1300, fields: Vec::new() }];
        assert!(found(&auto, &pilot, &fit(), &pairs, &household, 1000, 1000).is_empty());
    }
}
