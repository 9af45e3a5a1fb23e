//! Both record owners and the matcher on one machine (the CLI's
//! `link --schema` and `lab eval --schema`, the tests): the steps in protocol
//! order, each the role's own.

use super::linker::{RecordLinkage, RecordMatcher};
use super::owner::{merge, RecordOwner, SharedBases};
use crate::clock::Clock;
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
    let mut timings = BTreeMap::new();
    let mut t = clock.now_ms();
    let mut lap = |name: &str, timings: &mut BTreeMap<String, f64>| {
        let now = clock.now_ms();
        timings.insert(name.to_string(), now - t);
        t = now;
    };
    let na = a.mine(progress)?;
    lap("mine A", &mut timings);
    let nb = b.mine(progress)?;
    lap("mine B", &mut timings);
    let shared = merge(&na, &nb, a.schema())?;
    lap("merge", &mut timings);
    // one machine: nothing leaves it, the pairs name the owners' ids
    let key = EmbedKey { key: key.cloned(), rotate: encoding.is_some() };
    let encoding = encoding.unwrap_or_default();
    let embed = |party| EmbedOptions { key: key.clone(), encoding, ..EmbedOptions::of(party).local() };
    let va = a.embed(&shared, &embed(Party::A), progress)?.batch;
    lap("embed A", &mut timings);
    let vb = b.embed(&shared, &embed(Party::B), progress)?.batch;
    lap("embed B", &mut timings);
    let matcher = RecordMatcher::new(a.schema().clone(), va, vb)?;
    let linkage = matcher.link()?;
    lap("link", &mut timings);
    Ok(RecordSession { shared, matcher, linkage, timings_ms: timings })
}
