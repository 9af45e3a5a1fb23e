//! Errors. Each area has its own typed error; [`Error`] gathers them so callers
//! (the CLI, the wasm bindings) can report one thing with a stable [`Error::code`].

use thiserror::Error as ThisError;

/// Errors of the differential-privacy primitives.
#[derive(Debug, Clone, PartialEq, ThisError)]
pub enum DpError {
    #[error("invalid epsilon {value}: {reason}")]
    InvalidEpsilon { value: String, reason: &'static str },
    #[error(
        "privacy budget exceeded: {mechanism} asks for epsilon {requested}, but only {remaining} of {budget} remains"
    )]
    BudgetExceeded { mechanism: String, requested: f64, remaining: f64, budget: f64 },
    #[error("the operating system's secure random generator failed: {0}")]
    Entropy(String),
    #[error("invalid sampler parameter: {0}")]
    InvalidParameter(String),
    /// The party's persistent ledger ([`crate::dp::LedgerFile`]) has too little left.
    #[error(
        "privacy budget exceeded: the ledger {ledger} has spent ε {spent} of its total {total}; this run asks for ε {requested} more"
    )]
    LedgerExhausted { ledger: String, requested: f64, spent: f64, total: f64 },
    /// A ledger file that does not read as one (corrupted, altered, another version).
    #[error("invalid privacy ledger: {0}")]
    Ledger(String),
}

/// Errors reading records (files, CSV, text) and normalizing them.
#[derive(Debug, Clone, PartialEq, Eq, ThisError)]
pub enum InputError {
    #[error("cannot read {path}: {reason}")]
    Io { path: String, reason: String },
    #[error("{what} is empty: it holds no records")]
    Empty { what: String },
    #[error("{what} is not UTF-8 text (first invalid byte at offset {offset}); is it a binary file?")]
    NotText { what: String, offset: usize },
    #[error("{what} looks like a binary file (it contains a NUL byte at offset {offset})")]
    Binary { what: String, offset: usize },
    #[error("CSV column {column:?} not found; the header has: {available}")]
    MissingColumn { column: String, available: String },
    #[error("{what} is CSV: name the column that holds the records (the header has: {available})")]
    ColumnNotGiven { what: String, available: String },
    #[error("{0}")]
    Format(String),
    #[error("malformed CSV at record {record}: {reason}")]
    Csv { record: usize, reason: String },
    #[error("duplicate record id {id:?} (records {first} and {second})")]
    DuplicateId { id: String, first: usize, second: usize },
    #[error("invalid alphabet: {0}")]
    Alphabet(String),
    #[error("record {index} is too long ({len} bytes; the limit is {limit})")]
    RecordTooLong { index: usize, len: usize, limit: usize },
    #[error("the id column {column:?} is the linked column (or a column of the schema's fields): ids can leave the party with the vectors (when it keeps its own ids), so the records would too; choose another id column, or none (row numbers)")]
    IdIsLinkedColumn { column: String },
    /// A schema's field with no value in any record (`EMPTY_COLUMN`, the code of
    /// an all-empty column everywhere: records, twins).
    #[error("{what}: field {field:?} is missing in every record (column {columns}): suppress it or fix the column")]
    EmptyField { what: String, field: String, columns: String },
    /// A schema field that names one column more than once (its evidence
    /// would count twice, or more).
    #[error("schema: field {field:?} names the column {column:?} more than once")]
    RepeatedColumn { field: String, column: String },
}

