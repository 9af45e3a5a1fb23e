//! Embedding strings as vectors over the shared base (paper section 6).
//!
//! Coordinate i of the vector of `s` is `|Occ_s(g_i)| / |g_i|`: the number of
//! occurrences of gram `g_i` in `s`, overlapping occurrences included ("AA" occurs
//! 3 times in "AAAA"), divided by the gram's length in symbols (chars, not bytes).
//!
//! All grams are found in one pass per string with an Aho–Corasick automaton in
//! overlapping mode, instead of one scan per gram: the cost is O(|s| + occurrences)
//! per string whatever the base size. The automaton runs on the UTF-8 bytes; a
//! valid UTF-8 pattern can only match a valid UTF-8 text at character boundaries,
//! so multi-byte symbols of a custom alphabet are counted correctly.
//!
//! Values are made platform-independent on purpose: counts are integers, and each
//! coordinate is one correctly rounded IEEE division `count as f32 / len as f32`,
//! so native and wasm32 builds give bit-identical vectors.

use crate::base::SharedBase;
use crate::error::Error;
use crate::progress::Progress;
use crate::sparse_vectors::{RowSource, SparseVectors};
use aho_corasick::automaton::Automaton;
use aho_corasick::nfa::contiguous::NFA;
use aho_corasick::{Input, Match, MatchKind};

/// The overlapping-search automaton of `grams` (the embedding's and the sound
/// thresholds'). A contiguous NFA directly, not `AhoCorasick`: that one picks
/// among three automata at run time (a DFA under 100 grams, else this NFA), so
/// all three and their `Debug` impls are in every build, ~20 KB of the gzipped
/// wasm; the matches are the same.
pub(crate) fn gram_automaton<P: AsRef<[u8]>>(grams: &[P]) -> Result<NFA, Error> {
    NFA::builder()
        .match_kind(MatchKind::Standard)
        .build(grams)
        .map_err(|e| Error::Parameter(format!("cannot build the gram automaton of the shared base: {e}")))
}

/// Every occurrence of the automaton's grams in `haystack`, overlapping ones included.
pub(crate) fn overlapping<'a>(automaton: &'a NFA, haystack: &'a [u8]) -> impl Iterator<Item = Match> + 'a {
    automaton
        .try_find_overlapping_iter(Input::new(haystack))
        // only a leftmost match kind or an anchored search refuses overlapping
        // matches; gram_automaton builds a standard one and the input is unanchored
        .expect("a standard automaton searches overlapping matches")
}

/// A batch of vectors as one contiguous row-major f32 matrix: row r is
/// `data[r*dim .. (r+1)*dim]`; coordinate i belongs to gram i of the shared base.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Vectors {
    pub dim: usize,
    pub data: Vec<f32>,
}

impl Vectors {
    /// The non-zero entries of each row.
    pub fn to_sparse(&self) -> SparseVectors {
        let mut s = SparseVectors::new(self.dim);
        for r in 0..self.len() {
            s.push_row(self.row(r).iter().enumerate().map(|(c, &x)| (c as u32, x)));
        }
        s
    }

    /// Dense vectors from sparse ones (zeros filled in).
    pub fn from_sparse(s: &SparseVectors) -> Vectors {
        let mut data = vec![0.0f32; s.len() * s.dim];
        for r in 0..s.len() {
            let (cols, vals) = s.row(r);
            for (&c, &v) in cols.iter().zip(vals) {
                data[r * s.dim + c as usize] = v;
            }
        }
        Vectors { dim: s.dim, data }
    }

    pub fn len(&self) -> usize {
        self.data.len().checked_div(self.dim).unwrap_or(0)
    }
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
    pub fn row(&self, r: usize) -> &[f32] {
        &self.data[r * self.dim..(r + 1) * self.dim]
    }

