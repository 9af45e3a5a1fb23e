//! What the matcher can check of a batch without the key or the records: that
//! its numbers could have come from embedding real records over the shared base
//! (issue 31: a batch with values of 3e38, or a threshold of 1e308 that makes
//! one record a candidate for everything, was linked with exit 0).
//!
//! The bounds follow from the embedding alone ([`crate::embed`]): coordinate i
//! is `count_i / |g_i|`, a record has at most [`MAX_RECORD_BYTES`] symbols and
//! two padding symbols, so at most `N = MAX_RECORD_BYTES + 2` windows of each
//! length, each window one gram of that length at most. Hence
//! - `0 < value_i ≤ N / |g_i|` for an unkeyed (sparse) coordinate;
//! - `‖v‖₂ ≤ ‖v‖₁ ≤ Σ_ℓ N/ℓ` over the base's gram lengths ℓ, and the keyed
//!   rotation is orthogonal, so a keyed row (whose lengths the matcher does not
//!   see: ℓ up to [`MAX_SHAPE_LEN`]) has the same norm bound, and each of its
//!   coordinates is at most its norm;
//! - a threshold for `ed` edits is at most [`THRESHOLD_ROOM`] times the larger
//!   of the global bound `Δq·ed` ([`crate::threshold::global_bound`], the
//!   default global value) and `√(2Δq)·ed`, the most `ed` edits can move a
//!   vector (the proof of Proposition 6.9 there), with `Δq` from the shape's
//!   lengths (keyed: [`MAX_SHAPE_LEN`]). The sound thresholds stay below that
//!   with their rounding margin; the room above is for an owner's own global
//!   value (`--global-threshold`). `ed` itself is at most [`MAX_ED`].
//!
//! With a shape that names complete classes, each sparse row must also be the
//! window counts of one string (`check_windows`): the sketch sums counts
//! within a length, so this holds for sketched rows too.
//!
//! These catch a careless or broken party, not a forger who keeps within them:
//! that is what the batch signatures are for ([`super::signature`]).

use crate::dataset::MAX_RECORD_BYTES;
use crate::embed::BatchVectors;
use crate::error::ProtocolError;
use crate::shape::{Shape, MAX_SHAPE_LEN};
use crate::threshold::MAX_ED;

/// Windows of one length a record can have (its symbols and two padding symbols).
const WINDOWS: f64 = (MAX_RECORD_BYTES + 2) as f64;

/// Relative room above the bounds for f32 rounding and the sound thresholds'
/// margin (at most a few percent for a record of [`MAX_RECORD_BYTES`]).
pub const SLACK: f64 = 0.1;

/// How far above the most `ed` edits can move a vector a threshold may be.
pub const THRESHOLD_ROOM: f64 = 2.0;

/// The bounds of one batch's (or one record field's) numbers.
#[derive(Debug, Clone, Copy)]
pub struct Bounds {
    /// Largest row norm.
    norm: f64,
    /// `Δq`, the span of gram lengths.
    span: f64,
}

impl Bounds {
    /// The bounds for vectors of `shape` (unkeyed), or of any base's lengths up
    /// to [`MAX_SHAPE_LEN`] without one (keyed).
    pub fn of(shape: Option<&Shape>) -> Bounds {
        let mut lengths: Vec<u8> = match shape {
            Some(s) => s.lengths.clone(),
            None => (1..=MAX_SHAPE_LEN).collect(),
        };
        crate::sorting::sort_keys(&mut lengths);
        lengths.dedup();
        let norm = lengths.iter().map(|&l| WINDOWS / f64::from(l.max(1))).sum::<f64>();
        let span = match (lengths.first(), lengths.last()) {
            (Some(&lo), Some(&hi)) => f64::from(hi - lo + 1),
            _ => 1.0,
        };
        Bounds { norm, span }
    }

    /// The largest threshold a record may carry for `ed` edits.
    pub fn threshold(&self, ed: u32) -> f64 {
        let ed = f64::from(ed.max(1));
        self.span.max((2.0 * self.span).sqrt()) * ed * THRESHOLD_ROOM
    }

