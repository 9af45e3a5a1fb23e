//! The protocol's last two steps, each on a party's own files: B keeps the
//! pairs C matched and maps them to (A's handle, B's id) for A; A maps its
//! handles back to its ids, so the links are (A's id, B's id). Plain joins, no
//! cryptography, nothing new learned: one place for the CLI's `kuzu resolve`
//! and the web page's last step.
//!
//! Ids a spreadsheet would run as formulas are escaped ([`csv_cell`]); the CSV
//! writer quotes what needs quoting.

use crate::dataset::csv_cell;
use crate::error::{Error, InputError, ProtocolError};
use serde_json::Value;
use std::collections::{HashMap, HashSet};

/// A links file (CSV) and how many links it holds.
#[derive(Debug, Clone, PartialEq)]
pub struct Links {
    pub csv: Vec<u8>,
    pub count: usize,
}

/// B's step: the pairs of C's matches (`gramlink/kuzu-matches`) found in B's
/// pair map (`gramlink/kuzu-pair-map`), as `a_handle,b_id` rows for A.
pub fn links_for_a(matches: &str, map: &str) -> Result<Links, Error> {
    let matched: HashSet<String> =
        strings(&message(matches, "gramlink/kuzu-matches")?, "pairs").into_iter().flatten().collect();
    let mut w = Writer::new(["a_handle", "b_id"])?;
    for row in strings(&message(map, "gramlink/kuzu-pair-map")?, "pairs") {
        if let [id, handle, b_id] = row.as_slice() {
            if matched.contains(id) {
                w.row(handle, b_id)?;
            }
        }
    }
    w.finish()
}

/// A's step: B's `a_handle,b_id` rows with A's handles replaced by A's ids
/// from its release report (`gramlink/kuzu-release-report`, which never left
/// A). A handle of a fake or unknown record is refused: C matches no fake.
pub fn final_links(handles_csv: &str, report: &str) -> Result<Links, Error> {
    let owned: HashMap<String, String> = strings(&message(report, "gramlink/kuzu-release-report")?, "handles")
        .into_iter()
        .filter_map(|r| match r.as_slice() {
            [h, id] if !id.is_empty() => Some((h.clone(), id.clone())),
            _ => None,
        })
        .collect();
    let mut w = Writer::new(["a_id", "b_id"])?;
    for (i, row) in csv::Reader::from_reader(handles_csv.as_bytes()).records().enumerate() {
        let row = row.map_err(|e| InputError::Csv { record: i + 1, reason: format!("B's links: {e}") })?;
        if let (Some(h), Some(b_id)) = (row.get(0), row.get(1)) {
            let id = owned.get(h).ok_or_else(|| ProtocolError::Invalid {
                what: "B's links".into(),
                reason: format!("handle {h:?} is not one of A's real records"),
            })?;
            w.row(id, b_id)?;
        }
    }
    w.finish()
}

struct Writer {
    w: csv::Writer<Vec<u8>>,
    count: usize,
}

impl Writer {
    fn new(header: [&str; 2]) -> Result<Writer, Error> {
        let mut w = csv::Writer::from_writer(Vec::new());
        w.write_record(header).map_err(failed)?;
        Ok(Writer { w, count: 0 })
    }

    fn row(&mut self, a: &str, b: &str) -> Result<(), Error> {
        self.count += 1;
        self.w.write_record([&*csv_cell(a), &*csv_cell(b)]).map_err(failed)
    }

    fn finish(self) -> Result<Links, Error> {
        let csv = self.w.into_inner().map_err(|e| failed(e.into_error()))?;
        Ok(Links { csv, count: self.count })
    }
}

fn failed(e: impl std::fmt::Display) -> Error {
    Error::Parameter(format!("cannot write the links: {e}"))
}

/// A Kuzu JSON message of the named format.
fn message(text: &str, format: &str) -> Result<Value, Error> {
    let v: Value = serde_json::from_str(text)
        .map_err(|e| ProtocolError::Malformed { expected: "gramlink/kuzu message", reason: e.to_string() })?;
    if v.get("format").and_then(|f| f.as_str()) != Some(format) {
        return Err(ProtocolError::WrongFormat {
            expected: format.into(),
            found: v.get("format").map_or("nothing".into(), |f| f.to_string()),
        }
        .into());
    }
    Ok(v)
}

/// The rows of an array of string arrays (a string alone is a row of one).
fn strings(v: &Value, key: &str) -> Vec<Vec<String>> {
    let row = |r: &Value| -> Vec<String> {
        match r {
            Value::Array(xs) => xs.iter().map(|x| x.as_str().map_or_else(String::new, String::from)).collect(),
            Value::String(x) => vec![x.clone()],
            _ => Vec::new(),
        }
    };
    v.get(key).and_then(|x| x.as_array()).map_or_else(Vec::new, |rows| rows.iter().map(row).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn b_keeps_the_matched_pairs_and_a_maps_its_handles_back() {
        let matches = r#"{"format":"gramlink/kuzu-matches","pairs":["p1","p3"]}"#;
        let map =
            r#"{"format":"gramlink/kuzu-pair-map","pairs":[["p1","h9","=B1"],["p2","h8","B2"],["p3","h7","B3"]]}"#;
        let l = links_for_a(matches, map).unwrap();
        assert_eq!(
            (String::from_utf8(l.csv.clone()).unwrap().as_str(), l.count),
            ("a_handle,b_id\nh9,'=B1\nh7,B3\n", 2)
        );
        let report = r#"{"format":"gramlink/kuzu-release-report","handles":[["h9","a1"],["h7","a,3"],["h5",null]]}"#;
        let f = final_links(std::str::from_utf8(&l.csv).unwrap(), report).unwrap();
        assert_eq!(String::from_utf8(f.csv).unwrap(), "a_id,b_id\na1,'=B1\n\"a,3\",B3\n");
        assert_eq!(f.count, 2);
    }

    #[test]
    fn wrong_messages_and_unknown_handles_are_named() {
        let code = |r: Result<Links, Error>| r.unwrap_err().code();
        let map = r#"{"format":"gramlink/kuzu-pair-map","pairs":[]}"#;
        assert_eq!(code(links_for_a("{", map)), "MALFORMED_MESSAGE");
        assert_eq!(code(links_for_a(map, map)), "WRONG_MESSAGE_KIND");
        let report = r#"{"format":"gramlink/kuzu-release-report","handles":[["h5",null]]}"#;
        assert_eq!(code(final_links("a_handle,b_id\nh5,B1\n", report)), "INVALID_MESSAGE");
        assert_eq!(code(final_links("a_handle,b_id\n\"h5,B1\n", report)), "MALFORMED_CSV");
    }
}
