//! Matching thresholds for an edit distance `ed` (paper section 6.1).
//!
//! A vector of B matches a record `s` of A when `‖v(s) − v(t)‖₂ ≤ th(s)`. Three
//! ways to choose `th` ([`ThresholdMode`]):
//!
//! - **global**: one value for every record, the user's or the paper's
//!   Proposition 6.9, `Δq·ed` with `Δq = q_max − q_min + 1` ([`global_bound`]).
//! - **paper**: the personalized threshold of Algorithm 2 ([`Thresholder::paper`]).
//!   Faithful to the paper, and therefore **not an upper bound**: it counts each
//!   base gram touched by an edit once, with weight `1/|g|²`, but an edit also
//!   *creates* grams (a substitution changes two 1-gram coordinates: 2 in the squared
//!   distance where `D[i] ≤ 1 + 2/4 + 3/9 ≈ 1.83`), and several edits or occurrences
//!   may hit the same coordinate, whose contributions add before squaring.
//! - **sound**: a personalized bound proven to hold for every string within `ed`
//!   edits ([`Thresholder::sound`]; the proof is there).
//!
//! Per string the personalized thresholds cost O(|s|·ed·q_max + occurrences) after
//! one Aho–Corasick pass; [`thresholds`] runs them in parallel natively (rayon) and
//! sequentially on wasm32, with identical results (each value depends on its
//! string only).

use crate::base::SharedBase;
use crate::error::Error;
use aho_corasick::{AhoCorasick, MatchKind};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// The largest edit distance accepted: thresholds grow quickly with `ed`, and
/// beyond a few edits nothing useful is linked anyway.
pub const MAX_ED: u32 = 10;

/// The longest gram the personalized thresholds accept: a gram and its
/// placement are packed in one 128-bit lookup key (miners stop at 12 anyway).
pub const MAX_GRAM_LEN: usize = 16;

/// Least relative margin added to the sound threshold, so that distances computed
/// from the f32 vectors cannot exceed it through rounding alone.
///
/// Each coordinate is one correctly rounded division (relative error ≤ u = 2⁻²⁴):
/// equal coordinates round identically, and differing ones differ by at least
/// `1/q_max` while each is at most `|s| + ed`; so a coordinate difference is off
/// by a relative `u·(2|s| + ed + 1)·q_max` at most, and summing `k` squares in f32
/// adds about `k·u`. [`Thresholder::sound`] pads by this constant plus four times
/// that estimate (≈ 10⁻⁵ for names and k = 75).
pub const SOUND_MARGIN: f64 = 1e-4;

/// How thresholds are chosen. Serialized as `{"global": 2.5}`, `{"global": null}`,
/// `"paper"` or `"sound"`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ThresholdMode {
    /// One threshold for all records: the given value, or `Δq·ed` (Prop. 6.9).
    Global(Option<f64>),
    /// Algorithm 2 of the paper, personalized, not an upper bound.
    Paper,
    /// Personalized and proven: every string within `ed` edits is within it.
    Sound,
}

/// Proposition 6.9: `Δq·ed` with `Δq = q_max − q_min + 1`.
///
/// Per gram length q, an edit touches at most q windows of length q of each
/// string, so with `r`, `a` the removed and added counts of that length,
/// `Σ(a_g − r_g)²/q² ≤ ((Σa)² + (Σr)²)/q² ≤ 2ed²` and `‖Δ‖ ≤ √(2Δq)·ed`. That is at
/// most `Δq·ed` when `Δq ≥ 2`, so the bound holds then; with a single gram length
/// (`Δq = 1`) it does not (`AAA` → `BBB` over the base {A, B}: `√18 > 3`).
pub fn global_bound(base: &SharedBase, ed: u32) -> f64 {
    (base.q_max() - base.q_min() + 1) as f64 * ed as f64
}

/// The threshold of every record for edit distance `ed`, in record order.
///
/// Errors (`Error::Parameter`) if `ed > MAX_ED`, if a global value is not a finite
/// number ≥ 0, or if the base has a gram longer than [`MAX_GRAM_LEN`].
pub fn thresholds(base: &SharedBase, records: &[String], ed: u32, mode: &ThresholdMode) -> Result<Vec<f64>, Error> {
    check_ed(ed)?;
    match mode {
        ThresholdMode::Global(Some(v)) if !v.is_finite() || *v < 0.0 => {
            Err(Error::Parameter(format!("the global threshold must be a finite number ≥ 0, got {v}")))
        }
        ThresholdMode::Global(Some(v)) => Ok(vec![*v; records.len()]),
        ThresholdMode::Global(None) => Ok(vec![global_bound(base, ed); records.len()]),
        ThresholdMode::Paper => {
            let t = Thresholder::new(base, ed)?;
            Ok(per_record(records, |s, sc| t.paper_with(s, sc)))
        }
        ThresholdMode::Sound => {
            let t = Thresholder::new(base, ed)?;
            Ok(per_record(records, |s, sc| t.sound_with(s, sc)))
        }
    }
}

fn check_ed(ed: u32) -> Result<(), Error> {
    if ed > MAX_ED {
        return Err(Error::Parameter(format!("edit distance {ed} is above the supported maximum of {MAX_ED}")));
    }
    Ok(())
}

fn per_record<F: Fn(&str, &mut Scratch) -> f64 + Sync + Send>(records: &[String], f: F) -> Vec<f64> {
    crate::par::map_init(records, Scratch::default, |sc, s| f(s, sc))
}

/// Code of a character outside Σ: it is in no gram, so it matches nothing.
const FOREIGN: u8 = u8::MAX;

/// Bits per symbol in a packed key (Σ has at most 64 symbols).
const SYMBOL_BITS: u32 = 6;

/// A packed lookup key: 6 bits of length, 6 of offset (63 marks a whole gram),
/// then the symbols, 6 bits each. `None` if a symbol is outside Σ.
fn pack(q: usize, m: usize, symbols: impl Iterator<Item = u8>) -> Option<u128> {
    let mut key = q as u128 | (m as u128) << 6;
    let mut shift = 12;
    for c in symbols {
        if c as usize >= crate::alphabet::MAX_ALPHABET {
            return None;
        }
        key |= (c as u128) << shift;
        shift += SYMBOL_BITS;
    }
    Some(key)
}

/// The offset written in the key of a whole gram (no hole).
const WHOLE: usize = 63;

