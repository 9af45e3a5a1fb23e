//! The prefix-tree miner (paper 5.2, Algorithm 1; after Chen, Fung, Desai, Sossou,
//! KDD 2012).
//!
//! # Reading of Algorithm 1
//! The printed `while` never ends and its budget line is muddled; this is the
//! reading implemented. The root stands for all records. A node v at depth d with
//! d < h_max and budget left on its path is *expanded*: for **every** symbol a of
//! the public Σ (present in the data or not) it asks the count of v's records whose
//! symbol at position d is a, with discrete-Laplace noise at the level's budget
//! ε̃ ([`super::budget`]); each child whose noisy count exceeds θ(ε̃) = 2√2/ε̃ is
//! created and expanded in turn. Records shorter than d+1 end at v.
//!
//! The adaptive and hybrid strategies add the adaptive rule: a node is
//! *non-frequent* when its noisy count is below 2·θ of its own query (it barely
//! cleared the noise floor, so its children would likely drown in noise); then its
//! children's query gets all the budget left on the path, ε − spent(v), and they
//! become leaves. (A rule on the next level's θ would never fire under the
//! exponential schedule: 2·θ(2ε_d) = θ(ε_d), which every surviving node exceeds.)
//!
//! # Sensitivity and privacy
//! One record lies in exactly one node per level (the node of its prefix of that
//! length), so it changes one count of each expanded sibling group by 1: siblings
//! partition their parent's records (parallel composition), and along the record's
//! path the queries compose sequentially. The level budgets are chosen from noisy
//! answers already released (adaptive rule), but every path's total is at most ε by
//! construction — checked exactly in [`crate::dp::Epsilon`] units, and by a property
//! test — which is the condition for adaptive sequential composition (a pure-DP
//! privacy filter, Rogers et al. 2016). So the tree, and everything derived from it
//! below (consistency, gram extraction, top-k), is ε-DP.
//!
//! # After the tree
//! Consistency (Definition 5.6), top-down: a child's count is clamped to
//! [0, parent], then if the children's sum exceeds the parent, they are scaled
//! down proportionally (the root has no noisy count and imposes no bound). A gram x
//! of length q counts Σ count(ω) over every node ω = αx (x is a suffix of ω): each
//! occurrence of x ending within the first h_max symbols of a record. The tree is
//! kept, so [`PrefixTree::extract`] can be called again for other k, q_min, q_max
//! without spending budget.

use super::budget::{schedule, theta};
use super::encode::Encoded;
use super::options::PrivateRun;
use crate::alphabet::Alphabet;
use crate::base::{rank_order, GramCount, MineRecord, MinerKind, NoisyBase, Strategy};
use crate::dp::{DiscreteLaplace, Epsilon};
use crate::error::Error;
use serde_json::json;
use std::collections::{BTreeMap, HashMap};

/// Refuse trees larger than this (huge ε over huge data): memory stays bounded.
pub const MAX_NODES: usize = 4_000_000;

#[derive(Debug, Clone)]
pub struct Node {
    pub parent: u32,
    pub symbol: u8,
    pub depth: u8,
    /// The budget of the query that produced this node's count.
    pub epsilon: Epsilon,
    /// Budget spent on the path from the root to this node, inclusive.
    pub spent: Epsilon,
    pub noisy: i64,
    /// The count after the consistency constraints.
    pub count: f64,
    pub first_child: u32,
    pub children: u32,
}

/// A built private prefix tree.
#[derive(Debug, Clone)]
pub struct PrefixTree {
    alphabet: Alphabet,
    nodes: Vec<Node>,
    strategy: Strategy,
    epsilon: Epsilon,
    h_max: usize,
    levels: Vec<Epsilon>,
    private: bool,
}

