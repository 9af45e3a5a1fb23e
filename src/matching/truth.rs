//! Linkage quality against a known truth: a user's own truth file (`--truth`,
//! `read_truth`, `quality_by_ids`) or the scenario's (docs/SCENARIO.md, `quality`).
//! Precision = true pairs returned / pairs returned; recall = true pairs returned /
//! true pairs; F1 their harmonic mean.

use crate::error::InputError;
use serde::{Deserialize, Serialize};
use std::borrow::Cow;
use std::collections::{HashMap, HashSet};

#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Quality {
    pub precision: f64,
    pub recall: f64,
    pub f1: f64,
    pub pairs: u64,
    pub true_pairs: u64,
}

/// `pairs` are (a, b) indices; `truth[a]` is the index of a's true match in B (if
/// B still holds it); `n` is the number of true pairs (the number of A records).
pub fn quality(pairs: impl Iterator<Item = (u32, u32)>, truth: &[Option<u32>], n: usize) -> Quality {
    let mut returned = 0u64;
    let mut correct = 0u64;
    for (a, b) in pairs {
        returned += 1;
        if truth.get(a as usize).copied().flatten() == Some(b) {
            correct += 1;
        }
    }
    Quality::of_counts(correct, returned, n as u64)
}

impl Quality {
    /// The quality of `returned` pairs of which `correct` are true, against
    /// `truth` true pairs in all: each ratio 0 where its denominator is, F1 0
    /// where precision and recall both are. Every score of pairs or clusters
    /// against a truth is counted here ([`crate::multi::score`] too).
    pub fn of_counts(correct: u64, returned: u64, truth: u64) -> Quality {
        let ratio = |x: u64, y: u64| if y == 0 { 0.0 } else { x as f64 / y as f64 };
        let (precision, recall) = (ratio(correct, returned), ratio(correct, truth));
        let f1 = if precision + recall == 0.0 { 0.0 } else { 2.0 * precision * recall / (precision + recall) };
        Quality { precision, recall, f1, pairs: returned, true_pairs: correct }
    }
}

/// Quality of pairs of ids against a truth of id pairs, any number per record:
/// precision = returned pairs in the truth / pairs returned; recall = returned
/// pairs in the truth / pairs in the truth (so a one-to-one rule is scored over
/// every true pair, as docs/SCENARIO.md asks for FEBRL).
pub fn quality_by_ids<'a>(
    pairs: impl Iterator<Item = (&'a str, &'a str)>,
    truth: &HashSet<(String, String)>,
) -> Quality {
    let (mut returned, mut correct) = (0u64, 0u64);
    for (a, b) in pairs {
        returned += 1;
        if truth.contains(&(a.to_string(), b.to_string())) {
            correct += 1;
        }
    }
    Quality::of_counts(correct, returned, truth.len() as u64)
}

/// A truth file in either of its two forms.
#[derive(Debug, Clone, PartialEq)]
pub enum Truth {
    /// True pairs by ids: `a_id,b_id` (the form of the pairs `link` writes).
    Pairs(HashSet<(String, String)>),
    /// Each record's person: columns `id` and `person`, any others (such as
    /// `party`) ignored; the form `gramlink lab corrupt --parties` writes.
    /// Every two records of one person are a true pair.
    Persons(HashMap<String, String>),
}

impl Truth {
    /// The true pairs between A's records and B's, by ids: a pairs truth as
    /// it is, a persons truth as every (A record, B record) of one person
    /// (records the truth does not name have no true partner).
    pub fn pairs_between<'t>(&'t self, a_ids: &[String], b_ids: &[String]) -> Cow<'t, HashSet<(String, String)>> {
        match self {
            Truth::Pairs(p) => Cow::Borrowed(p),
            Truth::Persons(person) => {
                let mut of: HashMap<&str, Vec<&str>> = HashMap::new();
                for a in a_ids {
                    if let Some(p) = person.get(a) {
                        of.entry(p.as_str()).or_default().push(a.as_str());
                    }
                }
                let mut pairs = HashSet::new();
                for b in b_ids {
                    for a in person.get(b).and_then(|p| of.get(p.as_str())).into_iter().flatten() {
                        pairs.insert((a.to_string(), b.clone()));
                    }
                }
                Cow::Owned(pairs)
            }
        }
    }
}