    /// The index of the first NaN or infinite component, if any. Scanned in
    /// blocks, one call each: V8 (wasm) optimizes a function between calls, never
    /// inside a running one, so one loop over a whole batch (11 M numbers for
    /// NAMES) would run in baseline code on a page's first run.
    pub fn first_non_finite(&self) -> Option<usize> {
        #[inline(never)]
        fn block(xs: &[f32]) -> Option<usize> {
            xs.iter().position(|x| !x.is_finite())
        }
        const BLOCK: usize = 1 << 14;
        self.data.chunks(BLOCK).enumerate().find_map(|(k, xs)| block(xs).map(|i| k * BLOCK + i))
    }
}

/// A batch's vectors: sparse when unkeyed (the embedding's non-zero grams:
/// a few dozen of hundreds of coordinates), dense when keyed (the rotation
/// mixes every coordinate, so nearly none is zero). The one-string vector
/// batch and each embedded part of a record batch hold them so.
#[derive(Debug, Clone, PartialEq)]
pub enum BatchVectors {
    Sparse(SparseVectors),
    Dense(Vectors),
}

impl BatchVectors {
    pub fn dim(&self) -> usize {
        match self {
            BatchVectors::Sparse(s) => s.dim,
            BatchVectors::Dense(d) => d.dim,
        }
    }

    pub fn len(&self) -> usize {
        match self {
            BatchVectors::Sparse(s) => s.len(),
            BatchVectors::Dense(d) => d.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The rows through their non-zero entries.
    pub fn source(&self) -> &(dyn RowSource + Sync) {
        match self {
            BatchVectors::Sparse(s) => s,
            BatchVectors::Dense(d) => d,
        }
    }

    /// Rows `rows` (clamped to the rows there are), in the same form.
    pub fn slice(&self, rows: std::ops::Range<usize>) -> BatchVectors {
        match self {
            BatchVectors::Sparse(s) => BatchVectors::Sparse(s.slice(rows)),
            BatchVectors::Dense(d) => {
                let end = rows.end.min(d.len());
                let start = rows.start.min(end);
                BatchVectors::Dense(Vectors { dim: d.dim, data: d.data[start * d.dim..end * d.dim].to_vec() })
            }
        }
    }

    /// The vectors as a dense matrix (a copy when sparse).
    pub fn to_dense(&self) -> std::borrow::Cow<'_, Vectors> {
        match self {
            BatchVectors::Dense(d) => std::borrow::Cow::Borrowed(d),
            BatchVectors::Sparse(s) => std::borrow::Cow::Owned(Vectors::from_sparse(s)),
        }
    }

    /// The dense vectors (keyed batches).
    pub fn dense(&self) -> Option<&Vectors> {
        match self {
            BatchVectors::Dense(d) => Some(d),
            BatchVectors::Sparse(_) => None,
        }
    }
}

/// Records embedded between two progress ticks (and cancellation checks).
const BLOCK: usize = 8192;

impl RowSource for Vectors {
    fn dim(&self) -> usize {
        self.dim
    }
    fn rows(&self) -> usize {
        self.len()
    }
    fn nonzero(&self, r: usize, f: &mut dyn FnMut(u32, f32)) {
        for (c, &x) in self.row(r).iter().enumerate() {
            if x != 0.0 {
                f(c as u32, x);
            }
        }
    }
}

/// The embedding of one shared base: built once, then applied to every record.
#[derive(Debug, Clone)]
pub struct Embedder {
    automaton: NFA,
    /// Length in chars of each gram, in coordinate order.
    lens: Vec<u32>,
    /// Records are padded before counting when the base says so.
    padding: Option<crate::padding::Padding>,
}

impl Embedder {
    /// Builds the multi-pattern automaton of the base's grams.
    pub fn new(base: &SharedBase) -> Result<Self, Error> {
        let automaton = gram_automaton(base.grams())?;
        let lens = base.grams().iter().map(|g| g.chars().count() as u32).collect();
        Ok(Embedder { automaton, lens, padding: base.padding() })
    }