/// A multiplicative hash for the packed keys: fast, and fixed (no random seed),
/// so runs are reproducible.
#[derive(Default)]
struct KeyHasher(u64);

impl Hasher for KeyHasher {
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 ^ b as u64).wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
    fn write_u128(&mut self, k: u128) {
        let folded = (k as u64) ^ ((k >> 64) as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15);
        self.0 = folded.wrapping_mul(0xff51_afd7_ed55_8ccd);
        self.0 ^= self.0 >> 29;
    }
    fn finish(&self) -> u64 {
        self.0
    }
}

type KeyMap<V> = HashMap<u128, V, BuildHasherDefault<KeyHasher>>;

/// Reusable per-thread buffers, so that a threshold allocates nothing per record.
struct Scratch {
    codes: Vec<u8>,
    /// Occurrences `(gram, start)` of base grams in the current string.
    occ: Vec<(u32, usize)>,
    // (u32, u32) like `hits`: the two sorts share one instantiation (wasm size)
    pairs: Vec<(u32, u32)>,
    d: Vec<f64>,
    first: Vec<usize>,
    rows: Vec<f64>,
    count: Vec<u32>,
    wr: Vec<u32>,
    cover: Vec<(u32, u32, u32)>,
    offsets: Vec<usize>,
    prefix: Vec<f64>,
    running: Vec<u32>,
    r_full: Vec<f64>,
    a: Vec<f64>,
    hits: Vec<(u32, u32)>,
    /// Per symbol code, the created charge of the symbol being tried (all zero
    /// between uses).
    acc: [f64; crate::alphabet::MAX_ALPHABET],
    f: Vec<f64>,
    g: Vec<f64>,
}

impl Default for Scratch {
    fn default() -> Self {
        Scratch {
            codes: Vec::new(),
            occ: Vec::new(),
            pairs: Vec::new(),
            d: Vec::new(),
            first: Vec::new(),
            rows: Vec::new(),
            count: Vec::new(),
            wr: Vec::new(),
            cover: Vec::new(),
            offsets: Vec::new(),
            prefix: Vec::new(),
            running: Vec::new(),
            r_full: Vec::new(),
            a: Vec::new(),
            hits: Vec::new(),
            acc: [0.0; crate::alphabet::MAX_ALPHABET],
            f: Vec::new(),
            g: Vec::new(),
        }
    }
}

/// The personalized thresholds of one shared base and one edit distance:
/// everything that does not depend on the record is computed once here.
#[derive(Debug, Clone)]
pub struct Thresholder {
    ed: u32,
    /// Symbol codes (index in Σ) of ASCII characters, `FOREIGN` if not in Σ.
    ascii: [u8; 128],
    other: Vec<(char, u8)>,
    automaton: AhoCorasick,
    len: Vec<usize>,
    /// `w_g`: the most occurrences of g that can contain one position of any
    /// string, `⌊(|g|−1)/p⌋ + 1` with p the smallest period of g.
    w: Vec<u32>,
    /// Distinct gram lengths of the base, ascending.
    lengths: Vec<usize>,
    /// Codes of the padding symbols put around every record, if the base pads.
    padding: Option<(u8, u8)>,
    /// `(q, m, the gram without its symbol at offset m)` → `(that symbol, gram)`.
    hole: KeyMap<Vec<(u8, u32)>>,
    /// `(q, WHOLE, the gram)` → the gram.
    full: KeyMap<u32>,
    /// `f_g(1)/|g|²` of every gram (step 3 of the sound bound's proof).
    once: Vec<f64>,
    /// `pair(x, y)` of the sound bound for `y − x < reach`, at `2(y − x) + x mod 2`.
    pair: Vec<f64>,
    /// Coordinates `reach` or more apart share no window.
    reach: usize,
    /// Which symbol codes are 1-grams of the base.
    one_gram: [bool; 256],
    one_grams: usize,
}

impl Thresholder {
    /// Errors (`Error::Parameter`) if `ed > MAX_ED` or a gram is longer than
    /// [`MAX_GRAM_LEN`].
    pub fn new(base: &SharedBase, ed: u32) -> Result<Self, Error> {
        check_ed(ed)?;
        let gram_alphabet = base.gram_alphabet();
        let alphabet = &gram_alphabet;
        let mut ascii = [FOREIGN; 128];
        let mut other = Vec::new();
        for (i, &c) in alphabet.symbols().iter().enumerate() {
            let code = u8::try_from(i).ok().filter(|&k| k != FOREIGN).ok_or_else(|| {
                Error::Parameter(format!("the alphabet has {} symbols, too many for thresholds", alphabet.len()))
            })?;
            if c.is_ascii() {
                ascii[c as usize] = code;
            } else {
                other.push((c, code));
            }
        }
        let mut grams: Vec<Vec<u8>> = Vec::with_capacity(base.len());
        for g in base.grams() {
            let codes: Option<Vec<u8>> = g.chars().map(|c| alphabet.index_of(c).map(|i| i as u8)).collect();
            let codes =
                codes.ok_or_else(|| Error::Parameter(format!("gram {g:?} has a symbol outside the alphabet")))?;
            if codes.len() > MAX_GRAM_LEN {
                return Err(Error::Parameter(format!(
                    "gram {g:?} is {} symbols long; personalized thresholds accept at most {MAX_GRAM_LEN}",
                    codes.len()
                )));
            }
            grams.push(codes);
        }
        let automaton = AhoCorasick::builder()
            .match_kind(MatchKind::Standard)
            .build(&grams)
            .map_err(|e| Error::Parameter(format!("cannot build the gram automaton of the shared base: {e}")))?;
        let mut hole: KeyMap<Vec<(u8, u32)>> = KeyMap::default();
        let mut full: KeyMap<u32> = KeyMap::default();
        let mut one_gram = [false; 256];
        let unpackable = || Error::Parameter("a gram has a symbol outside the alphabet".into());
        for (id, g) in grams.iter().enumerate() {
            let q = g.len();
            for m in 0..q {
                let key = pack(q, m, g[..m].iter().chain(&g[m + 1..]).copied()).ok_or_else(unpackable)?;
                hole.entry(key).or_default().push((g[m], id as u32));
            }
            full.insert(pack(q, WHOLE, g.iter().copied()).ok_or_else(unpackable)?, id as u32);
            if q == 1 {
                one_gram[g[0] as usize] = true;
            }
        }
        let mut lengths: Vec<usize> = grams.iter().map(Vec::len).collect();
        crate::sorting::sort_keys(&mut lengths);
        lengths.dedup();
        let w: Vec<u32> = grams.iter().map(|g| self_overlap(g)).collect();
        let w_max: Vec<u32> = lengths
            .iter()
            .map(|&q| (0..grams.len()).filter(|&g| grams[g].len() == q).map(|g| w[g]).max().unwrap_or(0))
            .collect();
        let ed_f = ed as f64;
        let once = (0..grams.len())
            .map(|g| (1.0 + (ed_f - 1.0) * w[g] as f64) / (grams[g].len() * grams[g].len()) as f64)
            .collect();
        let (pair, reach) = pair_table(&lengths, &w_max, ed_f);
        let padding = match base.padding() {
            Some(p) => {
                let code = |c: char| alphabet.index_of(c).map(|i| i as u8);
                Some((code(p.start).unwrap_or(FOREIGN), code(p.end).unwrap_or(FOREIGN)))
            }
            None => None,
        };
        Ok(Thresholder {
            padding,
            ed,
            pair,
            reach,
            ascii,
            other,
            automaton,
            len: grams.iter().map(Vec::len).collect(),
            w,
            lengths,
            hole,
            full,
            once,
            one_gram,
            one_grams: one_gram.iter().filter(|&&b| b).count(),
        })
    }

