//! The personalized thresholds' precomputation: everything that depends on the
//! shared base and the edit distance but not on the record ([`Thresholder`]),
//! and the one pass that finds a record's base-gram occurrences.

use super::keys::{pack, KeyMap, FOREIGN, WHOLE};
use super::scratch::Scratch;
use super::sound::pair_table;
use super::{check_ed, Space, MAX_GRAM_LEN};
use crate::base::SharedBase;
use crate::embed::{gram_automaton, overlapping};
use crate::error::Error;
use aho_corasick::nfa::contiguous::NFA;

/// The personalized thresholds of one shared base and one edit distance:
/// everything that does not depend on the record is computed once here.
#[derive(Debug, Clone)]
pub struct Thresholder {
    pub(super) ed: u32,
    /// Symbol codes (index in Σ) of ASCII characters, `FOREIGN` if not in Σ.
    pub(super) ascii: [u8; 128],
    pub(super) other: Vec<(char, u8)>,
    pub(super) automaton: NFA,
    /// The coordinate of each gram (the automaton's pattern); below, "gram" is
    /// read as "coordinate" ([`Thresholder::in_space`]).
    pub(super) unit: Vec<u32>,
    /// The gram length of each coordinate.
    pub(super) len: Vec<usize>,
    /// `w_g`: the most occurrences of g that can contain one position of any
    /// string, `⌊(|g|−1)/p⌋ + 1` with p the smallest period of g (for a
    /// bucket, `Space::units`).
    pub(super) w: Vec<u32>,
    /// Distinct gram lengths of the base, ascending.
    pub(super) lengths: Vec<usize>,
    /// Codes of the padding symbols put around every record, if the base pads.
    pub(super) padding: Option<(u8, u8)>,
    /// `(q, m, the gram without its symbol at offset m)` → `(that symbol, gram)`.
    pub(super) hole: KeyMap<Vec<(u8, u32)>>,
    /// `(q, WHOLE, the gram)` → the gram.
    pub(super) full: KeyMap<u32>,
    /// `f_g(1)/|g|²` of every gram (step 3 of the sound bound's proof).
    pub(super) once: Vec<f64>,
    /// `pair(x, y)` of the sound bound for `y − x < reach`, at `2(y − x) + x mod 2`.
    pub(super) pair: Vec<f64>,
    /// Coordinates `reach` or more apart share no window.
    pub(super) reach: usize,
    /// Which symbol codes are 1-grams of the base.
    pub(super) one_gram: [bool; 256],
    pub(super) one_grams: usize,
}

impl Thresholder {
    /// Errors (`Error::Parameter`) if `ed > MAX_ED` or a gram is longer than
    /// [`MAX_GRAM_LEN`].
    pub fn new(base: &SharedBase, ed: u32) -> Result<Self, Error> {
        Self::in_space(base, ed, &Space::Grams)
    }

    /// The thresholds of distances in `space`: with [`Space::Buckets`], every
    /// bucket is one coordinate, counting the windows of all its grams.
    ///
    /// The proof of [`Thresholder::sound`] holds with "gram" read as
    /// "bucket" throughout: occurrence counts add within a bucket
    /// (`occ_s(b) − occ_t(b) = r_b − a_b` with `r_b, a_b ≥ 0`, step 1); the
    /// windows of s in b charged to one operation contain its coordinate, so
    /// they are at most `wr_b` (step 2, computed from s); and those of t in b
    /// containing one locus are at most `w_b = min(q, Σ_{g∈b} w_g)` (step 3,
    /// `Space::units`), the only place where a gram's own structure entered.
    /// A(e) is the same enumeration over symbols, counting the created windows
    /// per bucket. So A, who holds the key, sends thresholds proven in the
    /// encoded space, with no `√spread` widening ([`Space::factor`]).
    ///
    /// Errors as [`Thresholder::new`], and if the space does not fit the base.
    pub fn in_space(base: &SharedBase, ed: u32, space: &Space) -> Result<Self, Error> {
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
        let automaton = gram_automaton(&grams)?;
        let gram_len: Vec<usize> = grams.iter().map(Vec::len).collect();
        let gram_w: Vec<u32> = grams.iter().map(|g| self_overlap(g)).collect();
        let units = space.units(&gram_len, &gram_w)?;
        let mut hole: KeyMap<Vec<(u8, u32)>> = KeyMap::default();
        let mut full: KeyMap<u32> = KeyMap::default();
        let mut one_gram = [false; 256];
        let unpackable = || Error::Parameter("a gram has a symbol outside the alphabet".into());
        for (id, g) in grams.iter().enumerate() {
            let (q, u) = (g.len(), units.of[id]);
            for m in 0..q {
                let key = pack(q, m, g[..m].iter().chain(&g[m + 1..]).copied()).ok_or_else(unpackable)?;
                hole.entry(key).or_default().push((g[m], u));
            }
            full.insert(pack(q, WHOLE, g.iter().copied()).ok_or_else(unpackable)?, u);
            if q == 1 {
                one_gram[g[0] as usize] = true;
            }
        }
        let mut lengths = gram_len;
        crate::sorting::sort_keys(&mut lengths);
        lengths.dedup();
        let (len, w) = (units.len, units.w);
        let w_max: Vec<u32> =
            lengths.iter().map(|&q| (0..len.len()).filter(|&u| len[u] == q).map(|u| w[u]).max().unwrap_or(0)).collect();
        let ed_f = ed as f64;
        let once = (0..len.len()).map(|u| (1.0 + (ed_f - 1.0) * w[u] as f64) / (len[u] * len[u]) as f64).collect();
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
            unit: units.of,
            len,
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

    pub(super) fn code(&self, c: char) -> u8 {
        if c.is_ascii() {
            self.ascii[c as usize]
        } else {
            self.other.iter().find(|&&(o, _)| o == c).map_or(FOREIGN, |&(_, k)| k)
        }
    }

    /// Encodes `s` and finds every occurrence of every base gram (one pass).
    pub(super) fn scan(&self, s: &str, sc: &mut Scratch) {
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
        sc.occurrences.clear();
        for m in overlapping(&self.automaton, &sc.codes[..]) {
            sc.occurrences.push((self.unit[m.pattern().as_usize()], m.start()));
        }
    }
}

/// `⌊(|g|−1)/p⌋ + 1` with p the smallest period of g: how many occurrences of g
/// can contain one position (their pairwise shifts are periods of g).
pub(super) fn self_overlap(g: &[u8]) -> u32 {
    let q = g.len();
    let p = (1..q).find(|&p| g[p..] == g[..q - p]).unwrap_or(q);
    ((q - 1) / p + 1) as u32
}
