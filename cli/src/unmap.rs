//! `gramlink unmap`: a data owner maps the matcher's pairs back from the
//! pseudonyms its batch carried to its own ids (src/pseudonym.rs).

use crate::io::{self, CliError, InFile, Result};
use clap::Args;
use gramlink::pseudonym::{unmap_clusters, unmap_pairs, IdMap};
use std::path::{Path, PathBuf};

/// `embed`'s ids (one string and `--schema` alike): the core's policy
/// ([`gramlink::pseudonym::IdPolicy`]) and where the owner keeps the map.
#[derive(Args)]
pub struct IdFlags {
    /// Where to keep the map from the batch's pseudonyms to your ids (CSV,
    /// readable by you only; never send it): `gramlink unmap` maps the matcher's
    /// pairs back with it. [default: the output's name + .ids.csv]
    #[arg(long, conflicts_with = "keep_ids")]
    id_map: Option<PathBuf>,
    /// Send your own ids (row numbers, or the id column's values) instead of
    /// random pseudonyms: the matcher sees them.
    #[arg(long)]
    keep_ids: bool,
}

impl IdFlags {
    pub fn keep_ids(&self) -> bool {
        self.keep_ids
    }

    /// Writes the map of the batch about to be written to `out` (before it:
    /// a batch without its map could not be mapped back).
    pub fn write_map(&self, map: Option<&IdMap>, out: &Path) -> Result<()> {
        let Some(map) = map else { return Ok(()) };
        let path = self.id_map.clone().unwrap_or_else(|| {
            let mut p = out.as_os_str().to_owned();
            p.push(".ids.csv");
            PathBuf::from(p)
        });
        io::write_atomic(&path, &map.to_csv()?)?;
        eprintln!("ids replaced by random pseudonyms; keep {} to map the pairs back (gramlink unmap)", path.display());
        Ok(())
    }
}

#[derive(Args)]
pub struct UnmapArgs {
    /// The matcher's pairs (CSV from `gramlink match`, with or without
    /// --schema: a_id,b_id,...; the other columns are kept).
    pairs: PathBuf,
    /// Party A's id map (from `embed`: the batch's name + .ids.csv).
    #[arg(long)]
    a_map: Option<PathBuf>,
    /// Party B's id map.
    #[arg(long)]
    b_map: Option<PathBuf>,
    /// Clusters (party,id,cluster) or their pairs (party_a,id_a,party_b,id_b): map the rows
    /// of this party (a letter) with --map.
    #[arg(long, requires = "map", conflicts_with_all = ["a_map", "b_map"])]
    party: Option<gramlink::protocol::Party>,
    /// This party's id map (with --party).
    #[arg(long, requires = "party")]
    map: Option<PathBuf>,
    /// Where to write the pairs with the mapped ids.
    #[arg(long, short)]
    out: PathBuf,
}

pub fn cmd_unmap(a: UnmapArgs) -> Result<()> {
    if a.a_map.is_none() && a.b_map.is_none() && a.map.is_none() {
        // the core refuses it too; here it is a usage error, before any file is read
        return Err(CliError::usage("give --a-map, --b-map or both (or --party and --map for clusters)"));
    }
    let read = |p: &Option<PathBuf>| -> Result<Option<IdMap>> {
        match p {
            Some(p) => Ok(Some(IdMap::from_csv(&io::read_bytes(p)?, &p.display().to_string()).in_file(p)?)),
            None => Ok(None),
        }
    };
    refuse_overwriting_inputs(&a)?;
    if let (Some(party), Some(map)) = (a.party, read(&a.map)?) {
        let out = unmap_clusters(&io::read_bytes(&a.pairs)?, party.name(), &map).in_file(&a.pairs)?;
        io::write_atomic(&a.out, &out)?;
        eprintln!("party {party}'s rows with your ids -> {}", a.out.display());
        return Ok(());
    }
    let (ma, mb) = (read(&a.a_map)?, read(&a.b_map)?);
    let out = unmap_pairs(&io::read_bytes(&a.pairs)?, ma.as_ref(), mb.as_ref()).in_file(&a.pairs)?;
    io::write_atomic(&a.out, &out)?;
    eprintln!("pairs with your ids -> {}", a.out.display());
    Ok(())
}

/// `-o` may not be the pairs or a map (by canonical path: a symlink or another
/// spelling of the same file counts): the output would replace an input, and an
/// id map lost is a batch that can never be mapped back.
fn refuse_overwriting_inputs(a: &UnmapArgs) -> Result<()> {
    let Ok(out) = std::fs::canonicalize(&a.out) else { return Ok(()) };
    let inputs = [Some(&a.pairs), a.a_map.as_ref(), a.b_map.as_ref(), a.map.as_ref()];
    for input in inputs.into_iter().flatten() {
        if std::fs::canonicalize(input).is_ok_and(|i| i == out) {
            return Err(CliError::output_is_input(format!(
                "--out {} is the input {}: unmap never writes over its inputs; choose another output",
                a.out.display(),
                input.display()
            )));
        }
    }
    Ok(())
}
