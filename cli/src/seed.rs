//! `--seed`: the one place a command turns it into randomness.

use crate::io::Result;
use gramlink::dp::Randomness;

/// Secure randomness, or a seeded generator (for experiments: what it makes is
/// not private, and the warning says so).
pub fn randomness(seed: Option<u64>, what: &str) -> Result<Randomness> {
    if seed.is_some() {
        eprintln!("warning: --seed makes the noise reproducible: {what} NOT private (for experiments only)");
    }
    Ok(Randomness::from_seed_option(seed)?)
}
