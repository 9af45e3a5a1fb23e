//! The linkage schema: which columns form a record, how each field is
//! transformed and compared, how candidates are found and how pairs are decided.
//!
//! A schema is data (JSON here; the CLI also reads the same structure as TOML).
//! [`Schema::parse_json`] refuses unknown options, and [`Schema::validate`]
//! checks every rule, naming the field at fault. Both parties and the matcher
//! check its [`Schema::fingerprint`], as they check the shared base's.

use crate::error::{Error, InputError};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::field::bad;
pub use super::field::{DateWeights, Field, Kind, MAX_LEVELS};

/// The schema version this build reads and writes.
pub const SCHEMA_VERSION: u32 = 1;
/// At most this many fields: each private one is a gram base and a vector per record.
pub const MAX_FIELDS: usize = 32;

/// A blocking rule: pairs that agree on `field` (and on every term of `and`)
/// become candidates. On a string, name or number field, agreement is "within
/// `ed` edits" by A's sound thresholds (name fields also across the other
/// name fields); `ed = 0` is equal vectors. A date, keyed or clear field
/// agrees by equality (a date: year, month and day all equal).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BlockRule {
    pub field: String,
    /// Edit distance of the rule on an embedded field (default 1). 0: equal
    /// vectors (a hash join, fast at any size; equal values embed equally).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ed: Option<u32>,
    /// More terms that must hold as well (a conjunction): on large files, an
    /// equality term (a date of birth) joins few pairs, and the others check
    /// just those ([`crate::record::blocking`]).
    #[serde(default, rename = "and", skip_serializing_if = "Vec::is_empty")]
    pub and: Vec<BlockTerm>,
}

/// One term of a conjunctive blocking rule: as [`BlockRule`]'s own field and ed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BlockTerm {
    pub field: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ed: Option<u32>,
}

impl BlockRule {
    /// A one-term rule.
    pub fn on(field: &str, ed: Option<u32>) -> BlockRule {
        BlockRule { field: field.to_string(), ed, and: Vec::new() }
    }

    /// Every term: the rule's own, then `and`'s.
    pub fn terms(&self) -> Vec<BlockTerm> {
        let mut out = vec![BlockTerm { field: self.field.clone(), ed: self.ed }];
        out.extend(self.and.iter().cloned());
        out
    }
}

/// How matches are chosen among the pairs above the upper threshold.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Assignment {
    /// Each A and each B record in at most one match (greedy by weight).
    OneToOne,
    /// Each B record in at most one match (B may hold several copies of an A).
    ManyToOne,
    /// Every pair above the threshold.
    All,
    /// One-to-one unless the fit shows B holds several copies of A's records
    /// ([`super::decide`] says how), then many-to-one.
    Auto,
}

impl Assignment {
    pub const ALL: [Assignment; 4] = [Assignment::Auto, Assignment::OneToOne, Assignment::ManyToOne, Assignment::All];
    pub fn name(self) -> &'static str {
        match self {
            Assignment::OneToOne => "one-to-one",
            Assignment::ManyToOne => "many-to-one",
            Assignment::All => "all",
            Assignment::Auto => "auto",
        }
    }
    pub fn from_name(name: &str) -> Option<Assignment> {
        Assignment::ALL.into_iter().find(|a| a.name() == name)
    }
}

/// The decision: the targets the two weight thresholds are proposed for.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Decision {
    /// The upper threshold is the lowest weight of match probability at least
    /// 0.5 at which the matches' estimated precision (mean match probability of
    /// the pairs at or above it) is at least this ([`super::decide`]).
    #[serde(default = "default_precision")]
    pub precision: f64,
    /// The lower threshold is the highest weight at which matches plus possible
    /// matches hold at least this share of the expected true pairs.
    #[serde(default = "default_recall")]
    pub recall: f64,
    /// `auto` (default), `one-to-one`, `many-to-one` or `all`.
    #[serde(default = "default_assignment")]
    pub assignment: String,
    /// Fixed thresholds instead of the proposed ones.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub upper: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lower: Option<f64>,
}

fn default_precision() -> f64 {
    0.98
}
fn default_recall() -> f64 {
    0.999
}
fn default_assignment() -> String {
    "auto".into()
}

impl Default for Decision {
    fn default() -> Self {
        Decision {
            precision: default_precision(),
            recall: default_recall(),
            assignment: default_assignment(),
            upper: None,
            lower: None,
        }
    }
}