impl PrefixTree {
    /// Builds the tree, charging the ledger first.
    pub fn build(run: PrivateRun<'_>) -> Result<Self, Error> {
        let PrivateRun { dataset, options, epsilon, ledger, rng, progress } = run;
        let h = options.h_max;
        let strategy = options.strategy;
        let levels = schedule(strategy, epsilon, h, options.q_max);
        let adaptive = matches!(strategy, Strategy::Adaptive | Strategy::Hybrid);
        // a path never spends more than this: the schedule, or all of ε under the adaptive rule
        let charge = if adaptive { epsilon } else { Epsilon::from_units(levels.iter().map(|e| e.units()).sum()) };
        ledger.charge(&format!("prefix-tree ({})", strategy.name()), charge)?;

        let enc = Encoded::new(dataset.records(), dataset.alphabet());
        let sigma = enc.sigma;
        let mut order: Vec<u32> = (0..enc.len() as u32).collect();
        let mut nodes = vec![Node {
            parent: u32::MAX,
            symbol: 0,
            depth: 0,
            epsilon: Epsilon::zero(),
            spent: Epsilon::zero(),
            noisy: 0,
            count: f64::INFINITY,
            first_child: 0,
            children: 0,
        }];
        // (node, range of `order`) to expand, depth first
        let mut stack: Vec<(u32, usize, usize)> = vec![(0, 0, order.len())];
        let mut buckets: Vec<Vec<u32>> = vec![Vec::new(); sigma];
        let mut noises: HashMap<Epsilon, DiscreteLaplace> = HashMap::new();
        let mut expanded = 0u64;
        while let Some((v, lo, hi)) = stack.pop() {
            let node = nodes[v as usize].clone();
            let d = node.depth as usize;
            if d >= h {
                continue;
            }
            let remaining = epsilon.saturating_sub(node.spent);
            let planned = levels[d];
            let non_frequent = adaptive && v != 0 && (node.noisy as f64) < 2.0 * theta(node.epsilon);
            let eps = if non_frequent { remaining } else { planned.min(remaining) };
            if eps.is_zero() {
                continue;
            }
            let noise = match noises.get(&eps) {
                Some(n) => *n,
                None => {
                    let n = DiscreteLaplace::new(eps, 1)?;
                    noises.insert(eps, n);
                    n
                }
            };
            let th = theta(eps);
            // partition v's records by their symbol at position d
            for b in buckets.iter_mut() {
                b.clear();
            }
            let mut ended = Vec::new();
            for &r in &order[lo..hi] {
                match enc.record(r as usize).get(d) {
                    Some(&s) => buckets[s as usize].push(r),
                    None => ended.push(r),
                }
            }
            let mut pos = lo;
            for &r in &ended {
                order[pos] = r;
                pos += 1;
            }
            let first_child = nodes.len() as u32;
            let mut children = Vec::new();
            for (a, bucket) in buckets.iter().enumerate() {
                let start = pos;
                order[pos..pos + bucket.len()].copy_from_slice(bucket);
                pos += bucket.len();
                let noisy = noise.release(bucket.len() as i64, rng);
                if noisy as f64 > th {
                    children.push((a as u8, noisy, start, pos));
                }
            }
            if nodes.len() + children.len() > MAX_NODES {
                return Err(Error::Parameter(format!(
                    "the prefix tree would exceed {MAX_NODES} nodes: lower epsilon or h_max"
                )));
            }
            let spent = node
                .spent
                .checked_add(eps)
                .filter(|s| *s <= epsilon)
                .ok_or_else(|| Error::Parameter("internal: a path would spend more than epsilon".into()))?;
            nodes[v as usize].first_child = first_child;
            nodes[v as usize].children = children.len() as u32;
            for &(a, noisy, _, _) in &children {
                nodes.push(Node {
                    parent: v,
                    symbol: a,
                    depth: (d + 1) as u8,
                    epsilon: eps,
                    spent,
                    noisy,
                    count: 0.0,
                    first_child: 0,
                    children: 0,
                });
            }
            for (i, &(_, _, s, e)) in children.iter().enumerate().rev() {
                stack.push((first_child + i as u32, s, e));
            }
            expanded += 1;
            if v == 0 || expanded % 4096 == 0 {
                progress.tick("prefix tree", expanded, 0)?;
            }
        }
        let mut tree = PrefixTree {
            alphabet: dataset.alphabet().clone(),
            nodes,
            strategy,
            epsilon,
            h_max: h,
            levels,
            private: rng.is_private(),
        };
        tree.make_consistent();
        Ok(tree)
    }

    /// Definition 5.6, top-down (see the module docs).
    fn make_consistent(&mut self) {
        for v in 0..self.nodes.len() {
            let (first, n, parent_count) = {
                let node = &self.nodes[v];
                (node.first_child as usize, node.children as usize, node.count)
            };
            if n == 0 {
                continue;
            }
            let kids = &mut self.nodes[first..first + n];
            let mut sum = 0.0;
            for u in kids.iter_mut() {
                u.count = (u.noisy.max(0) as f64).min(parent_count);
                sum += u.count;
            }
            if sum > parent_count && sum > 0.0 {
                let f = parent_count / sum;
                for u in kids.iter_mut() {
                    u.count *= f;
                }
            }
        }
    }

