//! The multi-party matcher's files, one writer for the CLI (`match a.vec b.vec
//! c.vec … -o clusters.csv`) and the JS API (`linkParties`): one row per record
//! (`party,id,cluster`), and on request the pairs that share a cluster
//! (`party_a,id_a,party_b,id_b`). Each owner maps its rows back with its own id
//! map ([`crate::pseudonym::unmap_clusters`]).

use super::{Clusters, Parties};
use crate::dataset::csv_cell;
use crate::error::Error;

fn write_err(what: &str) -> impl Fn(csv::Error) -> Error + '_ {
    move |e| Error::Parameter(format!("cannot write the {what}: {e}"))
}

fn finish(w: csv::Writer<Vec<u8>>, what: &str) -> Result<String, Error> {
    let bytes = w.into_inner().map_err(|e| Error::Parameter(format!("cannot write the {what}: {e}")))?;
    // written from strings only: always UTF-8
    String::from_utf8(bytes).map_err(|e| Error::Parameter(format!("cannot write the {what}: {e}")))
}

/// One row per record, batch after batch, row after row: its party, its id
/// as the batch carried it (a spreadsheet formula defused, [`csv_cell`]), its
/// cluster.
pub fn clusters_csv(p: &Parties<'_>, c: &Clusters) -> Result<String, Error> {
    let err = write_err("clusters");
    let mut w = csv::Writer::from_writer(Vec::new());
    w.write_record(["party", "id", "cluster"]).map_err(&err)?;
    for (r, &k) in c.cluster.iter().enumerate() {
        let m = p.member(r as u32);
        let b = &p.batches()[m.batch];
        w.write_record([b.party.name(), &csv_cell(&b.ids[m.row as usize]), &k.to_string()]).map_err(&err)?;
    }
    finish(w, "clusters")
}

/// The pairs of records that share a cluster ([`Clusters::pairs`]).
pub fn pairs_csv(p: &Parties<'_>, c: &Clusters) -> Result<String, Error> {
    let err = write_err("pairs");
    let mut w = csv::Writer::from_writer(Vec::new());
    w.write_record(["party_a", "id_a", "party_b", "id_b"]).map_err(&err)?;
    for (x, y) in c.pairs() {
        let (mx, my) = (p.member(x), p.member(y));
        let (bx, by) = (&p.batches()[mx.batch], &p.batches()[my.batch]);
        let (ix, iy) = (csv_cell(&bx.ids[mx.row as usize]), csv_cell(&by.ids[my.row as usize]));
        w.write_record([bx.party.name(), &ix, by.party.name(), &iy]).map_err(&err)?;
    }
    finish(w, "pairs")
}