    /// Checks every row of `vectors`: norms within the bound, and for sparse
    /// rows each coordinate positive and at most `N / |g|` (`shape` gives |g|).
    pub fn check_vectors(&self, vectors: &BatchVectors, shape: Option<&Shape>) -> Result<(), String> {
        let limit = self.norm * (1.0 + SLACK);
        match vectors {
            BatchVectors::Dense(v) => {
                for (r, row) in v.data.chunks(v.dim.max(1)).enumerate() {
                    let norm = row.iter().map(|&x| f64::from(x) * f64::from(x)).sum::<f64>().sqrt();
                    if norm > limit {
                        return Err(format!(
                            "row {} has norm {norm:e}, more than any record can have ({limit:.0})",
                            r + 1
                        ));
                    }
                }
            }
            BatchVectors::Sparse(s) => {
                for r in 0..s.len() {
                    let (cols, vals) = s.row(r);
                    let mut sq = 0.0;
                    for (&c, &x) in cols.iter().zip(vals) {
                        let len = shape.and_then(|sh| sh.lengths.get(c as usize)).copied().unwrap_or(1).max(1);
                        let most = WINDOWS / f64::from(len) * (1.0 + SLACK);
                        if !(x > 0.0 && f64::from(x) <= most) {
                            return Err(format!(
                                "row {}, coordinate {c}: value {x:e} is not a count a record can have (0 to {most:.0})",
                                r + 1
                            ));
                        }
                        sq += f64::from(x) * f64::from(x);
                    }
                    if sq.sqrt() > limit {
                        return Err(format!("row {} has norm {:e}, more than any record can have", r + 1, sq.sqrt()));
                    }
                    if let Some(shape) = shape.filter(|sh| !sh.complete.is_empty()) {
                        check_windows(cols, vals, shape).map_err(|e| format!("row {}: {e}", r + 1))?;
                    }
                }
            }
        }
        Ok(())
    }

    /// Checks a batch's thresholds for `ed` edits.
    pub fn check_thresholds(&self, ed: u32, values: &[f64]) -> Result<(), String> {
        if ed > MAX_ED {
            return Err(format!("ed {ed} is more than the {MAX_ED} edits thresholds are made for"));
        }
        let most = self.threshold(ed);
        if let Some(i) = values.iter().position(|&t| !(t.is_finite() && (0.0..=most).contains(&t))) {
            return Err(format!(
                "the threshold of record {} is {:e}: thresholds for ed {ed} are from 0 to {most:.3} over this base's gram lengths",
                i + 1,
                values[i]
            ));
        }
        Ok(())
    }
}

/// The error of an implausible `what`.
pub fn implausible(what: &str) -> impl Fn(String) -> ProtocolError + '_ {
    move |reason| ProtocolError::Implausible { what: what.into(), reason }
}

