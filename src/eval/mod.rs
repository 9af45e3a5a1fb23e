//! Evaluation: the paper's experiments and the SCENARIO.md protocol.

pub mod attack;
pub mod clock;
pub mod corrupt;
#[cfg(not(target_arch = "wasm32"))]
pub mod experiments;
pub mod lipschitz;
pub mod levers;
pub mod metrics;
pub mod scenario;
pub mod utility;
