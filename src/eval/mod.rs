//! The evaluation scenario of docs/SCENARIO.md (feature `eval`): corruption and
//! the seeded run of the protocol, scored by the product's own
//! [`crate::matching::truth`]. The wasm demo runs it too; the experiments built on
//! it are in `research` (feature `research`).

pub mod corrupt;
pub mod parties;
pub mod people;
pub mod scenario;