/// A linkage schema (see the module docs).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Schema {
    pub version: u32,
    /// The CSV column of the record ids (default: row numbers).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// Each party's total ε, split over the mined fields.
    #[serde(default = "default_epsilon")]
    pub epsilon: f64,
    #[serde(rename = "field")]
    pub fields: Vec<Field>,
    /// Blocking rules (their union). Default: [`Schema::block_rules`].
    #[serde(default, rename = "block", skip_serializing_if = "Vec::is_empty")]
    pub blocks: Vec<BlockRule>,
    /// `"auto"`: the matcher designs the blocking rules from the batches
    /// ([`super::block_design`]) instead of [`Schema::block_rules`]'s default.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub blocking: Option<String>,
    #[serde(default)]
    pub decision: Decision,
}

fn default_epsilon() -> f64 {
    0.1
}

impl Schema {
    /// Reads a schema from JSON and validates it. Unknown options are refused.
    pub fn parse_json(text: &str) -> Result<Schema, Error> {
        let s: Schema = serde_json::from_str(text).map_err(|e| bad(e.to_string()))?;
        s.validate()?;
        Ok(s)
    }

    /// The one-string schema of the single-column commands: field `column`, a
    /// `string` (letters).
    pub fn single(column: &str) -> Schema {
        Schema {
            version: SCHEMA_VERSION,
            id: None,
            epsilon: default_epsilon(),
            fields: vec![Field::new(column, Kind::String)],
            blocks: Vec::new(),
            blocking: None,
            decision: Decision::default(),
        }
    }

    /// Checks every rule; the error names the field or option at fault.
    pub fn validate(&self) -> Result<(), Error> {
        if self.version != SCHEMA_VERSION {
            return Err(Error::Protocol(crate::error::ProtocolError::Version {
                format: "linkage schema".into(),
                found: self.version,
                supported: SCHEMA_VERSION,
            }));
        }
        crate::dp::Epsilon::new(self.epsilon).map_err(|e| bad(format!("epsilon: {e}")))?;
        match self.blocking.as_deref() {
            None => {}
            Some("auto") if self.blocks.is_empty() => {}
            Some("auto") => {
                return Err(bad(
                    "blocking = \"auto\" designs the rules itself: remove the [[block]] rules or the option".into(),
                ))
            }
            Some(other) => return Err(bad(format!("blocking {other:?}: the only value is \"auto\""))),
        }
        if self.fields.is_empty() {
            return Err(bad("it has no fields".into()));
        }
        if self.fields.len() > MAX_FIELDS {
            return Err(bad(format!("{} fields; at most {MAX_FIELDS}", self.fields.len())));
        }
        let mut names = std::collections::HashSet::new();
        for f in &self.fields {
            f.validate()?;
            let columns = f.columns();
            if let Some((_, c)) = columns.iter().enumerate().find(|(i, c)| columns[..*i].contains(c)) {
                return Err(InputError::RepeatedColumn { field: f.name.clone(), column: c.clone() }.into());
            }
            if !names.insert(f.name.as_str()) {
                return Err(bad(format!("two fields are named {:?}", f.name)));
            }
            // ids leave the party with the batch (as pseudonyms by default, but
            // --keep-ids sends them): a field's column as id would send its values
            // in the clear, whatever the field's kind (even suppress)
            if let Some(id) = self.id.as_ref().filter(|id| f.columns().contains(id)) {
                return Err(InputError::IdIsLinkedColumn { column: id.clone() }.into());
            }
        }
        if self.fields.iter().all(|f| f.kind() == Some(Kind::Suppress)) {
            return Err(bad("every field is suppressed: nothing is compared".into()));
        }
        self.budget_split()?;
        self.validate_salts()?;
        for b in &self.blocks {
            let mut seen = std::collections::HashSet::new();
            for t in b.terms() {
                self.validate_term(&t)?;
                if !seen.insert(t.field.clone()) {
                    return Err(bad(format!("a block rule names field {:?} twice", t.field)));
                }
            }
        }
        let d = &self.decision;
        if !(d.precision > 0.0 && d.precision < 1.0) {
            return Err(bad(format!("decision.precision {} is not in (0, 1)", d.precision)));
        }
        if !(d.recall > 0.0 && d.recall < 1.0) {
            return Err(bad(format!("decision.recall {} is not in (0, 1)", d.recall)));
        }
        if Assignment::from_name(&d.assignment).is_none() {
            return Err(bad(format!(
                "decision.assignment {:?} is not one of auto, one-to-one, many-to-one, all",
                d.assignment
            )));
        }
        for (n, v) in [("upper", d.upper), ("lower", d.lower)] {
            if v.is_some_and(|v| !v.is_finite()) {
                return Err(bad(format!("decision.{n} is not a finite number")));
            }
        }
        if let (Some(u), Some(l)) = (d.upper, d.lower) {
            if l > u {
                return Err(bad(format!("decision.lower {l} is above decision.upper {u}")));
            }
        }
        Ok(())
    }