    /// The edit distance these thresholds are for.
    pub fn ed(&self) -> u32 {
        self.ed
    }

    fn code(&self, c: char) -> u8 {
        if c.is_ascii() {
            self.ascii[c as usize]
        } else {
            self.other.iter().find(|&&(o, _)| o == c).map_or(FOREIGN, |&(_, k)| k)
        }
    }

    /// Encodes `s` and finds every occurrence of every base gram (one pass).
    fn scan(&self, s: &str, sc: &mut Scratch) {
        sc.codes.clear();
        // A padded record is `start + s + end`; edits of s are edits of the padded
        // string away from its ends, so every bound below still holds for them.
        if let Some((start, _)) = self.padding {
            sc.codes.push(start);
        }
        sc.codes.extend(s.chars().map(|c| self.code(c)));
        if let Some((_, end)) = self.padding {
            sc.codes.push(end);
        }
        sc.occ.clear();
        for m in self.automaton.find_overlapping_iter(&sc.codes[..]) {
            sc.occ.push((m.pattern().as_u32(), m.start()));
        }
    }

    /// The paper's personalized threshold (Algorithm 2), NOT an upper bound.
    ///
    /// `D[i] = Σ_{g∈B} (δ_s(i,g)/|g|)²`, where `δ_s(i,g) = 1` if some occurrence of
    /// g covers position i (several occurrences of the same gram count once).
    ///
    /// Reading of the misprints (DESIGN.md): equation 13 disagrees with its prose;
    /// we follow the prose and VGRAM's recurrence: `P[i]` is the largest position
    /// `j < i` such that no base-gram occurrence covers both j and i (an edit at j
    /// and one at i touch disjoint occurrences), i.e. the smallest start of an
    /// occurrence covering i, minus one (`i − 1` if none covers i; −1 possibly).
    /// Rows count edits: `T[0][·] = 0` is the row the printed loop reads as
    /// `T[−1]`, `T[k][−1] = 0`, and for k = 1..ed, j = 0..|s|−1,
    /// `T[k][j] = max(T[k][j−1], T[k−1][P[j]] + D[j])`; the result is
    /// `th = √T[ed][|s|−1]` (the printed `T[ed][j]` with j at its last value), so
    /// at most ed positions are chosen (the printed indices would allow ed + 1).
    /// Only positions 0..|s|−1 exist, so insertions at the end are not modelled.
    ///
    /// Not an upper bound (module docs): on NAMES with the 75 most frequent 1–3
    /// grams, every one of 1,000 sampled names has a single substitution that
    /// lands outside it.
    pub fn paper(&self, s: &str) -> f64 {
        self.paper_with(s, &mut Scratch::default())
    }

    fn paper_with(&self, s: &str, sc: &mut Scratch) -> f64 {
        let ed = self.ed;
        self.scan(s, sc);
        let n = sc.codes.len();
        if n == 0 || ed == 0 {
            return 0.0;
        }
        sc.pairs.clear();
        sc.first.clear();
        sc.first.extend(0..n);
        for &(g, p) in &sc.occ {
            let len = self.len[g as usize];
            for i in p..p + len {
                sc.pairs.push((i as u32, g));
                sc.first[i] = sc.first[i].min(p);
            }
        }
        crate::sorting::sort_keys(&mut sc.pairs);
        sc.pairs.dedup();
        sc.d.clear();
        sc.d.resize(n, 0.0);
        for &(i, g) in &sc.pairs {
            let len = self.len[g as usize] as f64;
            sc.d[i as usize] += 1.0 / (len * len);
        }
        // Row k lives in rows[k*(n+1) ..]; entry j+1 is T[k][j], entry 0 is T[k][−1].
        let w = n + 1;
        sc.rows.clear();
        sc.rows.resize(w * (ed as usize + 1), 0.0);
        for k in 1..=ed as usize {
            for j in 0..n {
                // P[j] + 1 = first[j]: index of T[k−1][P[j]] in the shifted row.
                let take = sc.rows[(k - 1) * w + sc.first[j]] + sc.d[j];
                let skip = sc.rows[k * w + j];
                sc.rows[k * w + j + 1] = skip.max(take);
            }
        }
        sc.rows[ed as usize * w + n].sqrt()
    }

