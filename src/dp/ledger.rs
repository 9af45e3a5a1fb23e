//! The privacy-budget ledger: every mechanism charges its ε before it runs.

use super::epsilon::Epsilon;
use crate::error::DpError;
use serde::{Deserialize, Serialize};

/// One charge against the budget.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Charge {
    pub mechanism: String,
    pub epsilon: Epsilon,
}

/// A party's privacy budget and what has been spent of it (sequential composition:
/// the total is the sum of the charges). Charging past the budget is an error and
/// charges nothing.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BudgetLedger {
    budget: Epsilon,
    spent: Epsilon,
    charges: Vec<Charge>,
}

impl BudgetLedger {
    pub fn new(budget: Epsilon) -> Self {
        BudgetLedger { budget, spent: Epsilon::zero(), charges: Vec::new() }
    }

    pub fn budget(&self) -> Epsilon {
        self.budget
    }

    pub fn spent(&self) -> Epsilon {
        self.spent
    }

    pub fn remaining(&self) -> Epsilon {
        self.budget.saturating_sub(self.spent)
    }

    pub fn charges(&self) -> &[Charge] {
        &self.charges
    }

    /// Charges `epsilon` for `mechanism`, or refuses if it would exceed the budget.
    pub fn charge(&mut self, mechanism: &str, epsilon: Epsilon) -> Result<(), DpError> {
        match self.spent.checked_add(epsilon) {
            Some(total) if total <= self.budget => {
                self.spent = total;
                self.charges.push(Charge { mechanism: mechanism.to_string(), epsilon });
                Ok(())
            }
            _ => Err(DpError::BudgetExceeded {
                mechanism: mechanism.to_string(),
                requested: epsilon.as_f64(),
                remaining: self.remaining().as_f64(),
                budget: self.budget.as_f64(),
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refuses_to_overspend() {
        let mut l = BudgetLedger::new(Epsilon::new(0.1).unwrap());
        let third = Epsilon::new(0.1).unwrap().div_floor(3);
        for _ in 0..3 {
            l.charge("fpm", third).unwrap();
        }
        assert!(l.charge("fpm", third).is_err());
        assert_eq!(l.charges().len(), 3);
        assert!(l.spent() <= l.budget());
        let err = l.charge("prefix-tree", Epsilon::new(0.05).unwrap()).unwrap_err();
        assert!(err.to_string().contains("budget exceeded"));
    }
}
