//! Row signatures of the q-gram filter: 64 bits per row, one per group of
//! class-f coordinates, so that a popcount bounds two rows' overlap before
//! either row is read (the bound is in [`signature`]'s documentation).

/// Each class-f coordinate's bit in a row signature, from its document
/// frequency `df` in B: most frequent first, each to the bit with the least
/// frequency so far (greedy balancing). A signature overlap overstates the
/// true one when two different grams share a bit; with the bits' loads even,
/// a frequent gram has a bit of its own and only rare grams share, so that
/// happens least. Any map keeps the bound sound; this one only makes it tight.
pub(super) fn signature_bits(df: &[usize], in_class: impl Fn(usize) -> bool) -> Vec<u64> {
    let mut coords: Vec<usize> = (0..df.len()).filter(|&c| in_class(c)).collect();
    crate::sorting::sort_by(&mut coords, |&x, &y| df[y].cmp(&df[x]).then(x.cmp(&y)));
    let mut load = [0usize; 64];
    let mut bit = vec![0u64; df.len()];
    for c in coords {
        let k = (0..64).min_by_key(|&k| (load[k], k)).unwrap_or(0);
        load[k] += df[c].max(1);
        bit[c] = 1 << k;
    }
    bit
}

/// The set of bits of a row's class-f coordinates. With `w(bit)` A's count on
/// the coordinates hashed to a bit (and `v(bit)` B's), the overlap is at most
/// `Σ_{bit ∈ sig_a & sig_b} min(w, v) ≤ popcount(sig_a & sig_b) + min(E_a, E_b)`
/// with `E = N − popcount(sig)` a row's count beyond one per bit: each shared bit
/// gives 1 plus `min(w − 1, v − 1)`, and those extras add up to at most either
/// side's (collisions inside a row and repeated grams are in `E`).
pub(super) fn signature(bit: &[u64], cols: impl Iterator<Item = usize>) -> u64 {
    cols.fold(0, |s, c| s | bit[c])
}
