//! A data owner's steps, the one place they are chained: normalize the records
//! ([`DataOwner::new`], [`DataOwner::read`]), mine a noisy base
//! ([`DataOwner::mine`]), merge two noisy bases or more into the shared base
//! ([`merge_bases`], [`merge_parties`]), and embed the records into the vector batch that goes to
//! the matcher ([`DataOwner::embed`]: vectors, party A's thresholds, the keyed
//! transform, the base's shape, checked).
//!
//! The CLI, the wasm API, [`crate::session`], the benches and the tests call
//! these; none of them chains the steps itself.
//!
//! **Privacy.** Only the budget ledger of the owner spends ε (in `mine`): the
//! merge is post-processing of released noisy counts, the embedding a function of
//! the records and the shared base (docs/THREAT_MODEL.md says what its vectors
//! reveal). A seeded owner ([`DataOwner::is_private`] false) makes bases marked
//! not private.

use crate::alphabet::Alphabet;
use crate::base::{NoisyBase, SharedBase};
use crate::config::ThresholdOptions;
use crate::dataset::{read_records, Dataset, InputFormat, RawRecord, MAX_RECORD_BYTES};
use crate::dp::{BudgetLedger, Epsilon, Randomness};
use crate::embed::{BatchVectors, Embedder, Vectors};
use crate::error::{Error, InputError};
use crate::keyed::Transform;
use crate::mine::MineOptions;
use crate::progress::Progress;
use crate::protocol::{ThresholdSet, VectorBatch};
use crate::pseudonym::{Embedded, Rows};
use crate::sparse_vectors::SparseVectors;
use crate::threshold::Space;

mod options;
pub use options::{EmbedOptions, EmbedRequest};

/// One party's records, normalized onto the public alphabet, with its privacy
/// budget and its source of randomness.
pub struct DataOwner {
    dataset: Dataset,
    ledger: BudgetLedger,
    rng: Randomness,
}

impl DataOwner {
    /// An owner of `dataset` with a total budget. Refuses a dataset with no
    /// record left after normalization.
    pub fn new(dataset: Dataset, budget: Epsilon, rng: Randomness) -> Result<DataOwner, Error> {
        if dataset.is_empty() {
            return Err(InputError::Empty { what: "the records after normalization onto the alphabet".into() }.into());
        }
        Ok(DataOwner { dataset, ledger: BudgetLedger::new(budget), rng })
    }

    /// An owner of raw records (ids and text), normalized onto `alphabet`.
    /// Refuses a record longer than [`MAX_RECORD_BYTES`], as the file readers do.
    pub fn from_raw(
        raw: Vec<RawRecord>,
        alphabet: &Alphabet,
        budget: Epsilon,
        rng: Randomness,
    ) -> Result<DataOwner, Error> {
        if let Some((index, r)) = raw.iter().enumerate().find(|(_, r)| r.text.len() > MAX_RECORD_BYTES) {
            return Err(
                InputError::RecordTooLong { index: index + 1, len: r.text.len(), limit: MAX_RECORD_BYTES }.into()
            );
        }
        DataOwner::new(Dataset::normalize(raw, alphabet)?, budget, rng)
    }

    /// An owner of the records in `bytes` (text, one record a line, or CSV),
    /// read by the core's reader; `what` names the input in errors.
    pub fn read(
        bytes: &[u8],
        format: &InputFormat,
        what: &str,
        alphabet: &Alphabet,
        budget: Epsilon,
        rng: Randomness,
    ) -> Result<DataOwner, Error> {
        DataOwner::from_raw(read_records(bytes, format, what)?, alphabet, budget, rng)
    }

    pub fn dataset(&self) -> &Dataset {
        &self.dataset
    }

    pub fn ledger(&self) -> &BudgetLedger {
        &self.ledger
    }

    /// False when the randomness is seeded: what this owner makes is then not
    /// private (tests and experiments only).
    pub fn is_private(&self) -> bool {
        self.rng.is_private()
    }

