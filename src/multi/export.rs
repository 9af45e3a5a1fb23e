//! The multi-party matcher's files, one writer for the CLI (`match a.vec b.vec
//! c.vec … -o clusters.csv`) and the JS API (`linkParties`): one row per record
//! (`party,id,cluster`), and on request the pairs that share a cluster
//! (`party_a,id_a,party_b,id_b`). Each owner maps its rows back with its own id
//! map ([`crate::pseudonym::unmap_clusters`]).

use super::{Clusters, Parties};
use crate::dataset::csv_cell;
use crate::error::Error;
use crate::protocol::Party;

fn write_err(what: &str) -> impl Fn(csv::Error) -> Error + '_ {
    move |e| Error::Parameter(format!("cannot write the {what}: {e}"))
}

fn finish(w: csv::Writer<Vec<u8>>, what: &str) -> Result<String, Error> {
    let bytes = w.into_inner().map_err(|e| Error::Parameter(format!("cannot write the {what}: {e}")))?;
    // written from strings only: always UTF-8
    String::from_utf8(bytes).map_err(|e| Error::Parameter(format!("cannot write the {what}: {e}")))
}

/// Each batch's party and ids, in the clusters' order (the batches as
/// [`super::link`] or the record linker numbered their records).
pub type Roster<'a> = [(Party, &'a [String])];

/// The roster of one-string batches.
pub fn roster<'a>(p: &'a Parties<'a>) -> Vec<(Party, &'a [String])> {
    p.batches().iter().map(|b| (b.party, b.ids.as_slice())).collect()
}

/// Every record of the roster as (party, id), in the clusters' order.
pub fn rows<'a>(roster: &Roster<'a>) -> Vec<(Party, &'a str)> {
    roster.iter().flat_map(|&(party, ids)| ids.iter().map(move |id| (party, id.as_str()))).collect()
}

/// [`rows`], one per member of `c`'s clusters.
fn members<'a>(roster: &Roster<'a>, c: &Clusters) -> Result<Vec<(Party, &'a str)>, Error> {
    let rows = rows(roster);
    if rows.len() != c.cluster.len() {
        return Err(Error::Parameter(format!("{} records for {} clusters' members", rows.len(), c.cluster.len())));
    }
    Ok(rows)
}

/// One row per record, batch after batch, row after row: its party, its id
/// as the batch carried it (a spreadsheet formula defused, [`csv_cell`]), its
/// cluster.
pub fn clusters_csv(roster: &Roster<'_>, c: &Clusters) -> Result<String, Error> {
    let err = write_err("clusters");
    let rows = members(roster, c)?;
    let mut w = csv::Writer::from_writer(Vec::new());
    w.write_record(["party", "id", "cluster"]).map_err(&err)?;
    for (&(party, id), &k) in rows.iter().zip(&c.cluster) {
        w.write_record([party.name(), &csv_cell(id), &k.to_string()]).map_err(&err)?;
    }
    finish(w, "clusters")
}

/// The pairs of records that share a cluster ([`Clusters::pairs`]).
pub fn pairs_csv(roster: &Roster<'_>, c: &Clusters) -> Result<String, Error> {
    let err = write_err("pairs");
    let rows = members(roster, c)?;
    let mut w = csv::Writer::from_writer(Vec::new());
    w.write_record(["party_a", "id_a", "party_b", "id_b"]).map_err(&err)?;
    for (x, y) in c.pairs() {
        let ((px, ix), (py, iy)) = (rows[x as usize], rows[y as usize]);
        w.write_record([px.name(), &csv_cell(ix), py.name(), &csv_cell(iy)]).map_err(&err)?;
    }
    finish(w, "pairs")
}
