//! A data owner of records: the schema's fields read and normalized
//! ([`RecordOwner::read`], or streamed: [`RecordOwner::read_file`],
//! [`RecordOwner::from_reader`]), a noisy base mined per gram space
//! ([`RecordOwner::mine`]), the shared bases ([`merge`]), and the record batch
//! that goes to the matcher ([`RecordOwner::embed`]).
//!
//! **Gram spaces.** Every `string` field is its own space; all `name` fields
//! share one (`names`), so a given name can be compared with a surname; every
//! `date` and `number` field is its own space over the ten digits.
//!
//! **Privacy.** A space is mined from one string per record: its fields'
//! values joined by a space (the `names` space: "GIVEN SURNAME"). So one
//! record changes one input of each space's miner, whose ε-DP argument
//! ([`crate::mine`]) holds per space unchanged. The spaces are mined with
//! disjoint shares ε_s of the party's budget, each charged to the one ledger,
//! so by sequential composition the party's release is (Σ ε_s)-DP with
//! Σ ε_s ≤ ε ([`super::schema::Schema::budget_split`] refuses more). A space with
//! share 0 (dates and numbers by default) mines nothing: its base is every
//! public 2-gram of its alphabet and the boundary grams, a function of the
//! alphabet alone. Keyed fields spend no budget: they are a keyed PRF of the
//! value ([`keyed_hash`]), equal values give equal hashes (what the matcher
//! learns is in docs/THREAT_MODEL.md). Embedded vectors are a function of the
//! record and the shared bases, as for one string.

use super::batch::{FieldData, Part, RecordBatch};
use super::keyed_hash::{key_check, keyed_hash};
use super::read_table::read_table;
use super::schema::{Field, Kind, Schema};
use super::values::{field_alphabet, RecordTable};
use crate::alphabet::Alphabet;
use crate::base::{NoisyBase, SharedBase};
use crate::config::Config;
use crate::dataset::{ChunkReader, Dataset};
use crate::dp::{BudgetLedger, Epsilon, Randomness};
use crate::embed::BatchVectors;
use crate::embed::Embedder;
use crate::error::Error;
use crate::keyed::{Encoding, Key, Linkage};
use crate::mine::MineOptions;
use crate::padding::Padding;
use crate::party::EmbedOptions;
use crate::progress::Progress;
use crate::protocol::Party;
use crate::pseudonym::{Embedded, Rows};
use crate::threshold::ThresholdMode;

/// The tree depth of a space's miner: public, as in the one-string configuration.
pub const SPACE_DEPTH: usize = 7;

/// A gram space: the base one or more fields are embedded in.
#[derive(Debug, Clone, PartialEq)]
pub struct Space {
    pub name: String,
    pub alphabet: Alphabet,
    /// The share of the party's ε it mines with (0: public grams only).
    pub epsilon: f64,
    /// Indices of its fields in the schema.
    pub fields: Vec<usize>,
}

impl Space {
    /// The mining options of this space: the recommended configuration's with
    /// the space's ε.
    pub fn mine_options(&self) -> MineOptions {
        MineOptions { epsilon: self.epsilon, h_max: SPACE_DEPTH, ..Config::recommended().mine }
    }

    /// The shared base of a space that mines nothing.
    pub fn public_base(&self) -> Result<SharedBase, Error> {
        let p = Padding::default();
        let grams = crate::public::public_grams(&self.alphabet, 2, Some(p))?;
        Ok(SharedBase::with_padding(self.alphabet.clone(), 2, 2, grams, Some(p))?)
    }
}

/// The schema's gram spaces, in the order of their first field.
pub fn spaces(schema: &Schema) -> Result<Vec<Space>, Error> {
    let split = schema.budget_split()?;
    let mut out: Vec<Space> = Vec::new();
    for (i, f) in schema.fields.iter().enumerate() {
        let Some(name) = f.space() else { continue };
        match out.iter_mut().find(|s| s.name == name) {
            Some(s) => s.fields.push(i),
            None => {
                let epsilon = split.iter().find(|(s, _)| *s == name).map_or(0.0, |(_, e)| *e);
                out.push(Space { name, alphabet: field_alphabet(f)?, epsilon, fields: vec![i] });
            }
        }
    }
    Ok(out)
}

