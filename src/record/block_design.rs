//! Blocking designed by the tool: from the schema's fields, the matcher
//! proposes conjunctive rules that keep the candidates within a budget of
//! [`BUDGET_PER_RECORD`]`·(|A| + |B|)` while finding as many of the matches as
//! it can, estimated without a truth. Used when a schema says
//! `blocking = "auto"` (and by `gramlink blocks`, which prints the analysis).
//!
//! **How.** The pool: one term per sent field (a name or string within one
//! edit, across name fields for a name; a number equal and within one edit; a
//! date, keyed or clear field equal), and every conjunction of two terms on
//! different fields. Each rule's candidates are counted on the batches; a
//! rule above [`WIDE_PER_RECORD`]`·(|A| + |B|)` is *too wide* (a field of few
//! values, or a very common one) and only joins conjunctions. The *pilot* is
//! the union of every rule that is not too wide: the caller links it as any
//! candidates (the linker: scored, its bounded fit, the schema's decision),
//! and its matches, weighted by their match probability,
//! are what a rule set's *estimated pairs completeness* counts. Rules are then
//! taken greedily by new matches per new candidate (each must add at least
//! [`MIN_GAIN`] estimated matches) while the union stays within the budget.
//!
//! **What the estimate cannot see:** a match that no rule of the pool finds
//! (two edits in every name, and a different date, postcode and number) is in
//! no pilot, so the completeness is of the matches the pool finds; a truth
//! measures the rest (docs/RECORDS.md shows both on noisy person records).
//!
//! **Privacy.** Only the batches are used, as in every linkage; no budget is
//! spent.

use super::batch::RecordBatch;
use super::blocking::{rule_name, rule_pairs_within, Found, RuleCount};
use super::schema::{BlockRule, BlockTerm, Kind, Schema};
use crate::error::Error;

/// The candidate budget per record of both sides: c in c·(|A| + |B|).
pub const BUDGET_PER_RECORD: u64 = 20;
/// A rule with more candidates than this per record of both sides is too
/// wide to stand alone (it only joins conjunctions).
pub const WIDE_PER_RECORD: u64 = 40;
/// The least estimated matches (a sum of match probabilities) a rule must add
/// to be taken: half a match.
pub const MIN_GAIN: f64 = 0.5;
/// A one-term equality rule whose values agree for more than this share of
/// all pairs is warned about (its field lacks the entropy to block alone).
pub const LOW_ENTROPY: f64 = 1e-3;

/// The most records (both sides) the design takes: each rule of the pool
/// holds up to [`WIDE_PER_RECORD`] pairs per record while it is counted, so
/// past this a design is better run on samples of the files (the owners embed
/// a sample each under the schema, `gramlink blocks` designs on those, and the
/// rules go into the linkage's schema).
pub const MAX_DESIGN_RECORDS: usize = 1_000_000;

/// Refuses a design past [`MAX_DESIGN_RECORDS`], by name.
fn check_size(na: usize, nb: usize) -> Result<(), Error> {
    if na + nb > MAX_DESIGN_RECORDS {
        return Err(Error::Parameter(format!(
            "blocking = \"auto\" designs on at most {MAX_DESIGN_RECORDS} records in all, and these batches hold {}: \
             design on a sample of each file with `gramlink blocks` and write its rules into the schema",
            na + nb
        )));
    }
    Ok(())
}

/// One rule of the pool, as the design saw it.
#[derive(Debug, Clone, PartialEq)]
pub struct Considered {
    pub rule: BlockRule,
    /// As reports show it ([`rule_name`]).
    pub name: String,
    /// Its candidates; `None`: too wide (more than the wide limit).
    pub candidates: Option<u64>,
    /// The share of the pilot's estimated matches it finds alone.
    pub completeness: f64,
    /// Its place among the chosen rules (0 first), if chosen.
    pub chosen: Option<usize>,
}

/// The design: what was considered, what was chosen, and the estimates.
#[derive(Debug, Clone, PartialEq)]
pub struct Design {
    pub considered: Vec<Considered>,
    /// The chosen rules, in the order taken.
    pub rules: Vec<BlockRule>,
    /// The candidates of their union.
    pub candidates: u64,
    pub budget: u64,
    /// The share of the pilot's estimated matches the chosen rules find.
    pub completeness: f64,
    /// The pilot: its candidates and its matches (the linkage's decision on it).
    pub pilot_candidates: u64,
    pub pilot_matches: u64,
    /// Warnings on the schema's own rules (one-term rules on fields that lack
    /// the entropy to block alone).
    pub warnings: Vec<String>,
}

