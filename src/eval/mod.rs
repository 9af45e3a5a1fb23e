//! Evaluation: the paper's experiments and the SCENARIO.md protocol.

pub mod clock;
pub mod corrupt;
pub mod levers;
pub mod metrics;
pub mod scenario;
pub mod utility;
