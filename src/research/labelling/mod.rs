//! The labelling attack on sparse keyed batches (the sketch, or any encoding
//! that sends each gram to few coordinates): C learns which grams each
//! coordinate counts from the batch's moments alone, then runs the dictionary
//! attack through the learned map.
//!
//! What C holds: the batch (sparse counts with their public shape, the
//! spread in the public label), the shared base (every gram and its length),
//! and a public list with the frequencies of the data's values: the worst
//! case, where C's list covers the data and its frequencies are exact.
//!
//! 1. **Moments.** For the base's grams, C computes from its list the mean
//!    count `μ_g` and the second moments `M_gh = E[x_g·x_h]`; from the batch,
//!    the same of each coordinate, `μ_b`, `Q_bc`. A map `β` from grams to
//!    coordinates (within a gram length, at most `spread` grams each) predicts
//!    `μ̂ = Pμ` and `Q̂ = P M Pᵀ`, linear in the 0/1 assignment `P`: with the
//!    true map and exact frequencies, both equal the batch's.
//! 2. **Search.** Start from a greedy fill by frequency (each gram, most
//!    frequent first, to the coordinate whose observed mean is least
//!    explained), then simulated annealing over swaps of two grams of one
//!    length, minimizing `‖μ̂ − μ‖² + ‖Q̂ − Q‖²_F` (each swap's change is
//!    computed in `O(coordinates)`).
//! 3. **Decoding.** C encodes every public name through the learned map and
//!    names each target record after the public name with the same encoding,
//!    or else its nearest among the names of the same length class total,
//!    ties broken uniformly (a target counts `1/|tie|` when its true name is
//!    among them).

use crate::dp::Randomness;
use crate::embed::Embedder;
use crate::error::Error;
use crate::protocol::VectorBatch;
use std::collections::HashMap;

mod decode;
mod model;
mod patterns;
mod view;
use decode::{decode, frequency_anchors, refine};
pub use model::LabellingReport;
use model::{model, Model};
pub use patterns::{pattern_attack, pattern_attack_rows, MIN_PAIR};
use view::{counted_rows, moments, spread_of};
pub use view::{shape_of, Coordinates, Known};

/// Options of the search.
#[derive(Debug, Clone, Copy)]
pub struct Search {
    /// Swap proposals per gram of the base.
    pub sweeps: usize,
    pub seed: u64,
}

/// The search's state: the map, its predicted moments, and per gram its
/// second moments summed over each coordinate's grams (`A[g][b]`).
struct State<'a> {
    md: &'a Model,
    m: usize,
    map: Vec<u32>,
    members: Vec<Vec<u32>>,
    mu_hat: Vec<f64>,
    q_hat: Vec<f64>,
    agg: Vec<f64>,
}

