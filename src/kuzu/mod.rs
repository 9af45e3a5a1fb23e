//! Private record linkage with differentially private blocking and a secure
//! comparison, after Kuzu, Kantarcioglu, Inan, Bertino, Durham and Malin,
//! "Efficient privacy-aware record integration" (EDBT 2013): three roles, Alice
//! (A) and Bob (B), who hold records, and Charlie (C), who decides.
//!
//! 1. [`blocks`]: C clusters a public list of identifiers (surnames, cities) into
//!    n_B blocks, a block model with a fingerprint; A and B each put their records
//!    in the block of the most similar public value, exchanging nothing.
//! 2. [`release`]: A releases its blocks with ε-DP noisy sizes (discrete Laplace
//!    with the paper's cost-shifted mean): positive noise adds fake records,
//!    negative noise suppresses real ones; what was added or suppressed A alone knows.
//! 3. [`compare`]: A encrypts each released record under C's [`paillier`] key
//!    (bigram bit vectors and their cardinalities for strings, values and squares
//!    for numbers); B computes the encrypted intersections with its own records in
//!    the same block and blinds them (§4.3, "Similarity Blinding"); C decrypts and
//!    learns the Fellegi–Sunter decision only.
//!
//! docs/KUZU.md has the method, the measurements and where this departs from the
//! printed paper; docs/THREAT_MODEL.md what each role learns.

pub mod bigrams;
pub mod blocks;
pub mod compare;
pub mod paillier;
pub mod release;
pub mod resolve;
pub mod roles;
pub mod session;
pub mod table;
