//! The sound personalized threshold: a bound proven to hold for every string
//! within `ed` edits ([`Thresholder::sound`] states the proof), computed by a
//! dynamic program over the coordinates of the edits.

use super::keys::{pack, WHOLE};
use super::scratch::Scratch;
use super::{Thresholder, SOUND_MARGIN};

impl Thresholder {
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

    pub(super) fn sound_with(&self, s: &str, sc: &mut Scratch) -> f64 {
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
        sc.added_at.clear();
        for x in 0..=2 * n {
            let a = self.added(x, ed_f, sc);
            sc.added_at.push(a);
        }
        let reach = self.reach;
        let pair = |x: usize, y: usize| self.pair[2 * (y - x) + x % 2];
        let width = 2 * n + 1;
        let k_max = ed as usize;
        // f[k*width + y]: best value with k+1 operations, the last at y;
        // g: its running maximum over y.
        let mut f = std::mem::take(&mut sc.best_ending);
        let mut g = std::mem::take(&mut sc.best_upto);
        f.clear();
        f.resize(k_max * width, f64::NEG_INFINITY);
        g.clear();
        g.resize(k_max * width, f64::NEG_INFINITY);
        let mut best = 0.0f64;
        for k in 0..k_max {
            for y in 0..width {
                let lo = sc.cover_offsets[y];
                let hi = sc.cover_offsets[y + 1];
                let mut v = if k == 0 { sc.removed_first[y] } else { f64::NEG_INFINITY };
                if k > 0 {
                    let prev = (k - 1) * width;
                    if y >= reach {
                        v = larger(v, g[prev + y - reach] + sc.removed_first[y]);
                    }
                    // Windows containing y that start after x: a prefix of y's
                    // list (first coordinates descending), shorter as x grows.
                    let list = &sc.covering[lo..hi];
                    let x0 = (y + 1).saturating_sub(reach);
                    let mut fresh = list.iter().take_while(|c| c.1 as usize > x0).count();
                    for x in x0..=y {
                        while fresh > 0 && list[fresh - 1].1 as usize <= x {
                            fresh -= 1;
                        }
                        if (x == y && y % 2 == 1) || f[prev + x] == f64::NEG_INFINITY {
                            continue;
                        }
                        v = larger(v, f[prev + x] + sc.cover_prefix[lo + y + fresh] + pair(x, y));
                    }
                }
                let v = v + sc.added_at[y];
                f[k * width + y] = v;
                let run = if y > 0 { g[k * width + y - 1] } else { f64::NEG_INFINITY };
                g[k * width + y] = larger(run, v);
                best = larger(best, v);
            }
        }
        sc.best_ending = f;
        sc.best_upto = g;
        best
    }

    /// Occurrence counts `occ_s(g)` and `wr_g` (most occurrences of g containing
    /// one position of s) of the grams occurring in s.
    fn gram_stats(&self, sc: &mut Scratch) {
        let k = self.len.len();
        sc.gram_count.clear();
        sc.gram_count.resize(k, 0);
        sc.most_through.clear();
        sc.most_through.resize(k, 0);
        sc.covered.clear();
        for &(g, p) in &sc.occurrences {
            sc.gram_count[g as usize] += 1;
            // A gram that cannot overlap itself has at most one occurrence
            // through a position; only the others need the scan below.
            if self.w[g as usize] == 1 {
                sc.most_through[g as usize] = 1;
            } else {
                sc.covered.push((g, p as u32));
            }
        }
        crate::sorting::sort_keys(&mut sc.covered);
        let mut i = 0;
        while i < sc.covered.len() {
            let g = sc.covered[i].0 as usize;
            let run = sc.covered[i..].iter().take_while(|p| p.0 as usize == g).count();
            let starts = &sc.covered[i..i + run];
            let len = self.len[g];
            let mut lo = 0;
            let mut most = 0;
            for hi in 0..run {
                while starts[hi].1 as usize >= starts[lo].1 as usize + len {
                    lo += 1;
                }
                most = most.max(hi - lo + 1);
            }
            sc.most_through[g] = most as u32;
            i += run;
        }
    }