impl<'a> State<'a> {
    fn new(md: &'a Model, m: usize, map: Vec<u32>) -> State<'a> {
        let d = md.d;
        let mut members = vec![Vec::new(); m];
        for (g, &b) in map.iter().enumerate() {
            members[b as usize].push(g as u32);
        }
        let mut agg = vec![0.0; d * m];
        for x in 0..d {
            for (g, &b) in map.iter().enumerate() {
                agg[x * m + b as usize] += md.m2[x * d + g];
            }
        }
        let mut mu_hat = vec![0.0; m];
        let mut q_hat = vec![0.0; m * m];
        for (g, &b) in map.iter().enumerate() {
            mu_hat[b as usize] += md.mu[g];
            for c in 0..m {
                q_hat[b as usize * m + c] += agg[g * m + c];
            }
        }
        State { md, m, map, members, mu_hat, q_hat, agg }
    }

    fn objective(&self, mu: &[f64], q: &[f64]) -> f64 {
        let a: f64 = self.mu_hat.iter().zip(mu).map(|(x, y)| (x - y) * (x - y)).sum();
        a + self.q_hat.iter().zip(q).map(|(x, y)| (x - y) * (x - y)).sum::<f64>()
    }

    /// The objective's change if grams `g` (at b1) and `h` (at b2) swapped.
    fn delta(&self, g: usize, h: usize, mu: &[f64], q: &[f64]) -> f64 {
        let (m, d) = (self.m, self.md.d);
        let (b1, b2) = (self.map[g] as usize, self.map[h] as usize);
        let sq = |new: f64, target: f64, old: f64| (new - target).powi(2) - (old - target).powi(2);
        let dm = self.md.mu[h] - self.md.mu[g];
        let mut out =
            sq(self.mu_hat[b1] + dm, mu[b1], self.mu_hat[b1]) + sq(self.mu_hat[b2] - dm, mu[b2], self.mu_hat[b2]);
        let vmv = self.md.m2[h * d + h] + self.md.m2[g * d + g] - 2.0 * self.md.m2[g * d + h];
        for b in 0..m {
            let v = self.agg[h * m + b] - self.agg[g * m + b];
            if b == b1 || b == b2 {
                continue;
            }
            out += 2.0 * sq(self.q_hat[b1 * m + b] + v, q[b1 * m + b], self.q_hat[b1 * m + b]);
            out += 2.0 * sq(self.q_hat[b2 * m + b] - v, q[b2 * m + b], self.q_hat[b2 * m + b]);
        }
        let v1 = self.agg[h * m + b1] - self.agg[g * m + b1];
        let v2 = self.agg[h * m + b2] - self.agg[g * m + b2];
        out += sq(self.q_hat[b1 * m + b1] + 2.0 * v1 + vmv, q[b1 * m + b1], self.q_hat[b1 * m + b1]);
        out += sq(self.q_hat[b2 * m + b2] - 2.0 * v2 + vmv, q[b2 * m + b2], self.q_hat[b2 * m + b2]);
        out += 2.0 * sq(self.q_hat[b1 * m + b2] - v1 + v2 - vmv, q[b1 * m + b2], self.q_hat[b1 * m + b2]);
        out
    }

    fn swap(&mut self, g: usize, h: usize) {
        let (m, d) = (self.m, self.md.d);
        let (b1, b2) = (self.map[g] as usize, self.map[h] as usize);
        let dm = self.md.mu[h] - self.md.mu[g];
        self.mu_hat[b1] += dm;
        self.mu_hat[b2] -= dm;
        let vmv = self.md.m2[h * d + h] + self.md.m2[g * d + g] - 2.0 * self.md.m2[g * d + h];
        let v1 = self.agg[h * m + b1] - self.agg[g * m + b1];
        let v2 = self.agg[h * m + b2] - self.agg[g * m + b2];
        for b in 0..m {
            if b == b1 || b == b2 {
                continue;
            }
            let v = self.agg[h * m + b] - self.agg[g * m + b];
            self.q_hat[b1 * m + b] += v;
            self.q_hat[b * m + b1] += v;
            self.q_hat[b2 * m + b] -= v;
            self.q_hat[b * m + b2] -= v;
        }
        self.q_hat[b1 * m + b1] += 2.0 * v1 + vmv;
        self.q_hat[b2 * m + b2] += -2.0 * v2 + vmv;
        let c = -v1 + v2 - vmv;
        self.q_hat[b1 * m + b2] += c;
        self.q_hat[b2 * m + b1] += c;
        for x in 0..d {
            let t = self.md.m2[x * d + h] - self.md.m2[x * d + g];
            self.agg[x * m + b1] += t;
            self.agg[x * m + b2] -= t;
        }
        self.map[g] = b2 as u32;
        self.map[h] = b1 as u32;
        self.members[b1].retain(|&x| x != g as u32);
        self.members[b1].push(h as u32);
        self.members[b2].retain(|&x| x != h as u32);
        self.members[b2].push(g as u32);
    }
}

/// Greedy start by pursuit: grams by decreasing mean, each placed (among the
/// coordinates of its length with room) where it lowers the objective most,
/// given the grams placed before it (unplaced grams count for nothing, so
/// the first placements follow the strongest signals: the frequent grams).
fn greedy(md: &Model, shape_len: &[u8], mu: &[f64], q: &[f64], spread: usize) -> Result<Vec<u32>, Error> {
    let (d, m) = (md.d, shape_len.len());
    let mut map = vec![u32::MAX; d];
    let mut filled = vec![0usize; m];
    let mut mu_hat = vec![0.0; m];
    let mut q_hat = vec![0.0; m * m];
    // agg[g * m + b]: Σ of M[g][h] over the grams h placed at b
    let mut agg = vec![0.0; d * m];
    let mut order: Vec<usize> = (0..d).collect();
    order.sort_by(|&a, &b| md.mu[b].total_cmp(&md.mu[a]));
    let sq = |new: f64, target: f64, old: f64| (new - target).powi(2) - (old - target).powi(2);
    for g in order {
        let class = md.len[g].min(crate::shape::MAX_SHAPE_LEN);
        let mut best: Option<(f64, usize)> = None;
        for b in (0..m).filter(|&b| shape_len[b] == class && filled[b] < spread) {
            let mut delta = sq(mu_hat[b] + md.mu[g], mu[b], mu_hat[b]);
            for c in 0..m {
                if c == b {
                    continue;
                }
                let v = agg[g * m + c];
                if v != 0.0 {
                    delta += 2.0 * sq(q_hat[b * m + c] + v, q[b * m + c], q_hat[b * m + c]);
                }
            }
            let diag = 2.0 * agg[g * m + b] + md.m2[g * d + g];
            delta += sq(q_hat[b * m + b] + diag, q[b * m + b], q_hat[b * m + b]);
            if best.is_none_or(|(x, _)| delta < x) {
                best = Some((delta, b));
            }
        }
        let Some((_, b)) = best else {
            return Err(Error::Parameter(format!("no coordinate left for a gram of length {}", md.len[g])));
        };
        for c in 0..m {
            if c != b {
                let v = agg[g * m + c];
                q_hat[b * m + c] += v;
                q_hat[c * m + b] += v;
            }
        }
        q_hat[b * m + b] += 2.0 * agg[g * m + b] + md.m2[g * d + g];
        mu_hat[b] += md.mu[g];
        for x in 0..d {
            agg[x * m + b] += md.m2[x * d + g];
        }
        map[g] = b as u32;
        filled[b] += 1;
    }
    Ok(map)
}

/// Runs the attack on `batch` (as C receives it) with what C `known`s.
pub fn labelling_attack(batch: &VectorBatch, known: Known<'_>, search: Search) -> Result<LabellingReport, Error> {
    let Known { base, prior, dictionary, truth, targets } = known;
    let spread = spread_of(batch)?;
    let embedder = Embedder::new(base)?;
    let md = model(&embedder, base, prior);
    let shape = shape_of(batch)?;
    let rows = counted_rows(&batch.vectors, shape)?;
    let (mu, q) = moments(&rows, batch.vectors.dim());
    let m = shape.lengths.len();
    let mut rng = Randomness::seeded(search.seed);
    // two starts, each annealed; C keeps the map whose moments fit best (it needs
    // no truth for that)
    let starts = [fill(&md, &shape.lengths, &mu, spread)?, greedy(&md, &shape.lengths, &mu, &q, spread)?];
    let mut best: Option<(f64, Vec<u32>)> = None;
    for start in starts {
        let mut st = State::new(&md, m, start);
        anneal(&mut st, &md, &mu, &q, search.sweeps, &mut rng);
        let obj = st.objective(&mu, &q);
        if best.as_ref().is_none_or(|(b, _)| obj < *b) {
            best = Some((obj, st.map));
        }
    }
    let (obj, map) = best.expect("two starts");
    let scale: f64 = mu.iter().map(|x| x * x).sum::<f64>() + q.iter().map(|x| x * x).sum::<f64>();
    let residual = obj / scale.max(f64::MIN_POSITIVE);
    let seeds = frequency_anchors(&rows, prior, dictionary);
    let map = refine(map, &embedder, &md.len, shape, &rows, dictionary, spread, &seeds);
    decode(&map, &embedder, shape, &rows, dictionary, truth, targets, residual, &mut rng)
}

/// Simulated annealing over swaps of two grams of one length (geometric
/// cooling from the median change of a proposal to 10⁻⁴ of it).
fn anneal(st: &mut State<'_>, md: &Model, mu: &[f64], q: &[f64], sweeps: usize, rng: &mut Randomness) {
    let uniform = |rng: &mut Randomness| (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64;
    let by_class: HashMap<u8, Vec<usize>> = (0..md.d).fold(HashMap::new(), |mut h, g| {
        h.entry(md.len[g]).or_default().push(g);
        h
    });
    let movable: Vec<usize> = (0..md.d).filter(|&g| by_class[&md.len[g]].len() > 1).collect();
    if movable.is_empty() {
        return;
    }
    let pick = |rng: &mut Randomness| {
        let g = movable[(uniform(rng) * movable.len() as f64) as usize];
        let class = &by_class[&md.len[g]];
        (g, class[(uniform(rng) * class.len() as f64) as usize])
    };
    let mut sample = Vec::new();
    for _ in 0..200 {
        let (g, h) = pick(rng);
        if st.map[g] != st.map[h] {
            sample.push(st.delta(g, h, mu, q).abs());
        }
    }
    sample.sort_by(f64::total_cmp);
    let t0 = sample.get(sample.len() / 2).copied().unwrap_or(1e-9).max(1e-12);
    let steps = sweeps * md.d;
    for step in 0..steps {
        let t = t0 * (1e-4f64).powf(step as f64 / steps as f64);
        let (g, h) = pick(rng);
        if st.map[g] == st.map[h] {
            continue;
        }
        let dl = st.delta(g, h, mu, q);
        if dl < 0.0 || uniform(rng) < (-dl / t).exp() {
            st.swap(g, h);
        }
    }
}

/// Start by frequency: per class, grams by decreasing mean, each to the
/// coordinate of that class with room whose observed mean is least explained.
fn fill(md: &Model, shape_len: &[u8], mu: &[f64], spread: usize) -> Result<Vec<u32>, Error> {
    let mut map = vec![u32::MAX; md.d];
    let mut filled = vec![0usize; shape_len.len()];
    let mut explained = vec![0.0; shape_len.len()];
    let mut order: Vec<usize> = (0..md.d).collect();
    order.sort_by(|&a, &b| md.mu[b].total_cmp(&md.mu[a]));
    for g in order {
        let best = (0..shape_len.len())
            .filter(|&b| shape_len[b] == md.len[g].min(crate::shape::MAX_SHAPE_LEN) && filled[b] < spread)
            .max_by(|&a, &b| (mu[a] - explained[a]).total_cmp(&(mu[b] - explained[b])));
        let Some(b) = best else {
            return Err(Error::Parameter(format!("no coordinate left for a gram of length {}", md.len[g])));
        };
        map[g] = b as u32;
        filled[b] += 1;
        explained[b] += md.mu[g];
    }
    Ok(map)
}
