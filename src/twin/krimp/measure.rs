//! The generator's privacy and quality measures (Vreeken, van Leeuwen and
//! Siebes, ICDM 2007): the anonymity score AS and its normalized form NAS, and
//! the database dissimilarity of "Characterising the Difference" (KDD 2007).

use super::compress::{cover, full_mask, CodeTable};
use super::db::CategoricalDb;
use std::collections::{BTreeMap, HashMap, HashSet};

/// Definition 1: `AS(db_p, db_o) = Σ_s (1/s) · P(t ∈ db_p | t ∈ db_o, supp_o(t) = s)`,
/// summed over the support levels `s` of `db_o`. The probability is the share
/// of `db_o`'s rows of support `s` whose row also occurs in `db_p` (the same
/// over distinct rows or over rows: all copies of a row agree).
pub fn anonymity_score(generated: &[Vec<u32>], original: &[Vec<u32>]) -> f64 {
    let mut support: HashMap<&[u32], usize> = HashMap::new();
    for r in original {
        *support.entry(r.as_slice()).or_default() += 1;
    }
    let present: HashSet<&[u32]> = generated.iter().map(|r| r.as_slice()).collect();
    let mut levels: BTreeMap<usize, (usize, usize)> = BTreeMap::new();
    for (row, &s) in &support {
        let e = levels.entry(s).or_default();
        e.0 += 1;
        e.1 += usize::from(present.contains(row));
    }
    levels.iter().map(|(&s, &(n, hit))| hit as f64 / n as f64 / s as f64).sum()
}

/// Definition 2: `NAS = AS(db_p, db_o) / AS(db_o, db_o)`: 0 when no row of the
/// original occurs in the generated data, 1 when every one does.
pub fn normalized_anonymity_score(generated: &[Vec<u32>], original: &[Vec<u32>]) -> f64 {
    let top = anonymity_score(original, original);
    if top == 0.0 {
        0.0
    } else {
        anonymity_score(generated, original) / top
    }
}

/// The encoded size of `db`'s rows with `table`'s elements, with a Laplace
/// correction so that any row over the items can be covered: every item of the
/// dictionary is a singleton of the table, and every element's usage counts one
/// more (the reading taken of "Characterising the Difference", which adds such a
/// correction for exactly this purpose).
pub fn encoded_bits(db: &CategoricalDb, table: &CodeTable) -> f64 {
    let mut elements: Vec<(Vec<u32>, u64, f64)> = Vec::new();
    let mut singletons = vec![false; db.items.len()];
    for e in &table.elements {
        let mask = e.items.iter().fold(0u64, |m, &i| m | 1u64 << db.column_of(i));
        if e.items.len() == 1 {
            singletons[e.items[0] as usize] = true;
        }
        elements.push((e.items.clone(), mask, e.usage as f64 + 1.0));
    }
    for (i, has) in singletons.iter().enumerate() {
        if !has {
            elements.push((vec![i as u32], 1u64 << db.column_of(i as u32), 1.0));
        }
    }
    let total: f64 = elements.iter().map(|e| e.2).sum();
    let bits: Vec<f64> = elements.iter().map(|e| -(e.2 / total).log2()).collect();
    let full = full_mask(db.columns.len());
    let els = &elements;
    db.rows
        .iter()
        .map(|row| {
            cover(row, 0..els.len(), |e| (els[e].0.as_slice(), els[e].1), full).iter().map(|&e| bits[e]).sum::<f64>()
        })
        .sum()
}

/// `DS(D1, D2) = max(L(D2|CT1) / L(D2|CT2) − 1, L(D1|CT2) / L(D1|CT1) − 1)`,
/// with `CT_i` KRIMP's code table of `D_i` and sizes by [`encoded_bits`]:
/// 0 for databases KRIMP cannot tell apart, larger the more they differ.
pub fn dissimilarity(d1: &CategoricalDb, ct1: &CodeTable, d2: &CategoricalDb, ct2: &CodeTable) -> f64 {
    let (l11, l12) = (encoded_bits(d1, ct1), encoded_bits(d1, ct2));
    let (l22, l21) = (encoded_bits(d2, ct2), encoded_bits(d2, ct1));
    let a = if l22 > 0.0 { (l21 - l22) / l22 } else { 0.0 };
    let b = if l11 > 0.0 { (l12 - l11) / l11 } else { 0.0 };
    a.max(b)
}
