//! The record commands: `link --schema` and `lab eval --schema` (both parties and
//! the matcher on two local CSV files, [`gramlink::record::session`]); the
//! per-party steps are in [`crate::record_steps`].

use crate::io::{self, InFile, Result};
use crate::progress_bar::Bar;
use gramlink::clock::{Clock, SystemClock};
use gramlink::keyed::Key;
use gramlink::record::linker::{RecordLinkage, RecordMatcher};
use gramlink::record::score::{score, RecordQuality};
use gramlink::record::{Kind, RecordOwner, Schema};
use std::collections::HashSet;
use std::path::Path;

/// Reads a schema: TOML for a `.toml` file, JSON otherwise; validated.
pub fn load_schema(path: &Path) -> Result<Schema> {
    let text = io::read_text(path)?;
    let is_toml = path.extension().is_some_and(|e| e.eq_ignore_ascii_case("toml"));
    let schema = if is_toml {
        let s: Schema = toml::from_str(&text)
            .map_err(|e| {
                gramlink::Error::Input(gramlink::error::InputError::Format(format!("schema: {}", e.message())))
            })
            .in_file(path)?;
        s.validate().in_file(path)?;
        s
    } else {
        Schema::parse_json(&text).in_file(path)?
    };
    Ok(schema)
}

/// What a record run is asked to do.
pub struct RecordRun<'a> {
    pub schema: &'a Path,
    pub a: &'a Path,
    pub b: &'a Path,
    pub truth: Option<&'a Path>,
    /// Each party's own date formats (`--date-format-a`, `--date-format-b`).
    pub date_formats: [&'a [(String, String)]; 2],
    pub seed: Option<u64>,
    pub keyed: bool,
    /// The keyed encoding with `keyed` (`None`: the records' default,
    /// [`gramlink::keyed::Encoding::for_records`]).
    pub encoding: Option<gramlink::keyed::Encoding>,
    pub key: Option<Key>,
    pub out: Option<&'a Path>,
    pub json: bool,
}

/// A party's records under `schema`, read from its CSV file a megabyte at a
/// time (never the whole file at once), with a progress bar of the bytes read.
/// `formats`: the party's own date formats (`--date-format`); a format found
/// in the file instead of the schema's is said on stderr.
pub fn read_owner(
    schema: &Schema,
    path: &Path,
    formats: &[(String, String)],
    rng: gramlink::dp::Randomness,
) -> Result<RecordOwner> {
    let owner = reading(path, |progress| RecordOwner::read_file(path, schema.clone(), rng, formats, progress))?;
    for note in &owner.table().notes {
        eprintln!("{}: {note}", path.display());
    }
    Ok(owner)
}

/// The records of the CSV file at `path` under `schema`, read as [`read_owner`] reads them.
pub fn read_table(schema: &Schema, path: &Path) -> Result<gramlink::record::values::RecordTable> {
    schema.validate()?;
    reading(path, |progress| gramlink::record::read_table_file(path, schema, progress))
}

/// `read`, given a progress callback that drives a bar of `path`'s bytes read.
fn reading<T>(path: &Path, read: impl FnOnce(&mut dyn FnMut(u64, u64)) -> gramlink::error::Result<T>) -> Result<T> {
    let mut bar = crate::progress_bar::Bar::new();
    let phase = format!("reading {} (bytes)", path.display());
    let out = read(&mut |done, total| {
        let _ = gramlink::progress::Progress::tick(&mut bar, &phase, done, total);
    })?;
    bar.finish();
    Ok(out)
}

pub fn run(r: RecordRun) -> Result<()> {
    let schema = load_schema(r.schema)?;
    let truth: Option<HashSet<(String, String)>> = match r.truth {
        Some(p) => Some(gramlink::matching::truth::read_truth(&io::read_bytes(p)?, &p.display().to_string())?),
        None => None,
    };
    let mut rng = crate::seed::randomness(r.seed, "the bases are")?;
    let mut a = read_owner(&schema, r.a, r.date_formats[0], rng.fork())?;
    let mut b = read_owner(&schema, r.b, r.date_formats[1], rng.fork())?;
    let needs_key = schema.fields.iter().any(|f| f.kind() == Some(Kind::Keyed));
    let key = match r.key {
        Some(k) => Some(k),
        // both parties are on this machine: a fresh key (seeded runs: from the seed)
        None if r.keyed || needs_key => Some(match r.seed {
            Some(_) => {
                let mut k = [0u8; 32];
                rng.fill_bytes(&mut k);
                Key::from_bytes(k)
            }
            None => Key::random()?,
        }),
        None => None,
    };
    let clock = SystemClock::default();
    let bar = &mut Bar::new();
    let s = gramlink::record::session::run(
        &mut a,
        &mut b,
        key.as_ref(),
        r.keyed.then(|| r.encoding.unwrap_or_else(gramlink::keyed::Encoding::for_records)),
        &clock,
        bar,
    )?;
    bar.finish();
    let truth = truth.as_ref().zip(r.truth);
    report(
        &schema,
        &s.matcher,
        &s.linkage,
        Report { truth, out: r.out, json: r.json, timings: &s.timings_ms, clock: &clock },
    )
}