    /// The sound personalized threshold: every string t with edit distance
    /// `d(s, t) ≤ ed`, over any alphabet, has `‖v(s) − v(t)‖₂ ≤ sound(s, ed)`.
    ///
    /// It is `√T` padded by a relative [`SOUND_MARGIN`] and more for long strings
    /// (f32 rounding of the vectors), with T ([`Thresholder::sound_squared`])
    /// from the dynamic program below.
    ///
    /// **Proof.** Take an optimal alignment of s and t: d ≤ ed operations, no
    /// substitution by the same symbol. Give each operation a *coordinate* in
    /// half-positions: a substitution or deletion of `s[i]` is at `2i+1`, an
    /// insertion between `s[i−1]` and `s[i]` at `2i` (0 and 2|s| are the ends). A
    /// window (occurrence) `s[p..p+L]` spans the coordinates `[2p+1, 2p+2L−1]`; it is
    /// *hit* by an operation whose coordinate it spans. A window of s hit by no
    /// operation is copied to t as an identical window whose positions are neither
    /// inserted nor substituted and span no deletion; and conversely. So for every
    /// gram, `occ_s(g) − occ_t(g) = r_g − a_g`, with `r_g` the hit windows of s equal
    /// to g and `a_g` the windows of t equal to g containing an operation's *locus*
    /// (its inserted or substituted position, or both sides of its deletion).
    ///
    /// 1. `‖Δ‖² = Σ_g (r_g − a_g)²/|g|² ≤ Σ_g r_g²/|g|² + Σ_g a_g²/|g|²` (r, a ≥ 0).
    /// 2. Removed. Charge each hit window to the first operation (by coordinate)
    ///    that hits it: `r_g = Σ_e r_{g,e}`. Windows charged to e all contain e's
    ///    coordinate, so `r_{g,e} ≤ wr_g`, the most occurrences of g in s that
    ///    contain one position; and `r_g ≤ occ_s(g)`. Hence
    ///    `r_g² = Σ_e r_{g,e}·r_g ≤ Σ_e r_{g,e}·(r_{g,e} + min((ed−1)·wr_g, occ_s(g) − r_{g,e}))`.
    ///    Windows are intervals, so those containing coordinate y but no earlier
    ///    operation are exactly those containing y that start after the previous
    ///    coordinate x: the charge of e depends on (x, y) only.
    /// 3. Added. A window of t with a locus holds either one locus (*single*, owned
    ///    by that operation) or several (*shared*, owned by the left operation of
    ///    the leftmost consecutive pair it holds). Every window owned by e contains
    ///    e's locus, and the occurrences of g containing one position start at
    ///    shifts that are periods of g, so `a_{g,e} ≤ w_g = ⌊(|g|−1)/p_g⌋ + 1`.
    ///    As in 2, `a_g² ≤ Σ_e f_g(a_{g,e})` with `f_g(a) = a² + (ed−1)·w_g·a`.
    ///    A single window of e contains e's symbol and otherwise only symbols of s
    ///    adjacent to e's coordinate, unchanged: it is a window of the string made
    ///    from s by e *alone*. So the single windows of e weigh at most
    ///    `A(e) = max Σ_g f_g(α_g)/|g|²` over the operation kinds at e's coordinate
    ///    and their symbols (any symbol of Σ; not `s[i]` for a substitution), α_g
    ///    counting g among the windows created by that edit alone (f is increasing).
    ///    Each shared window raises some `f_g(a)`, `a < w_g`, by at most
    ///    `W_q = max_{|g|=q} ((ed+1)·w_g − 1)/q²`. The shortest stretch of t holding
    ///    the loci of consecutive operations at coordinates x ≤ y has length
    ///    `ℓ = ⌊(y−x)/2⌋ + 1 + [x or y even]` (the matched symbols between them are
    ///    those of s; checked for each pair of kinds), so they share at most
    ///    `max(0, q − ℓ + 1)` windows of length q.
    /// 4. Altogether `‖Δ‖² ≤ Σ_e (R(e) + A(e)) + Σ_{consecutive e, e'} pair(x_e, x_e')`,
    ///    a function of the sorted coordinates alone; T is its maximum over every
    ///    multiset of at most ed coordinates in `[0, 2|s|]` (odd ones distinct),
    ///    computed by a dynamic program over the last coordinate. ∎
    ///
    /// For ed = 1 no term is linearized (f_g(a) = a²), so T is the largest change
    /// one edit can make, up to the dropped product `r_g·a_g` of a gram an edit
    /// both destroys and creates. On NAMES with the 75 most frequent 1–3 grams,
    /// `√T` equals the exact worst case over all single edits on 1,000 sampled
    /// names, and is 12% above the exact worst case over all double edits on 30.
    pub fn sound(&self, s: &str) -> f64 {
        self.sound_with(s, &mut Scratch::default())
    }

    fn sound_with(&self, s: &str, sc: &mut Scratch) -> f64 {
        let t = self.sound_squared_with(s, sc);
        let n = sc.codes.len() as f64;
        let q_max = self.lengths.last().copied().unwrap_or(1) as f64;
        let rounding = ((2.0 * n + self.ed as f64 + 1.0) * q_max + self.len.len() as f64 + 4.0) * 2f64.powi(-22);
        t.sqrt() * (1.0 + SOUND_MARGIN + rounding)
    }

    /// T of [`Thresholder::sound`]: the proven bound on the squared distance,
    /// without the rounding margin.
    pub fn sound_squared(&self, s: &str) -> f64 {
        self.sound_squared_with(s, &mut Scratch::default())
    }

    fn sound_squared_with(&self, s: &str, sc: &mut Scratch) -> f64 {
        let ed = self.ed;
        if ed == 0 {
            return 0.0;
        }
        self.scan(s, sc);
        let n = sc.codes.len();
        let ed_f = ed as f64;
        self.gram_stats(sc);
        self.cover_lists(n, ed_f, sc);
        sc.a.clear();
        for x in 0..=2 * n {
            let a = self.added(x, ed_f, sc);
            sc.a.push(a);
        }
        let reach = self.reach;
        let pair = |x: usize, y: usize| self.pair[2 * (y - x) + x % 2];
        let width = 2 * n + 1;
        let k_max = ed as usize;
        // f[k*width + y]: best value with k+1 operations, the last at y;
        // g: its running maximum over y.
        let mut f = std::mem::take(&mut sc.f);
        let mut g = std::mem::take(&mut sc.g);
        f.clear();
        f.resize(k_max * width, f64::NEG_INFINITY);
        g.clear();
        g.resize(k_max * width, f64::NEG_INFINITY);
        let mut best = 0.0f64;
        for k in 0..k_max {
            for y in 0..width {
                let lo = sc.offsets[y];
                let hi = sc.offsets[y + 1];
                let mut v = if k == 0 { sc.r_full[y] } else { f64::NEG_INFINITY };
                if k > 0 {
                    let prev = (k - 1) * width;
                    if y >= reach {
                        v = v.max(g[prev + y - reach] + sc.r_full[y]);
                    }
                    for x in (y + 1).saturating_sub(reach)..=y {
                        if (x == y && y % 2 == 1) || f[prev + x] == f64::NEG_INFINITY {
                            continue;
                        }
                        // Windows containing y that start after x: a prefix of y's list.
                        let fresh = sc.cover[lo..hi].iter().take_while(|c| c.1 as usize > x).count();
                        v = v.max(f[prev + x] + sc.prefix[lo + y + fresh] + pair(x, y));
                    }
                }
                let v = v + sc.a[y];
                f[k * width + y] = v;
                let run = if y > 0 { g[k * width + y - 1] } else { f64::NEG_INFINITY };
                g[k * width + y] = run.max(v);
                best = best.max(v);
            }
        }
        sc.f = f;
        sc.g = g;
        best
    }

