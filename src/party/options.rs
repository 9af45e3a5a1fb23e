//! The options of an embed step, one type for one string
//! ([`super::DataOwner::embed`]) and for records
//! ([`crate::record::RecordOwner::embed`]): [`EmbedOptions`], and the form
//! every front end takes them in, [`EmbedRequest`] (deserialized from a JS
//! object or Python keywords; the CLI fills it from its flags).

use crate::base::SharedBase;
use crate::config::{Config, ThresholdOptions};
use crate::error::Error;
use crate::keyed::{EmbedKey, KeySource, Linkage};
use crate::protocol::Party;
use crate::pseudonym::{IdPolicy, RowOrder};
use serde::{Deserialize, Serialize};

/// What an embed step makes, for one string and for records.
#[derive(Debug, Clone, PartialEq)]
pub struct EmbedOptions {
    pub party: Party,
    /// One string: party A's thresholds (`None`: the batch carries none; the
    /// matcher needs them from A). Records compute theirs from the schema's
    /// levels and refuse this.
    pub thresholds: Option<ThresholdOptions>,
    /// The parties' key, resolved under the export policy
    /// ([`crate::keyed::resolve`]); never the matcher's.
    pub key: EmbedKey,
    /// The ids the batch carries ([`crate::pseudonym`]).
    pub ids: IdPolicy,
    /// The order of the batch's rows: shuffled unless the run exports nothing.
    pub rows: RowOrder,
    /// The keyed encoding of the vectors when the key encodes them
    /// ([`crate::keyed::Encoding`]: the sketch by default).
    pub encoding: crate::keyed::Encoding,
}

impl EmbedOptions {
    /// Party `party`'s batch with no thresholds, no key, random pseudonyms as
    /// ids, shuffled rows.
    pub fn of(party: Party) -> EmbedOptions {
        EmbedOptions {
            party,
            thresholds: None,
            key: EmbedKey::default(),
            ids: IdPolicy::default(),
            rows: RowOrder::default(),
            encoding: crate::keyed::Encoding::default(),
        }
    }

    /// Party `party`'s one-string batch under `config`: with the
    /// configuration's thresholds, except B's (two parties: A sends them, B
    /// does not, unless asked: [`EmbedRequest::thresholds`]); a party of a
    /// linkage of more (C to Z) sends them, so the matcher bounds each side's
    /// errors ([`crate::multi`]). Otherwise as [`EmbedOptions::of`].
    pub fn new(party: Party, config: &Config) -> EmbedOptions {
        let thresholds = (party != Party::B).then(|| config.thresholds.clone());
        EmbedOptions { thresholds, encoding: config.encoding, ..EmbedOptions::of(party) }
    }

    /// For a run on one machine, which exports nothing: the owners' ids and
    /// record order kept (the pairs name the owners' ids, and a seeded run
    /// stays reproducible).
    pub fn local(self) -> EmbedOptions {
        EmbedOptions { ids: IdPolicy::Keep, rows: RowOrder::Kept, ..self }
    }
}

impl Default for EmbedOptions {
    /// Party A under the default configuration.
    fn default() -> Self {
        EmbedOptions::new(Party::A, &Config::default())
    }
}

/// The embed options as every front end takes them: the JS options object
/// (`{party, thresholds, key, passphrase, noKey, keepIds}`), the Python
/// keywords (`party=`, `thresholds=`, `key=`, `passphrase=`, `no_key=`,
/// `keep_ids=`), for one string and for records alike. Deserialized (serde,
/// camelCase, each field optional); the CLI fills its
/// parts from its flags. No `Debug`: it holds the key and the passphrase.
#[derive(Clone, Default, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct EmbedRequest {
    /// `"A"` (the default), `"B"`, or `"C"` to `"Z"` in a linkage of more parties.
    pub party: Party,
    /// One string: the party's thresholds (default: the configuration's; B
    /// none unless given).
    pub thresholds: Option<ThresholdOptions>,
    /// The parties' key, 64 hex digits (`keygen`).
    pub key: Option<String>,
    /// A passphrase both parties hold, salted per linkage.
    pub passphrase: Option<String>,
    /// The explicit opt-out: vectors leave unkeyed (records: with a key, the
    /// key then only hashes the keyed fields).
    pub no_key: bool,
    /// Send the owner's own ids instead of random pseudonyms.
    pub keep_ids: bool,
    /// The keyed encoding (`"sketch"`; `"sketch:N"`; `"rotation"`). Default: `"sketch"`
    /// for one string, `"sketch:8"` for records ([`crate::keyed::Encoding::for_records`]).
    pub encoding: Option<crate::keyed::Encoding>,
}

