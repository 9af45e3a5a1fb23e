//! The sparse vectors of a vector batch on the wire (version 2): gram ids and
//! small integer counts, never the values themselves. An unkeyed vector's
//! coordinate `c` is `count as f32 / |g_c| as f32` ([`crate::embed`]), and the
//! gram lengths `|g_c|` are the shared base's (the batch's shape), so the
//! reader derives each value exactly as the embedder computed it.
//!
//! Binary layout, per row: LEB128 `nnz`, then `nnz` pairs of LEB128 `gap` and
//! LEB128 `count`, where the first gap is the gram id and each later one the
//! distance to the previous id. Ids therefore ascend by construction; a gap of
//! 0 after the first would repeat an id and is refused by name, as are an id at
//! or past the dimension, a count of 0, a row that runs past the data and bytes
//! left over after the last row.
//!
//! A NAMES record has about 15 non-zero grams: about 35 bytes instead of 858 f32
//! (3,432 bytes) dense.

use super::envelope::VECTOR_BATCH;
use crate::error::ProtocolError;
use crate::sparse_vectors::SparseVectors;

/// Largest count a coordinate may carry (keeps `count as f32` exact).
pub const MAX_COUNT: u64 = 1 << 24;

fn invalid(reason: String) -> ProtocolError {
    ProtocolError::Invalid { what: format!("{VECTOR_BATCH} (sparse vectors)"), reason }
}

/// The count of entry `i` of `v` (`value · |g|`), if its value is exactly such
/// a count over its gram's length: what the wire form can carry.
fn count(v: &SparseVectors, lengths: &[u8], i: usize) -> Option<u32> {
    let l = *lengths.get(v.cols[i] as usize)? as f32;
    let x = v.vals[i];
    let n = (x * l).round();
    (n >= 1.0 && (n as u64) < MAX_COUNT && n / l == x).then_some(n as u32)
}

/// Bytes of `x` as a LEB128 varint.
fn varint_len(x: u64) -> usize {
    (64 - x.max(1).leading_zeros() as usize).div_ceil(7)
}

fn push_varint(out: &mut Vec<u8>, mut x: u64) {
    while x >= 0x80 {
        out.push((x as u8) | 0x80);
        x >>= 7;
    }
    out.push(x as u8);
}

/// Calls `f` with each row's varints in wire order (entry count, then gap
/// and count per entry), or gives `None` if an entry is not a count.
fn each_varint(v: &SparseVectors, lengths: &[u8], mut f: impl FnMut(u64)) -> Option<()> {
    for r in 0..v.len() {
        let (s, e) = (v.starts[r], v.starts[r + 1]);
        f((e - s) as u64);
        let mut prev = 0u64;
        for (k, i) in (s..e).enumerate() {
            let c = v.cols[i] as u64;
            f(if k == 0 { c } else { c - prev });
            f(count(v, lengths, i)? as u64);
            prev = c;
        }
    }
    Some(())
}

/// The binary form of `v` over gram lengths `lengths`, or `None` when a value
/// is not a count over its gram's length (then the batch goes dense). Sized by a first pass, so the bytes are
/// allocated once at their exact length: no counts array beside them, no
/// spare capacity (a browser tab's wasm memory never shrinks back).
pub fn encode(v: &SparseVectors, lengths: &[u8]) -> Option<Vec<u8>> {
    let mut len = 0usize;
    each_varint(v, lengths, |x| len += varint_len(x))?;
    let mut out = Vec::with_capacity(len);
    each_varint(v, lengths, |x| push_varint(&mut out, x))?;
    debug_assert_eq!(out.len(), len);
    Some(out)
}

struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
    row: usize,
}

impl Reader<'_> {
    fn varint(&mut self, what: &str) -> Result<u64, ProtocolError> {
        let mut x = 0u64;
        for shift in (0..64).step_by(7) {
            let Some(&b) = self.bytes.get(self.at) else {
                return Err(ProtocolError::Truncated {
                    what: format!("{VECTOR_BATCH} (sparse vectors)"),
                    reason: format!("row {} ends inside its {what} at byte {}", self.row + 1, self.at),
                });
            };
            self.at += 1;
            x |= ((b & 0x7f) as u64) << shift;
            if b & 0x80 == 0 {
                return Ok(x);
            }
        }
        Err(invalid(format!("row {}: its {what} is not a valid number", self.row + 1)))
    }
}

/// Reads `rows` rows of dimension `dim`; `lengths` are the shape's gram lengths.
pub fn decode(bytes: &[u8], rows: usize, dim: usize, lengths: &[u8]) -> Result<SparseVectors, ProtocolError> {
    if lengths.len() != dim {
        return Err(invalid(format!("the shape has {} gram lengths for dimension {dim}", lengths.len())));
    }
    let mut v = SparseVectors::new(dim);
    v.starts.reserve(rows);
    let mut rd = Reader { bytes, at: 0, row: 0 };
    for r in 0..rows {
        rd.row = r;
        let nnz = rd.varint("entry count")?;
        if nnz > dim as u64 {
            return Err(invalid(format!("row {} declares {nnz} entries, more than the dimension {dim}", r + 1)));
        }
        let mut prev = 0u64;
        for k in 0..nnz {
            let gap = rd.varint("gram id")?;
            if k > 0 && gap == 0 {
                return Err(invalid(format!("row {}: gram id {prev} is repeated (ids must ascend)", r + 1)));
            }
            let c = if k == 0 { gap } else { prev.saturating_add(gap) };
            if c >= dim as u64 {
                return Err(invalid(format!("row {}: gram id {c} is out of range (dimension {dim})", r + 1)));
            }
            let n = rd.varint("count")?;
            if n == 0 || n >= MAX_COUNT {
                return Err(invalid(format!("row {}: gram {c} has count {n} (must be 1..{MAX_COUNT})", r + 1)));
            }
            v.cols.push(c as u32);
            v.vals.push(n as f32 / lengths[c as usize] as f32);
            prev = c;
        }
        v.starts.push(v.cols.len());
    }
    if rd.at != bytes.len() {
        return Err(invalid(format!("{} bytes are left after the last of {rows} rows", bytes.len() - rd.at)));
    }
    Ok(v)
}

