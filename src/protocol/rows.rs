//! Some rows of a binary vector batch, read without the rest of it: a worker
//! of a cluster job reads its shard of party A's batch (and the header alone
//! tells the job's driver whether two batches fit, before any work).

use super::batch::VectorBatch;
use super::binary::{read_numbers, BinaryLayout};
use crate::embed::{BatchVectors, Vectors};
use crate::error::{Error, ProtocolError};
use std::borrow::Cow;
use std::ops::Range;

/// Fills a buffer with a batch's bytes from an offset (a file's, a slice's).
pub type ReadAt<'a> = dyn FnMut(u64, &mut [u8]) -> Result<(), Error> + 'a;

/// Rows `rows` (all when `None`; clamped to the batch) of the binary batch of `total` bytes whose
/// bytes `read_at(offset, buffer)` fills. The preamble, header and size are
/// checked as [`VectorBatch::from_binary`] checks them; the rows read (ids,
/// vectors, thresholds) are validated as every batch read is, so a corrupt
/// number in them is refused here. An empty range reads the header only.
pub fn read_binary_rows(
    total: u64,
    rows: Option<Range<usize>>,
    read_at: &mut ReadAt<'_>,
) -> Result<VectorBatch, Error> {
    let total = usize::try_from(total).map_err(|_| Error::Parameter("the batch is larger than memory".into()))?;
    let mut preamble = vec![0u8; total.min(12)];
    read_at(0, &mut preamble)?;
    let prefix_len = BinaryLayout::prefix_len(&preamble)?;
    if prefix_len > total {
        return Err(ProtocolError::Truncated {
            what: "binary vector batch".into(),
            reason: format!("header of {} bytes announced, {} present", prefix_len - 12, total - 12),
        }
        .into());
    }
    let mut prefix = vec![0u8; prefix_len];
    read_at(0, &mut prefix)?;
    let layout = BinaryLayout::read(&prefix, total)?;
    let (vectors, thresholds) = (layout.vectors.clone(), layout.thresholds.clone());
    // a range past the end stops at the end (a job's last shard may be short)
    let count = layout.count();
    let rows = rows.map_or(0..count, |r| {
        let end = r.end.min(count);
        r.start.min(end)..end
    });
    // sparse rows have no fixed width: all of them are read (a few bytes a
    // record), then the range kept; none for the header alone
    let sparse = match layout.is_sparse() {
        true if rows.is_empty() => Some(BatchVectors::Sparse(crate::sparse_vectors::SparseVectors::new(layout.dim()))),
        true => {
            let mut bytes = vec![0u8; vectors.len()];
            if !bytes.is_empty() {
                read_at(vectors.start as u64, &mut bytes)?;
            }
            Some(layout.decode_vectors(&bytes)?)
        }
        false => None,
    };
    let mut h = layout.into_header();
    if h.count != h.ids.len() {
        return Err(ProtocolError::Invalid {
            what: "vector batch".into(),
            reason: format!("count says {} but there are {} ids", h.count, h.ids.len()),
        }
        .into());
    }
    let mut read = |start: usize, buf: &mut [u8]| -> Result<(), Error> {
        if buf.is_empty() {
            return Ok(());
        }
        read_at(start as u64, buf)
    };
    // the layout's ranges hold count·dim f32 and count f64: these offsets are inside them
    let data = match sparse {
        Some(v) => v.slice(rows.clone()),
        None => {
            let mut status = Ok(());
            let data = read_numbers::<f32>(rows.len() * h.dim, |dst| {
                status = read(vectors.start + rows.start * h.dim * 4, dst)
            });
            status?;
            BatchVectors::Dense(Vectors { dim: h.dim, data })
        }
    };
    let values = match thresholds {
        Some(t) => {
            let mut status = Ok(());
            let v = read_numbers::<f64>(rows.len(), |dst| status = read(t.start + rows.start * 8, dst));
            status?;
            Some(v)
        }
        None => None,
    };
    h.ids = Cow::Owned(h.ids.to_mut().drain(rows.clone()).collect());
    h.count = rows.len();
    Ok(VectorBatch::from_header(h, data, values)?)
}

