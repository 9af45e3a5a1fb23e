//! The shape of a vector batch: the gram length of each coordinate and which
//! lengths are complete (every window a record can have is a coordinate). It is
//! a function of the shared base, so it tells the matcher nothing about a
//! record; the q-gram count filter ([`crate::matching::scored_match`]) needs it.
//! A vector batch carries it ([`crate::protocol::VectorBatch::shape`]); keyed
//! batches do not (their coordinates are mixed).

use crate::base::SharedBase;
use serde::{Deserialize, Serialize};

/// What the matcher may know of the coordinates: a function of the shared base.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Shape {
    /// Gram length (in symbols) of each coordinate, in coordinate order.
    pub lengths: Vec<u8>,
    /// The lengths whose coordinates hold every window of that length any
    /// record (non-empty, over Σ, padded as the base says) can have.
    pub complete: Vec<u8>,
}

/// Longest gram length a shape may name.
pub const MAX_SHAPE_LEN: u8 = 32;

impl Shape {
    /// The shape of `base`'s vectors. Completeness is checked for lengths 1 and 2
    /// (longer classes are never complete in practice: |Σ|³ grams).
    pub fn of(base: &SharedBase) -> Shape {
        let lengths: Vec<u8> =
            base.grams().iter().map(|g| g.chars().count().min(MAX_SHAPE_LEN as usize) as u8).collect();
        let have: std::collections::HashSet<&str> = base.grams().iter().map(|g| g.as_str()).collect();
        let sigma: Vec<char> = base.alphabet().symbols().to_vec();
        let mut complete = Vec::new();
        for l in [1u8, 2] {
            if !lengths.contains(&l) {
                continue;
            }
            let mut windows: Vec<String> = Vec::new();
            match (l, base.padding()) {
                (1, p) => {
                    windows.extend(sigma.iter().map(|c| c.to_string()));
                    if let Some(p) = p {
                        windows.push(p.start.to_string());
                        windows.push(p.end.to_string());
                    }
                }
                (_, p) => {
                    for &x in &sigma {
                        windows.extend(sigma.iter().map(|&y| format!("{x}{y}")));
                        if let Some(p) = p {
                            windows.push(format!("{}{x}", p.start));
                            windows.push(format!("{x}{}", p.end));
                        }
                    }
                }
            }
            if windows.iter().all(|w| have.contains(w.as_str())) {
                complete.push(l);
            }
        }
        Shape { lengths, complete }
    }

    /// Checks a shape received with vectors of dimension `dim`.
    pub fn validate(&self, dim: usize) -> Result<(), String> {
        if self.lengths.len() != dim {
            return Err(format!("the shape names {} gram lengths for vectors of dimension {dim}", self.lengths.len()));
        }
        if let Some(l) = self.lengths.iter().find(|l| **l == 0 || **l > MAX_SHAPE_LEN) {
            return Err(format!("gram length {l} in the shape (must be 1 to {MAX_SHAPE_LEN})"));
        }
        if let Some(l) = self.complete.iter().find(|l| !self.lengths.contains(l)) {
            return Err(format!("the shape calls length {l} complete but no coordinate has that length"));
        }
        Ok(())
    }

    /// The complete class the candidate filter indexes (the longest: its grams
    /// are the rarest), if any.
    pub fn filter_length(&self) -> Option<u8> {
        self.complete.iter().copied().max()
    }
}
