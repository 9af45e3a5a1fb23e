//! Local block construction from a public resource (the paper's §4.1).
//!
//! C clusters the values of a public list of identifiers (the bundled Census
//! surnames, data/names.txt, or GeoNames places, data/cities.txt) into n_B blocks
//! by average-linkage clustering on the Jaccard similarity of their bigrams
//! (`cluster`), and publishes the [`BlockModel`]: the blocks' values, the list
//! they came from with its SHA-256, and a fingerprint over all of it. A and B each
//! put every record in the block of the most similar public value,
//! sim_cls(r, C) = max_{v ∈ C} sim(r, v) (ties: the value listed first, i.e. the
//! most frequent), with no message at all. A record whose identifier is empty goes
//! to one more block, the last, so every record has exactly one block: the block
//! sizes are then counts over a partition, as the DP release needs.
//!
//! Nothing here depends on a party's data: the model is a function of public
//! values only, and assignment is local.

mod cluster;

use super::bigrams::{normalize, Bigrams};
use crate::error::{Error, ProtocolError};
use crate::protocol::{envelope, open};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::collections::HashMap;

pub const BLOCK_MODEL: &str = "gramlink/kuzu-block-model";
/// The most public values a model may cluster (the distance matrix has m² entries).
pub const MAX_VALUES: usize = 6000;

/// Where the public values came from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PublicSource {
    /// A name for the list, e.g. "data/names.txt (US Census 2000 surnames)".
    pub name: String,
    /// SHA-256 of the list's whole text, hex.
    pub sha256: String,
    /// How many of its values (first ones, after normalization and de-duplication) were used.
    pub used: usize,
}

/// The global block basis: n_B clusters of public values, plus the block of
/// records with no value (index n_B).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BlockModel {
    #[serde(default, skip_serializing)]
    format: String,
    #[serde(default, skip_serializing)]
    version: u32,
    /// The identifier the records are blocked on (a column name, e.g. "surname").
    pub identifier: String,
    pub source: PublicSource,
    /// The normalized public values of each block.
    pub blocks: Vec<Vec<String>>,
    /// SHA-256 over identifier, source and blocks (hex).
    pub fingerprint: String,
}

/// The distinct normalized non-empty values among the first ones of a list, at most `take`.
pub fn public_values(list: &str, take: usize) -> Vec<String> {
    let mut seen = std::collections::HashSet::new();
    let mut out = Vec::new();
    for line in list.lines() {
        if out.len() >= take {
            break;
        }
        let v = normalize(line);
        if !v.is_empty() && seen.insert(v.clone()) {
            out.push(v);
        }
    }
    out
}

impl BlockModel {
    /// Clusters `values` (normalized, distinct: see [`public_values`]) into `n_blocks` blocks.
    pub fn build(identifier: &str, source: PublicSource, values: &[String], n_blocks: usize) -> Result<Self, Error> {
        if values.is_empty() || values.len() > MAX_VALUES {
            return Err(Error::Parameter(format!(
                "a block model needs 1 to {MAX_VALUES} public values, got {}",
                values.len()
            )));
        }
        if n_blocks == 0 || n_blocks > values.len() {
            return Err(Error::Parameter(format!(
                "the number of blocks must be in 1..={} (the public values), got {n_blocks}",
                values.len()
            )));
        }
        let sets: Vec<Bigrams> = values.iter().map(|v| Bigrams::of_normalized(v)).collect();
        let labels = cluster::average_linkage(&sets, n_blocks);
        let mut blocks = vec![Vec::new(); n_blocks];
        for (v, &l) in values.iter().zip(&labels) {
            blocks[l].push(v.clone());
        }
        let mut model = BlockModel {
            format: String::new(),
            version: 0,
            identifier: identifier.into(),
            source,
            blocks,
            fingerprint: String::new(),
        };
        model.fingerprint = model.compute_fingerprint();
        Ok(model)
    }

    fn compute_fingerprint(&self) -> String {
        let canonical = serde_json::json!([self.identifier, self.source, self.blocks]);
        hex::encode(Sha256::digest(canonical.to_string().as_bytes()))
    }

    /// Blocks a record may fall in: the n_B clusters and the block of empty values.
    pub fn n_blocks(&self) -> usize {
        self.blocks.len() + 1
    }

    /// The index of the block of records with an empty identifier.
    pub fn empty_block(&self) -> usize {
        self.blocks.len()
    }

    pub fn to_json(&self) -> String {
        envelope(BLOCK_MODEL, self)
    }

    /// Reads a model and checks it: a non-empty partition of distinct normalized
    /// values, and a fingerprint that is its own.
    pub fn from_json(text: &str) -> Result<Self, Error> {
        let mut model: BlockModel = open(text, BLOCK_MODEL)?;
        (model.format, model.version) = (String::new(), 0);
        let invalid = |reason: String| Error::Protocol(ProtocolError::Invalid { what: "block model".into(), reason });
        if model.blocks.is_empty() || model.blocks.iter().any(|b| b.is_empty()) {
            return Err(invalid("it has no blocks, or an empty one".into()));
        }
        let mut seen = std::collections::HashSet::new();
        for v in model.blocks.iter().flatten() {
            if v.is_empty() || normalize(v) != *v || !seen.insert(v.as_str()) {
                return Err(invalid(format!("value {v:?} is empty, not normalized or repeated")));
            }
        }
        if seen.len() > MAX_VALUES {
            return Err(invalid(format!("more than {MAX_VALUES} values")));
        }
        let computed = model.compute_fingerprint();
        if computed != model.fingerprint {
            return Err(Error::Protocol(ProtocolError::Fingerprint {
                what: "the block model".into(),
                found: model.fingerprint.clone(),
                expected: computed,
            }));
        }
        Ok(model)
    }

    /// Checks that a message made with the model `found` fits this one.
    pub fn check_fingerprint(&self, what: &str, found: &str) -> Result<(), Error> {
        if found != self.fingerprint {
            return Err(Error::Protocol(ProtocolError::Fingerprint {
                what: format!("{what} (block model)"),
                found: found.into(),
                expected: self.fingerprint.clone(),
            }));
        }
        Ok(())
    }

    /// A party's local assigner.
    pub fn assigner(&self) -> Assigner {
        let mut exact = HashMap::new();
        let mut values = Vec::new();
        for (b, block) in self.blocks.iter().enumerate() {
            for v in block {
                exact.entry(v.clone()).or_insert(b);
                values.push((Bigrams::of_normalized(v), b));
            }
        }
        Assigner { exact, values, empty: self.empty_block() }
    }
}

/// Puts records into blocks: the block of the most similar public value.
pub struct Assigner {
    exact: HashMap<String, usize>,
    values: Vec<(Bigrams, usize)>,
    empty: usize,
}

impl Assigner {
    /// The block of a raw identifier value.
    pub fn block_of(&self, raw: &str) -> usize {
        let v = normalize(raw);
        if v.is_empty() {
            return self.empty;
        }
        if let Some(&b) = self.exact.get(&v) {
            return b;
        }
        let set = Bigrams::of_normalized(&v);
        let (mut best, mut best_sim) = (self.values[0].1, -1.0);
        for (s, b) in &self.values {
            let sim = set.jaccard(s);
            if sim > best_sim {
                best = *b;
                best_sim = sim;
            }
        }
        best
    }
}

#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests;
