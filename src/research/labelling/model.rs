//! What the labelling attack models and reports: the public list's moments
//! over the base's grams, and the share of targets it named.

use crate::base::SharedBase;
use crate::embed::Embedder;
use serde::{Deserialize, Serialize};

/// What the labelling attack got back.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
pub struct LabellingReport {
    /// Share of the target records named correctly (expected over ties).
    pub records: f64,
    /// The same, averaged per distinct value among the targets.
    pub distinct: f64,
    /// Records attacked.
    pub targets: usize,
    /// Share of targets whose vector equals the learned encoding of some public name.
    pub exact: f64,
    /// The search's final objective relative to the moments' own size (0: matched exactly).
    pub residual: f64,
}

pub(super) struct Model {
    /// Per gram: class (gram length), mean count.
    pub(super) len: Vec<u8>,
    pub(super) mu: Vec<f64>,
    /// Dense second moments over grams (d × d).
    pub(super) m2: Vec<f64>,
    pub(super) d: usize,
}

/// Each gram's length (its class), in the base's order.
pub(super) fn gram_lengths(base: &SharedBase) -> Vec<u8> {
    base.grams().iter().map(|g| g.chars().count() as u8).collect()
}

pub(super) fn model(embedder: &Embedder, base: &SharedBase, prior: &[(String, f64)]) -> Model {
    let d = base.len();
    let len = gram_lengths(base);
    let (mut mu, mut m2) = (vec![0.0; d], vec![0.0; d * d]);
    let total: f64 = prior.iter().map(|(_, w)| w).sum();
    for (name, w) in prior {
        let w = w / total;
        let nz: Vec<(usize, f64)> =
            embedder.embed_sparse(name).into_iter().map(|(g, v)| (g, (v as f64 * len[g] as f64).round())).collect();
        for &(g, x) in &nz {
            mu[g] += w * x;
            for &(h, y) in &nz {
                m2[g * d + h] += w * x * y;
            }
        }
    }
    Model { len, mu, m2, d }
}
