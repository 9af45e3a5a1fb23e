//! `gramlink rehearse --schema`: the schema's upper decision threshold chosen
//! on two record twins ([`gramlink::twin::rehearse_records`]).

use crate::io::{self, CliError, Result};
use gramlink::twin::rehearse_records::rehearse;
use std::path::{Path, PathBuf};

pub fn run(
    schema: &Path,
    twin_a: &Path,
    twin_b: &Path,
    real: &[PathBuf],
    truth: Option<&PathBuf>,
    seed: u64,
    json: bool,
) -> Result<()> {
    let schema = crate::records::load_schema(schema)?;
    let (ta, tb) = (io::read_bytes(twin_a)?, io::read_bytes(twin_b)?);
    let real_files = match (real, truth) {
        ([], None) => None,
        ([a, b], Some(t)) => Some((
            io::read_bytes(a)?,
            io::read_bytes(b)?,
            gramlink::eval::metrics::read_truth(&io::read_bytes(t)?, &t.display().to_string())?,
        )),
        _ => return Err(CliError::usage("records: give --real A.csv --real B.csv and --truth T.csv together")),
    };
    let r = rehearse(
        &[&ta, &tb],
        &schema,
        real_files.as_ref().map(|(a, b, t)| (a.as_slice(), b.as_slice(), t.clone())),
        seed,
    )?;
    if json {
        println!("{}", serde_json::to_string_pretty(&r).unwrap_or_default());
        return Ok(());
    }
    println!(
        "on the twins: upper threshold {:.1} (mean F1 of the matches {:.4}); write `upper = {:.1}` under [decision]",
        r.twin_upper, r.twin_f1, r.twin_upper
    );
    if let Some(c) = &r.real {
        println!(
            "on the real files: F1 {:.4} at the twins' threshold; best {:.4} at {:.1}; proposed {:.1} gives {:.4}; F1 loss {:.4}",
            c.twin_upper_f1, c.best_f1, c.best_upper, c.proposed_upper, c.proposed_f1, c.f1_loss
        );
    }
    Ok(())
}
