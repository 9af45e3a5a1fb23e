//! Privacy amounts as exact dyadic rationals.
//!
//! An ε is stored as an integer number of units of 2^-40. Budgets are then added and
//! compared exactly (a float sum of ε_i can round above ε), and the sampler gets ε
//! as an exact fraction `units / 2^40`. A requested ε is rounded *down* to the unit,
//! so the guarantee stated is never weaker than the one asked for.

use crate::error::DpError;
use serde::{Deserialize, Serialize};
use std::fmt;

/// An amount of privacy budget, ε ≥ 0, exact to 2^-40.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default, Serialize, Deserialize)]
#[serde(try_from = "f64", into = "f64")]
pub struct Epsilon(u64);

impl Epsilon {
    /// Units per 1.0 of ε: 2^40.
    pub const UNIT_BITS: u32 = 40;
    pub const ONE: Epsilon = Epsilon(1 << Self::UNIT_BITS);
    /// The largest ε accepted from a caller. Beyond this, noise is meaningless.
    pub const MAX: f64 = 1000.0;

    /// Validates a caller's ε: finite, positive, at most [`Epsilon::MAX`], and not
    /// so small that it rounds to zero units.
    pub fn new(value: f64) -> Result<Self, DpError> {
        let bad = |reason| DpError::InvalidEpsilon { value: format!("{value}"), reason };
        if value.is_nan() {
            return Err(bad("it is not a number (NaN)"));
        }
        if value.is_infinite() {
            return Err(bad("it must be finite"));
        }
        if value <= 0.0 {
            return Err(bad("it must be greater than 0"));
        }
        if value > Self::MAX {
            return Err(bad("it must be at most 1000"));
        }
        let units = (value * (1u64 << Self::UNIT_BITS) as f64).floor() as u64;
        if units == 0 {
            return Err(bad("it is too small (below 2^-40)"));
        }
        Ok(Epsilon(units))
    }

    pub const fn zero() -> Self {
        Epsilon(0)
    }

    pub const fn from_units(units: u64) -> Self {
        Epsilon(units)
    }

    pub const fn units(self) -> u64 {
        self.0
    }

    pub fn is_zero(self) -> bool {
        self.0 == 0
    }

    /// The value as f64 (exact: a 2^-40 multiple below 2^13 fits in 53 bits).
    pub fn as_f64(self) -> f64 {
        self.0 as f64 / (1u64 << Self::UNIT_BITS) as f64
    }

    pub fn checked_add(self, other: Epsilon) -> Option<Epsilon> {
        self.0.checked_add(other.0).map(Epsilon)
    }

    pub fn saturating_sub(self, other: Epsilon) -> Epsilon {
        Epsilon(self.0.saturating_sub(other.0))
    }

    /// `self · num / den`, rounded down (never more budget than the exact share).
    pub fn mul_ratio_floor(self, num: u64, den: u64) -> Epsilon {
        assert!(den > 0, "mul_ratio_floor by zero");
        Epsilon(((self.0 as u128 * num as u128) / den as u128) as u64)
    }

    /// `self / n`, rounded down.
    pub fn div_floor(self, n: u64) -> Epsilon {
        self.mul_ratio_floor(1, n)
    }

    /// The exact fraction `numerator / denominator` in lowest terms (denominator a
    /// power of two).
    pub fn as_fraction(self) -> (u128, u128) {
        let mut num = self.0 as u128;
        let mut den = 1u128 << Self::UNIT_BITS;
        while num > 0 && num % 2 == 0 && den > 1 {
            num /= 2;
            den /= 2;
        }
        (num, den)
    }
}

impl TryFrom<f64> for Epsilon {
    type Error = DpError;
    fn try_from(v: f64) -> Result<Self, DpError> {
        if v == 0.0 {
            return Ok(Epsilon(0));
        }
        Epsilon::new(v)
    }
}

impl From<Epsilon> for f64 {
    fn from(e: Epsilon) -> f64 {
        e.as_f64()
    }
}

impl fmt::Display for Epsilon {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.as_f64())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn validation() {
        for bad in [0.0, -1.0, f64::NAN, f64::INFINITY, f64::NEG_INFINITY, 1e-15, 1001.0] {
            assert!(Epsilon::new(bad).is_err(), "{bad}");
        }
        assert_eq!(Epsilon::new(1.0).unwrap(), Epsilon::ONE);
        assert!(Epsilon::new(0.1).unwrap().as_f64() <= 0.1);
        assert!(0.1 - Epsilon::new(0.1).unwrap().as_f64() < 1e-12);
    }

    #[test]
    fn fractions_are_exact_and_reduced() {
        assert_eq!(Epsilon::ONE.as_fraction(), (1, 1));
        assert_eq!(Epsilon::new(0.5).unwrap().as_fraction(), (1, 2));
        let (n, d) = Epsilon::new(0.1).unwrap().as_fraction();
        assert!(n % 2 == 1 && d.is_power_of_two());
    }

    #[test]
    fn shares_round_down() {
        let e = Epsilon::new(0.1).unwrap();
        let third = e.div_floor(3);
        assert!(third.units() * 3 <= e.units());
    }
}