    /// The vector dimension (the number of grams in the base).
    pub fn dim(&self) -> usize {
        self.lens.len()
    }

    /// Length in chars of gram `i`.
    pub fn gram_len(&self, i: usize) -> usize {
        self.lens[i] as usize
    }

    /// `s` as the base's grams are counted in: `^s$` when the base pads records.
    fn padded<'s>(&self, s: &'s str) -> std::borrow::Cow<'s, str> {
        match self.padding {
            Some(p) => std::borrow::Cow::Owned(p.pad(s)),
            None => std::borrow::Cow::Borrowed(s),
        }
    }

    /// Occurrence counts of every gram in `s` (overlapping occurrences included),
    /// written into `counts` (length [`Embedder::dim`]).
    pub fn count_into(&self, s: &str, counts: &mut [u32]) {
        counts.iter_mut().for_each(|c| *c = 0);
        let s = self.padded(s);
        for m in overlapping(&self.automaton, s.as_bytes()) {
            counts[m.pattern().as_usize()] += 1;
        }
    }

    /// Occurrence counts of every gram in `s`.
    pub fn counts(&self, s: &str) -> Vec<u32> {
        let mut counts = vec![0; self.dim()];
        self.count_into(s, &mut counts);
        counts
    }

    /// The vector of `s`, using `counts` as scratch space (both of length `dim`).
    pub fn embed_into(&self, s: &str, counts: &mut [u32], out: &mut [f32]) {
        self.count_into(s, counts);
        for ((o, &c), &len) in out.iter_mut().zip(counts.iter()).zip(&self.lens) {
            *o = c as f32 / len as f32;
        }
    }

    /// The vector of one string.
    pub fn embed_one(&self, s: &str) -> Vec<f32> {
        let mut counts = vec![0; self.dim()];
        let mut out = vec![0.0; self.dim()];
        self.embed_into(s, &mut counts, &mut out);
        out
    }

    /// The sparse vector of `s`: `(coordinate, value)` for the non-zero
    /// coordinates, in coordinate order. Most strings hold few of the base's
    /// grams, so this is the cheap form for per-string work.
    pub fn embed_sparse(&self, s: &str) -> Vec<(usize, f32)> {
        let s = self.padded(s);
        let mut hits: Vec<usize> = overlapping(&self.automaton, s.as_bytes()).map(|m| m.pattern().as_usize()).collect();
        crate::sorting::sort_keys(&mut hits);
        let mut out: Vec<(usize, f32)> = Vec::new();
        let mut i = 0;
        while i < hits.len() {
            let g = hits[i];
            let run = hits[i..].iter().take_while(|&&h| h == g).count();
            out.push((g, run as f32 / self.lens[g] as f32));
            i += run;
        }
        out
    }

    /// Embeds every record as one row of a contiguous matrix.
    ///
    /// Reports progress (phase `"embed"`) every few thousand records and stops
    /// with the progress callback's error (e.g. [`Error::Cancelled`]) if it asks.
    /// Natively the records of a block are embedded in parallel; rows are
    /// independent, so the result is identical to the sequential (wasm) path.
    pub fn embed_all(&self, records: &[String], progress: &mut dyn Progress) -> Result<Vectors, Error> {
        let dim = self.dim();
        let total = records.len() as u64;
        let mut data = vec![0.0f32; records.len() * dim];
        progress.tick("embed", 0, total)?;
        for (b, (recs, rows)) in records.chunks(BLOCK).zip(data.chunks_mut(BLOCK * dim)).enumerate() {
            self.embed_block(recs, rows);
            let done = (b * BLOCK + recs.len()) as u64;
            progress.tick("embed", done, total)?;
        }
        Ok(Vectors { dim, data })
    }

    /// Embeds every record as a sparse row ([`Embedder::embed_sparse`]: the
    /// same values as [`Embedder::embed_all`]'s non-zero ones), with progress
    /// as `embed_all`. Natively the records of a block are embedded in parallel.
    pub fn embed_all_sparse(&self, records: &[String], progress: &mut dyn Progress) -> Result<SparseVectors, Error> {
        let total = records.len() as u64;
        let mut out = SparseVectors::new(self.dim());
        out.starts.reserve_exact(records.len());
        progress.tick("embed", 0, total)?;
        for (b, recs) in records.chunks(BLOCK).enumerate() {
            for row in crate::par::map(recs, |s| self.embed_sparse(s)) {
                out.push_row(row.into_iter().map(|(c, v)| (c as u32, v)));
            }
            if b == 0 {
                // The rest at the first block's entries per record, and a
                // little more: the arrays then grow (and copy) once or never,
                // where doubling would leave up to twice their size allocated
                // (a browser tab's wasm memory never shrinks back).
                let rest = records.len() - recs.len();
                let per = out.nnz() as f64 / recs.len().max(1) as f64;
                let more = (per * 1.05 * rest as f64).ceil() as usize;
                out.cols.reserve_exact(more);
                out.vals.reserve_exact(more);
            }
            progress.tick("embed", (b * BLOCK + recs.len()) as u64, total)?;
        }
        Ok(out)
    }

    fn embed_block(&self, recs: &[String], rows: &mut [f32]) {
        let dim = self.dim();
        crate::par::fill_rows(rows, dim, recs, || vec![0u32; dim], |counts, row, s| self.embed_into(s, counts, row));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::alphabet::Alphabet;
    use crate::progress::NoProgress;

    pub(crate) fn base(grams: &[&str]) -> SharedBase {
        let lens: Vec<usize> = grams.iter().map(|g| g.chars().count()).collect();
        let (lo, hi) = (*lens.iter().min().unwrap(), *lens.iter().max().unwrap());
        SharedBase::new(Alphabet::default(), lo, hi, grams.iter().map(|g| g.to_string()).collect()).unwrap()
    }

    #[test]
    fn banana_by_hand() {
        let e = Embedder::new(&base(&["A", "AN", "ANA"])).unwrap();
        assert_eq!(e.embed_one("BANANA"), vec![3.0, 1.0, 2.0 / 3.0]);
        assert_eq!(e.counts("BANANA"), vec![3, 2, 2]);
    }

    #[test]
    fn sparse_embedding_is_the_dense_one_without_its_zeros() {
        let e = Embedder::new(&base(&["A", "AN", "ANA", "N", "NA", "B"])).unwrap();
        let recs: Vec<String> = ["BANANA", "", "NAAN", "ZZZ", "ANNA BANA"].iter().map(|s| s.to_string()).collect();
        let dense = e.embed_all(&recs, &mut NoProgress).unwrap();
        let sparse = e.embed_all_sparse(&recs, &mut NoProgress).unwrap();
        assert_eq!(Vectors::from_sparse(&sparse), dense);
        assert_eq!(dense.to_sparse(), sparse);
        assert_eq!(sparse.row(1).0.len(), 0);
        sparse.validate().unwrap();
    }

    #[test]
    fn overlapping_occurrences_count() {
        let e = Embedder::new(&base(&["AA"])).unwrap();
        assert_eq!(e.embed_one("AAAA"), vec![1.5]);
        let e = Embedder::new(&base(&["A", "AA", "AAA"])).unwrap();
        assert_eq!(e.counts("AAAA"), vec![4, 3, 2]);
        assert_eq!(e.embed_one(""), vec![0.0; 3]);
    }

    #[test]
    fn grams_absent_or_longer_than_the_string() {
        let e = Embedder::new(&base(&["ZZ", "Q", "ABC"])).unwrap();
        assert_eq!(e.embed_one("AB"), vec![0.0; 3]);
        assert!(e.embed_sparse("AB").is_empty());
    }

    #[test]
    fn multibyte_symbols_count_in_chars() {
        let al = Alphabet::new("AÉÑ ").unwrap();
        let b = SharedBase::new(al, 1, 2, vec!["É".into(), "ÉÑ".into(), "ÑA".into()]).unwrap();
        let e = Embedder::new(&b).unwrap();
        assert_eq!(e.counts("ÉÑAÉÑ"), vec![2, 2, 1]);
        assert_eq!(e.embed_one("ÉÑAÉÑ"), vec![2.0, 1.0, 0.5]);
    }

    #[test]
    fn sparse_matches_dense() {
        let e = Embedder::new(&base(&["A", "N", "AN", "NA", "ANA", "B"])).unwrap();
        for s in ["BANANA", "", "NNN", "XYZ", "ANANAS"] {
            let dense = e.embed_one(s);
            let mut from_sparse = vec![0.0; e.dim()];
            for (i, v) in e.embed_sparse(s) {
                from_sparse[i] = v;
            }
            assert_eq!(dense, from_sparse, "{s}");
        }
    }

    #[test]
    fn embed_all_is_row_major_and_reports_progress() {
        let e = Embedder::new(&base(&["A", "AN", "ANA"])).unwrap();
        let recs: Vec<String> = (0..20_000).map(|i| ["BANANA", "ANNA", "", "X"][i % 4].to_string()).collect();
        let mut ticks = Vec::new();
        let mut p = |_: &str, d: u64, t: u64| {
            ticks.push((d, t));
            Ok(())
        };
        let v = e.embed_all(&recs, &mut p).unwrap();
        assert_eq!((v.dim, v.len()), (3, 20_000));
        for (r, s) in recs.iter().enumerate() {
            assert_eq!(v.row(r), e.embed_one(s).as_slice());
        }
        assert_eq!(ticks.first(), Some(&(0, 20_000)));
        assert_eq!(ticks.last(), Some(&(20_000, 20_000)));
        assert!(e.embed_all(&[], &mut NoProgress).unwrap().is_empty());
    }

    #[test]
    fn cancellation_stops_the_work() {
        let e = Embedder::new(&base(&["A"])).unwrap();
        let recs = vec!["A".to_string(); 10];
        let mut cancel = |_: &str, d: u64, _: u64| if d > 0 { Err(Error::Cancelled) } else { Ok(()) };
        assert_eq!(e.embed_all(&recs, &mut cancel), Err(Error::Cancelled));
    }
}