impl Design {
    /// The report, one line each: the pool, then the choice.
    pub fn lines(&self) -> Vec<String> {
        let mut out = vec![format!(
            "blocking designed by the tool (budget {} candidates): the pilot (every rule below that is not too wide) \
             has {} candidates and {} matches by the linkage's own fit",
            self.budget, self.pilot_candidates, self.pilot_matches
        )];
        for c in &self.considered {
            let count = c.candidates.map_or("too wide".to_string(), |n| format!("{n} candidates"));
            let chosen = c.chosen.map_or(String::new(), |k| format!("  <- chosen #{}", k + 1));
            out.push(format!("  {}: {count}, finds {:.4} of the matches{chosen}", c.name, c.completeness));
        }
        out.push(format!(
            "chosen: {} rules, {} candidates, estimated pairs completeness {:.4} (of the matches the pool finds)",
            self.rules.len(),
            self.candidates,
            self.completeness
        ));
        out.extend(self.warnings.iter().map(|w| format!("warning: {w}")));
        out
    }
}

/// The terms of the pool, one or two per sent field (see the module).
fn terms(schema: &Schema) -> Vec<BlockTerm> {
    let mut out = Vec::new();
    for f in schema.sent() {
        let term = |ed| BlockTerm { field: f.name.clone(), ed };
        match f.kind() {
            Some(Kind::Name | Kind::String) => out.push(term(Some(1))),
            Some(Kind::Number) => out.extend([term(Some(0)), term(Some(1))]),
            Some(Kind::Date | Kind::Keyed | Kind::Clear) => out.push(term(None)),
            _ => {}
        }
    }
    out
}

fn rule_of(terms: &[&BlockTerm]) -> BlockRule {
    BlockRule { field: terms[0].field.clone(), ed: terms[0].ed, and: terms[1..].iter().map(|t| (*t).clone()).collect() }
}

/// Designs the blocking rules of `schema`'s linkage of `a` and `b` (see the
/// module); `link` links the pilot: its candidates (ascending) and rule
/// count in, the matches `(a, b, match probability)` out.
pub fn design(
    schema: &Schema,
    a: &RecordBatch,
    b: &RecordBatch,
    link: impl Fn(Vec<(u32, u32)>, Vec<RuleCount>) -> Result<Vec<(u32, u32, f64)>, Error>,
) -> Result<Design, Error> {
    let (na, nb) = (a.ids.len(), b.ids.len());
    check_size(na, nb)?;
    let sides = (na + nb) as u64;
    let budget = BUDGET_PER_RECORD * sides;
    let wide = WIDE_PER_RECORD * sides;
    let pool_terms = terms(schema);
    if pool_terms.is_empty() {
        return Err(Error::Parameter("the schema has no field that can block (every field is suppressed)".into()));
    }
    // every rule's pairs (sorted), or None when too wide
    let mut rules: Vec<(BlockRule, Option<Vec<u64>>)> = Vec::new();
    let within = |rule: &BlockRule| -> Result<Option<Vec<u64>>, Error> {
        Ok(match rule_pairs_within(schema, a, b, rule, wide)? {
            Found::Pairs(p) => Some(sorted(p)).filter(|v| v.len() as u64 <= wide),
            Found::Over(_) => None,
        })
    };
    for t in &pool_terms {
        let rule = rule_of(&[t]);
        let found = within(&rule)?;
        rules.push((rule, found));
    }
    let singles = rules.len();
    for i in 0..singles {
        for j in i + 1..singles {
            if pool_terms[i].field == pool_terms[j].field {
                continue;
            }
            // the narrower term first: a rule of two edit terms runs the q-gram
            // filter on its first term and checks the other on what it finds
            // (a one-letter field within one edit first would compare every pair)
            let (first, second) = if rules[i].1.is_none() && rules[j].1.is_some() { (j, i) } else { (i, j) };
            let rule = rule_of(&[&pool_terms[first], &pool_terms[second]]);
            let found = match (&rules[i].1, &rules[j].1) {
                (Some(x), Some(y)) => Some(crate::sorting::intersect_sorted(x, y)),
                _ => within(&rule)?,
            };
            rules.push((rule, found));
        }
    }
    // the pilot: the union of every rule that is not too wide
    let pilot = sorted(rules.iter().filter_map(|(_, f)| f.as_ref()).flatten().copied().collect());
    if pilot.is_empty() {
        return Err(Error::Parameter(
            "no blocking rule of the schema's fields finds a candidate pair within its limit: write [[block]] rules"
                .into(),
        ));
    }
    let candidates: Vec<(u32, u32)> = pilot.iter().map(|&k| ((k >> 32) as u32, k as u32)).collect();
    // no fields: the pilot, a union of rules, covers no pair of comparisons as one rule
    let rule_counts =
        vec![RuleCount { rule: "the design's pilot".into(), pairs: pilot.len() as u64, fields: Vec::new() }];
    let matches = link(candidates, rule_counts)?;
    let mut gain = vec![0.0f64; pilot.len()];
    let mut pilot_matches = 0u64;
    for (x, y, p) in matches {
        if let Ok(i) = pilot.binary_search(&(((x as u64) << 32) | y as u64)) {
            gain[i] = p;
            pilot_matches += 1;
        }
    }
    let total: f64 = gain.iter().sum::<f64>().max(f64::MIN_POSITIVE);
    // each rule as pilot indices
    let index: Vec<Option<Vec<u32>>> = rules
        .iter()
        .map(|(_, f)| f.as_ref().map(|v| v.iter().map(|k| pilot.binary_search(k).unwrap_or(0) as u32).collect()))
        .collect();
    let mut considered: Vec<Considered> = rules
        .iter()
        .zip(&index)
        .map(|((rule, found), idx)| Considered {
            name: rule_name(schema, rule),
            rule: rule.clone(),
            candidates: found.as_ref().map(|v| v.len() as u64),
            completeness: idx.as_ref().map_or(0.0, |v| v.iter().map(|&i| gain[i as usize]).sum::<f64>() / total),
            chosen: None,
        })
        .collect();
    // greedy: the most new matches per new candidate, within the budget
    let mut in_union = vec![false; pilot.len()];
    let (mut union, mut covered, mut chosen) = (0u64, 0.0f64, Vec::new());
    loop {
        let mut best: Option<(usize, f64, u64, f64)> = None;
        for (r, idx) in index.iter().enumerate() {
            let Some(idx) = idx else { continue };
            if considered[r].chosen.is_some() {
                continue;
            }
            let (mut cost, mut matches) = (0u64, 0.0f64);
            for &i in idx.iter().filter(|&&i| !in_union[i as usize]) {
                cost += 1;
                matches += gain[i as usize];
            }
            if matches < MIN_GAIN || union + cost > budget {
                continue;
            }
            let added = matches / total;
            let ratio = added / cost.max(1) as f64;
            if best.is_none_or(|(_, b, _, _)| ratio > b) {
                best = Some((r, ratio, cost, added));
            }
        }
        let Some((r, _, cost, added)) = best else { break };
        for &i in index[r].as_ref().into_iter().flatten() {
            in_union[i as usize] = true;
        }
        considered[r].chosen = Some(chosen.len());
        chosen.push(considered[r].rule.clone());
        union += cost;
        covered += added;
    }
    if chosen.is_empty() {
        return Err(Error::Parameter(format!(
            "no blocking rule of the schema's fields finds a match the pilot linkage estimates within the budget \
             of {budget} candidates: write [[block]] rules"
        )));
    }
    Ok(Design {
        considered,
        rules: chosen,
        candidates: union,
        budget,
        completeness: covered.min(1.0),
        pilot_candidates: pilot.len() as u64,
        pilot_matches,
        warnings: low_entropy(schema, a, b)?,
    })
}

