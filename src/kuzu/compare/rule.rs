//! The decision rule (the paper's §2: Fellegi–Sunter, Σ_z α_z·sim_z ≥ θ) and the
//! records as the comparison sees them.
//!
//! Weights and θ are fixed-point integers (millionths), so that every decision —
//! in the clear, and C's on blinded values — is computed exactly in rational
//! arithmetic: blinding then provably leaves it unchanged (a float sum could
//! flip a pair lying on the threshold).
//!
//! - string attribute: sim = |a ∩ b| / |a ∪ b| over bigram sets, 0 if either is empty;
//! - numeric attribute with public range [x, y], R = y − x: sim = 1 − (a − b)²/R²
//!   (the paper's normalized Euclidean similarity); values are clamped to the
//!   range, and a missing or unreadable value is the midpoint (it must be
//!   encrypted like any other, so that B cannot tell it apart). A "year" reads the
//!   first four digits of a YYYYMMDD date.

use super::super::bigrams::Bigrams;
use crate::error::Error;
use num_bigint::{BigInt, BigUint};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

/// Fixed-point scale of weights and θ.
pub const SCALE: f64 = 1e6;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum AttrKind {
    String,
    Number,
    Year,
}

/// One attribute as written in a rule file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AttributeSpec {
    pub column: String,
    pub kind: AttrKind,
    pub weight: f64,
    #[serde(default)]
    pub min: Option<i64>,
    #[serde(default)]
    pub max: Option<i64>,
}

/// A rule file: the id column, the blocking column, θ and the attributes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RuleSpec {
    pub id: String,
    /// The column blocked on (its values are compared with the block model's public values).
    pub block: String,
    pub threshold: f64,
    #[serde(rename = "attribute")]
    pub attributes: Vec<AttributeSpec>,
}

/// A validated attribute.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub enum Attr {
    Str { column: String, weight: u64 },
    Num { column: String, weight: u64, min: i64, range: u64, year: bool },
}

impl Attr {
    pub fn column(&self) -> &str {
        match self {
            Attr::Str { column, .. } | Attr::Num { column, .. } => column,
        }
    }
    pub fn weight(&self) -> u64 {
        match self {
            Attr::Str { weight, .. } | Attr::Num { weight, .. } => *weight,
        }
    }
    /// Ciphertexts per record: every bigram bit and the cardinality, or value and square.
    pub fn ciphertexts(&self) -> usize {
        match self {
            Attr::Str { .. } => super::super::bigrams::BIGRAMS + 1,
            Attr::Num { .. } => 2,
        }
    }
    /// Ciphertexts per compared pair sent to C (blinded numerator and denominator, or distance).
    pub fn pair_ciphertexts(&self) -> usize {
        match self {
            Attr::Str { .. } => 2,
            Attr::Num { .. } => 1,
        }
    }
}

/// The validated decision rule, with a fingerprint that every message carries.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Rule {
    pub id: String,
    pub block: String,
    pub threshold: u64,
    pub attrs: Vec<Attr>,
    #[serde(skip)]
    pub fingerprint: [u8; 32],
}

fn fixed(what: &str, x: f64) -> Result<u64, Error> {
    if !(x.is_finite() && (0.0..=1e6).contains(&x)) {
        return Err(Error::Parameter(format!("{what} must be a number in [0, 1e6], got {x}")));
    }
    Ok((x * SCALE).round() as u64)
}

