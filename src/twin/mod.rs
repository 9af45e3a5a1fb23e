//! Synthetic twins: pseudo-data that keeps a file's statistics but not its
//! records, so partners can rehearse a linkage without real data (issue 19).
//!
//! - [`condense`]: strings by condensation (Aggarwal and Yu, SDM 2007);
//! - [`krimp`]: categorical fields by the KRIMP code table and its generator
//!   (Siebes, Vreeken and van Leeuwen, SDM 2006; Vreeken, van Leeuwen and
//!   Siebes, "Preserving Privacy through Data Generation", ICDM 2007).
//!
//! Neither is differentially private: each module says which guarantee holds.

pub mod condense;
pub mod file;
pub mod krimp;
pub mod measure;
pub mod observed;
pub mod report;

pub use file::{check_record_options, twin_strings, twin_table, Twin, TwinOptions};
pub use report::TwinReport;
pub mod rehearse;
pub mod rehearse_records;