/// A party's noisy bases, one per mined space.
#[derive(Debug, Clone, PartialEq)]
pub struct NoisyBases {
    pub schema: String,
    pub bases: Vec<(String, NoisyBase)>,
}

/// The shared bases, one per space (mined or public).
#[derive(Debug, Clone, PartialEq)]
pub struct SharedBases {
    pub schema: String,
    pub bases: Vec<(String, SharedBase)>,
    /// False when any party's noisy bases were not private (seeded
    /// noise): every batch embedded over them is then marked not private.
    pub private: bool,
}

impl SharedBases {
    pub fn get(&self, space: &str) -> Option<&SharedBase> {
        self.bases.iter().find(|(s, _)| s == space).map(|(_, b)| b)
    }

    /// The base a batch's embedded field names by its fingerprint.
    pub fn by_fingerprint(&self, fingerprint: &str) -> Result<&SharedBase, Error> {
        self.bases
            .iter()
            .find(|(_, b)| b.fingerprint() == fingerprint)
            .map(|(_, b)| b)
            .ok_or_else(|| Error::Parameter(format!("the shared bases have no base of fingerprint {fingerprint}")))
    }
}

/// Merges two parties' noisy bases into the shared bases (post-processing:
/// no budget). Both must have been mined under `schema`.
pub fn merge(a: &NoisyBases, b: &NoisyBases, schema: &Schema) -> Result<SharedBases, Error> {
    merge_all(&[a, b], schema)
}

/// Merges the noisy bases of two parties or more (A, B, C, … in the order
/// given) as [`merge`] of two; one party's bases given twice is
/// [`BaseError::Twice`](crate::error::BaseError::Twice): the same noisy counts,
/// some gram mined (as [`crate::party::merge_parties`]). `what[i]` names party
/// `i`'s bases in errors (a file name).
pub fn merge_parties(parties: &[&NoisyBases], what: &[String], schema: &Schema) -> Result<SharedBases, Error> {
    let mined = |n: &NoisyBases| n.bases.iter().any(|(_, b)| !b.grams.is_empty());
    let too_few = "party's noisy bases given: shared bases merge two parties' at least";
    crate::party::each_once(parties, what, mined, "bases", too_few)?;
    merge_all(parties, schema)
}

fn merge_all(parties: &[&NoisyBases], schema: &Schema) -> Result<SharedBases, Error> {
    let fp = schema.fingerprint();
    let party = crate::protocol::Party::label;
    for (i, n) in parties.iter().enumerate() {
        super::check::check_schema(&fp, &n.schema, &format!("party {}'s noisy bases", party(i)))?;
    }
    let mut bases = Vec::new();
    for s in spaces(schema)? {
        let base = if s.epsilon > 0.0 {
            let mut of_space = Vec::with_capacity(parties.len());
            for (i, n) in parties.iter().enumerate() {
                let b = n.bases.iter().find(|(name, _)| *name == s.name).map(|(_, b)| b).ok_or_else(|| {
                    Error::Parameter(format!("party {}'s noisy bases have no base for space {:?}", party(i), s.name))
                })?;
                of_space.push(b);
            }
            crate::party::merge_all(&of_space, &s.mine_options())?
        } else {
            s.public_base()?
        };
        bases.push((s.name, base));
    }
    let private = parties.iter().flat_map(|n| &n.bases).all(|(_, n)| n.private);
    Ok(SharedBases { schema: fp, bases, private })
}

/// What the key's resolution needs of a schema ([`crate::keyed::resolve`]):
/// its fingerprint (a passphrase's salt) and whether it sends an embedded
/// field (then vectors leave keyed unless the owner opted out, exactly as one
/// string's do). Resolved before any record is read.
pub fn linkage(schema: &Schema) -> Linkage {
    let embeds = schema.sent().any(|f| f.kind().is_some_and(Kind::is_embedded));
    Linkage::Records { schema: schema.fingerprint(), embeds }
}

/// One party's records under a schema, with its budget and randomness.
pub struct RecordOwner {
    schema: Schema,
    table: RecordTable,
    ledger: BudgetLedger,
    rng: Randomness,
}

