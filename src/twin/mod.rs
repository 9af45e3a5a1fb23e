//! Synthetic twins: pseudo-data that keeps a file's statistics but not its
//! records, so partners can rehearse a linkage without real data (issue 19).
//!
//! - [`condense`]: strings by condensation (Aggarwal and Yu, SDM 2007);
//! - [`krimp`]: categorical fields by the KRIMP code table and its generator
//!   (Siebes, Vreeken and van Leeuwen, SDM 2006; Vreeken, van Leeuwen and
//!   Siebes, "Preserving Privacy through Data Generation", ICDM 2007).
//!
//! Neither is differentially private: each module says which guarantee holds.
//! The rehearsals on twins (`observed`, `rehearse`, `rehearse_records`) run
//! the evaluation scenario, so they need the `eval` feature too.

pub mod condense;
pub mod file;
pub mod krimp;
pub mod measure;
#[cfg(feature = "eval")]
pub mod observed;
#[cfg(feature = "eval")]
pub mod rehearse;
#[cfg(feature = "eval")]
pub mod rehearse_records;
pub mod report;

pub use file::{check_record_options, twin_strings, twin_table, Twin, TwinOptions};
pub use report::TwinReport;