    /// For each coordinate y in `[0, 2|s|]`, the occurrences spanning it as
    /// `(y, first coordinate, gram)` sorted by first coordinate descending, and
    /// `prefix[offsets[y] + y + j]`: the removed-part charge of the first j of them.
    fn cover_lists(&self, n: usize, ed_f: f64, sc: &mut Scratch) {
        sc.cover_offsets.clear();
        sc.cover_offsets.resize(2 * n + 2, 0);
        for &(g, p) in &sc.occurrences {
            for y in 2 * p + 1..2 * (p + self.len[g as usize]) {
                sc.cover_offsets[y + 1] += 1;
            }
        }
        for y in 0..=2 * n {
            sc.cover_offsets[y + 1] += sc.cover_offsets[y];
        }
        // Fill each coordinate's bucket, then order it by first coordinate, descending.
        sc.covering.clear();
        sc.covering.resize(sc.cover_offsets[2 * n + 1], (0, 0, 0));
        sc.running.clear();
        sc.running.resize(2 * n + 1, 0);
        for &(g, p) in &sc.occurrences {
            for y in 2 * p + 1..2 * (p + self.len[g as usize]) {
                sc.covering[sc.cover_offsets[y] + sc.running[y] as usize] = (y as u32, (2 * p + 1) as u32, g);
                sc.running[y] += 1;
            }
        }
        for y in 0..=2 * n {
            crate::sorting::sort_by(&mut sc.covering[sc.cover_offsets[y]..sc.cover_offsets[y + 1]], |a, b| {
                b.1.cmp(&a.1).then(a.2.cmp(&b.2))
            });
        }
        sc.running.clear();
        sc.running.resize(self.len.len(), 0);
        sc.cover_prefix.clear();
        sc.removed_first.clear();
        for y in 0..=2 * n {
            let mut total = 0.0;
            sc.cover_prefix.push(0.0);
            for j in sc.cover_offsets[y]..sc.cover_offsets[y + 1] {
                let g = sc.covering[j].2 as usize;
                let r = sc.running[g] as f64;
                total += self.removed_charge(g, r + 1.0, ed_f, sc) - self.removed_charge(g, r, ed_f, sc);
                sc.running[g] += 1;
                sc.cover_prefix.push(total);
            }
            for j in sc.cover_offsets[y]..sc.cover_offsets[y + 1] {
                sc.running[sc.covering[j].2 as usize] = 0;
            }
            sc.removed_first.push(total);
        }
    }

