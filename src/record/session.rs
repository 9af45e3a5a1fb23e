//! Both record owners and the matcher on one machine (the CLI's
//! `link --schema` and `lab eval --schema`, the tests): the steps in protocol
//! order, each the role's own.

use super::linker::{RecordLinkage, RecordMatcher};
use super::owner::{merge, RecordOwner, SharedBases};
use crate::clock::{Clock, Laps};
use crate::error::Error;
use crate::keyed::{EmbedKey, Key};
use crate::party::EmbedOptions;
use crate::progress::Progress;
use crate::protocol::Party;
use std::collections::BTreeMap;

/// What a run made.
pub struct RecordSession {
    pub shared: SharedBases,
    pub matcher: RecordMatcher,
    pub linkage: RecordLinkage,
    /// Milliseconds per step.
    pub timings_ms: BTreeMap<String, f64>,
}

/// Runs the protocol between `a` and `b` (under the same schema); `key` is
/// the parties' shared key, `encoding` (when given) the keyed encoding of the
/// vectors.
pub fn run(
    a: &mut RecordOwner,
    b: &mut RecordOwner,
    key: Option<&Key>,
    encoding: Option<crate::keyed::Encoding>,
    clock: &dyn Clock,
    progress: &mut dyn Progress,
) -> Result<RecordSession, Error> {
    super::check::check_schema(&a.schema().fingerprint(), &b.schema().fingerprint(), "party B's schema")?;
    let mut laps = Laps::start(clock);
    let na = a.mine(progress)?;
    laps.lap("mine A");
    let nb = b.mine(progress)?;
    laps.lap("mine B");
    let shared = merge(&na, &nb, a.schema())?;
    laps.lap("merge");
    // one machine: nothing leaves it, the pairs name the owners' ids
    let key = EmbedKey { key: key.cloned(), rotate: encoding.is_some() };
    let encoding = encoding.unwrap_or_else(crate::keyed::Encoding::for_records);
    let embed = |party| EmbedOptions { key: key.clone(), encoding, ..EmbedOptions::of(party).local() };
    let va = a.embed(&shared, &embed(Party::A), progress)?.batch;
    laps.lap("embed A");
    let vb = b.embed(&shared, &embed(Party::B), progress)?.batch;
    laps.lap("embed B");
    let matcher = RecordMatcher::new(a.schema().clone(), va, vb)?;
    let linkage = matcher.link()?;
    laps.lap("link");
    Ok(RecordSession { shared, matcher, linkage, timings_ms: laps.into_timings() })
}
