//! Packed lookup keys: a gram, or a gram with one symbol left out, as one
//! 128-bit integer, looked up in a [`crate::hash::PackedMap`].

/// Code of a character outside Σ: it is in no gram, so it matches nothing.
pub(super) const FOREIGN: u8 = u8::MAX;

/// Bits per symbol in a packed key (Σ has at most 64 symbols).
const SYMBOL_BITS: u32 = 6;

/// A packed lookup key: 6 bits of length, 6 of offset (63 marks a whole gram),
/// then the symbols, 6 bits each. `None` if a symbol is outside Σ.
pub(super) fn pack(q: usize, m: usize, symbols: impl Iterator<Item = u8>) -> Option<u128> {
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
pub(super) const WHOLE: usize = 63;

/// The thresholds' lookup tables.
pub(super) type KeyMap<V> = crate::hash::PackedMap<u128, V>;
