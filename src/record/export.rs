//! The linked pairs as CSV (the CLI's `-o`, the JS `pairsCsv`, the web app's
//! export): ids, class, weight, probability, whether the names matched
//! crossed, then each sent field's level by name.

use super::compare::MISSING;
use super::linker::{Class, RecordLinkage};
use super::schema::Schema;
use crate::error::Error;

use crate::dataset::csv_cell as cell;

/// A clerk's decision on a pair (the web app's review of possible matches).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Review {
    Accepted,
    Rejected,
}

impl Review {
    /// A review as the front ends pass it: one character per pair, `a`
    /// accepted, `r` rejected, anything else none.
    pub fn from_chars(review: &str) -> Vec<Option<Review>> {
        review
            .chars()
            .map(|c| match c {
                'a' => Some(Review::Accepted),
                'r' => Some(Review::Rejected),
                _ => None,
            })
            .collect()
    }
}

/// The M and P pairs of `l` (rows of `a_ids` and `b_ids`) as CSV text; with
/// `review` (one entry per pair of `l`), a `review` column after `swapped`.
pub fn pairs_csv(
    schema: &Schema,
    l: &RecordLinkage,
    a_ids: &[String],
    b_ids: &[String],
    review: Option<&[Option<Review>]>,
) -> Result<String, Error> {
    if review.is_some_and(|r| r.len() != l.pairs.len()) {
        return Err(Error::Parameter(format!(
            "the review has {} entries for {} pairs",
            review.map_or(0, |r| r.len()),
            l.pairs.len()
        )));
    }
    let err = |e: &dyn std::fmt::Display| Error::Parameter(format!("cannot write the pairs: {e}"));
    let mut w = csv::Writer::from_writer(Vec::new());
    let sent: Vec<_> = schema.sent().collect();
    let mut header: Vec<String> =
        ["a_id", "b_id", "class", "weight", "probability", "swapped"].iter().map(|s| s.to_string()).collect();
    if review.is_some() {
        header.push("review".into());
    }
    header.extend(sent.iter().map(|f| f.name.clone()));
    w.write_record(&header).map_err(|e| err(&e))?;
    for (k, p) in l.pairs.iter().enumerate() {
        let mut row: Vec<String> = vec![
            cell(&a_ids[p.a as usize]).into_owned(),
            cell(&b_ids[p.b as usize]).into_owned(),
            match p.class {
                Class::Match => "M".into(),
                Class::Possible => "P".into(),
            },
            format!("{:.4}", p.weight),
            format!("{:.6}", p.probability),
            p.swapped.to_string(),
        ];
        if let Some(r) = review {
            row.push(
                match r[k] {
                    Some(Review::Accepted) => "accepted",
                    Some(Review::Rejected) => "rejected",
                    None => "",
                }
                .into(),
            );
        }
        for (f, &lv) in sent.iter().zip(&p.levels) {
            row.push(if lv == MISSING { "missing".into() } else { f.level_names()[lv as usize].clone() });
        }
        w.write_record(&row).map_err(|e| err(&e))?;
    }
    let bytes = w.into_inner().map_err(|e| err(&e))?;
    String::from_utf8(bytes).map_err(|e| err(&e))
}

#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests {
    #[test]
    fn formula_like_cells_are_defused() {
        assert_eq!(super::cell("=HYPERLINK(1)"), "'=HYPERLINK(1)");
        assert_eq!(super::cell("-1"), "'-1");
        assert_eq!(super::cell("rec-1-org"), "rec-1-org");
    }
}
