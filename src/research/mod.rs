//! Research code, outside the library's default API (feature `research`, on
//! with the CLI): the paper's experiments and figures, the Lipschitz baseline,
//! the matcher's attacks, the mining-utility grid and the levers table. None of
//! it is a protocol step: each calls the roles of [`crate::party`],
//! [`crate::matcher`] and [`crate::session`], or the scenario of
//! [`crate::eval`].

pub mod algebra;
pub mod attack;
pub mod axes;
pub mod bootstrap;
pub mod chaff;
pub mod digits;
#[cfg(not(target_arch = "wasm32"))]
pub mod experiments;
pub mod frontier;
pub mod graph;
pub mod graph_records;
pub mod labelling;
pub mod levers;
pub mod lipschitz;
pub mod procrustes;
pub mod reconstruct;
pub mod small_domain;
pub mod utility;
