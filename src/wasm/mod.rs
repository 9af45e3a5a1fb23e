//! WebAssembly bindings: thin wrappers over the core, mirroring its names. No
//! logic of their own: parse options, call the core, turn errors into JS errors
//! (a JS `Error` with a stable `code`; never a trap).
//!
//! | JS | core |
//! |---|---|
//! | `new DataOwner(records, options)`, `DataOwner.fromCsv` | `dataset` |
//! | `owner.mine(options, onProgress)` | `mine::mine` |
//! | `DataOwner.mergeBases(a, b, k, options)`, `fingerprint(base)` | `public::merge_shared` |
//! | `owner.embed(base, options, onProgress)`, `owner.embedVectors(base)` | `embed` |
//! | `owner.thresholds(base, ed, mode)` | `threshold::thresholds` |
//! | `new Matcher(batchA, batchB)`, `matcher.match(options)` | `matching::link` |
//! | `runScenario(records, options, onProgress)` | `eval::scenario` |
//! | `defaults()`, `normalize(records, alphabet)`, `batchInfo(batch)` | options' `Default`s, `Alphabet::normalize`, `VectorBatch::read` |

mod batch;
mod defaults;
mod errors;
mod heap;
mod matcher;
mod owner;
mod progress;
mod scenario;

pub use defaults::{batch_info, defaults, normalize};
pub use errors::to_js_error;
pub use matcher::Matcher;
pub use owner::{fingerprint, keygen, DataOwner};
pub use progress::JsClock;
pub use scenario::run_scenario;