#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests {
    use super::*;
    use crate::protocol::{Party, ThresholdSet};
    use crate::threshold::ThresholdMode;

    fn batch() -> VectorBatch {
        VectorBatch {
            party: Party::A,
            fingerprint: "ab".repeat(32),
            ids: (0..5).map(|i| format!("r{i}")).collect(),
            vectors: BatchVectors::Dense(Vectors { dim: 3, data: (0..15).map(|x| x as f32 / 4.0).collect() }),
            thresholds: Some(ThresholdSet {
                mode: ThresholdMode::Sound,
                ed: 1,
                auto: false,
                values: vec![0.5, 1.0, 1.5, 2.0, 2.5],
            }),
            transform: None,
            shape: None,
            private: true,
        }
    }

    fn read(bytes: &[u8], rows: Option<Range<usize>>) -> Result<VectorBatch, Error> {
        read_binary_rows(bytes.len() as u64, rows, &mut |at, buf| {
            buf.copy_from_slice(&bytes[at as usize..at as usize + buf.len()]);
            Ok(())
        })
    }

    #[test]
    fn rows_are_the_whole_batch_s_rows() {
        let b = batch();
        let bytes = b.to_binary();
        assert_eq!(read(&bytes, None).unwrap(), b);
        let part = read(&bytes, Some(1..3)).unwrap();
        assert_eq!(part.ids, ["r1", "r2"]);
        assert_eq!(part.vectors.to_dense().data, b.vectors.to_dense().data[3..9]);
        assert_eq!(part, b.rows(1..3));
        assert_eq!(part.thresholds.unwrap().values, [1.0, 1.5]);
        let header = read(&bytes, Some(0..0)).unwrap();
        assert_eq!((header.ids.len(), header.vectors.dim(), header.fingerprint), (0, 3, b.fingerprint));
    }

    #[test]
    fn sparse_rows_read_as_the_batch_s_rows() {
        // an unkeyed batch with a shape travels sparse (gram ids and counts)
        let b = VectorBatch {
            vectors: BatchVectors::Sparse(batch().vectors.to_dense().to_sparse()),
            shape: Some(crate::matching::Shape { lengths: vec![4, 4, 4], complete: vec![] }),
            ..batch()
        };
        let bytes = b.to_binary();
        assert!(BinaryLayout::read(&bytes, bytes.len()).unwrap().is_sparse());
        assert_eq!(read(&bytes, None).unwrap(), b);
        assert_eq!(read(&bytes, Some(1..3)).unwrap(), b.rows(1..3));
        assert_eq!(read(&bytes, Some(4..9)).unwrap(), b.rows(4..5));
        assert_eq!(read(&bytes[..bytes.len() - 41], Some(0..1)).unwrap_err().code(), "TRUNCATED_MESSAGE");
    }

    #[test]
    fn truncated_and_corrupt_are_refused_and_ranges_clamped() {
        let bytes = batch().to_binary();
        let short = read(&bytes[..bytes.len() - 1], Some(0..1)).unwrap_err();
        assert_eq!(short.code(), "TRUNCATED_MESSAGE");
        assert_eq!(read(&bytes[..8], None).unwrap_err().code(), "TRUNCATED_MESSAGE");
        assert_eq!(read(&bytes, Some(3..9)).unwrap().ids, ["r3", "r4"]);
        assert!(read(&bytes, Some(7..9)).unwrap().ids.is_empty());
        // a NaN in row 3: refused when row 3 is read, not when rows 0..2 are
        let mut corrupt = bytes.clone();
        let at = bytes.len() - 5 * 8 - (5 - 3) * 3 * 4;
        corrupt[at..at + 4].copy_from_slice(&f32::NAN.to_le_bytes());
        assert!(read(&corrupt, Some(0..2)).is_ok());
        assert_eq!(read(&corrupt, Some(2..5)).unwrap_err().code(), "INVALID_MESSAGE");
    }
}