/// Errors of mining parameters and miners.
#[derive(Debug, Clone, PartialEq, ThisError)]
pub enum MineError {
    #[error("invalid mining parameter: {0}")]
    InvalidParameter(String),
    #[error(transparent)]
    Dp(#[from] DpError),
}

/// Errors of bases: merging, compatibility.
#[derive(Debug, Clone, PartialEq, Eq, ThisError)]
pub enum BaseError {
    #[error("bases are incompatible: {0}")]
    Incompatible(String),
    #[error("invalid base: {0}")]
    Invalid(String),
    /// One party's noisy base given twice to a merge of several: it would
    /// count twice (each party sends one).
    #[error("the same noisy base was given twice ({first} and {second}): each party mines its own")]
    Twice { first: String, second: String },
}

/// Errors reading or checking protocol messages.
#[derive(Debug, Clone, PartialEq, Eq, ThisError)]
pub enum ProtocolError {
    #[error("not a gramlink {expected} message: {reason}")]
    Malformed { expected: &'static str, reason: String },
    #[error("unsupported {format} version {found} (this build reads version {supported})")]
    Version { format: String, found: u32, supported: u32 },
    #[error("wrong message kind: expected {expected}, found {found}")]
    WrongFormat { expected: String, found: String },
    #[error("shared-base fingerprint mismatch: {what} was made with base {found}, expected {expected}")]
    Fingerprint { what: String, found: String, expected: String },
    #[error("invalid {what}: {reason}")]
    Invalid { what: String, reason: String },
    #[error("truncated {what}: {reason}")]
    Truncated { what: String, reason: String },
    /// Numbers no embedding of real records over the shared base gives
    /// ([`crate::protocol::plausible`]).
    #[error("implausible {what}: {reason}")]
    Implausible { what: String, reason: String },
    /// A batch the matcher was told to check has no signature
    /// ([`crate::protocol::signature`]).
    #[error("{what} is not signed, and its party's public key was given: the matcher links signed batches only")]
    SignatureMissing { what: String },
    /// A batch whose signature does not verify with its party's public key.
    #[error("the signature of {what} is invalid: {reason}")]
    SignatureInvalid { what: String, reason: String },
    /// Two batches of one linkage name the same party ([`crate::multi`]).
    #[error("party {party} sent two batches ({first} and {second}): each party sends one")]
    PartyTwice { party: String, first: String, second: String },
    /// The same batch given twice, under one party or two.
    #[error("the same batch was given twice ({first} and {second}): each party sends its own")]
    BatchTwice { first: String, second: String },
    /// A party's batch with no record in it.
    #[error("{what} has no records: a party with nothing to link sends nothing")]
    NoRecords { what: String },
    /// An id in two parties' batches: the clusters name records by party and
    /// id, and random pseudonyms never clash, so a clash is a mistake upstream.
    #[error("id {id:?} is in {first} and in {second}: ids must differ across parties (embed without --keep-ids, or give each party its own ids)")]
    IdClash { id: String, first: String, second: String },
}

/// Errors of synthetic twins (condensation, KRIMP, the twin of a file).
#[derive(Debug, Clone, PartialEq, Eq, ThisError)]
pub enum TwinError {
    #[error("{what}: k = {k} is larger than the {n} records it holds; a group needs at least k records")]
    TooFewRecords { what: String, k: usize, n: usize },
    #[error("column {column:?} holds one value only ({value:?}): it carries nothing to model; drop it")]
    ConstantColumn { column: String, value: String },
    #[error("column {column:?} is empty in every record")]
    EmptyColumn { column: String },
}

/// Any gramlink error.
#[derive(Debug, Clone, PartialEq, ThisError)]
pub enum Error {
    #[error(transparent)]
    Dp(#[from] DpError),
    #[error(transparent)]
    Input(#[from] InputError),
    #[error(transparent)]
    Mine(#[from] MineError),
    #[error(transparent)]
    Base(#[from] BaseError),
    #[error(transparent)]
    Protocol(#[from] ProtocolError),
    #[error(transparent)]
    Twin(#[from] TwinError),
    #[error("invalid parameter: {0}")]
    Parameter(String),
    #[error("cancelled")]
    Cancelled,
    /// A key or passphrase of the keyed transform is unusable.
    #[error("invalid key: {0}")]
    InvalidKey(String),
    /// Batches made with different keys, or one keyed and one not.
    #[error("transform mismatch: {0}")]
    TransformMismatch(String),
    /// An export of unkeyed vectors that was not explicitly allowed.
    #[error("key required: {0}")]
    KeyRequired(String),
    /// A record fit that breaks its bounds and cannot be repaired
    /// ([`crate::record::fit`]).
    #[error("fit refused: {0}")]
    Fit(String),
}

impl Error {
    /// A stable, machine-readable code (used as the JS `Error.code`).
    pub fn code(&self) -> &'static str {
        match self {
            Error::Dp(DpError::InvalidEpsilon { .. }) => "INVALID_EPSILON",
            Error::Dp(DpError::BudgetExceeded { .. }) => "BUDGET_EXCEEDED",
            Error::Dp(DpError::Entropy(_)) => "ENTROPY",
            Error::Dp(DpError::InvalidParameter(_)) => "INVALID_PARAMETER",
            Error::Dp(DpError::LedgerExhausted { .. }) => "BUDGET_EXCEEDED",
            Error::Dp(DpError::Ledger(_)) => "INVALID_LEDGER",
            Error::Input(InputError::Io { .. }) => "IO",
            Error::Input(InputError::Empty { .. }) => "EMPTY_INPUT",
            Error::Input(InputError::NotText { .. }) | Error::Input(InputError::Binary { .. }) => "NOT_TEXT",
            Error::Input(InputError::MissingColumn { .. }) | Error::Input(InputError::ColumnNotGiven { .. }) => {
                "MISSING_COLUMN"
            }
            Error::Input(InputError::Format(_)) => "INVALID_FORMAT",
            Error::Input(InputError::Csv { .. }) => "MALFORMED_CSV",
            Error::Input(InputError::DuplicateId { .. }) => "DUPLICATE_ID",
            Error::Input(InputError::Alphabet(_)) => "INVALID_ALPHABET",
            Error::Input(InputError::RecordTooLong { .. }) => "RECORD_TOO_LONG",
            Error::Input(InputError::IdIsLinkedColumn { .. }) => "ID_IS_LINKED_COLUMN",
            Error::Input(InputError::EmptyField { .. }) => "EMPTY_COLUMN",
            Error::Input(InputError::RepeatedColumn { .. }) => "REPEATED_COLUMN",
            Error::Mine(MineError::InvalidParameter(_)) => "INVALID_PARAMETER",
            Error::Mine(MineError::Dp(e)) => Error::Dp(e.clone()).code(),
            Error::Base(BaseError::Incompatible(_)) => "INCOMPATIBLE_BASES",
            Error::Base(BaseError::Invalid(_)) => "INVALID_BASE",
            Error::Base(BaseError::Twice { .. }) => "BASE_TWICE",
            Error::Protocol(ProtocolError::Malformed { .. }) => "MALFORMED_MESSAGE",
            Error::Protocol(ProtocolError::Version { .. }) => "UNSUPPORTED_VERSION",
            Error::Protocol(ProtocolError::WrongFormat { .. }) => "WRONG_MESSAGE_KIND",
            Error::Protocol(ProtocolError::Fingerprint { .. }) => "FINGERPRINT_MISMATCH",
            Error::Protocol(ProtocolError::Invalid { .. }) => "INVALID_MESSAGE",
            Error::Protocol(ProtocolError::Truncated { .. }) => "TRUNCATED_MESSAGE",
            Error::Protocol(ProtocolError::Implausible { .. }) => "IMPLAUSIBLE_BATCH",
            Error::Protocol(ProtocolError::SignatureMissing { .. }) => "SIGNATURE_MISSING",
            Error::Protocol(ProtocolError::SignatureInvalid { .. }) => "SIGNATURE_INVALID",
            Error::Protocol(ProtocolError::PartyTwice { .. }) => "PARTY_TWICE",
            Error::Protocol(ProtocolError::BatchTwice { .. }) => "BATCH_TWICE",
            Error::Protocol(ProtocolError::NoRecords { .. }) => "NO_RECORDS",
            Error::Protocol(ProtocolError::IdClash { .. }) => "ID_CLASH",
            Error::Twin(TwinError::TooFewRecords { .. }) => "TOO_FEW_RECORDS",
            Error::Twin(TwinError::ConstantColumn { .. }) => "CONSTANT_COLUMN",
            Error::Twin(TwinError::EmptyColumn { .. }) => "EMPTY_COLUMN",
            Error::Parameter(_) => "INVALID_PARAMETER",
            Error::Cancelled => "CANCELLED",
            Error::InvalidKey(_) => "INVALID_KEY",
            Error::TransformMismatch(_) => "TRANSFORM_MISMATCH",
            Error::KeyRequired(_) => "KEY_REQUIRED",
            Error::Fit(_) => "FIT_REFUSED",
        }
    }
}

/// What kind of problem an error is, for a caller that treats kinds alike (the
/// CLI's exit status).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorClass {
    /// The records given: a file, its text, CSV, ids, the alphabet.
    Input,
    /// A message or base from another party: malformed, of another version or
    /// base, keyed differently.
    Message,
    /// The privacy budget or the secure randomness.
    Privacy,
    /// A parameter or a key.
    Parameter,
    /// A cancelled run.
    Cancelled,
}

impl Error {
    /// The error's class ([`ErrorClass`]).
    pub fn class(&self) -> ErrorClass {
        match self {
            Error::Input(_) | Error::Twin(_) => ErrorClass::Input,
            Error::Protocol(_) | Error::Base(_) | Error::TransformMismatch(_) => ErrorClass::Message,
            Error::Dp(DpError::InvalidParameter(_)) | Error::Mine(MineError::InvalidParameter(_)) => {
                ErrorClass::Parameter
            }
            Error::Dp(_) | Error::KeyRequired(_) => ErrorClass::Privacy,
            Error::Mine(MineError::Dp(e)) => Error::Dp(e.clone()).class(),
            Error::Parameter(_) | Error::InvalidKey(_) | Error::Fit(_) => ErrorClass::Parameter,
            Error::Cancelled => ErrorClass::Cancelled,
        }
    }

    /// A count parameter that must lie in `1..=max`: `Ok` there, else an
    /// [`Error::Parameter`] that names it (`what`), its bounds (`bound`: what
    /// `max` is) and the value given.
    pub fn check_count(what: &str, n: usize, max: usize, bound: &str) -> Result<(), Error> {
        if n == 0 || n > max {
            return Err(Error::Parameter(format!("{what} must be in 1..={max} ({bound}), not {n}")));
        }
        Ok(())
    }
}

pub type Result<T, E = Error> = std::result::Result<T, E>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classes_follow_codes() {
        let budget =
            Error::Dp(DpError::BudgetExceeded { mechanism: "m".into(), requested: 1.0, remaining: 0.0, budget: 1.0 });
        assert_eq!((budget.code(), budget.class()), ("BUDGET_EXCEEDED", ErrorClass::Privacy));
        let eps = Error::Mine(MineError::Dp(DpError::InvalidEpsilon { value: "0".into(), reason: "r" }));
        assert_eq!((eps.code(), eps.class()), ("INVALID_EPSILON", ErrorClass::Privacy));
        let fp =
            Error::Protocol(ProtocolError::Fingerprint { what: "w".into(), found: "f".into(), expected: "e".into() });
        assert_eq!(fp.class(), ErrorClass::Message);
        assert_eq!(Error::Input(InputError::Format("f".into())).class(), ErrorClass::Input);
        assert_eq!(Error::InvalidKey("k".into()).class(), ErrorClass::Parameter);
    }
}