impl RecordOwner {
    /// An owner of `table` (read under `schema`) with the schema's budget.
    pub fn new(schema: Schema, table: RecordTable, rng: Randomness) -> Result<RecordOwner, Error> {
        schema.validate()?;
        let budget = Epsilon::new(schema.epsilon)?;
        Ok(RecordOwner { schema, table, ledger: BudgetLedger::new(budget), rng })
    }

    /// An owner of the CSV in `bytes`; `what` names it in errors.
    pub fn read(bytes: &[u8], schema: Schema, what: &str, rng: Randomness) -> Result<RecordOwner, Error> {
        schema.validate()?;
        let table = read_table(bytes, &schema, what)?;
        RecordOwner::new(schema, table, rng)
    }

    /// An owner of the CSV file at `path`, read a megabyte at a time
    /// ([`super::read_table_file`]), its dates in the party's own `formats`
    /// (field, format); `progress` gets the bytes read and the file's size.
    #[cfg(not(target_arch = "wasm32"))]
    pub fn read_file(
        path: &std::path::Path,
        schema: Schema,
        rng: Randomness,
        formats: &[(String, String)],
        progress: &mut dyn FnMut(u64, u64),
    ) -> Result<RecordOwner, Error> {
        schema.validate()?;
        let reader =
            super::table_reader::TableReader::new(&schema, &path.display().to_string()).date_formats(formats)?;
        let table = crate::dataset::read_path(reader, path, progress)?;
        RecordOwner::new(schema, table, rng)
    }

    /// An owner of the table a [`super::table_reader::TableReader`] has read to its end,
    /// under the reader's schema.
    pub fn from_reader(reader: super::table_reader::TableReader, rng: Randomness) -> Result<RecordOwner, Error> {
        let schema = reader.schema().clone();
        schema.validate()?;
        let table = reader.finish()?;
        RecordOwner::new(schema, table, rng)
    }

    pub fn schema(&self) -> &Schema {
        &self.schema
    }

    pub fn table(&self) -> &RecordTable {
        &self.table
    }

    pub fn ledger(&self) -> &BudgetLedger {
        &self.ledger
    }

    pub fn is_private(&self) -> bool {
        self.rng.is_private()
    }

    /// The values of the schema field `index` (a sent field).
    fn values(&self, index: usize) -> &[Option<String>] {
        self.table.column(&self.schema.fields[index].name)
    }

    /// Mines a noisy base for every space with a share of ε, charging the
    /// ledger (see the module docs for the privacy argument).
    pub fn mine(&mut self, progress: &mut dyn Progress) -> Result<NoisyBases, Error> {
        let mut bases = Vec::new();
        for s in spaces(&self.schema)? {
            if s.epsilon <= 0.0 {
                continue;
            }
            let texts: Vec<String> = (0..self.table.ids.len())
                .filter_map(|r| {
                    let parts: Vec<&str> = s.fields.iter().filter_map(|&f| self.values(f)[r].as_deref()).collect();
                    (!parts.is_empty()).then(|| parts.join(" "))
                })
                .collect();
            let dataset = Dataset::from_normalized(texts, &s.alphabet);
            let base = crate::mine::mine(&dataset, &s.mine_options(), &mut self.ledger, &mut self.rng, progress)
                .map_err(|e| match e {
                    Error::Parameter(m) => Error::Parameter(format!("space {:?}: {m}", s.name)),
                    other => other,
                })?;
            bases.push((s.name, base));
        }
        Ok(NoisyBases { schema: self.schema.fingerprint(), bases })
    }