impl RuleSpec {
    pub fn validate(&self) -> Result<Rule, Error> {
        if self.attributes.is_empty() || self.attributes.len() > 64 {
            return Err(Error::Parameter("a rule needs 1 to 64 attributes".into()));
        }
        let threshold = fixed("the threshold", self.threshold)?;
        if threshold == 0 {
            return Err(Error::Parameter("the threshold must be positive (a fake record must never match)".into()));
        }
        let mut attrs = Vec::new();
        for a in &self.attributes {
            let weight = fixed(&format!("the weight of {:?}", a.column), a.weight)?;
            attrs.push(match a.kind {
                AttrKind::String => {
                    if a.min.is_some() || a.max.is_some() {
                        return Err(Error::Parameter(format!("string attribute {:?} takes no range", a.column)));
                    }
                    Attr::Str { column: a.column.clone(), weight }
                }
                AttrKind::Number | AttrKind::Year => match (a.min, a.max) {
                    (Some(lo), Some(hi)) if lo < hi && hi.abs_diff(lo) <= 1 << 40 => Attr::Num {
                        column: a.column.clone(),
                        weight,
                        min: lo,
                        range: hi.abs_diff(lo),
                        year: a.kind == AttrKind::Year,
                    },
                    _ => {
                        return Err(Error::Parameter(format!(
                            "numeric attribute {:?} needs min < max (a public range of at most 2^40)",
                            a.column
                        )))
                    }
                },
            });
        }
        let mut rule = Rule { id: self.id.clone(), block: self.block.clone(), threshold, attrs, fingerprint: [0; 32] };
        let canonical = serde_json::to_string(&rule).unwrap_or_default();
        rule.fingerprint = Sha256::digest(canonical.as_bytes()).into();
        Ok(rule)
    }
}

/// One attribute value, encoded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Value {
    Str(Bigrams),
    /// value − min, in [0, R]; a fake record holds −R.
    Num(i64),
}

impl Rule {
    /// Encodes one raw value of attribute `z`.
    pub fn encode(&self, z: usize, raw: &str) -> Value {
        match &self.attrs[z] {
            Attr::Str { .. } => Value::Str(Bigrams::of(raw)),
            Attr::Num { min, range, year, .. } => {
                let digits: String = raw.trim().chars().take(if *year { 4 } else { usize::MAX }).collect();
                let v = match digits.parse::<i64>() {
                    Ok(v) if !*year || digits.len() == 4 => (v.saturating_sub(*min)).clamp(0, *range as i64),
                    _ => (*range / 2) as i64,
                };
                Value::Num(v)
            }
        }
    }

    /// The paper's fake record: empty bigram sets, and −R for numbers.
    pub fn fake(&self) -> Vec<Value> {
        self.attrs
            .iter()
            .map(|a| match a {
                Attr::Str { .. } => Value::Str(Bigrams::default()),
                Attr::Num { range, .. } => Value::Num(-(*range as i64)),
            })
            .collect()
    }

    /// The decision in the clear, exactly: Σ α_z·sim_z ≥ θ.
    pub fn decide_plain(&self, a: &[Value], b: &[Value]) -> bool {
        let mut sum = Frac::zero();
        for (z, attr) in self.attrs.iter().enumerate() {
            let w = BigInt::from(attr.weight());
            match (a[z], b[z], attr) {
                (Value::Str(x), Value::Str(y), _) => {
                    if !y.is_empty() && !x.is_empty() {
                        sum = sum.add(&Frac::new(w * x.intersection(&y), BigUint::from(x.union(&y))));
                    }
                }
                (Value::Num(x), Value::Num(y), Attr::Num { range, .. }) => {
                    let r2 = BigInt::from(*range) * range;
                    let d = BigInt::from(x) - y;
                    sum = sum.add(&Frac::new(w * (&r2 - &d * &d), r2.magnitude().clone()));
                }
                _ => return false,
            }
        }
        sum.ge(&Frac::new(BigInt::from(self.threshold), BigUint::from(1u32)))
    }
}

/// An exact rational num/den with den > 0.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Frac {
    pub num: BigInt,
    pub den: BigUint,
}

impl Frac {
    pub fn zero() -> Self {
        Frac { num: BigInt::from(0), den: BigUint::from(1u32) }
    }
    pub fn new(num: BigInt, den: BigUint) -> Self {
        debug_assert!(den > BigUint::from(0u32));
        Frac { num, den }
    }
    pub fn add(&self, o: &Frac) -> Frac {
        Frac {
            num: &self.num * BigInt::from(o.den.clone()) + &o.num * BigInt::from(self.den.clone()),
            den: &self.den * &o.den,
        }
    }
    pub fn ge(&self, o: &Frac) -> bool {
        &self.num * BigInt::from(o.den.clone()) >= &o.num * BigInt::from(self.den.clone())
    }
}