    /// Occurrence counts `occ_s(g)` and `wr_g` (most occurrences of g containing
    /// one position of s) of the grams occurring in s.
    fn gram_stats(&self, sc: &mut Scratch) {
        let k = self.len.len();
        sc.count.clear();
        sc.count.resize(k, 0);
        sc.wr.clear();
        sc.wr.resize(k, 0);
        sc.pairs.clear();
        for &(g, p) in &sc.occ {
            sc.count[g as usize] += 1;
            // A gram that cannot overlap itself has at most one occurrence
            // through a position; only the others need the scan below.
            if self.w[g as usize] == 1 {
                sc.wr[g as usize] = 1;
            } else {
                sc.pairs.push((g, p as u32));
            }
        }
        crate::sorting::sort_keys(&mut sc.pairs);
        let mut i = 0;
        while i < sc.pairs.len() {
            let g = sc.pairs[i].0 as usize;
            let run = sc.pairs[i..].iter().take_while(|p| p.0 as usize == g).count();
            let starts = &sc.pairs[i..i + run];
            let len = self.len[g];
            let mut lo = 0;
            let mut most = 0;
            for hi in 0..run {
                while starts[hi].1 as usize >= starts[lo].1 as usize + len {
                    lo += 1;
                }
                most = most.max(hi - lo + 1);
            }
            sc.wr[g] = most as u32;
            i += run;
        }
    }

    /// For each coordinate y in `[0, 2|s|]`, the occurrences spanning it as
    /// `(y, first coordinate, gram)` sorted by first coordinate descending, and
    /// `prefix[offsets[y] + y + j]`: the removed-part charge of the first j of them.
    fn cover_lists(&self, n: usize, ed_f: f64, sc: &mut Scratch) {
        sc.offsets.clear();
        sc.offsets.resize(2 * n + 2, 0);
        for &(g, p) in &sc.occ {
            for y in 2 * p + 1..2 * (p + self.len[g as usize]) {
                sc.offsets[y + 1] += 1;
            }
        }
        for y in 0..=2 * n {
            sc.offsets[y + 1] += sc.offsets[y];
        }
        // Fill each coordinate's bucket, then order it by first coordinate, descending.
        sc.cover.clear();
        sc.cover.resize(sc.offsets[2 * n + 1], (0, 0, 0));
        sc.running.clear();
        sc.running.resize(2 * n + 1, 0);
        for &(g, p) in &sc.occ {
            for y in 2 * p + 1..2 * (p + self.len[g as usize]) {
                sc.cover[sc.offsets[y] + sc.running[y] as usize] = (y as u32, (2 * p + 1) as u32, g);
                sc.running[y] += 1;
            }
        }
        for y in 0..=2 * n {
            crate::sorting::sort_by(&mut sc.cover[sc.offsets[y]..sc.offsets[y + 1]], |a, b| b.1.cmp(&a.1).then(a.2.cmp(&b.2)));
        }
        sc.running.clear();
        sc.running.resize(self.len.len(), 0);
        sc.prefix.clear();
        sc.r_full.clear();
        for y in 0..=2 * n {
            let mut total = 0.0;
            sc.prefix.push(0.0);
            for j in sc.offsets[y]..sc.offsets[y + 1] {
                let g = sc.cover[j].2 as usize;
                let r = sc.running[g] as f64;
                total += self.removed_charge(g, r + 1.0, ed_f, sc) - self.removed_charge(g, r, ed_f, sc);
                sc.running[g] += 1;
                sc.prefix.push(total);
            }
            for j in sc.offsets[y]..sc.offsets[y + 1] {
                sc.running[sc.cover[j].2 as usize] = 0;
            }
            sc.r_full.push(total);
        }
    }

    /// `(r² + r·min((ed−1)·wr_g, occ_s(g) − r)) / |g|²` (step 2 of the proof).
    fn removed_charge(&self, g: usize, r: f64, ed_f: f64, sc: &Scratch) -> f64 {
        let len = self.len[g] as f64;
        let others = ((ed_f - 1.0) * sc.wr[g] as f64).min(sc.count[g] as f64 - r).max(0.0);
        (r * r + r * others) / (len * len)
    }

    /// `f_g(a)/|g|² = (a² + (ed−1)·w_g·a) / |g|²` (step 3 of the proof).
    fn added_charge(&self, g: usize, a: f64, ed_f: f64) -> f64 {
        let len = self.len[g] as f64;
        (a * a + (ed_f - 1.0) * self.w[g] as f64 * a) / (len * len)
    }

    /// A(e) at coordinate x: the most an edit applied alone there can add.
    fn added(&self, x: usize, ed_f: f64, sc: &mut Scratch) -> f64 {
        let n = sc.codes.len();
        let i = x / 2;
        if x % 2 == 1 {
            // Substitution of s[i] by any other symbol, or deletion of s[i].
            let sub = self.created_with_symbol(i, 1, Some(sc.codes[i]), ed_f, sc);
            let del = self.created_by_deletion(i, n, ed_f, sc);
            sub.max(del)
        } else {
            // Insertion of any symbol before s[i] (i = |s|: at the end).
            self.created_with_symbol(i, 0, None, ed_f, sc)
        }
    }

