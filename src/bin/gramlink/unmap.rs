//! `gramlink unmap`: a data owner maps the matcher's pairs back from the
//! pseudonyms its batch carried to its own ids (src/pseudonym.rs).

use crate::io::{self, CliError, InFile, Result};
use clap::Args;
use gramlink::pseudonym::{unmap_pairs, IdMap};
use std::path::PathBuf;

#[derive(Args)]
pub struct UnmapArgs {
    /// The matcher's pairs (CSV from `gramlink match`: a_id,b_id,...).
    pairs: PathBuf,
    /// Party A's id map (from `embed`: the batch's name + .ids.csv).
    #[arg(long)]
    a_map: Option<PathBuf>,
    /// Party B's id map.
    #[arg(long)]
    b_map: Option<PathBuf>,
    /// Where to write the pairs with the mapped ids.
    #[arg(long, short)]
    out: PathBuf,
}

pub fn cmd_unmap(a: UnmapArgs) -> Result<()> {
    if a.a_map.is_none() && a.b_map.is_none() {
        return Err(CliError::usage("give --a-map, --b-map or both"));
    }
    let read = |p: &Option<PathBuf>| -> Result<Option<IdMap>> {
        match p {
            Some(p) => Ok(Some(IdMap::from_csv(&io::read_bytes(p)?, &p.display().to_string()).in_file(p)?)),
            None => Ok(None),
        }
    };
    let (ma, mb) = (read(&a.a_map)?, read(&a.b_map)?);
    let out = unmap_pairs(&io::read_bytes(&a.pairs)?, ma.as_ref(), mb.as_ref()).in_file(&a.pairs)?;
    io::write_atomic(&a.out, &out)?;
    eprintln!("pairs with your ids -> {}", a.out.display());
    Ok(())
}