/// Sorted and deduplicated pairs.
fn sorted(mut v: Vec<u64>) -> Vec<u64> {
    crate::sorting::sort_keys(&mut v);
    v.dedup();
    v
}

/// Warnings on the schema's own one-term equality rules whose values agree
/// for more than [`LOW_ENTROPY`] of all pairs.
pub fn low_entropy(schema: &Schema, a: &RecordBatch, b: &RecordBatch) -> Result<Vec<String>, Error> {
    let all = a.ids.len() as u64 * b.ids.len() as u64;
    let mut out = Vec::new();
    for rule in schema.blocks.iter().filter(|r| r.and.is_empty()) {
        let equality = match schema.field(&rule.field).and_then(|f| f.kind()) {
            Some(Kind::Date | Kind::Keyed | Kind::Clear) => true,
            Some(k) => k.is_embedded() && rule.ed == Some(0),
            None => false,
        };
        if !equality || all == 0 {
            continue;
        }
        let limit = (LOW_ENTROPY * all as f64) as u64;
        let joined = match rule_pairs_within(schema, a, b, rule, limit)? {
            Found::Over(joined) => joined,
            Found::Pairs(p) => {
                let p = sorted(p).len() as u64;
                if p <= limit {
                    continue;
                }
                p
            }
        };
        let share = joined as f64 / all as f64;
        out.push(format!(
            "the block rule {:?} alone: its values agree for 1 pair in {:.0} ({joined} of {all} pairs here; about \
             {:.1e} candidates at a million records a side): the field lacks the entropy to block alone, so join \
             it with another term (and = [...])",
            rule_name(schema, rule),
            1.0 / share,
            share * 1e12
        ));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_design_past_its_size_is_refused_by_name() {
        assert!(check_size(600_000, 400_000).is_ok());
        let e = check_size(600_000, 400_001).unwrap_err();
        assert_eq!(e.code(), "INVALID_PARAMETER");
        assert!(e.to_string().contains("1000001") && e.to_string().contains("gramlink blocks"), "{e}");
    }
}