    /// The windows around a new symbol placed at position `i` of s, replacing
    /// `skip` symbols (1: substitution, 0: insertion), best over the symbol
    /// (`excluded` is the substituted symbol itself).
    fn created_with_symbol(&self, i: usize, skip: usize, excluded: Option<u8>, ed_f: f64, sc: &mut Scratch) -> f64 {
        let n = sc.codes.len();
        // acc[c]: Σ_g f_g(α_g)/|g|² over the grams of length ≥ 2 that symbol c creates.
        // A gram created twice around one edit overlaps itself (w_g ≥ 2): those are
        // set aside in `hits` and charged by their exact count; the others add f_g(1).
        let acc = &mut sc.acc;
        let mut touched = 0u64;
        sc.hits.clear();
        for &q in self.lengths.iter().filter(|&&q| q >= 2) {
            for m in 0..q {
                // m symbols of s before the new one, q−1−m after it.
                if m > i || i + skip + (q - 1 - m) > n {
                    continue;
                }
                let around = sc.codes[i - m..i].iter().chain(&sc.codes[i + skip..i + skip + q - 1 - m]);
                let Some(list) = pack(q, m, around.copied()).and_then(|k| self.hole.get(&k)) else { continue };
                for &(c, g) in list.iter().filter(|h| Some(h.0) != excluded) {
                    touched |= 1 << c;
                    if self.w[g as usize] == 1 {
                        acc[c as usize] += self.once[g as usize];
                    } else {
                        sc.hits.push((u32::from(c), g));
                    }
                }
            }
        }
        crate::sorting::sort_keys(&mut sc.hits);
        let mut j = 0;
        while j < sc.hits.len() {
            let run = sc.hits[j..].iter().take_while(|h| **h == sc.hits[j]).count();
            let (c, g) = sc.hits[j];
            acc[c as usize] += self.added_charge(g as usize, run as f64, ed_f);
            j += run;
        }
        // A symbol that is a 1-gram adds f(1) = ed; the best symbol creating no
        // longer gram is any 1-gram other than the excluded symbol.
        let excluded_is_one = excluded.is_some_and(|c| self.one_gram[c as usize]);
        let mut best = if self.one_grams > usize::from(excluded_is_one) { ed_f } else { 0.0 };
        while touched != 0 {
            let c = touched.trailing_zeros() as usize;
            touched &= touched - 1;
            best = best.max(acc[c] + if self.one_gram[c] { ed_f } else { 0.0 });
            acc[c] = 0.0;
        }
        best
    }

    /// The windows across the gap left by deleting `s[i]`.
    fn created_by_deletion(&self, i: usize, n: usize, ed_f: f64, sc: &mut Scratch) -> f64 {
        sc.hits.clear();
        for &q in self.lengths.iter().filter(|&&q| q >= 2) {
            for before in 1..q {
                let after = q - before;
                if before > i || i + after >= n {
                    continue;
                }
                let across = sc.codes[i - before..i].iter().chain(&sc.codes[i + 1..=i + after]);
                if let Some(&g) = pack(q, WHOLE, across.copied()).and_then(|k| self.full.get(&k)) {
                    sc.hits.push((0, g));
                }
            }
        }
        crate::sorting::sort_keys(&mut sc.hits);
        let mut v = 0.0;
        let mut j = 0;
        while j < sc.hits.len() {
            let run = sc.hits[j..].iter().take_while(|h| **h == sc.hits[j]).count();
            v += self.added_charge(sc.hits[j].1 as usize, run as f64, ed_f);
            j += run;
        }
        v
    }
}

/// `pair(x, y)` of the sound bound (step 3 of its proof) for every distance
/// `y − x < reach` and parity of x, with `reach = 2·max|g| − 1`: the number of
/// shared windows of each length times `W_q = max_{|g|=q} ((ed+1)·w_g − 1)/q²`.
fn pair_table(lengths: &[usize], w_max: &[u32], ed_f: f64) -> (Vec<f64>, usize) {
    let reach = 2 * lengths.last().copied().unwrap_or(1) - 1;
    let wq: Vec<f64> =
        lengths.iter().zip(w_max).map(|(&q, &w)| ((ed_f + 1.0) * w as f64 - 1.0).max(0.0) / (q * q) as f64).collect();
    let table = (0..2 * reach)
        .map(|j| {
            let (d, x_odd) = (j / 2, j % 2 == 1);
            let y_odd = x_odd != (d % 2 == 1);
            // Shortest stretch of t holding both loci.
            let l = d / 2 + 1 + usize::from(!x_odd || !y_odd);
            lengths.iter().zip(&wq).map(|(&q, &w)| (q + 1).saturating_sub(l) as f64 * w).sum()
        })
        .collect();
    (table, reach)
}

/// `⌊(|g|−1)/p⌋ + 1` with p the smallest period of g: how many occurrences of g
/// can contain one position (their pairwise shifts are periods of g).
fn self_overlap(g: &[u8]) -> u32 {
    let q = g.len();
    let p = (1..q).find(|&p| g[p..] == g[..q - p]).unwrap_or(q);
    ((q - 1) / p + 1) as u32
}

#[cfg(test)]
pub(crate) mod testing {
    //! Reference implementations for the tests: the definitions, literally.
    use super::*;
    use crate::alphabet::Alphabet;

    pub fn base_over(alphabet: &str, grams: &[&str]) -> SharedBase {
        let lens: Vec<usize> = grams.iter().map(|g| g.chars().count()).collect();
        let lo = lens.iter().copied().min().unwrap_or(1);
        let hi = lens.iter().copied().max().unwrap_or(1);
        let al = if alphabet.is_empty() { Alphabet::default() } else { Alphabet::new(alphabet).unwrap() };
        SharedBase::new(al, lo, hi, grams.iter().map(|g| g.to_string()).collect()).unwrap()
    }

    /// Exact squared distance of the embeddings, from integer counts.
    pub fn dist2(base: &SharedBase, s: &str, t: &str) -> f64 {
        let (s, t): (Vec<char>, Vec<char>) = (s.chars().collect(), t.chars().collect());
        let count = |x: &[char], g: &[char]| {
            if g.len() > x.len() {
                0
            } else {
                x.windows(g.len()).filter(|w| *w == g).count() as i64
            }
        };
        base.grams()
            .iter()
            .map(|g| {
                let g: Vec<char> = g.chars().collect();
                let d = (count(&s, &g) - count(&t, &g)) as f64 / g.len() as f64;
                d * d
            })
            .sum()
    }