    /// `(r² + r·min((ed−1)·wr_g, occ_s(g) − r)) / |g|²` (step 2 of the proof).
    fn removed_charge(&self, g: usize, r: f64, ed_f: f64, sc: &Scratch) -> f64 {
        let len = self.len[g] as f64;
        let others = ((ed_f - 1.0) * sc.most_through[g] as f64).min(sc.gram_count[g] as f64 - r).max(0.0);
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
            let sub = self.created_memo(i, 1, Some(sc.codes[i]), ed_f, sc);
            let del = self.created_by_deletion(i, n, ed_f, sc);
            sub.max(del)
        } else {
            // Insertion of any symbol before s[i] (i = |s|: at the end).
            self.created_memo(i, 0, None, ed_f, sc)
        }
    }

    /// [`Thresholder::created_with_symbol`], remembered by what it reads: the
    /// symbols within `q_max − 1` of the edit on each side (and how many there
    /// are: the record's ends), the kind of edit and the excluded symbol. Names
    /// and addresses repeat their local contexts endlessly, so most calls are
    /// one lookup; the value is the same f64 either way.
    fn created_memo(&self, i: usize, skip: usize, excluded: Option<u8>, ed_f: f64, sc: &mut Scratch) -> f64 {
        /// Entries kept per scratch (a few MB); past it, values are computed.
        const MEMO_CAP: usize = 1 << 18;
        let w = self.lengths.last().copied().unwrap_or(1).saturating_sub(1);
        if w > 3 {
            return self.created_with_symbol(i, skip, excluded, ed_f, sc);
        }
        let n = sc.codes.len();
        let left = &sc.codes[i.saturating_sub(w)..i];
        let right = &sc.codes[(i + skip).min(n)..(i + skip + w).min(n)];
        // 1 + 9 + 2 + 2 + 8 per symbol (at most 6): 62 bits
        let mut key = (skip as u64) << 9 | excluded.map_or(256, u64::from);
        key = (key << 2 | left.len() as u64) << 2 | right.len() as u64;
        for &c in left.iter().chain(right) {
            key = key << 8 | u64::from(c);
        }
        if let Some(&v) = sc.created_memo.get(&key) {
            return v;
        }
        let v = self.created_with_symbol(i, skip, excluded, ed_f, sc);
        if sc.created_memo.len() < MEMO_CAP {
            sc.created_memo.insert(key, v);
        }
        v
    }

    /// The windows around a new symbol placed at position `i` of s, replacing
    /// `skip` symbols (1: substitution, 0: insertion), best over the symbol
    /// (`excluded` is the substituted symbol itself).
    fn created_with_symbol(&self, i: usize, skip: usize, excluded: Option<u8>, ed_f: f64, sc: &mut Scratch) -> f64 {
        let n = sc.codes.len();
        // acc[c]: Σ_g f_g(α_g)/|g|² over the grams of length ≥ 2 that symbol c creates.
        // A gram created twice around one edit overlaps itself (w_g ≥ 2): those are
        // set aside in `hits` and charged by their exact count; the others add f_g(1).
        let acc = &mut sc.created_charge;
        let mut touched = 0u64;
        sc.hits.clear();
        for &q in self.lengths.iter().filter(|&&q| q >= 2) {
            for m in 0..q {
                // m symbols of s before the new one, q−1−m after it.
                if m > i || i + skip + (q - 1 - m) > n {
                    continue;
                }
                let around = sc.codes[i - m..i].iter().chain(&sc.codes[i + skip..i + skip + q - 1 - m]);
                let Some(list) = pack(q, m, around.copied()).and_then(|k| self.hole.get(&k)) else {
                    continue;
                };
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
        sort_hits(&mut sc.hits, &mut sc.hits_spare);
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
            best = larger(best, acc[c] + if self.one_gram[c] { ed_f } else { 0.0 });
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
        sort_hits(&mut sc.hits, &mut sc.hits_spare);
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

/// The larger of two values that are never NaN (charges, −∞ for "none"):
/// `f64::max` is a libm call in wasm (its NaN rule), 4 % of a keyed NAMES
/// embedding there.
#[inline(always)]
fn larger(a: f64, b: f64) -> f64 {
    if b > a {
        b
    } else {
        a
    }
}

/// Sorts `hits` (symbol, gram) ascending, as `sort_keys` would: a counting sort
/// by symbol (below `MAX_ALPHABET`), then each symbol's grams, at most one per
/// window around the edit, by `sort_keys`. A general sort of the whole list per
/// call was a fifth of a keyed NAMES embedding in wasm (the sketch's buckets
/// overlap themselves, so nearly every hit lands here).
fn sort_hits(hits: &mut Vec<(u32, u32)>, spare: &mut Vec<(u32, u32)>) {
    const SYMBOLS: usize = crate::alphabet::MAX_ALPHABET;
    if hits.len() < 2 {
        return;
    }
    let mut start = [0usize; SYMBOLS + 1];
    for &(c, _) in hits.iter() {
        start[c as usize + 1] += 1;
    }
    for c in 0..SYMBOLS {
        start[c + 1] += start[c];
    }
    let ends = start;
    spare.clear();
    spare.resize(hits.len(), (0, 0));
    for &h in hits.iter() {
        spare[start[h.0 as usize]] = h;
        start[h.0 as usize] += 1;
    }
    for c in 0..SYMBOLS {
        if ends[c + 1] - ends[c] > 1 {
            crate::sorting::sort_keys(&mut spare[ends[c]..ends[c + 1]]);
        }
    }
    std::mem::swap(hits, spare);
}

/// `pair(x, y)` of the sound bound (step 3 of its proof) for every distance
/// `y − x < reach` and parity of x, with `reach = 2·max|g| − 1`: the number of
/// shared windows of each length times `W_q = max_{|g|=q} ((ed+1)·w_g − 1)/q²`.
pub(super) fn pair_table(lengths: &[usize], w_max: &[u32], ed_f: f64) -> (Vec<f64>, usize) {
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

#[cfg(all(test, not(target_arch = "wasm32")))]
mod memo_tests {
    use super::super::testing::base_over;
    use super::*;

    /// The remembered value is the computed one, at every position of records
    /// that share contexts (and near their ends), across records, padded or not.
    #[test]
    fn the_memo_gives_what_the_computation_gives() {
        let grams = ["A", "N", "AN", "NA", "BA", "ANA", "NAN", "BAN", "AB", "NNA"];
        let bounded = ["A", "N", "AN", "^A", "N$", "^AN", "NA$", "ANA", "B^", "$A"];
        for b in [base_over("", &grams), base_over("ANBZ^$", &bounded)] {
            let mut r = crate::dp::Randomness::seeded(9);
            for ed in 1..=2 {
                let t = Thresholder::new(&b, ed).unwrap();
                let (mut warm, mut cold) = (Scratch::default(), Scratch::default());
                for _ in 0..400 {
                    let s: String = (0..1 + r.below(9)).map(|_| ['A', 'N', 'B', 'Z', '^', '$'][r.below(6)]).collect();
                    t.scan(&s, &mut warm);
                    t.scan(&s, &mut cold);
                    let n = warm.codes.len();
                    for i in 0..=n {
                        for (skip, excluded) in [(0, None), (1, warm.codes.get(i).copied())] {
                            if skip == 1 && i == n {
                                continue;
                            }
                            let got = t.created_memo(i, skip, excluded, ed as f64, &mut warm);
                            let want = t.created_with_symbol(i, skip, excluded, ed as f64, &mut cold);
                            assert_eq!(got.to_bits(), want.to_bits(), "{s:?} at {i}, skip {skip}");
                        }
                    }
                }
                assert!(!warm.created_memo.is_empty());
            }
        }
    }
}
