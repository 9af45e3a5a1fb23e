//! Reusable per-thread buffers of the personalized thresholds, so that a
//! threshold allocates nothing per record.

/// Reusable per-thread buffers, so that a threshold allocates nothing per record.
pub(super) struct Scratch {
    pub(super) codes: Vec<u8>,
    /// Occurrences `(gram, start)` of base grams in the current string.
    pub(super) occurrences: Vec<(u32, usize)>,
    // (u32, u32) like `hits`: the two sorts share one instantiation (wasm size)
    /// `(position, gram)` for every position an occurrence covers (paper), or
    /// `(gram, start)` of the grams that overlap themselves (sound).
    pub(super) covered: Vec<(u32, u32)>,
    /// `D[i]` of the paper's Algorithm 2.
    pub(super) position_weight: Vec<f64>,
    /// `P[i] + 1`: the smallest start of an occurrence covering i (paper).
    pub(super) first_start: Vec<usize>,
    /// The paper's dynamic program, row k at `k·(n+1)`.
    pub(super) table: Vec<f64>,
    /// Occurrences of each gram in the record.
    pub(super) gram_count: Vec<u32>,
    /// `wr_g`: the most occurrences of g through one position of the record.
    pub(super) most_through: Vec<u32>,
    /// Per coordinate, the occurrences spanning it: `(coordinate, first coordinate, gram)`.
    pub(super) covering: Vec<(u32, u32, u32)>,
    /// Start of each coordinate's list in `covering`.
    pub(super) cover_offsets: Vec<usize>,
    /// The removed-part charge of the first j occurrences of each coordinate's list.
    pub(super) cover_prefix: Vec<f64>,
    /// Per-coordinate or per-gram counters while filling the lists.
    pub(super) running: Vec<u32>,
    /// R(e): the removed-part charge of an operation with no earlier one.
    pub(super) removed_first: Vec<f64>,
    /// A(e): the most one edit at each coordinate can add.
    pub(super) added_at: Vec<f64>,
    /// Grams created by one trial edit, `(gram, count)`.
    pub(super) hits: Vec<(u32, u32)>,
    /// Room for sorting `hits` by symbol.
    pub(super) hits_spare: Vec<(u32, u32)>,
    /// Per symbol code, the created charge of the symbol being tried (all zero
    /// between uses).
    pub(super) created_charge: [f64; crate::alphabet::MAX_ALPHABET],
    /// [`super::Thresholder`]'s `created_with_symbol` by its local context
    /// (a scratch serves one thresholder: `per_record` makes one per call).
    pub(super) created_memo: crate::hash::PackedMap<u64, f64>,
    /// The sound dynamic program: best value with k+1 operations, the last at y.
    pub(super) best_ending: Vec<f64>,
    /// Its running maximum over y.
    pub(super) best_upto: Vec<f64>,
}

impl Default for Scratch {
    fn default() -> Self {
        Scratch {
            codes: Vec::new(),
            created_memo: Default::default(),
            occurrences: Vec::new(),
            covered: Vec::new(),
            position_weight: Vec::new(),
            first_start: Vec::new(),
            table: Vec::new(),
            gram_count: Vec::new(),
            most_through: Vec::new(),
            covering: Vec::new(),
            cover_offsets: Vec::new(),
            cover_prefix: Vec::new(),
            running: Vec::new(),
            removed_first: Vec::new(),
            added_at: Vec::new(),
            hits: Vec::new(),
            hits_spare: Vec::new(),
            created_charge: [0.0; crate::alphabet::MAX_ALPHABET],
            best_ending: Vec::new(),
            best_upto: Vec::new(),
        }
    }
}
