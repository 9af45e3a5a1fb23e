//! Building the q-gram count filter's index over B (the order of coordinates,
//! the posting lists sorted by class total, the row signatures); the filter's
//! argument is in the parent module's documentation.

use super::filter::{posting_key, Classes, CountFilter, Rows, MAX_TOTAL};
use super::signature::{signature, signature_bits};
use crate::error::Error;
use crate::shape::Shape;
use crate::sparse_vectors::RowSource;

pub(super) fn build<'v>(
    a: &'v dyn RowSource,
    b: &'v dyn RowSource,
    ed: u32,
    shape: &Shape,
) -> Result<CountFilter<'v>, Error> {
    if a.dim() != b.dim() {
        return Err(Error::Parameter(format!(
            "dimension mismatch: A's vectors have {} components, B's {}",
            a.dim(),
            b.dim()
        )));
    }
    shape.validate(a.dim()).map_err(Error::Parameter)?;
    let Some(fl) = shape.filter_length() else {
        return Err(Error::Parameter("the q-gram filter needs a base with a complete gram class (every public 2-gram of Σ, as the recommended preset makes)".into()));
    };
    if ed > crate::threshold::MAX_ED {
        return Err(Error::Parameter(format!("ed {ed} is above the largest accepted, {}", crate::threshold::MAX_ED)));
    }
    let cl = Classes::new(shape);
    let f = cl.len.iter().position(|&l| l == fl as i64).unwrap_or(0);
    let (ra, rb) = (Rows::new(a, &cl), Rows::new(b, &cl));
    let k = cl.len.len();
    if ra.totals.iter().chain(&rb.totals).any(|&t| t > MAX_TOTAL) {
        return Err(Error::Parameter(format!(
            "a vector's gram counts add up to more than {MAX_TOTAL}: no record of at most a few thousand characters has as many"
        )));
    }
    let tot = |r: usize| rb.totals[r * k + f];
    let mut by_total: Vec<u32> = (0..b.rows() as u32).collect();
    crate::sorting::sort_by(&mut by_total, |&x, &y| tot(x as usize).cmp(&tot(y as usize)).then(x.cmp(&y)));
    let by_total_n = by_total.iter().map(|&r| tot(r as usize)).collect();
    let mut df = vec![0usize; a.dim()];
    for x in 0..rb.m.cols.len() {
        if cl.count(rb.m.cols[x] as usize, rb.m.vals[x]) > 0 {
            df[rb.m.cols[x] as usize] += 1;
        }
    }
    let mut coords: Vec<usize> = (0..a.dim()).filter(|&c| cl.of[c] == f).collect();
    crate::sorting::sort_by(&mut coords, |&x, &y| df[x].cmp(&df[y]).then(x.cmp(&y)));
    let bit = signature_bits(&df, |c| cl.of[c] == f);
    let mut rank = vec![u32::MAX; a.dim()];
    for (i, &c) in coords.iter().enumerate() {
        rank[c] = i as u32;
    }
    // Per coordinate: (key, row, signature), sorted by key then row, the key
    // (N_f, pre) packed so that one binary search finds a group's prefix.
    let mut lists: Vec<Vec<(u64, u32, u64)>> = vec![Vec::new(); a.dim()];
    let mut mine: Vec<(u32, usize)> = Vec::new();
    for &r in &by_total {
        mine.clear();
        mine.extend(
            rb.range(r as usize)
                .filter(|&x| cl.of[rb.m.cols[x] as usize] == f && cl.count(rb.m.cols[x] as usize, rb.m.vals[x]) > 0)
                .map(|x| (rank[rb.m.cols[x] as usize], x)),
        );
        crate::sorting::sort_by(&mut mine, |x, y| x.0.cmp(&y.0));
        let sig = signature(&bit, mine.iter().map(|&(_, x)| rb.m.cols[x] as usize));
        let mut pre = 0i64;
        for &(_, x) in &mine {
            lists[rb.m.cols[x] as usize].push((posting_key(tot(r as usize), pre), r, sig));
            pre += cl.count(rb.m.cols[x] as usize, rb.m.vals[x]);
        }
    }
    let mut postings: Vec<Vec<u32>> = Vec::with_capacity(a.dim());
    let mut posting_key: Vec<Vec<u64>> = Vec::with_capacity(a.dim());
    let mut posting_sig: Vec<Vec<u64>> = Vec::with_capacity(a.dim());
    for mut l in lists {
        // rows were pushed in (N_f, row) order: a stable sort by key keeps rows ascending
        crate::sorting::sort_by(&mut l, |x, y| x.0.cmp(&y.0));
        postings.push(l.iter().map(|e| e.1).collect());
        posting_key.push(l.iter().map(|e| e.0).collect());
        posting_sig.push(l.iter().map(|e| e.2).collect());
    }
    Ok(CountFilter {
        cl,
        a: ra,
        b: rb,
        f,
        ed: ed as i64,
        by_total,
        by_total_n,
        postings,
        posting_key,
        posting_sig,
        rank,
        bit,
    })
}