impl EmbedRequest {
    /// The core's options for one string over `base` under `config`, the key
    /// resolved ([`crate::keyed::resolve`], `remedy`: the front end's words
    /// for the key and the opt-out).
    pub fn one_string(&self, base: &SharedBase, config: &Config, remedy: &str) -> Result<EmbedOptions, Error> {
        let linkage = Linkage::OneString { base: base.fingerprint().to_string() };
        let mut o = EmbedOptions::new(self.party, config);
        if let Some(t) = &self.thresholds {
            o.thresholds = Some(t.clone());
        }
        self.finish(o, &linkage, remedy)
    }

    /// The core's options for records under the schema of `linkage`
    /// ([`crate::record::owner::linkage`]); thresholds are refused (a record
    /// batch's come from the schema's levels).
    pub fn records(&self, linkage: &Linkage, remedy: &str) -> Result<EmbedOptions, Error> {
        if self.thresholds.is_some() {
            return Err(Error::Parameter(
                "thresholds are one string's option: a record batch's come from the schema's levels".into(),
            ));
        }
        let o = EmbedOptions { encoding: crate::keyed::Encoding::for_records(), ..EmbedOptions::of(self.party) };
        self.finish(o, linkage, remedy)
    }

    fn finish(&self, o: EmbedOptions, linkage: &Linkage, remedy: &str) -> Result<EmbedOptions, Error> {
        let source = KeySource::from_options(self.key.as_deref(), self.passphrase.as_deref(), self.no_key)?;
        let key = crate::keyed::resolve(source, self.no_key, linkage, remedy)?;
        let encoding = self.encoding.unwrap_or(o.encoding);
        Ok(EmbedOptions { key, ids: IdPolicy::keep_if(self.keep_ids), encoding, ..o })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_request_deserializes_with_clear_errors() {
        let r: EmbedRequest =
            serde_json::from_str(r#"{"party": "b", "passphrase": "a long passphrase", "keepIds": true}"#).unwrap();
        assert_eq!(
            (r.party, r.passphrase.as_deref(), r.keep_ids, r.no_key),
            (Party::B, Some("a long passphrase"), true, false)
        );
        let e = serde_json::from_str::<EmbedRequest>(r#"{"party": "AB"}"#).err().unwrap().to_string();
        assert!(e.contains(r#"party must be one letter, "A" to "Z", not "AB""#), "{e}");
        let base = SharedBase::new(crate::alphabet::Alphabet::default(), 1, 1, vec!["A".into()]).unwrap();
        let o = r.one_string(&base, &Config::default(), "").unwrap();
        let want = crate::keyed::Key::from_passphrase_for("a long passphrase", base.fingerprint()).unwrap();
        assert_eq!((o.key.rotation(), o.thresholds, o.ids), (Some(&want), None, IdPolicy::Keep));
        let records = Linkage::Records { schema: "s".into(), embeds: true };
        let with_thresholds = EmbedRequest { thresholds: Some(ThresholdOptions::default()), no_key: true, ..r };
        assert_eq!(with_thresholds.records(&records, "").unwrap_err().code(), "INVALID_PARAMETER");
        assert_eq!(EmbedRequest::default().records(&records, "r").unwrap_err().code(), "KEY_REQUIRED");
    }

    #[test]
    fn records_default_to_the_wider_sketch_and_a_given_encoding_wins() {
        use crate::keyed::Encoding;
        let base = SharedBase::new(crate::alphabet::Alphabet::default(), 1, 1, vec!["A".into()]).unwrap();
        let records = Linkage::Records { schema: "s".into(), embeds: true };
        let r = EmbedRequest { passphrase: Some("a long passphrase".into()), ..EmbedRequest::default() };
        assert_eq!(r.one_string(&base, &Config::default(), "").unwrap().encoding, Encoding::default());
        assert_eq!(r.records(&records, "").unwrap().encoding, Encoding::Sketch { spread: 8 });
        assert_ne!(Encoding::for_records(), Encoding::default());
        for given in [Encoding::default(), Encoding::Rotation, Encoding::Sketch { spread: 2 }] {
            let r = EmbedRequest { encoding: Some(given), ..r.clone() };
            assert_eq!(r.one_string(&base, &Config::default(), "").unwrap().encoding, given);
            assert_eq!(r.records(&records, "").unwrap().encoding, given);
        }
    }
}