    /// Mines a noisy base, charging the ledger (refused past the budget).
    pub fn mine(&mut self, options: &MineOptions, progress: &mut dyn Progress) -> Result<NoisyBase, Error> {
        crate::mine::mine(&self.dataset, options, &mut self.ledger, &mut self.rng, progress)
    }

    /// An upper estimate of the bytes [`Self::embed`]'s batch takes over a base
    /// of `dim` grams, with `json` its JSON text too (callers with little
    /// memory, wasm, refuse before the work instead of failing in an
    /// allocation). Keyed: dense rows of the dimension padded to a power of two,
    /// 4 bytes each. Unkeyed: at most one (gram id, count) pair of 8 bytes per
    /// gram occurrence, (length + 2) per gram length, three lengths at most in
    /// a configuration. JSON: about three text bytes per number byte more.
    pub fn batch_bytes(&self, dim: usize, keyed: bool, json: bool) -> usize {
        let numbers = if keyed {
            self.dataset.len().saturating_mul(dim.next_power_of_two()).saturating_mul(4)
        } else {
            let grams = self.dataset.records().iter().map(|r| r.len() + 2).fold(0usize, usize::saturating_add);
            grams.saturating_mul(8 * 3)
        };
        if json {
            numbers.saturating_mul(4)
        } else {
            numbers
        }
    }

    /// The records' vectors over the shared base (no key, no thresholds).
    pub fn vectors(&self, base: &SharedBase, progress: &mut dyn Progress) -> Result<Vectors, Error> {
        Embedder::new(base)?.embed_all(self.dataset.records(), progress)
    }

    /// The records' vectors over the shared base as sparse rows (no key, no
    /// thresholds): the non-zero values of [`DataOwner::vectors`], a few dozen
    /// per record instead of the base's hundreds of coordinates.
    pub fn sparse_vectors(&self, base: &SharedBase, progress: &mut dyn Progress) -> Result<SparseVectors, Error> {
        Embedder::new(base)?.embed_all_sparse(self.dataset.records(), progress)
    }

    /// The records' thresholds over the shared base, for distances between
    /// unkeyed vectors.
    pub fn thresholds(&self, base: &SharedBase, options: &ThresholdOptions) -> Result<ThresholdSet, Error> {
        self.thresholds_in(base, options, &Space::Grams)
    }

    /// The records' thresholds for distances in `space` (an encoding's).
    fn thresholds_in(
        &self,
        base: &SharedBase,
        options: &ThresholdOptions,
        space: &Space,
    ) -> Result<ThresholdSet, Error> {
        let ed = options.ed.bound();
        let values = crate::threshold::thresholds_in(base, self.dataset.records(), ed, &options.mode, space)?;
        Ok(ThresholdSet { mode: options.mode.clone(), ed, auto: options.ed.is_auto(), values })
    }