#[cfg(all(test, not(target_arch = "wasm32")))]
mod props {
    use super::*;
    use crate::alphabet::Alphabet;
    use proptest::prelude::*;

    /// The definition, literally: for every gram, slide over every start position.
    fn naive(grams: &[String], s: &str) -> Vec<f32> {
        let sc: Vec<char> = s.chars().collect();
        grams
            .iter()
            .map(|g| {
                let gc: Vec<char> = g.chars().collect();
                let n =
                    if gc.len() > sc.len() { 0 } else { sc.windows(gc.len()).filter(|w| *w == gc.as_slice()).count() };
                n as f32 / gc.len() as f32
            })
            .collect()
    }

    fn gram() -> impl Strategy<Value = String> {
        proptest::string::string_regex("[AB ]{1,3}|[A-E]{1,3}").unwrap()
    }

    proptest! {
        #[test]
        fn matches_a_scan_per_gram(grams in proptest::collection::btree_set(gram(), 1..12),
                                    s in "[AB ]{0,12}|[A-E]{0,14}") {
            let grams: Vec<String> = grams.into_iter().collect();
            let q_min = grams.iter().map(|g| g.chars().count()).min().unwrap();
            let q_max = grams.iter().map(|g| g.chars().count()).max().unwrap();
            let b = SharedBase::new(Alphabet::default(), q_min, q_max, grams.clone()).unwrap();
            let e = Embedder::new(&b).unwrap();
            prop_assert_eq!(e.embed_one(&s), naive(&grams, &s));
        }
    }
}
