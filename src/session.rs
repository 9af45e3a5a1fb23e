//! Both parties and the matcher on one machine: the protocol's steps in order,
//! each the role's own ([`crate::party`], [`crate::matcher`]). Used where one
//! process plays every role: the CLI's `link`, the evaluation scenario
//! (`eval::scenario`, feature eval), the benches and the tests. Nothing else chains
//! mine → merge → embed → link.
//!
//! A real deployment runs the same steps on three machines, and only the
//! messages of [`crate::protocol`] travel between them.

use crate::base::SharedBase;
use crate::clock::{Clock, Laps};
use crate::config::Config;
use crate::error::Error;
use crate::keyed::{EmbedKey, Key};
use crate::matcher::Matcher;
use crate::matching::{Candidates, Pair};
use crate::party::{merge_bases, DataOwner, EmbedOptions};
use crate::progress::Progress;
use crate::protocol::Party;
use std::collections::BTreeMap;

/// What a run of the whole protocol made.
pub struct Session {
    pub shared: SharedBase,
    /// Holds both parties' batches (A's with its thresholds).
    pub matcher: Matcher,
    /// The pairs the rule chose from.
    pub candidates: Candidates,
    /// Pairs whose distance the matcher computed.
    pub candidate_count: u64,
    /// The pairs of `config.rule`.
    pub pairs: Vec<Pair>,
    /// With `ed auto`: the matcher's fitted cut-off.
    pub cutoff: Option<crate::cutoff::Cutoff>,
    /// Milliseconds per step: `mine A`, `mine B`, `merge`, `embed A`, `embed B`,
    /// `match` (the candidates), `one-to-one` (the rule's choice).
    pub timings_ms: BTreeMap<String, f64>,
}

/// Runs the protocol between `a` and `b` under `config`: both mine (each
/// charging its own ledger), the bases are merged, both embed (A with the
/// configuration's thresholds; both with `key` if given), the matcher links.
pub fn run(
    a: &mut DataOwner,
    b: &mut DataOwner,
    config: &Config,
    key: Option<&Key>,
    clock: &dyn Clock,
    progress: &mut dyn Progress,
) -> Result<Session, Error> {
    let mut laps = Laps::start(clock);
    let na = a.mine(&config.mine, progress).map_err(|e| in_party("A", e))?;
    laps.lap("mine A");
    let nb = b.mine(&config.mine, progress).map_err(|e| in_party("B", e))?;
    laps.lap("mine B");
    let shared = merge_bases(&na, &nb, &config.mine)?;
    laps.lap("merge");
    // one machine: nothing leaves it, the pairs name the owners' ids
    let key = key.map_or_else(EmbedKey::default, |k| EmbedKey::rotated(k.clone()));
    let embed = |party| EmbedOptions { key: key.clone(), ..EmbedOptions::new(party, config).local() };
    let va = a.embed(&shared, &embed(Party::A), progress)?.batch;
    laps.lap("embed A");
    let vb = b.embed(&shared, &embed(Party::B), progress)?.batch;
    laps.lap("embed B");
    let matcher = Matcher::new(va, vb)?;
    let (candidates, stats, cutoff) = matcher.fitted_candidates(config.rule)?;
    laps.lap("match");
    let pairs = matcher.assign(&candidates, config.rule);
    laps.lap("one-to-one");
    Ok(Session {
        shared,
        matcher,
        candidates,
        candidate_count: stats.candidates,
        pairs,
        cutoff,
        timings_ms: laps.into_timings(),
    })
}

/// A party's mining error, named by party (both mine the same way).
fn in_party(party: &str, e: Error) -> Error {
    match e {
        Error::Parameter(m) => Error::Parameter(format!("party {party}: {m}")),
        other => other,
    }
}
