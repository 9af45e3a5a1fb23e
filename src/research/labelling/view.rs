//! What the labelling and pattern-mining attacks read: the rows C receives
//! (as coordinate and count lists, with the spread their label declares) and
//! what C knows besides them.

use crate::base::SharedBase;
use crate::embed::BatchVectors;
use crate::error::Error;
use crate::protocol::VectorBatch;
use crate::shape::Shape;

/// What C holds besides the rows, and what the experiment scores them with.
#[derive(Clone, Copy)]
pub struct Known<'a> {
    /// The shared base (every gram and its length).
    pub base: &'a SharedBase,
    /// C's public list: values and frequencies.
    pub prior: &'a [(String, f64)],
    /// C's candidate values.
    pub dictionary: &'a [String],
    /// Each row's true value (the experiment's, to score).
    pub truth: &'a [String],
    /// Rows decoded, drawn at random.
    pub targets: usize,
}

/// What C sees of one batch or one part of a record batch: sparse rows, their
/// public shape, and the grams a coordinate counts (the label's spread; 1
/// unkeyed).
#[derive(Clone, Copy)]
pub struct Coordinates<'a> {
    pub vectors: &'a BatchVectors,
    pub shape: &'a Shape,
    pub spread: usize,
}

/// The shape `batch` carries, without which C cannot read its sparse rows.
pub fn shape_of(batch: &VectorBatch) -> Result<&Shape, Error> {
    batch.shape.as_ref().ok_or_else(|| Error::Parameter("the batch carries no shape".into()))
}

/// The spread a sketched batch declares (`sketch-v2:<spread>:…`); 1 for an
/// unkeyed batch with a shape (its coordinates are the grams themselves).
pub(super) fn spread_of(batch: &VectorBatch) -> Result<usize, Error> {
    match batch.transform.as_deref() {
        None => Ok(1),
        Some(t) => t
            .strip_prefix(crate::keyed::SKETCH_PREFIX)
            .and_then(|r| r.split_once(':'))
            .and_then(|(s, _)| s.parse().ok())
            .ok_or_else(|| Error::Parameter(format!("the labelling attack needs a sparse batch, not {t:?}"))),
    }
}

/// The rows as (coordinate, count) lists.
pub(super) fn counted_rows(vectors: &BatchVectors, shape: &Shape) -> Result<Vec<Vec<(u32, u32)>>, Error> {
    let BatchVectors::Sparse(v) = vectors else {
        return Err(Error::Parameter("the labelling attack needs a sparse batch (the rotation is dense)".into()));
    };
    let count = |(&c, &x): (&u32, &f32)| (c, (x as f64 * shape.lengths[c as usize] as f64).round() as u32);
    Ok((0..v.len()).map(|r| v.row(r)).map(|(cols, vals)| cols.iter().zip(vals).map(count).collect()).collect())
}

/// The rows' mean counts and second moments over `m` coordinates.
pub(super) fn moments(rows: &[Vec<(u32, u32)>], m: usize) -> (Vec<f64>, Vec<f64>) {
    let (mut mu, mut q) = (vec![0.0; m], vec![0.0; m * m]);
    let n = rows.len().max(1) as f64;
    for row in rows {
        for &(b, x) in row {
            mu[b as usize] += x as f64 / n;
            for &(c, y) in row {
                q[b as usize * m + c as usize] += (x * y) as f64 / n;
            }
        }
    }
    (mu, q)
}
