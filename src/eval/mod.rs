//! Evaluation: the paper's experiments and the SCENARIO.md protocol.

pub mod utility;
