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
            gramlink::matching::truth::read_truth(&io::read_bytes(t)?, &t.display().to_string())?,
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
    let t = &r.twin;
    println!(
        "on the twins: weights {}, upper threshold {:.1} (mean F1 of the matches {:.4}), lower {:.1} (M and P hold {:.4} of the true pairs)",
        t.weights, t.upper, t.f1, t.lower, t.recall_with_possible
    );
    println!("  write under [decision]: upper = {:.1}, lower = {:.1}", t.upper, t.lower);
    for (field, m) in &t.m {
        let m: Vec<String> = m.iter().map(|x| format!("{x:.4}")).collect();
        println!("  and for field {field}: m = [{}]", m.join(", "));
    }
    if let Some(c) = &r.real {
        println!(
            "on the real files: F1 {:.4} with the twins' weights and upper threshold; best {:.4} (weights {}, upper {:.1}); proposed {:.1} gives {:.4}; F1 loss {:.4}",
            c.twin_upper_f1, c.best_f1, c.best.weights, c.best_upper, c.proposed_upper, c.proposed_f1, c.f1_loss
        );
        println!(
            "  M and P at the twins' lower {:.1}: recall {:.4}, {} possible pairs, F1 {:.4}; at the real choice's lower {:.1}: recall {:.4}, {} possible, F1 {:.4}",
            t.lower, c.twin_lower_recall, c.twin_lower_possible, c.twin_lower_f1, c.best.lower, c.best.recall_with_possible, c.best_lower_possible, c.best_lower_f1
        );
    }
    Ok(())
}