    /// The party's record batch: each embedded field's vectors over its
    /// space's shared base (every party but B with thresholds for every edit
    /// level and block rule), keyed hashes, clear values. The options' key (the parties'
    /// shared key, [`EmbedOptions::key`]) is needed for keyed fields; when it
    /// rotates, every embedded field's vectors get the keyed transform
    /// ([`crate::keyed`]), which hides their coordinates' grams from the
    /// matcher but also the q-gram bound (levels then use the Euclidean bound
    /// alone). The batch carries the ids of the options' [`crate::pseudonym::IdPolicy`]
    /// (random pseudonyms, one row for each distinct record, the map back
    /// beside the batch listing every record, unless kept), its
    /// rows in the options' order (shuffled unless kept). Thresholds come from
    /// the schema: the options' one-string thresholds are refused.
    pub fn embed(
        &self,
        shared: &SharedBases,
        options: &EmbedOptions,
        progress: &mut dyn Progress,
    ) -> Result<Embedded<RecordBatch>, Error> {
        if options.thresholds.is_some() {
            return Err(Error::Parameter(
                "thresholds are one string's option: a record batch's come from the schema's levels".into(),
            ));
        }
        let (party, key) = (options.party, options.key.key.as_ref());
        if options.key.rotate && key.is_none() {
            return Err(Error::InvalidKey("the keyed transform needs the parties' shared key".into()));
        }
        let rotation = options.key.rotation();
        let fp = self.schema.fingerprint();
        super::check::check_schema(&fp, &shared.schema, "the shared bases")?;
        let spaces = spaces(&self.schema)?;
        // under pseudonyms one row for each distinct record (the values of the
        // fields it sends): identical records must not show as identical rows
        // (crate::pseudonym::distinct)
        // (a salt's field too, sent or not: records of different salts are different rows)
        let all = &self.schema.fields;
        let sent: Vec<&[Option<String>]> = (0..all.len())
            .filter(|&i| all[i].kind().unwrap_or(Kind::Suppress) != Kind::Suppress || self.schema.salts_by(&all[i]))
            .map(|i| self.values(i))
            .collect();
        let n = self.table.ids.len();
        let groups = options.ids.groups((0..n).map(|r| sent.iter().map(|v| v.get(r)).collect::<Vec<_>>()));
        let rows = Rows::draw(options.rows, groups.len())?;
        let mut fields = Vec::new();
        for (i, f) in self.schema.fields.iter().enumerate() {
            let kind = f.kind().unwrap_or(Kind::Suppress);
            if kind == Kind::Suppress {
                continue;
            }
            // the field's values in batch order
            let values = self.values(i);
            let values = (0..groups.len()).filter_map(|r| values.get(groups.first(rows.record(r))));
            let data = match kind {
                Kind::Keyed => {
                    let key = key.ok_or_else(|| {
                        Error::InvalidKey(format!(
                            "field {:?} is keyed: both parties need their shared key (never the matcher's)",
                            f.name
                        ))
                    })?;
                    FieldData::Hashed(values.map(|v| v.as_ref().map(|v| keyed_hash(key, &fp, &f.name, v))).collect())
                }
                Kind::Clear => FieldData::Clear(values.cloned().collect()),
                _ => {
                    let space =
                        spaces.iter().find(|s| s.fields.contains(&i)).map(|s| s.name.clone()).unwrap_or_default();
                    let base = shared.get(&space).ok_or_else(|| {
                        Error::Parameter(format!("the shared bases have no base for space {space:?}"))
                    })?;
                    let eds = self.threshold_eds(i);
                    let present: Vec<(u32, &str)> = present(values).collect();
                    let texts: Vec<Vec<(u32, String)>> = (0..f.parts())
                        .map(|c| present.iter().map(|&(r, v)| (r, f.part_text(c, v).to_string())).collect())
                        .collect();
                    let base_shape = crate::shape::Shape::of(base);
                    let embedder = Embedder::new(base)?;
                    // each batch row's salt (super::salt), when keyed
                    let record = |r: usize| groups.first(rows.record(r));
                    let salts =
                        rotation.and(super::salt::row_salts(&self.schema, f, &self.table, groups.len(), record));
                    let mut shape = None;
                    let mut parts = Vec::new();
                    for (p, t) in texts.into_iter().enumerate() {
                        // one key derivation per space and part: the digit spaces share
                        // one public base, and must not share buckets; the name fields
                        // share their space, so that they compare across
                        let encoding = rotation.map(|k| {
                            let context = match options.encoding {
                                Encoding::Rotation => base.fingerprint().to_string(),
                                Encoding::Sketch { .. } => format!("{}/{space}/{p}", base.fingerprint()),
                            };
                            (k, options.encoding, context)
                        });
                        // a date's swapped and within-days parts are compared exactly: no thresholds
                        let eds = if p < f.text_parts() { &eds[..] } else { &[] };
                        let (part, part_shape) = match (&salts, encoding) {
                            (Some(salts), Some((k, e, unsalted))) => {
                                let mut embed = |t: &[(u32, String)], context: String, pr: &mut dyn Progress| {
                                    embed_part(base, &embedder, &base_shape, t, party, eds, Some((k, e, context)), pr)
                                };
                                super::salt::embed_salted(&t, salts, e, &unsalted, progress, &mut embed)?
                            }
                            (_, e) => embed_part(base, &embedder, &base_shape, &t, party, eds, e, progress)?,
                        };
                        shape = part_shape;
                        parts.push(part);
                    }
                    FieldData::Embedded { base: base.fingerprint().to_string(), parts, shape }
                }
            };
            fields.push((f.name.clone(), data));
        }
        let spent = spaces.iter().map(|s| (s.name.clone(), s.epsilon)).collect();
        let (ids, id_map) = options.ids.apply(&self.table.ids, &groups)?;
        let batch = RecordBatch {
            party,
            schema: fp,
            ids: rows.apply(ids),
            epsilon: spent,
            private: self.is_private() && shared.private,
            keyed: rotation.is_some(),
            encoding: rotation.and(match options.encoding {
                Encoding::Rotation => None,
                e => Some(e.to_string()),
            }),
            key_check: key.map(|k| key_check(k, &self.schema.fingerprint())),
            fields,
        };
        batch.validate(&self.schema)?;
        Ok(Embedded { batch, id_map })
    }

