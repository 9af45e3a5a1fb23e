//! WebAssembly bindings: thin wrappers over the core, mirroring its names. No
//! logic of their own: parse options, call the core, turn errors into JS errors
//! (a JS `Error` with a stable `code`; never a trap).
//!
//! | JS | core |
//! |---|---|
//! | `new DataOwner(records, options)`, `DataOwner.fromBytes(bytes, input, options)` | `party::DataOwner::{from_raw, read}` |
//! | `new RecordReader(input)`, `reader.push(chunk)`, `DataOwner.fromReader(reader, options)` | `dataset::DetectingReader`, `party::DataOwner::from_raw` |
//! | `owner.mine(options, onProgress)` | `party::DataOwner::mine` |
//! | `DataOwner.mergeBases(a, b, options)`, `fingerprint(base)` | `party::merge_bases` |
//! | `owner.embed(base, options, onProgress)`, `owner.embedVectors(base)`, `owner.thresholds(base, ed, mode)` | `party::DataOwner::{embed, vectors, thresholds}`, the options `party::EmbedRequest` (also `RecordOwner.embed`'s) |
//! | `owner.idMapCsv()`, `owner.idMapBytes()` (`DataOwner`, `RecordOwner`), `unmapPairs(pairs, aMap, bMap)` | `pseudonym::{IdMap, unmap_pairs}` |
//! | `new Matcher(batchA, batchB, {verifyA, signatureA, …})`, `matcher.match(options)`, `matcher.matchResult(options)` | `matcher::Matcher`, `protocol::signature::check_batch` |
//! | `linkParties([batchA, batchB, batchC, …], {mergeThreshold, pairs, names})`, `unmapClusters(csv, party, map)` | `multi::{Parties, link, export}`, `pseudonym::unmap_clusters` |
//! | `signKeygen()`, `signBatch(signingKey, batch)`, `verifyBatch(publicKey, batch, signature)` | `protocol::signature` |
//! | `new RecordOwner(csv, schema, options)`, `owner.mine()`, `RecordOwner.mergeBases(a, b, schema)`, `owner.embed(shared, options)` | `record::RecordOwner`, `record::merge`, `record::messages` |
//! | `new RecordTableReader(schema)`, `reader.push(chunk)`, `reader.bytesRead`, `reader.recordsRead`, `RecordOwner.fromReader(reader, options)` | `record::TableReader`, `record::RecordOwner::from_reader` |
//! | `new RecordMatcher(schema, batchA, batchB, {verifyA, …})`, `matcher.link({upper, lower})`, `matcher.pairsCsv(…)` | `record::RecordMatcher::{score, decide}`, `record::export::pairs_csv` |
//! | `runScenario(records, options, onProgress)` (feature eval: gramlink/lab) | `eval::scenario::run_scenario` |
//! | `makeTwin(input, {schema, seed, twin})` (feature twin: gramlink/lab) | `twin::{twin_strings, twin_table}` |
//! | `kuzuKeygen`, `kuzuBlockModel`, `kuzuDecide`, `KuzuOwner`, … (feature kuzu: gramlink/lab) | `kuzu::roles` |
//! | `defaults()`, `normalize(records, alphabet)`, `peekInput(bytes, input, n)`, `batchInfo(batch)` | `config`'s presets, `Alphabet::normalize_counting`, `dataset::{is_csv, csv_columns, read_records}`, `VectorBatch::read` |

mod args;
mod batch;
mod clusters;
mod defaults;
mod errors;
mod heap;
mod ids;
#[cfg(feature = "kuzu")]
mod kuzu;
mod matcher;
mod owner;
mod progress;
mod reader;
mod records;
#[cfg(feature = "eval")]
mod scenario;
mod signing;
#[cfg(feature = "twin")]
mod twin;

pub use clusters::link_parties;
pub use defaults::{batch_info, defaults, normalize, peek_input};
pub use ids::{unmap_clusters, unmap_pairs};
#[cfg(feature = "kuzu")]
pub use kuzu::{kuzu_block_model, kuzu_decide, kuzu_keygen, KuzuOwner};
pub use matcher::Matcher;
pub use owner::{fingerprint, keygen, DataOwner};
pub use progress::JsClock;
pub use reader::RecordReader;
pub use records::{RecordMatcher, RecordOwner, RecordTableReader};
#[cfg(feature = "eval")]
pub use scenario::run_scenario;
pub use signing::{sign_batch, sign_keygen, verify_batch};
#[cfg(feature = "twin")]
pub use twin::make_twin;