    /// Every string within one edit of `s` over `sigma` (s itself included).
    pub fn neighbours(s: &str, sigma: &[char]) -> Vec<String> {
        let c: Vec<char> = s.chars().collect();
        let mut out = vec![s.to_string()];
        for i in 0..=c.len() {
            for &x in sigma {
                let mut t = c.clone();
                t.insert(i, x);
                out.push(t.into_iter().collect());
                if i < c.len() {
                    let mut t = c.clone();
                    t[i] = x;
                    out.push(t.into_iter().collect());
                }
            }
            if i < c.len() {
                let mut t = c.clone();
                t.remove(i);
                out.push(t.into_iter().collect());
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::testing::*;
    use super::*;

    fn sound_sq(b: &SharedBase, s: &str, ed: u32) -> f64 {
        Thresholder::new(b, ed).unwrap().sound_squared(s)
    }

    #[test]
    fn paper_by_hand() {
        let b = base_over("", &["A", "AN", "ANA"]);
        let t = |ed| Thresholder::new(&b, ed).unwrap();
        // D = [0, 1+1/4+1/9, 1/4+1/9, 1+1/4+1/9, 1/4+1/9, 1+1/9]; P[3] = 0, P[5] = 2.
        let d1: f64 = 1.0 + 0.25 + 1.0 / 9.0;
        assert!((t(1).paper("BANANA") - d1.sqrt()).abs() < 1e-12);
        assert!((t(2).paper("BANANA") - (d1 + 1.0 + 1.0 / 9.0).sqrt()).abs() < 1e-12);
        // A third position would share an occurrence with 1 or 5 (P[5] = 2, P[3] = 0),
        // or add D[0] = 0: ed = 3 adds nothing, positions 0 and 2 … at best D[2].
        let d3 = d1 + 1.0 + 1.0 / 9.0 + 0.25 + 1.0 / 9.0;
        assert!(t(3).paper("BANANA") <= d3.sqrt() + 1e-12);
        assert_eq!(t(0).paper("BANANA"), 0.0);
        assert_eq!(t(2).paper(""), 0.0);
        assert_eq!(t(2).paper("XYZ"), 0.0);
    }

    #[test]
    fn paper_threshold_is_violated_by_a_substitution() {
        let b = base_over("", &["S", "M", "I", "T", "H", "Y", "SM", "TH"]);
        let t = Thresholder::new(&b, 1).unwrap();
        let paper = t.paper("SMITH");
        let d = dist2(&b, "SMITH", "SMYTH").sqrt();
        assert!((paper - 1.25f64.sqrt()).abs() < 1e-12);
        assert!(d > paper, "SMYTH is at {d}, outside the paper's {paper}");
        assert!(d <= t.sound("SMITH"));
    }

    #[test]
    fn sound_by_hand() {
        // One edit of "A" over {A}: deleting or substituting A, or inserting an A.
        assert_eq!(sound_sq(&base_over("", &["A"]), "A", 1), 1.0);
        // {A, B}: a substitution A → B moves both coordinates.
        assert_eq!(sound_sq(&base_over("", &["A", "B"]), "A", 1), 2.0);
        // "AAAA" over {AA}: deleting s[1] removes two occurrences, (2/2)² = 1, and
        // creates one across the gap, (1/2)²: the bound drops their product (the
        // true change is (1/2)²), so 1.25, while the worst edit (substituting s[1])
        // gives 1.
        let b = base_over("", &["AA"]);
        assert_eq!(sound_sq(&b, "AAAA", 1), 1.25);
        assert_eq!(dist2(&b, "AAAA", "ABAA"), 1.0);
        assert_eq!(sound_sq(&base_over("", &["A"]), "A", 0), 0.0);
        // Nothing of length 2 can appear in a string of length ≤ 1.
        assert_eq!(sound_sq(&base_over("", &["AB"]), "", 1), 0.0);
    }

    #[test]
    fn sound_covers_the_global_bounds_counterexample() {
        let b = base_over("", &["A", "B"]);
        assert!(dist2(&b, "AAA", "BBB").sqrt() > global_bound(&b, 3));
        assert!(dist2(&b, "AAA", "BBB") <= sound_sq(&b, "AAA", 3) + 1e-9);
    }

    #[test]
    fn exhaustive_single_edits() {
        let sigma: Vec<char> = "ABN ".chars().collect();
        let bases: [&[&str]; 4] = [
            &["A", "AN", "ANA"],
            &["A", "AA", "AAA", "N", " ", "NA", "BA"],
            &["AB", "BA", "ABA", "BAB", "B"],
            &["N", "NN", "A N", "NAN"],
        ];
        for grams in bases {
            let b = base_over("ABN ", grams);
            let t = Thresholder::new(&b, 1).unwrap();
            for s in ["", "A", "BANANA", "AAAA", "ABABA", "NAN NAN", "B A", "ANNA"] {
                let th = t.sound_squared(s);
                let worst = neighbours(s, &sigma).iter().map(|x| dist2(&b, s, x)).fold(0.0, f64::max);
                assert!(worst <= th + 1e-9, "{grams:?} {s:?}: {worst} > {th}");
            }
        }
    }

    #[test]
    fn exhaustive_two_edits_over_a_small_alphabet() {
        let sigma: Vec<char> = "AB ".chars().collect();
        let bases: [&[&str]; 10] = [
            &["A", "AA", "AAA"],
            &["BB"],
            &["B", "BB", "BBB"],
            &["AB", "BA", "ABB"],
            &["A", "B", "AB", "ABA", "BB"],
            &[" ", "A A", "AB", "B"],
            &["AB"],
            &["AA"],
            &["ABA", "BAB"],
            &["AB", "AAB", "BA"],
        ];
        for grams in bases {
            let b = base_over("AB ", grams);
            let t = Thresholder::new(&b, 2).unwrap();
            // Every string over {A, B} of length ≤ 4, and a few with spaces.
            let mut strings: Vec<String> = vec![String::new(), "BAAB ".into(), "A A".into(), " B B".into()];
            for len in 1..=4u32 {
                strings.extend(
                    (0..1u32 << len).map(|bits| (0..len).map(|i| if bits >> i & 1 == 1 { 'B' } else { 'A' }).collect()),
                );
            }
            for s in strings.iter().map(String::as_str) {
                let th = t.sound_squared(s);
                let mut ball: Vec<String> = vec![s.to_string()];
                for _ in 0..2 {
                    ball = ball.iter().flat_map(|x| neighbours(x, &sigma)).collect();
                    ball.sort();
                    ball.dedup();
                }
                let worst = ball.iter().map(|x| dist2(&b, s, x)).fold(0.0, f64::max);
                assert!(worst <= th + 1e-9, "{grams:?} {s:?}: {worst} > {th}");
            }
        }
    }

    #[test]
    fn characters_outside_the_alphabet_match_nothing() {
        let b = base_over("", &["A", "AB"]);
        let t = Thresholder::new(&b, 1).unwrap();
        assert!(t.sound("AxB").is_finite());
        assert_eq!(t.paper("xx"), 0.0);
    }

    #[test]
    fn modes_and_validation() {
        let b = base_over("", &["A", "AN", "ANA"]);
        let recs: Vec<String> = ["BANANA", "", "ANNA"].iter().map(|s| s.to_string()).collect();
        assert_eq!(thresholds(&b, &recs, 2, &ThresholdMode::Global(None)).unwrap(), vec![6.0; 3]);
        assert_eq!(thresholds(&b, &recs, 2, &ThresholdMode::Global(Some(1.5))).unwrap(), vec![1.5; 3]);
        let t = Thresholder::new(&b, 2).unwrap();
        let paper = thresholds(&b, &recs, 2, &ThresholdMode::Paper).unwrap();
        let sound = thresholds(&b, &recs, 2, &ThresholdMode::Sound).unwrap();
        for (i, s) in recs.iter().enumerate() {
            assert_eq!(paper[i], t.paper(s));
            assert_eq!(sound[i], t.sound(s));
        }
        assert!(Thresholder::new(&b, 11).is_err());
        let long = SharedBase::new(crate::alphabet::Alphabet::default(), 1, 20, vec!["A".repeat(17)]).unwrap();
        let e = Thresholder::new(&long, 1).unwrap_err();
        assert!(e.to_string().contains("at most 16"), "{e}");
        for bad in [f64::NAN, f64::INFINITY, -1.0] {
            let e = thresholds(&b, &recs, 1, &ThresholdMode::Global(Some(bad))).unwrap_err();
            assert!(e.to_string().contains("global threshold"), "{e}");
        }
        let e = thresholds(&b, &recs, 11, &ThresholdMode::Sound).unwrap_err();
        assert!(e.to_string().contains("edit distance 11"), "{e}");
        assert_eq!(e.code(), "INVALID_PARAMETER");
    }

    #[test]
    fn mode_serialization() {
        let json = |m: &ThresholdMode| serde_json::to_string(m).unwrap();
        assert_eq!(json(&ThresholdMode::Paper), "\"paper\"");
        assert_eq!(json(&ThresholdMode::Sound), "\"sound\"");
        assert_eq!(json(&ThresholdMode::Global(Some(2.5))), "{\"global\":2.5}");
        assert_eq!(json(&ThresholdMode::Global(None)), "{\"global\":null}");
        for m in
            [ThresholdMode::Paper, ThresholdMode::Sound, ThresholdMode::Global(Some(1.0)), ThresholdMode::Global(None)]
        {
            assert_eq!(serde_json::from_str::<ThresholdMode>(&json(&m)).unwrap(), m);
        }
    }

    #[test]
    fn self_overlap_counts_occurrences_through_a_position() {
        assert_eq!(self_overlap(b"A"), 1);
        assert_eq!(self_overlap(b"AB"), 1);
        assert_eq!(self_overlap(b"AA"), 2);
        assert_eq!(self_overlap(b"AAA"), 3);
        assert_eq!(self_overlap(b"ABA"), 2);
        assert_eq!(self_overlap(b"ABAB"), 2);
        assert_eq!(self_overlap(b"ABC"), 1);
    }
}

#[cfg(all(test, not(target_arch = "wasm32")))]
mod props {
    use super::testing::*;
    use super::*;
    use proptest::prelude::*;

    #[derive(Debug, Clone)]
    enum Edit {
        Sub(usize, usize),
        Ins(usize, usize),
        Del(usize),
    }

    fn apply(s: &str, edits: &[Edit], sigma: &[char]) -> String {
        let mut c: Vec<char> = s.chars().collect();
        for e in edits {
            match *e {
                Edit::Sub(p, x) if !c.is_empty() => {
                    let p = p % c.len();
                    c[p] = sigma[x % sigma.len()];
                }
                Edit::Del(p) if !c.is_empty() => {
                    c.remove(p % c.len());
                }
                Edit::Ins(p, x) | Edit::Sub(p, x) => c.insert(p % (c.len() + 1), sigma[x % sigma.len()]),
                Edit::Del(_) => {}
            }
        }
        c.into_iter().collect()
    }

    fn edit() -> impl Strategy<Value = Edit> {
        prop_oneof![
            (0..64usize, 0..64usize).prop_map(|(p, x)| Edit::Sub(p, x)),
            (0..64usize, 0..64usize).prop_map(|(p, x)| Edit::Ins(p, x)),
            (0..64usize).prop_map(Edit::Del),
        ]
    }

    /// (alphabet, grams, string, symbols edits draw from)
    fn case() -> impl Strategy<Value = (&'static str, Vec<String>, String, &'static str)> {
        prop_oneof![
            (proptest::collection::btree_set("[AB ]{1,3}|A{1,3}", 1..10), "[AB ]{0,10}|A{0,8}",).prop_map(|(g, s)| (
                "AB ",
                g.into_iter().collect(),
                s,
                "AB "
            )),
            (proptest::collection::btree_set("[A-E]{1,3}|[A-C]{1,2}|E{1,3}", 1..16), "[A-E]{0,12}|[EA]{0,9}",)
                .prop_map(|(g, s)| ("", g.into_iter().collect(), s, "ABCDEZ ")),
            // No 1-grams: the longer grams' terms then decide the bound.
            (proptest::collection::btree_set("[AB]{2,3}|A{2,3}", 1..5), "[AB]{0,9}|A{0,6}",).prop_map(|(g, s)| (
                "AB ",
                g.into_iter().collect(),
                s,
                "AB"
            )),
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(3000))]

        #[test]
        fn every_string_within_ed_is_within_the_sound_threshold(
            (alphabet, grams, s, pool) in case(),
            edits in proptest::collection::vec(edit(), 1..=3),
        ) {
            let refs: Vec<&str> = grams.iter().map(String::as_str).collect();
            let b = base_over(alphabet, &refs);
            let sigma: Vec<char> = pool.chars().collect();
            for k in 1..=edits.len() {
                let x = apply(&s, &edits[..k], &sigma);
                let ed = k as u32;
                let t = Thresholder::new(&b, ed).unwrap();
                let bound = t.sound_squared(&s);
                let d = dist2(&b, &s, &x);
                prop_assert!(d.sqrt() <= bound.sqrt() + 1e-9, "{:?} {:?} -> {:?} (ed {}): {} > {}", refs, s, x, ed, d, bound);
                prop_assert!(t.sound(&s) >= t.paper(&s) - 1e-9);
            }
        }
    }
}