/// What [`report`] prints and writes.
pub struct Report<'a> {
    pub truth: Option<(&'a HashSet<(String, String)>, &'a Path)>,
    pub out: Option<&'a Path>,
    pub json: bool,
    pub timings: &'a std::collections::BTreeMap<String, f64>,
    pub clock: &'a dyn Clock,
}

/// Writes the pairs (M and P) and prints the summary, or one JSON object,
/// with the scores against the truth if one is given.
pub fn report(schema: &Schema, m: &RecordMatcher, l: &RecordLinkage, r: Report) -> Result<()> {
    let (a_ids, b_ids) = (&m.a().ids, &m.b().ids);
    if let Some(out) = r.out {
        io::write_atomic(out, gramlink::record::export::pairs_csv(schema, l, a_ids, b_ids, None)?.as_bytes())?;
    }
    let q = r.truth.map(|(t, _)| score(l, a_ids, b_ids, t));
    for w in &l.fit.repairs {
        eprintln!("warning: fit: {w}");
    }
    if r.json {
        let v = serde_json::json!({
            "schema": schema.fingerprint(),
            "records": [a_ids.len(), b_ids.len()],
            "epsilon": m.a().epsilon,
            "private": m.a().private && m.b().private,
            "fit": l.fit, "upper": l.upper, "lower": l.lower, "upper_probability": l.upper_probability,
            "assignment": l.assignment.name(),
            "candidates": l.candidates, "matches": l.matches, "possible": l.possible, "non_matches": l.non_matches,
            "reduction_ratio": l.reduction_ratio, "rules": l.rules, "quality": q,
            "timings_ms": r.timings, "ms": r.clock.now_ms(),
        });
        println!("{v}");
        return Ok(());
    }
    print_summary(schema, l, a_ids.len(), b_ids.len(), &m.a().epsilon, r.clock.now_ms());
    if let (Some(q), Some((_, p))) = (q, r.truth) {
        print_quality(&q, p);
    }
    if let Some(out) = r.out {
        eprintln!("{} matches and {} possible matches -> {}", l.matches, l.possible, out.display());
    }
    Ok(())
}

fn print_summary(schema: &Schema, l: &RecordLinkage, na: usize, nb: usize, eps: &[(String, f64)], ms: f64) {
    let split: Vec<String> = eps.iter().map(|(s, e)| format!("{s} {e}")).collect();
    eprintln!("A: {na} records, B: {nb}; epsilon per party {} ({})", schema.epsilon, split.join(", "));
    for r in &l.rules {
        eprintln!("  block {}: {} pairs", r.rule, r.pairs);
    }
    eprintln!(
        "{} candidates (reduction ratio {:.6}); EM: {} iterations{}",
        l.candidates,
        l.reduction_ratio,
        l.fit.iterations,
        if l.fit.converged { "" } else { " (not converged)" },
    );
    eprintln!("{}", gramlink::record::fit::health(&l.fit, na, nb)[0]);
    for f in &l.fit.fields {
        let cells: Vec<String> = f
            .levels
            .iter()
            .enumerate()
            .map(|(i, n)| format!("{n} m={:.4} u={:.4} w={:+.2}", f.m[i], f.u[i], f.weights[i]))
            .collect();
        eprintln!("  {:<14} {}", f.name, cells.join(" | "));
    }
    for line in gramlink::record::fit::dependence(&l.fit) {
        eprintln!("{line}");
    }
    // a pair's probability among all candidates of its weight, and the kept pair's at the
    // upper weight once the assignment has set its records' rivals aside (record::decide)
    let kept = l.upper_probability.map_or(String::new(), |p| {
        format!("; at the upper weight a kept pair is a match with probability {p:.4}, its rivals set aside")
    });
    eprintln!(
        "thresholds (proposed for precision {} and recall {}): upper weight {:.3} (match probability {:.4} among all \
         candidates), lower {:.3} ({:.4}); assignment {}{kept}",
        schema.decision.precision,
        schema.decision.recall,
        l.upper,
        l.fit.probability(l.upper),
        l.lower,
        l.fit.probability(l.lower),
        l.assignment.name()
    );
    let band = if l.possible == 0 && l.fit.probability(l.upper) < gramlink::record::decide::REVIEW_FLOOR {
        "empty: no pair below the upper weight is 1 % likely a match".to_string()
    } else if l.possible == 0 {
        format!("empty: the matches hold {} of the expected true pairs", schema.decision.recall)
    } else {
        format!("match probability {:.4} to {:.4}", l.fit.probability(l.lower), l.fit.probability(l.upper))
    };
    eprintln!(
        "M {} | P {} (the clerk's review band: {band}) | U {} in {:.0} ms",
        l.matches, l.possible, l.non_matches, ms
    );
}

fn print_quality(q: &RecordQuality, truth: &Path) {
    let m = &q.matches;
    let mp = &q.with_possible;
    eprintln!(
        "against {}: M: precision {:.4} recall {:.4} F1 {:.4} | M+P: precision {:.4} recall {:.4} F1 {:.4} | pairs completeness {:.4}",
        truth.display(),
        m.precision,
        m.recall,
        m.f1,
        mp.precision,
        mp.recall,
        mp.f1,
        q.pairs_completeness
    );
}