/// A truth file: CSV with a header, either true pairs (the A ids in the first
/// column and the B ids in the second: `a_id,b_id`) or persons (a header with
/// the columns `id` and `person`). Each row must name what its form needs.
pub fn read_any_truth(bytes: &[u8], what: &str) -> Result<Truth, InputError> {
    let text = crate::dataset::decode_text(bytes, what)?;
    let mut reader = csv::ReaderBuilder::new().has_headers(true).flexible(true).from_reader(text.as_bytes());
    let header = reader.headers().map_err(|e| InputError::Csv { record: 0, reason: e.to_string() })?.clone();
    let col = |name: &str| header.iter().position(|h| h.trim() == name);
    let (persons, columns) = match (col("id"), col("person")) {
        (Some(id), Some(person)) => (true, (id, person)),
        _ => (false, (0, 1)),
    };
    let (mut pairs, mut person) = (HashSet::new(), HashMap::new());
    for (i, row) in reader.records().enumerate() {
        let row = row.map_err(|e| InputError::Csv { record: i + 1, reason: e.to_string() })?;
        match (row.get(columns.0).map(str::trim), row.get(columns.1).map(str::trim)) {
            (Some(x), Some(y)) if !x.is_empty() && !y.is_empty() => {
                if persons {
                    if person.insert(x.to_string(), y.to_string()).is_some_and(|p| p != y) {
                        return Err(InputError::Csv {
                            record: i + 1,
                            reason: format!("{what}: record {x:?} is given two persons"),
                        });
                    }
                } else {
                    pairs.insert((x.to_string(), y.to_string()));
                }
            }
            _ => {
                let needs = if persons { "an id and a person" } else { "an A id and a B id" };
                return Err(InputError::Csv { record: i + 1, reason: format!("{what}: a row needs {needs}") });
            }
        }
    }
    if pairs.is_empty() && person.is_empty() {
        return Err(InputError::Empty { what: what.to_string() });
    }
    Ok(if persons { Truth::Persons(person) } else { Truth::Pairs(pairs) })
}

/// A truth of true pairs ([`read_any_truth`]'s pairs form), for the scorers
/// that do not know both sides' ids; a persons truth is refused by name.
pub fn read_truth(bytes: &[u8], what: &str) -> Result<HashSet<(String, String)>, InputError> {
    match read_any_truth(bytes, what)? {
        Truth::Pairs(p) => Ok(p),
        Truth::Persons(_) => Err(InputError::Format(format!(
            "{what} names each record's person (columns id and person): here the truth must list true pairs, a_id,b_id (`match` of batches reads either)"
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts() {
        let truth = vec![Some(1), Some(0), None];
        let q = quality([(0, 1), (0, 2), (1, 0), (2, 2)].into_iter(), &truth, 3);
        assert_eq!(q.true_pairs, 2);
        assert_eq!(q.pairs, 4);
        assert!((q.precision - 0.5).abs() < 1e-12);
        assert!((q.recall - 2.0 / 3.0).abs() < 1e-12);
        assert!((q.f1 - 2.0 * 0.5 * (2.0 / 3.0) / (0.5 + 2.0 / 3.0)).abs() < 1e-12);
        let none = quality(std::iter::empty(), &truth, 3);
        assert_eq!(none.f1, 0.0);
    }

    #[test]
    fn truth_by_ids_scores_every_true_pair() {
        let truth =
            read_truth(b"a_id,b_id\nrec-1-org,rec-1-dup-0\nrec-1-org,rec-1-dup-1\nrec-2-org,rec-2-dup-0\n", "t")
                .unwrap();
        let q = quality_by_ids([("rec-1-org", "rec-1-dup-0"), ("rec-2-org", "rec-1-dup-1")].into_iter(), &truth);
        assert_eq!((q.pairs, q.true_pairs), (2, 1));
        assert!((q.precision - 0.5).abs() < 1e-12 && (q.recall - 1.0 / 3.0).abs() < 1e-12);
        assert!(read_truth(b"a_id,b_id\n", "t").is_err());
        assert!(read_truth(b"a_id,b_id\nx\n", "t").is_err());
    }

    #[test]
    fn a_persons_truth_gives_the_pairs_between_two_sides() {
        let file = b"party,id,person\nA,a1,7\nA,a2,8\nB,b1,7\nB,b2,9\nC,c1,7\nB,b3,8\n";
        let t = read_any_truth(file, "t").unwrap();
        let ids = |x: &[&str]| x.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        let pairs = t.pairs_between(&ids(&["a1", "a2", "a3"]), &ids(&["b1", "b2", "b3"]));
        let want: HashSet<(String, String)> =
            [("a1", "b1"), ("a2", "b3")].iter().map(|(a, b)| (a.to_string(), b.to_string())).collect();
        assert_eq!(*pairs, want);
        // scorers that know no ids refuse it by name, not as pairs of (party, id)
        let e = read_truth(file, "t").unwrap_err().to_string();
        assert!(e.contains("id and person"), "{e}");
        assert!(read_any_truth(b"id,person\na1,7\na1,8\n", "t").unwrap_err().to_string().contains("two persons"));
        assert!(read_any_truth(b"id,person\na1,\n", "t").is_err());
        // a pairs truth is as it was
        let p = read_any_truth(b"a_id,b_id\nx,y\n", "t").unwrap();
        assert_eq!(p.pairs_between(&[], &[]).len(), 1);
    }
}
