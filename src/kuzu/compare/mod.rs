//! The secure comparison (the paper's §4.3) between A's released blocks and B's
//! records, decided by C: [`alice`] encrypts, [`bob`] computes and blinds,
//! [`charlie`] decides; [`rule`] holds the decision rule and the encodings, and
//! [`wire`] the binary messages.

pub mod alice;
pub mod bob;
pub mod charlie;
pub mod rule;
pub mod wire;

#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests;
