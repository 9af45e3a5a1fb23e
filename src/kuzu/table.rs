//! A party's records as the protocol reads them: a CSV file with a header, the
//! id column, the blocking column and the rule's attribute columns (extra
//! columns are ignored; FEBRL's ", " separators are trimmed), or a list of
//! strings one a line (the single-string scenario).

use super::compare::rule::{Rule, Value};
use crate::error::{Error, InputError};

/// A party's records, encoded for the rule.
#[derive(Debug, Clone)]
pub struct Table {
    pub ids: Vec<String>,
    /// The raw values of the blocking column.
    pub block_values: Vec<String>,
    pub records: Vec<Vec<Value>>,
}

impl Table {
    pub fn len(&self) -> usize {
        self.ids.len()
    }

    pub fn is_empty(&self) -> bool {
        self.ids.is_empty()
    }

    /// Reads a CSV file for `rule`.
    pub fn read_csv(bytes: &[u8], what: &str, rule: &Rule) -> Result<Table, Error> {
        let text = crate::dataset::decode_text(bytes, what)?;
        let mut reader = csv::ReaderBuilder::new().trim(csv::Trim::All).from_reader(text.as_bytes());
        let header: Vec<String> = reader
            .headers()
            .map_err(|e| InputError::Csv { record: 0, reason: e.to_string() })?
            .iter()
            .map(String::from)
            .collect();
        let col = |name: &str| -> Result<usize, Error> {
            crate::dataset::unique_column(&header, name)?.ok_or_else(|| {
                Error::Input(InputError::MissingColumn { column: name.into(), available: header.join(", ") })
            })
        };
        let id = col(&rule.id)?;
        let block = col(&rule.block)?;
        let attrs = rule.attrs.iter().map(|a| col(a.column())).collect::<Result<Vec<_>, _>>()?;
        let mut t = Table { ids: Vec::new(), block_values: Vec::new(), records: Vec::new() };
        let mut seen = std::collections::HashMap::new();
        for (i, row) in reader.records().enumerate() {
            let row = row.map_err(|e| InputError::Csv { record: i + 1, reason: e.to_string() })?;
            let get = |c: usize| row.get(c).unwrap_or("");
            let rid = get(id).to_string();
            if let Some(first) = seen.insert(rid.clone(), i) {
                return Err(InputError::DuplicateId { id: rid, first: first + 1, second: i + 1 }.into());
            }
            t.ids.push(rid);
            t.block_values.push(get(block).to_string());
            t.records.push(attrs.iter().enumerate().map(|(z, &c)| rule.encode(z, get(c))).collect());
        }
        if t.is_empty() {
            return Err(InputError::Empty { what: what.into() }.into());
        }
        Ok(t)
    }

    /// One string a line: the id is the line's number and the only attribute,
    /// and the blocking value, is the string (a rule with one string attribute).
    pub fn from_strings(values: &[String], ids: Vec<String>, rule: &Rule) -> Result<Table, Error> {
        if rule.attrs.len() != 1 || !matches!(rule.attrs[0], super::compare::rule::Attr::Str { .. }) {
            return Err(Error::Parameter("a list of strings needs a rule with one string attribute".into()));
        }
        Ok(Table {
            ids,
            block_values: values.to_vec(),
            records: values.iter().map(|v| vec![rule.encode(0, v)]).collect(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_column_named_twice_is_refused_not_read_from_the_first() {
        use crate::kuzu::compare::rule::{AttrKind, AttributeSpec, RuleSpec};
        let year = AttributeSpec {
            column: "year".into(),
            kind: AttrKind::Year,
            weight: 1.0,
            min: Some(1900),
            max: Some(2010),
        };
        let rule = RuleSpec { id: "id".into(), block: "surname".into(), threshold: 0.5, attributes: vec![year] }
            .validate()
            .unwrap();
        let ok = Table::read_csv(b"id,surname,year\n1,SMITH,1950\n", "t", &rule).unwrap();
        assert_eq!(ok.block_values, ["SMITH"]);
        let e = Table::read_csv(b"id,surname,year,surname\n1,SMITH,1950,JONES\n", "t", &rule).unwrap_err();
        assert!(e.to_string().contains("column \"surname\" more than once"), "{e}");
    }
}
