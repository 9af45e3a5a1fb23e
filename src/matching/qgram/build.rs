//! Building the q-gram count filter's index over B (the order of coordinates,
//! the posting lists sorted by class total, the row signatures); the filter's
//! argument is in the parent module's documentation.

use super::{signature, Classes, CountFilter, Rows};
use crate::error::Error;
use crate::shape::Shape;
use crate::sparse_vectors::RowSource;

pub(super) fn build(a: &dyn RowSource, b: &dyn RowSource, ed: u32, shape: &Shape) -> Result<CountFilter, Error> {
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
    let tot = |r: usize| rb.totals[r * k + f];
    let mut by_total: Vec<u32> = (0..b.rows() as u32).collect();
    crate::sorting::sort_by(&mut by_total, |&x, &y| tot(x as usize).cmp(&tot(y as usize)).then(x.cmp(&y)));
    let by_total_n = by_total.iter().map(|&r| tot(r as usize)).collect();
    let mut df = vec![0usize; a.dim()];
    for x in 0..rb.cols.len() {
        if rb.counts[x] > 0 {
            df[rb.cols[x] as usize] += 1;
        }
    }
    let mut coords: Vec<usize> = (0..a.dim()).filter(|&c| cl.of[c] == f).collect();
    crate::sorting::sort_by(&mut coords, |&x, &y| df[x].cmp(&df[y]).then(x.cmp(&y)));
    let mut rank = vec![u32::MAX; a.dim()];
    for (i, &c) in coords.iter().enumerate() {
        rank[c] = i as u32;
    }
    let mut postings: Vec<Vec<u32>> = vec![Vec::new(); a.dim()];
    let mut posting_pre: Vec<Vec<i64>> = vec![Vec::new(); a.dim()];
    let mut posting_sig: Vec<Vec<u64>> = vec![Vec::new(); a.dim()];
    let mut mine: Vec<(u32, usize)> = Vec::new();
    for &r in &by_total {
        mine.clear();
        mine.extend(
            rb.range(r as usize)
                .filter(|&x| cl.of[rb.cols[x] as usize] == f && rb.counts[x] > 0)
                .map(|x| (rank[rb.cols[x] as usize], x)),
        );
        crate::sorting::sort_by(&mut mine, |x, y| x.0.cmp(&y.0));
        let sig = signature(mine.iter().map(|&(_, x)| rb.cols[x] as usize));
        let mut pre = 0;
        for &(_, x) in &mine {
            let c = rb.cols[x] as usize;
            postings[c].push(r);
            posting_pre[c].push(pre);
            posting_sig[c].push(sig);
            pre += rb.counts[x];
        }
    }
    let posting_n = postings.iter().map(|p| p.iter().map(|&r| tot(r as usize)).collect()).collect();
    Ok(CountFilter {
        cl,
        a: ra,
        b: rb,
        f,
        ed: ed as i64,
        by_total,
        by_total_n,
        postings,
        posting_n,
        posting_pre,
        posting_sig,
        rank,
    })
}
