//! Differential-privacy primitives: the one source of randomness, exact
//! discrete-Laplace noise, privacy amounts as exact rationals, and the budget ledger.
//!
//! Nothing released by gramlink is computed with floating-point noise: counts get
//! integer noise from [`DiscreteLaplace`], sampled exactly with integer arithmetic
//! (Canonne, Kamath, Steinke, NeurIPS 2020), so the attack on floating-point
//! Laplace samplers (Mironov, CCS 2012) does not apply.

mod discrete_laplace;
mod epsilon;
mod ledger;
mod ledger_file;
mod rng;

pub use discrete_laplace::{sample_bernoulli_exp, sample_discrete_laplace, DiscreteLaplace};
pub use epsilon::Epsilon;
pub use ledger::{BudgetLedger, Charge};
pub use ledger_file::{LedgerFile, Raise, Spend, LEDGER_FORMAT, LEDGER_VERSION};
pub use rng::Randomness;