    /// The party's vector batch: the vectors, party A's thresholds, the keyed
    /// transform when the options' key rotates (then no shape: its
    /// coordinates are mixed), the ids of the options' [`crate::pseudonym::IdPolicy`] (random
    /// pseudonyms by default, one row for each distinct vector, with the map
    /// back beside the batch listing every record), the rows
    /// in the options' [`crate::pseudonym::RowOrder`] (shuffled by default),
    /// checked as the matcher will check it.
    pub fn embed(
        &self,
        base: &SharedBase,
        options: &EmbedOptions,
        progress: &mut dyn Progress,
    ) -> Result<Embedded<VectorBatch>, Error> {
        let embedder = Embedder::new(base)?;
        if options.key.key.is_some() && !options.key.rotate {
            return Err(Error::InvalidKey(
                "one string's key is its rotation: an unrotated key would send unkeyed vectors".into(),
            ));
        }
        let shape = crate::matching::Shape::of(base);
        // the key is checked first, so a bad key fails before the work
        if let (Some(k), crate::keyed::Encoding::Rotation) = (options.key.rotation(), options.encoding) {
            Transform::new(k, base.fingerprint(), embedder.dim())?;
        }
        let plain = embedder.embed_all_sparse(self.dataset.records(), progress)?;
        // under pseudonyms one row for each distinct vector: identical records
        // must not show as identical rows (crate::pseudonym::distinct)
        let groups = options.ids.groups((0..plain.len()).map(|r| plain.row_key(r)));
        let rows = Rows::draw(options.rows, groups.len())?;
        let sparse = rows.apply_sparse(plain.select(groups.firsts()));
        // unkeyed: sparse counts over the base; keyed: the options' encoding
        // (the sketch, sparse with its own shape; or the rotation, dense)
        let (vectors, shape, transform, space) = match options.key.rotation() {
            Some(k) => {
                let e = crate::keyed::encode(k, options.encoding, base.fingerprint(), &shape, &sparse)?;
                (e.vectors, e.shape, Some(e.label), e.space)
            }
            None => (BatchVectors::Sparse(sparse), Some(shape), None, Space::Grams),
        };
        let thresholds = match &options.thresholds {
            Some(t) => {
                let set = self.thresholds_in(base, t, &space)?;
                Some(ThresholdSet { values: rows.apply(groups.max_per_group(&set.values)), ..set })
            }
            None => None,
        };
        let (ids, id_map) = options.ids.apply(self.dataset.ids(), &groups)?;
        let batch = VectorBatch {
            party: options.party,
            fingerprint: base.fingerprint().to_string(),
            ids: rows.apply(ids),
            vectors,
            thresholds,
            shape,
            transform,
            // embedding draws no noise: the mark comes from the base
            private: base.is_private(),
        };
        batch.validate()?;
        Ok(Embedded { batch, id_map })
    }
}

/// The shared base of two noisy bases under a configuration's mining options:
/// the top `k` mined grams by the core's deterministic rule
/// ([`crate::base::merge_all`]), then, with `public_q`, every public gram of that
/// length and the boundary grams ([`crate::public`]). Both bases must have been
/// mined with the configuration's padding. Post-processing: no budget.
///
/// The shared base is marked not private when either noisy base is (a seeded
/// run): every batch embedded over it carries the mark on.
pub fn merge_bases(a: &NoisyBase, b: &NoisyBase, options: &MineOptions) -> Result<SharedBase, Error> {
    merge_all(&[a, b], options)
}

/// The shared base of every party's noisy base, two parties or more, as
/// [`merge_bases`] of two; one party's base given twice is
/// [`BaseError::Twice`](crate::error::BaseError::Twice) (its counts would count
/// twice). Two bases with the same noisy counts are one base twice: the noise of
/// two mining runs never agrees on every count. Two bases with no mined gram
/// (little data: the public grams only) are alike without being one, and add
/// nothing either way. `what[i]` names base `i` in errors (a file name).
pub fn merge_parties(bases: &[&NoisyBase], what: &[String], options: &MineOptions) -> Result<SharedBase, Error> {
    let too_few = "noisy base given: a shared base merges two parties' at least";
    each_once(bases, what, |b| !b.grams.is_empty(), "base", too_few)?;
    merge_all(bases, options)
}

/// The check of a merge of several parties' noisy bases (one-string or
/// records): two at least (else the count, then `too_few`), and none given
/// twice (equal, with something mined: `mined`). `what[i]` names input `i` in
/// errors (else `unnamed` and its number).
pub(crate) fn each_once<T: PartialEq>(
    inputs: &[&T],
    what: &[String],
    mined: impl Fn(&T) -> bool,
    unnamed: &str,
    too_few: &str,
) -> Result<(), Error> {
    let name = |i: usize| what.get(i).cloned().unwrap_or_else(|| format!("{unnamed} {}", i + 1));
    if inputs.len() < 2 {
        return Err(Error::Parameter(format!("{} {too_few}", inputs.len())));
    }
    for i in 0..inputs.len() {
        if let Some(j) = (i + 1..inputs.len()).find(|&j| mined(inputs[i]) && inputs[i] == inputs[j]) {
            return Err(crate::error::BaseError::Twice { first: name(i), second: name(j) }.into());
        }
    }
    Ok(())
}