    /// The edit distances A computes thresholds for on field `i`: its levels
    /// (a date's parts: 1 and 2) and every block rule's.
    fn threshold_eds(&self, i: usize) -> Vec<u32> {
        let f = &self.schema.fields[i];
        threshold_eds(&self.schema, f)
    }
}

/// The present values with their batch rows.
fn present<'v>(values: impl Iterator<Item = &'v Option<String>>) -> impl Iterator<Item = (u32, &'v str)> {
    values.enumerate().filter_map(|(r, v)| v.as_deref().map(|v| (r as u32, v)))
}

/// One embedded part: the present values' vectors (encoded with the key,
/// the encoding and the derivation's context when given), and for A the
/// sound thresholds of every edit distance in `eds` (sound for the encoded
/// vectors); with the part's shape (`None` when rotated). `embedder` and
/// `shape` are the base's own, made once for all of a field's parts.
#[allow(clippy::too_many_arguments)]
fn embed_part(
    base: &SharedBase,
    embedder: &Embedder,
    shape: &crate::shape::Shape,
    values: &[(u32, String)],
    party: Party,
    eds: &[u32],
    encoding: Option<(&Key, Encoding, String)>,
    progress: &mut dyn Progress,
) -> Result<(Part, Option<crate::shape::Shape>), Error> {
    let texts: Vec<String> = values.iter().map(|(_, v)| v.clone()).collect();
    let sparse = embedder.embed_all_sparse(&texts, progress)?;
    let (vectors, shape, space) = match encoding {
        Some((k, e, context)) => {
            let e = crate::keyed::encode(k, e, &context, shape, &sparse)?;
            (e.vectors, e.shape, e.space)
        }
        None => (BatchVectors::Sparse(sparse), Some(shape.clone()), crate::threshold::Space::Grams),
    };
    // B alone sends none: every pair of parties has one side with them
    // (crate::multi::records links B's batch from the other side)
    let thresholds = if party != Party::B {
        eds.iter()
            .map(|&ed| Ok((ed, crate::threshold::thresholds_in(base, &texts, ed, &ThresholdMode::Sound, &space)?)))
            .collect::<Result<Vec<_>, Error>>()?
    } else {
        Vec::new()
    };
    Ok((Part { rows: values.iter().map(|(r, _)| *r).collect(), vectors, thresholds }, shape))
}

/// The edit distances party A computes thresholds for on an embedded field:
/// its levels and every block rule's on it (a date: its components' levels).
fn threshold_eds(schema: &Schema, field: &Field) -> Vec<u32> {
    if field.kind() == Some(Kind::Date) {
        return super::compare::DATE_EDS.to_vec();
    }
    let mut eds: Vec<u32> = field.levels().iter().map(|l| *l as u32).collect();
    for t in schema.block_rules().iter().flat_map(|b| b.terms()) {
        // ed 0 blocks by equal vectors: no threshold needed
        if t.field == field.name && t.ed != Some(0) {
            eds.push(t.ed.unwrap_or(1));
        }
    }
    crate::sorting::sort_keys(&mut eds);
    eds.dedup();
    eds
}