    pub fn nodes(&self) -> &[Node] {
        &self.nodes
    }

    /// The largest budget any root-to-leaf path spent.
    pub fn max_path_spent(&self) -> Epsilon {
        self.nodes.iter().map(|n| n.spent).max().unwrap_or(Epsilon::zero())
    }

    /// The last `q` symbols of node `v`'s label (None if the label is shorter).
    fn suffix(&self, mut v: usize, q: usize, out: &mut Vec<u8>) -> bool {
        out.clear();
        while out.len() < q {
            if v == 0 {
                return false;
            }
            out.push(self.nodes[v].symbol);
            v = self.nodes[v].parent as usize;
        }
        out.reverse();
        true
    }

    /// The top-k grams of lengths [q_min, q_max], scored by summed node counts.
    /// Post-processing of the tree: spends no budget.
    pub fn extract(&self, k: usize, q_min: usize, q_max: usize) -> Result<NoisyBase, Error> {
        if k == 0 || q_min == 0 || q_min > q_max {
            return Err(Error::Parameter(format!("invalid extraction k={k}, q in [{q_min}, {q_max}]")));
        }
        if q_min > self.h_max {
            return Err(Error::Parameter(format!("q_min ({q_min}) exceeds the tree depth h_max ({})", self.h_max)));
        }
        let mut score: HashMap<Vec<u8>, f64> = HashMap::new();
        let mut buf = Vec::new();
        for v in 1..self.nodes.len() {
            let c = self.nodes[v].count;
            if c <= 0.0 {
                continue;
            }
            for q in q_min..=q_max.min(self.nodes[v].depth as usize) {
                if self.suffix(v, q, &mut buf) {
                    *score.entry(buf.clone()).or_insert(0.0) += c;
                }
            }
        }
        let syms = self.alphabet.symbols();
        let mut ranked: Vec<(String, f64)> =
            score.into_iter().map(|(g, c)| (g.iter().map(|&s| syms[s as usize]).collect(), c)).collect();
        crate::sorting::sort_by(&mut ranked, |a, b| rank_order(&self.alphabet, (&a.0, a.1), (&b.0, b.1)));
        ranked.truncate(k);
        let mechanism = BTreeMap::from([
            ("noise".to_string(), json!("discrete Laplace on prefix counts, every symbol of Σ asked")),
            ("h_max".to_string(), json!(self.h_max)),
            ("epsilon_per_level".to_string(), json!(self.levels.iter().map(|e| e.as_f64()).collect::<Vec<_>>())),
            ("theta_per_level".to_string(), json!(self.levels.iter().map(|e| theta(*e)).collect::<Vec<_>>())),
            ("theta_rule".to_string(), json!("2*sqrt(2)/epsilon_level")),
            ("adaptive_rule".to_string(), json!(matches!(self.strategy, Strategy::Adaptive | Strategy::Hybrid))),
            ("nodes".to_string(), json!(self.nodes.len())),
            ("composition".to_string(), json!("parallel over siblings, sequential along a path")),
        ]);
        Ok(NoisyBase {
            padding: None,
            alphabet: self.alphabet.clone(),
            params: MineRecord {
                miner: MinerKind::PrefixTree,
                strategy: Some(self.strategy),
                k,
                q_min,
                q_max,
                epsilon: self.epsilon.as_f64(),
                epsilon_spent: self.max_path_spent().as_f64(),
                mechanism,
            },
            private: self.private,
            grams: ranked.into_iter().map(|(gram, count)| GramCount { gram, count }).collect(),
        })
    }
}

