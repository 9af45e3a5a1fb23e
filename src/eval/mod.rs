//! The evaluation scenario of docs/SCENARIO.md: corruption, the seeded run of the
//! protocol, and its metrics. The wasm demo runs it too; the experiments built
//! on it are in `research` (feature `research`).

pub mod corrupt;
pub mod metrics;
pub mod parties;
pub mod people;
pub mod scenario;