/// The counts of one sparse row (values `count / |g|`) could be a record's.
///
/// Records are normalized onto Σ, so every window of a padded record of `m`
/// symbols is a symbol string over Σ and the padding: a complete class of
/// length c holds all of its `m − c + 1` windows, and any class of length ℓ at
/// most `m − ℓ + 1`. So each value times its length is a whole count; every
/// complete class gives the same `m + 1 = total_c + c`; and every class's
/// total is at most `m + 1 − ℓ`. The sketch only sums counts within a length,
/// so sketched rows satisfy the same.
fn check_windows(cols: &[u32], vals: &[f32], shape: &Shape) -> Result<(), String> {
    if cols.is_empty() {
        return Ok(());
    }
    // total count per length (1..=MAX_SHAPE_LEN)
    let mut total = [0u64; MAX_SHAPE_LEN as usize + 1];
    for (&c, &x) in cols.iter().zip(vals) {
        let len = shape.lengths.get(c as usize).copied().unwrap_or(1).max(1);
        let count = f64::from(x) * f64::from(len);
        let whole = count.round();
        if whole < 1.0 || (count - whole).abs() > 1e-3 * whole.max(1.0) {
            return Err(format!("coordinate {c} holds {x}, not a whole count of grams of length {len}"));
        }
        total[len as usize] += whole as u64;
    }
    let mut span: Option<(u8, u64)> = None;
    for &c in &shape.complete {
        let m1 = total[c as usize] + u64::from(c);
        match span {
            Some((d, m)) if m != m1 => {
                return Err(format!(
                    "its complete classes disagree on the record's length ({} windows of length {d}, {} of length {c})",
                    m - u64::from(d),
                    total[c as usize]
                ))
            }
            _ => span = Some((c, m1)),
        }
    }
    let Some((c, m1)) = span else { return Ok(()) };
    if total[c as usize] == 0 {
        return Err(format!("it has grams but no window of its complete length {c}"));
    }
    for (len, &t) in total.iter().enumerate().skip(1) {
        if t > 0 && t + len as u64 > m1 {
            return Err(format!(
                "{t} windows of length {len}, more than a record with {} of length {c} has",
                total[c as usize]
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::embed::Vectors;

    fn shape(lengths: &[u8]) -> Shape {
        Shape { lengths: lengths.to_vec(), complete: Vec::new() }
    }

    #[test]
    fn huge_values_and_thresholds_are_refused_and_real_ones_pass() {
        let sh = shape(&[1, 2, 3, 3]);
        let b = Bounds::of(Some(&sh));
        // the global bound Δq·ed = 3·ed and a sound threshold both pass
        b.check_thresholds(2, &[0.0, 1.3, 6.0, 12.0]).unwrap();
        for bad in [1e308, f64::INFINITY, -1.0, 12.5] {
            let e = b.check_thresholds(2, &[1.0, bad]).unwrap_err();
            assert!(e.contains("record 2"), "{e}");
        }
        assert!(b.check_thresholds(MAX_ED + 1, &[]).is_err());
        let dense = |x: f32| BatchVectors::Dense(Vectors { dim: 4, data: vec![x, 0.0, 1.0, 2.0] });
        Bounds::of(None).check_vectors(&dense(3.0), None).unwrap();
        let e = Bounds::of(None).check_vectors(&dense(3e38), None).unwrap_err();
        assert!(e.contains("row 1") && e.contains("norm"), "{e}");
        // a record of MAX_RECORD_BYTES 'A's: 4097 windows of "A" (with padding) pass
        let mut s = crate::sparse_vectors::SparseVectors::new(4);
        s.push_row([(0u32, 4097.0f32), (1, 2048.0)]);
        b.check_vectors(&BatchVectors::Sparse(s), Some(&sh)).unwrap();
        let mut s = crate::sparse_vectors::SparseVectors::new(4);
        s.push_row([(2u32, 3e38f32)]);
        assert!(b.check_vectors(&BatchVectors::Sparse(s), Some(&sh)).unwrap_err().contains("coordinate 2"));
    }

    #[test]
    fn rows_must_be_the_window_counts_of_one_string() {
        use crate::alphabet::Alphabet;
        use crate::base::SharedBase;
        use crate::padding::Padding;
        // the recommended base's shape: every padded 2-gram (complete) and some 3-grams
        let al = Alphabet::default();
        let mut grams = crate::public::public_grams(&al, 2, Some(Padding::default())).unwrap();
        grams.extend(["SMI", "MIT", "ITH", "^SM", "TH$"].map(String::from));
        let base = SharedBase::with_padding(al, 2, 3, grams, Some(Padding::default())).unwrap();
        let sh = Shape::of(&base);
        assert_eq!(sh.complete, vec![2]);
        let e = crate::embed::Embedder::new(&base).unwrap();
        let mut real = crate::sparse_vectors::SparseVectors::new(e.dim());
        for w in ["SMITH", "A", "SMITHSMITH", "O BRIEN"] {
            real.push_row(e.embed_sparse(w).into_iter().map(|(c, x)| (c as u32, x)));
        }
        let b = Bounds::of(Some(&sh));
        b.check_vectors(&BatchVectors::Sparse(real.clone()), Some(&sh)).unwrap();
        // sketched rows keep the class totals
        let key = crate::keyed::Key::from_bytes([5; 32]);
        let sk = crate::keyed::Sketch::new(&key, base.fingerprint(), &sh, 4).unwrap();
        let sketched = sk.apply(&real).unwrap();
        Bounds::of(Some(sk.shape())).check_vectors(&BatchVectors::Sparse(sketched), Some(sk.shape())).unwrap();
        let three = (0..e.dim() as u32).find(|&c| sh.lengths[c as usize] == 3).unwrap();
        let two = (0..e.dim() as u32).find(|&c| sh.lengths[c as usize] == 2).unwrap();
        let refused = |row: &[(u32, f32)]| {
            let mut s = crate::sparse_vectors::SparseVectors::new(e.dim());
            s.push_row(row.iter().copied());
            b.check_vectors(&BatchVectors::Sparse(s), Some(&sh)).unwrap_err()
        };
        // 3 windows of length 2 (a 2-symbol record) cannot hold 3 of length 3
        assert!(refused(&[(two, 1.5), (three, 1.0)]).contains("windows of length 3"));
        // grams but no window of the complete length
        assert!(refused(&[(three, 1.0 / 3.0)]).contains("complete length 2"));
        // not a whole count of bigrams
        assert!(refused(&[(two, 0.3)]).contains("not a whole count"));
    }
}