#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests {
    use super::super::options::MineOptions;
    use super::*;
    use crate::base::Strategy;
    use crate::dataset::Dataset;
    use crate::dp::{BudgetLedger, Randomness};
    use crate::progress::NoProgress;
    use proptest::prelude::*;

    fn build(records: &[&str], strategy: Strategy, eps: f64, h: usize, seed: u64) -> PrefixTree {
        let a = Alphabet::default();
        let d = Dataset::from_normalized(records.iter().map(|s| s.to_string()).collect(), &a);
        let o = MineOptions { strategy, epsilon: eps, h_max: h, ..crate::config::Config::paper().mine };
        let e = Epsilon::new(eps).unwrap();
        let (ledger, rng) = (&mut BudgetLedger::new(e), &mut Randomness::seeded(seed));
        PrefixTree::build(PrivateRun { dataset: &d, options: &o, epsilon: e, ledger, rng, progress: &mut NoProgress })
            .unwrap()
    }

    #[test]
    fn high_epsilon_recovers_exact_prefix_counts() {
        let recs = ["ANNA", "ANNE", "ANA", "BOB", "BO"];
        let t = build(&recs, Strategy::Linear, 1000.0, 4, 1);
        // with ε = 1000 the noise is 0 with overwhelming probability, θ ≈ 0.01
        let b = t.extract(10, 1, 2).unwrap();
        let get = |g: &str| b.grams.iter().find(|x| x.gram == g).map(|x| x.count).unwrap_or(0.0);
        // occurrences within the first 4 symbols: A in ANNA(2) ANNE(1) ANA(2)
        assert_eq!(get("A"), 5.0);
        assert_eq!(get("N"), 5.0);
        assert_eq!(get("AN"), 3.0);
        assert_eq!(get("B"), 3.0);
        assert_eq!(b.params.epsilon_spent, 1000.0);
    }

    #[test]
    fn tree_can_be_mined_again_without_budget() {
        let recs: Vec<&str> = vec!["SMITH"; 500].into_iter().chain(vec!["JONES"; 300]).collect();
        let t = build(&recs, Strategy::Hybrid, 1.0, 5, 2);
        let b1 = t.extract(5, 1, 1).unwrap();
        let b2 = t.extract(10, 2, 3).unwrap();
        assert_eq!(b1.grams.len(), 5);
        assert!(b2.grams.iter().all(|g| (2..=3).contains(&g.gram.len())));
        assert!(b2.grams.iter().any(|g| g.gram == "SMI"));
    }

    #[test]
    fn consistency_holds() {
        let recs: Vec<String> = (0..2000).map(|i| format!("{}AB", ["SM", "JO", "WI"][i % 3])).collect();
        let refs: Vec<&str> = recs.iter().map(|s| s.as_str()).collect();
        let t = build(&refs, Strategy::Exponential, 0.5, 4, 3);
        for (v, n) in t.nodes().iter().enumerate() {
            let kids = &t.nodes()[n.first_child as usize..(n.first_child + n.children) as usize];
            let sum: f64 = kids.iter().map(|k| k.count).sum();
            if v != 0 {
                assert!(sum <= n.count * (1.0 + 1e-12) + 1e-9);
            }
            assert!(kids.iter().all(|k| k.count >= 0.0 && k.count <= n.count));
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]
        /// No root-to-leaf path spends more than ε, under every strategy.
        #[test]
        fn no_path_overspends(
            recs in prop::collection::vec("[A-E ]{1,9}", 1..300),
            eps in 0.01f64..20.0,
            h in 1usize..9,
            q_max in 1usize..5,
            strat in 0usize..4,
            seed in any::<u64>(),
        ) {
            let recs: Vec<String> = recs.into_iter().map(|s| Alphabet::default().normalize(&s)).filter(|s| !s.is_empty()).collect();
            prop_assume!(!recs.is_empty());
            let a = Alphabet::default();
            let d = Dataset::from_normalized(recs, &a);
            let strategy = Strategy::ALL[strat];
            let o = MineOptions { strategy, epsilon: eps, h_max: h, q_max, q_min: 1, ..crate::config::Config::paper().mine };
            let e = Epsilon::new(eps).unwrap();
            let (mut l, rng) = (BudgetLedger::new(e), &mut Randomness::seeded(seed));
            let run = PrivateRun { dataset: &d, options: &o, epsilon: e, ledger: &mut l, rng, progress: &mut NoProgress };
            let t = PrefixTree::build(run).unwrap();
            for (v, n) in t.nodes().iter().enumerate().skip(1) {
                // recompute the path's spend from each query's own budget
                let mut total = 0u64;
                let mut u = v;
                while u != 0 {
                    total += t.nodes()[u].epsilon.units();
                    u = t.nodes()[u].parent as usize;
                }
                prop_assert_eq!(total, n.spent.units());
                prop_assert!(total <= e.units(), "path spends {} > {}", total, e.units());
            }
            prop_assert!(l.spent() <= e);
        }
    }
}