    /// Checks every field's `salt` ([`super::salt`]): another field of the schema, itself
    /// unsalted; on an embedded field; the same on every field of one gram
    /// space (the name fields are compared across, given name against surname).
    fn validate_salts(&self) -> Result<(), Error> {
        for f in &self.fields {
            let Some(salt) = f.salt.as_deref() else { continue };
            let by = self
                .field(salt)
                .ok_or_else(|| bad(format!("field {:?} is salted by {salt:?}, which is not a field", f.name)))?;
            if by.name == f.name {
                return Err(bad(format!("field {:?} is salted by itself", f.name)));
            }
            if by.salt.is_some() {
                return Err(bad(format!("field {:?} is salted by {salt:?}, which is salted itself", f.name)));
            }
            if !f.kind().is_some_and(Kind::is_embedded) {
                return Err(bad(format!(
                    "field {:?} is salted, but a {} field has no keyed encoding to salt (string, name, number or date)",
                    f.name, f.kind
                )));
            }
        }
        for f in &self.fields {
            for g in &self.fields {
                if f.space_name().is_some() && f.space_name() == g.space_name() && f.salt != g.salt {
                    return Err(bad(format!(
                        "fields {:?} and {:?} share a gram space (they are compared across) but not a salt",
                        f.name, g.name
                    )));
                }
            }
        }
        Ok(())
    }

    /// Whether some field is salted by `f` ([`super::salt`]).
    pub fn salts_by(&self, f: &Field) -> bool {
        self.fields.iter().any(|g| g.salt.as_deref() == Some(f.name.as_str()))
    }

    fn validate_term(&self, t: &BlockTerm) -> Result<(), Error> {
        let f =
            self.field(&t.field).ok_or_else(|| bad(format!("block rule on {:?}, which is not a field", t.field)))?;
        match f.kind() {
            Some(Kind::Date) if matches!(t.ed, None | Some(0)) => {}
            Some(k) if k.is_embedded() && k != Kind::Date => {}
            Some(Kind::Keyed | Kind::Clear) if t.ed.is_none() => {}
            Some(Kind::Keyed | Kind::Clear | Kind::Date) => {
                return Err(bad(format!(
                    "block rule on {:?}: a {} field blocks by equality, it takes no ed",
                    f.name, f.kind
                )))
            }
            _ => {
                return Err(bad(format!(
                "block rule on {:?}: a {} field cannot block (use a string, name, number, date, keyed or clear field)",
                f.name, f.kind
            )))
            }
        }
        if let Some(ed) = t.ed {
            if ed > crate::threshold::MAX_ED {
                return Err(bad(format!(
                    "block rule on {:?}: ed {ed} is not in 0..={}",
                    f.name,
                    crate::threshold::MAX_ED
                )));
            }
        }
        Ok(())
    }

    pub fn field(&self, name: &str) -> Option<&Field> {
        self.fields.iter().find(|f| f.name == name)
    }

    /// The fields that leave the party (every kind but `suppress`), in order.
    pub fn sent(&self) -> impl Iterator<Item = &Field> {
        self.fields.iter().filter(|f| f.kind() != Some(Kind::Suppress))
    }

    /// The assignment, parsed (validated by [`Schema::validate`]).
    pub fn assignment(&self) -> Assignment {
        Assignment::from_name(&self.decision.assignment).unwrap_or(Assignment::Auto)
    }

    /// Whether the matcher designs the blocking rules (`blocking = "auto"`).
    pub fn designs_blocks(&self) -> bool {
        self.blocking.as_deref() == Some("auto")
    }

    /// Whether the blocking rules are the default ones (none written).
    pub fn default_blocks(&self) -> bool {
        self.blocks.is_empty()
    }