/// The JSON form's rows: per row, its gram ids and counts alternating; `None`
/// when a value is not a count over its gram's length.
pub fn to_json_rows(v: &SparseVectors, lengths: &[u8]) -> Option<Vec<Vec<u32>>> {
    (0..v.len())
        .map(|r| {
            (v.starts[r]..v.starts[r + 1])
                .map(|i| Some([v.cols[i], count(v, lengths, i)?]))
                .collect::<Option<Vec<_>>>()
                .map(|row| row.concat())
        })
        .collect()
}

/// Reads the JSON form's rows (checked as the binary form's are).
pub fn from_json_rows(rows: &[Vec<u32>], dim: usize, lengths: &[u8]) -> Result<SparseVectors, ProtocolError> {
    let mut bytes = Vec::new();
    for (r, row) in rows.iter().enumerate() {
        if row.len() % 2 != 0 {
            return Err(invalid(format!("row {} has an odd number of values (id, count pairs)", r + 1)));
        }
        push_varint(&mut bytes, row.len() as u64 / 2);
        let mut prev = None;
        for pair in row.chunks(2) {
            let c = pair[0] as u64;
            match prev {
                Some(p) if c <= p => {
                    return Err(invalid(format!("row {}: gram ids are not ascending ({p} then {c})", r + 1)))
                }
                Some(p) => push_varint(&mut bytes, c - p),
                None => push_varint(&mut bytes, c),
            }
            push_varint(&mut bytes, pair[1] as u64);
            prev = Some(c);
        }
    }
    decode(&bytes, rows.len(), dim, lengths)
}

#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests {
    use super::*;

    fn sample() -> (SparseVectors, Vec<u8>) {
        let lengths = vec![1, 2, 3, 2, 1, 3];
        let mut v = SparseVectors::new(6);
        v.push_row([(0, 2.0), (2, 1.0 / 3.0), (5, 2.0 / 3.0)]);
        v.push_row([]);
        v.push_row([(1, 0.5), (4, 300.0)]);
        (v, lengths)
    }

    #[test]
    fn rows_round_trip_exactly_in_both_forms() {
        let (v, lengths) = sample();
        let n: Vec<u32> = (0..v.nnz()).map(|i| count(&v, &lengths, i).unwrap()).collect();
        assert_eq!(n, vec![2, 1, 2, 1, 300]);
        let bytes = encode(&v, &lengths).unwrap();
        // exactly sized: three rows' entry counts, then (gap, count) pairs, 300 in two bytes
        assert_eq!(bytes, [3, 0, 2, 2, 1, 3, 2, 0, 2, 1, 1, 3, 0xac, 0x02]);
        assert_eq!(bytes.capacity(), bytes.len());
        assert_eq!(decode(&bytes, 3, 6, &lengths).unwrap(), v);
        let rows = to_json_rows(&v, &lengths).unwrap();
        assert_eq!(rows, vec![vec![0, 2, 2, 1, 5, 2], vec![], vec![1, 1, 4, 300]]);
        assert_eq!(from_json_rows(&rows, 6, &lengths).unwrap(), v);
        for x in [0u64, 1, 127, 128, 16_383, 16_384, u64::MAX] {
            let mut b = Vec::new();
            push_varint(&mut b, x);
            assert_eq!(varint_len(x), b.len(), "{x}");
        }
    }

    #[test]
    fn values_that_are_not_counts_are_not_sent_sparse() {
        let (mut v, lengths) = sample();
        v.vals[0] = 0.7;
        assert_eq!(encode(&v, &lengths), None);
        assert_eq!(to_json_rows(&v, &lengths), None);
    }

    #[test]
    fn damage_is_named() {
        let (v, lengths) = sample();
        let good = encode(&v, &lengths).unwrap();
        let err = |bytes: &[u8]| decode(bytes, 3, 6, &lengths).unwrap_err().to_string();
        // row 0: nnz 3, (0, 2), (2, 1), (3, 2)
        let mut repeated = good.clone();
        repeated[3] = 0;
        assert!(err(&repeated).contains("repeated"), "{}", err(&repeated));
        let mut out_of_range = good.clone();
        out_of_range[5] = 9;
        assert!(err(&out_of_range).contains("out of range"), "{}", err(&out_of_range));
        let mut zero = good.clone();
        zero[2] = 0;
        assert!(err(&zero).contains("count 0"), "{}", err(&zero));
        assert!(err(&good[..good.len() - 1]).contains("ends inside"));
        let mut longer = good.clone();
        longer.push(0);
        assert!(err(&longer).contains("left after"));
        let mut too_many = good.clone();
        too_many[0] = 7;
        assert!(err(&too_many).contains("more than the dimension"));
        let bad_json = vec![vec![3, 1, 2, 1]];
        let e = from_json_rows(&bad_json, 6, &lengths).unwrap_err().to_string();
        assert!(e.contains("not ascending"), "{e}");
        assert!(from_json_rows(&[vec![1]], 6, &lengths).unwrap_err().to_string().contains("odd"));
    }
}
