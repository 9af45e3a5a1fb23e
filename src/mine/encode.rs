//! Records as symbol indices, and grams as integer codes, so the miners count with
//! arrays instead of hashing strings.

use crate::alphabet::Alphabet;

/// All records as one flat buffer of symbol indices (Σ has at most 64 symbols).
#[derive(Debug, Clone)]
pub struct Encoded {
    pub sigma: usize,
    symbols: Vec<u8>,
    offsets: Vec<usize>,
}

impl Encoded {
    /// Encodes normalized records; a symbol outside Σ (impossible after
    /// normalization) is skipped rather than trusted.
    pub fn new(records: &[String], alphabet: &Alphabet) -> Self {
        let mut symbols = Vec::with_capacity(records.iter().map(|r| r.len()).sum());
        let mut offsets = Vec::with_capacity(records.len() + 1);
        offsets.push(0);
        // one call per record: V8 (wasm) optimizes a function between calls,
        // never inside a running one, and this loop runs once per mining
        #[inline(never)]
        fn encode_into(symbols: &mut Vec<u8>, record: &str, alphabet: &Alphabet) {
            symbols.extend(record.chars().filter_map(|c| alphabet.index_of(c)).map(|i| i as u8));
        }
        for r in records {
            encode_into(&mut symbols, r, alphabet);
            offsets.push(symbols.len());
        }
        Encoded { sigma: alphabet.len(), symbols, offsets }
    }

    pub fn len(&self) -> usize {
        self.offsets.len() - 1
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    pub fn record(&self, i: usize) -> &[u8] {
        &self.symbols[self.offsets[i]..self.offsets[i + 1]]
    }

    pub fn iter(&self) -> impl Iterator<Item = &[u8]> + '_ {
        (0..self.len()).map(move |i| self.record(i))
    }
}

/// |Σ|^q, or None on overflow.
pub fn universe_size(sigma: usize, q: usize) -> Option<u64> {
    (sigma as u64).checked_pow(q as u32)
}

/// The code of a gram: its symbol indices read as a base-|Σ| number.
pub fn code(sigma: usize, gram: &[u8]) -> u64 {
    gram.iter().fold(0u64, |acc, &s| acc * sigma as u64 + s as u64)
}

/// The gram of length `q` with code `code`.
pub fn decode(alphabet: &Alphabet, q: usize, mut code: u64) -> String {
    let sigma = alphabet.len() as u64;
    let mut out = vec![' '; q];
    for slot in out.iter_mut().rev() {
        *slot = alphabet.symbols()[(code % sigma) as usize];
        code /= sigma;
    }
    out.into_iter().collect()
}

/// The distinct q-grams of `record` in order of first occurrence, at most `cap`.
/// Capping by position (never by frequency) keeps the choice a function of the
/// record alone, which is what the sensitivity argument needs.
pub fn distinct_grams(sigma: usize, record: &[u8], q: usize, cap: usize, out: &mut Vec<u64>) {
    out.clear();
    if record.len() < q {
        return;
    }
    for w in record.windows(q) {
        if out.len() >= cap {
            break;
        }
        let c = code(sigma, w);
        if !out.contains(&c) {
            out.push(c);
        }
    }
}

/// Record supports of every q-gram: `counts[code]` = number of records that
/// contain the gram (each record counted once, at most `cap` grams per record).
pub fn support_counts(enc: &Encoded, q: usize, cap: usize) -> Vec<u32> {
    let size = universe_size(enc.sigma, q).unwrap_or(u64::MAX) as usize;
    let mut counts = vec![0u32; size];
    let mut buf = Vec::new();
    for r in enc.iter() {
        distinct_grams(enc.sigma, r, q, cap, &mut buf);
        for &c in &buf {
            counts[c as usize] += 1;
        }
    }
    counts
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_round_trip() {
        let a = Alphabet::default();
        let enc = Encoded::new(&["ABZ Q".to_string()], &a);
        let r = enc.record(0);
        for q in 1..=3 {
            for w in r.windows(q) {
                let g: String = w.iter().map(|&i| a.symbols()[i as usize]).collect();
                assert_eq!(decode(&a, q, code(27, w)), g);
            }
        }
    }

    #[test]
    fn supports_count_records_not_occurrences() {
        let a = Alphabet::default();
        let recs: Vec<String> = ["ANANA", "BANANA", "XY"].iter().map(|s| s.to_string()).collect();
        let enc = Encoded::new(&recs, &a);
        let c = support_counts(&enc, 2, usize::MAX);
        let an = code(27, &[0, 13]);
        assert_eq!(c[an as usize], 2);
        let capped = support_counts(&enc, 2, 1);
        assert_eq!(capped.iter().sum::<u32>(), 3);
    }
}