    /// The blocking rules: the written ones, or by default one per name field
    /// (ed 1, across name fields); without name fields, the first string or
    /// number field (ed 1); and one per date field, equal (or day and month
    /// swapped). Keyed fields block only when written: a field of few values
    /// (sex, state) would make nearly every pair a candidate.
    ///
    /// Why the dates: a person's records whose names both carry errors (a
    /// nickname and a typo, a blank and a filler) still share the date of
    /// birth. On pseudopeople's census against SSA at doubled noise the date
    /// rule raised pairs completeness from 0.9894 to 0.9982 and F1 from
    /// 0.9822 to 0.9849, for 3 % more candidates (docs/RECORDS.md). A date of
    /// birth is shared by about one pair in 10⁴ (u of its exact level); a
    /// date of few values (a visit date) joins far more, and past the
    /// candidate cap the error names the default rules and asks for written
    /// ones.
    pub fn block_rules(&self) -> Vec<BlockRule> {
        if !self.blocks.is_empty() {
            return self.blocks.clone();
        }
        let mut out: Vec<BlockRule> = Vec::new();
        for f in &self.fields {
            if f.kind() == Some(Kind::Name) {
                out.push(BlockRule::on(&f.name, Some(1)));
            }
        }
        if out.is_empty() {
            if let Some(f) = self.fields.iter().find(|f| f.kind().is_some_and(|k| k.is_embedded() && k != Kind::Date)) {
                out.push(BlockRule::on(&f.name, Some(1)));
            }
        }
        for f in &self.fields {
            if f.kind() == Some(Kind::Date) {
                out.push(BlockRule::on(&f.name, None));
            }
        }
        out
    }

    /// The gram spaces that are mined and the ε of each, by the explicit
    /// split: the name fields form one space (`names`), each string field its
    /// own. Fields without an explicit share split what is left equally.
    /// Errors when the explicit shares exceed the total.
    pub fn budget_split(&self) -> Result<Vec<(String, f64)>, Error> {
        let mut spaces: Vec<(String, Option<f64>)> = Vec::new();
        for f in &self.fields {
            let Some(space) = f.space() else { continue };
            let share = f.epsilon;
            match spaces.iter_mut().find(|(s, _)| *s == space) {
                Some((_, e)) => {
                    if let Some(v) = share {
                        *e = Some(e.unwrap_or(0.0) + v);
                    }
                }
                None => spaces.push((space, share)),
            }
        }
        for f in &self.fields {
            if let Some(e) = f.epsilon {
                if !(e.is_finite() && e >= 0.0) {
                    return Err(bad(format!("field {:?}: epsilon {e} is not a number >= 0", f.name)));
                }
                if !f.kind().is_some_and(|k| k.is_embedded()) {
                    return Err(bad(format!(
                        "field {:?}: a {} field spends no budget, it takes no epsilon",
                        f.name, f.kind
                    )));
                }
            }
        }
        let explicit: f64 = spaces.iter().filter_map(|(_, e)| *e).sum();
        if explicit > self.epsilon * (1.0 + 1e-12) {
            return Err(bad(format!(
                "the fields' epsilon shares add up to {explicit}, more than the budget epsilon = {}",
                self.epsilon
            )));
        }
        let defaults: Vec<&str> = self
            .fields
            .iter()
            .filter(|f| f.epsilon.is_none() && f.kind().is_some_and(|k| k.mines_by_default()))
            .filter_map(|f| f.space_name())
            .collect();
        let mut unique: Vec<&str> = Vec::new();
        for d in defaults {
            if !unique.contains(&d) && spaces.iter().any(|(s, e)| s == d && e.is_none()) {
                unique.push(d);
            }
        }
        let rest = (self.epsilon - explicit).max(0.0);
        Ok(spaces
            .into_iter()
            .map(|(s, e)| {
                let eps = match e {
                    Some(v) => v,
                    None if unique.contains(&s.as_str()) => rest / unique.len() as f64,
                    None => 0.0,
                };
                (s, eps)
            })
            .collect())
    }

    /// SHA-256 of the schema's canonical JSON: what every message carries.
    pub fn fingerprint(&self) -> String {
        let json = serde_json::to_string(self).unwrap_or_default();
        hex::encode(Sha256::digest(format!("gramlink-schema-v{SCHEMA_VERSION}\n{json}").as_bytes()))
    }

    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_default()
    }
}