/// [`merge_parties`] without its checks of the parties (the record merge checks
/// them once for all its spaces).
pub(crate) fn merge_all(bases: &[&NoisyBase], options: &MineOptions) -> Result<SharedBase, Error> {
    let shared = crate::public::merge_shared(bases, options.k, options.public_q, options.padding)?;
    Ok(shared.with_private(bases.iter().all(|b| b.private)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Config;
    use crate::protocol::Party;

    #[test]
    fn a_seeded_run_marks_every_message_made_from_it() {
        use crate::protocol::{read_shared_base, write_shared_base};
        let al = Alphabet::default();
        let recs: Vec<String> = ["SMITH", "JONES", "BROWN", "SMYTH", "JONSON"].iter().map(|s| s.to_string()).collect();
        let config = Config::default();
        let owner = |rng| DataOwner::new(Dataset::from_normalized(recs.clone(), &al), Epsilon::new(1.0).unwrap(), rng);
        let (mut a, mut b) = (owner(Randomness::seeded(1)).unwrap(), owner(Randomness::seeded(2)).unwrap());
        let none = &mut crate::progress::NoProgress;
        let (na, nb) = (a.mine(&config.mine, none).unwrap(), b.mine(&config.mine, none).unwrap());
        let shared = read_shared_base(&write_shared_base(&merge_bases(&na, &nb, &config.mine).unwrap())).unwrap();
        assert!(!shared.is_private());
        let batch = a.embed(&shared, &EmbedOptions::new(Party::A, &config), none).unwrap().batch;
        assert!(!batch.private);
        for bytes in [batch.to_binary(), batch.to_json().into_bytes()] {
            assert!(!VectorBatch::read(&bytes).unwrap().private);
        }
        // a private base carries no mark: its messages are as before
        let private = SharedBase::new(al.clone(), 1, 1, vec!["A".into()]).unwrap();
        assert!(private.is_private() && !write_shared_base(&private).contains("private"));
        let batch = a.embed(&private, &EmbedOptions::new(Party::B, &config), none).unwrap().batch;
        assert!(batch.private && !batch.to_json().contains("private"));
    }
}

#[cfg(test)]
mod batch_size_tests {
    use super::*;

    #[test]
    fn the_batch_estimate_bounds_the_batch() {
        let raw = ["SMITH", "JOHNSON", "O BRIEN"].iter().enumerate();
        let raw = raw.map(|(i, t)| RawRecord { id: i.to_string(), text: t.to_string() }).collect();
        let owner = DataOwner::from_raw(raw, &Alphabet::default(), Epsilon::ONE, Randomness::seeded(1)).unwrap();
        let grams = ["A", "H", "I", "M", "N", "O", "S", "SM", "TH", "JO", "BR"].iter().map(|g| g.to_string()).collect();
        let base = SharedBase::new(Alphabet::default(), 1, 2, grams).unwrap();
        assert_eq!(owner.batch_bytes(858, true, false), 3 * 1024 * 4);
        assert_eq!(owner.batch_bytes(858, true, true), 4 * 3 * 1024 * 4);
        let batch = owner.embed(
            &base,
            &EmbedOptions { thresholds: None, ..Default::default() },
            &mut crate::progress::NoProgress,
        );
        let crate::embed::BatchVectors::Sparse(v) = batch.unwrap().batch.vectors else { panic!("unkeyed is sparse") };
        assert!(v.nnz() * 8 <= owner.batch_bytes(base.len(), false, false));
    }
}
