//! Protocol messages: round trips, and every malformed form refused with a clear error.
#![cfg(not(target_arch = "wasm32"))]

use gramlink::alphabet::Alphabet;
use gramlink::base::{GramCount, MineRecord, MinerKind, NoisyBase, SharedBase};
use gramlink::embed::{BatchVectors, Vectors};
use gramlink::error::ProtocolError;
use gramlink::protocol::*;

fn batch() -> VectorBatch {
    VectorBatch {
        party: Party::A,
        fingerprint: "ab".repeat(32),
        ids: vec!["x".into(), "y".into()],
        vectors: BatchVectors::Dense(Vectors { dim: 3, data: vec![1.0, 0.5, 0.0, 2.0, 1.0 / 3.0, 0.0] }),
        thresholds: Some(ThresholdSet {
            mode: gramlink::threshold::ThresholdMode::Sound,
            ed: 1,
            auto: false,
            values: vec![1.5, 2.25],
        }),
        transform: None,
        shape: Some(gramlink::matching::Shape { lengths: vec![1, 2, 3], complete: vec![] }),
        private: true,
    }
}

#[test]
fn batch_round_trips_in_both_forms() {
    let b = batch();
    assert_eq!(VectorBatch::read(b.to_json().as_bytes()).unwrap(), b);
    assert_eq!(VectorBatch::read(&b.to_binary()).unwrap(), b);
    let mut no_th = batch();
    no_th.thresholds = None;
    assert_eq!(VectorBatch::read(&no_th.to_binary()).unwrap(), no_th);
    // `ed auto` (A asks the matcher to fit the cut-off) survives both forms; a
    // fixed ed writes no `auto` key, so such a batch reads as before
    let mut auto = batch();
    auto.thresholds.as_mut().unwrap().auto = true;
    assert_eq!(VectorBatch::read(auto.to_json().as_bytes()).unwrap(), auto);
    assert_eq!(VectorBatch::read(&auto.to_binary()).unwrap(), auto);
    assert!(auto.to_json().contains("\"auto\":true"));
    assert!(!b.to_json().contains("\"auto\""));
}

/// The wasm API's reader: the layout from the first bytes only, the numbers
/// copied out of their ranges. Same batch as `from_binary`, same errors.
fn read_in_parts(bin: &[u8]) -> Result<VectorBatch, ProtocolError> {
    let preamble = &bin[..bin.len().min(12)];
    let prefix = &bin[..bin.len().min(BinaryLayout::prefix_len(preamble)?)];
    let layout = BinaryLayout::read(prefix, bin.len())?;
    let vectors = layout.decode_vectors(&bin[layout.vectors.clone()])?;
    let thresholds = layout.thresholds.clone().map(|r| from_le_bytes::<f64>(&bin[r]));
    layout.into_batch(vectors, thresholds)
}

#[test]
fn a_binary_batch_reads_the_same_from_its_layout() {
    let b = batch();
    let bin = b.to_binary();
    assert_eq!(read_in_parts(&bin).unwrap(), b);
    let prefix = b.binary_parts()[0].to_vec();
    assert_eq!(&bin[..prefix.len()], &prefix[..]);
    // the numbers are stored little-endian, whatever the machine
    let layout = BinaryLayout::read(&bin, bin.len()).unwrap();
    assert_eq!(&bin[layout.vectors.start..layout.vectors.start + 4], &1.0f32.to_le_bytes());
    assert_eq!(&bin[layout.thresholds.clone().unwrap()][..8], &1.5f64.to_le_bytes());
    // (cuts that keep the magic: shorter ones are not binary batches at all)
    for cut in [4, 5, 11, 12, 20, bin.len() - 1] {
        assert_eq!(
            read_in_parts(&bin[..cut]).unwrap_err(),
            VectorBatch::read(&bin[..cut]).unwrap_err(),
            "cut at {cut}"
        );
    }
    let mut longer = bin.clone();
    longer.push(0);
    assert!(matches!(read_in_parts(&longer), Err(ProtocolError::Invalid { .. })));
}

#[test]
fn truncated_and_corrupt_batches_are_refused() {
    let bin = batch().to_binary();
    for cut in [0, 5, 11, 20, bin.len() - 1] {
        let e = VectorBatch::read(&bin[..cut]).unwrap_err();
        assert!(matches!(e, ProtocolError::Truncated { .. } | ProtocolError::Malformed { .. }), "{cut}: {e}");
    }
    let mut v1 = bin.clone();
    v1[4] = 1;
    assert!(matches!(VectorBatch::read(&v1), Err(ProtocolError::Version { found: 1, supported: 2, .. })));
    let json = batch().to_json();
    assert!(matches!(VectorBatch::read(&json.as_bytes()[..json.len() / 2]), Err(ProtocolError::Truncated { .. })));
    let nan = json.replacen("0.5", "NaN", 1);
    assert!(VectorBatch::read(nan.as_bytes()).is_err());
    let wrong_dim = json.replacen("\"dim\":3", "\"dim\":4", 1);
    assert!(matches!(VectorBatch::read(wrong_dim.as_bytes()), Err(ProtocolError::Invalid { .. })));
    let dup = json.replacen("\"y\"", "\"x\"", 1);
    let e = VectorBatch::read(dup.as_bytes()).unwrap_err();
    assert!(e.to_string().contains("used twice"), "{e}");
    let v9 = json.replacen("\"version\":2", "\"version\":9", 1);
    assert!(matches!(VectorBatch::read(v9.as_bytes()), Err(ProtocolError::Version { found: 9, .. })));
}

#[test]
fn fingerprint_check() {
    let b = batch();
    assert!(b.check_base(&"ab".repeat(32)).is_ok());
    assert!(matches!(b.check_base(&"cd".repeat(32)), Err(ProtocolError::Fingerprint { .. })));
}

#[test]
fn bases_round_trip_and_are_checked() {
    let nb = NoisyBase {
        padding: None,
        alphabet: Alphabet::default(),
        params: MineRecord {
            miner: MinerKind::Fpm,
            strategy: None,
            k: 2,
            q_min: 1,
            q_max: 2,
            epsilon: 0.1,
            epsilon_spent: 0.1,
            mechanism: Default::default(),
        },
        private: true,
        grams: vec![GramCount { gram: "A".into(), count: 10.0 }, GramCount { gram: "AB".into(), count: 3.0 }],
    };
    let text = write_noisy_base(&nb);
    assert_eq!(read_noisy_base(&text).unwrap(), nb);
    assert!(matches!(read_shared_base(&text), Err(ProtocolError::WrongFormat { .. })));
    let overspent = text.replacen("\"epsilon_spent\":0.1", "\"epsilon_spent\":0.2", 1);
    assert!(read_noisy_base(&overspent).is_err());
    let sb = SharedBase::from_noisy(&nb, 2).unwrap();
    let st = write_shared_base(&sb);
    assert_eq!(read_shared_base(&st).unwrap(), sb);
    let tampered = st.replacen("\"AB\"", "\"BA\"", 1);
    assert!(matches!(read_shared_base(&tampered), Err(ProtocolError::Fingerprint { .. })));
    assert!(matches!(read_noisy_base("{"), Err(ProtocolError::Truncated { .. })));
    assert!(matches!(read_noisy_base("[1]"), Err(ProtocolError::Malformed { .. })));
}

#[test]
fn absurd_sizes_in_a_binary_header_are_refused_not_overflowed() {
    let b = batch();
    let bin = b.to_binary();
    let hlen = u32::from_le_bytes(bin[8..12].try_into().unwrap()) as usize;
    let header = std::str::from_utf8(&bin[12..12 + hlen]).unwrap();
    for (from, to) in [("\"dim\":3", "\"dim\":18446744073709551615"), ("\"count\":2", "\"count\":4611686018427387904")]
    {
        let forged = header.replacen(from, to, 1);
        let mut out = b"GLVB".to_vec();
        out.extend_from_slice(&1u32.to_le_bytes());
        out.extend_from_slice(&(forged.len() as u32).to_le_bytes());
        out.extend_from_slice(forged.as_bytes());
        out.extend_from_slice(&bin[12 + hlen..]);
        assert!(VectorBatch::read(&out).is_err(), "{to}");
    }
}

#[test]
fn shapes_are_checked() {
    let mut b = batch();
    b.shape = Some(gramlink::matching::Shape { lengths: vec![1, 2], complete: vec![] });
    assert!(VectorBatch::read(b.to_json().as_bytes())
        .unwrap_err()
        .to_string()
        .contains("2 gram lengths for vectors of dimension 3"));
    b.shape = Some(gramlink::matching::Shape { lengths: vec![1, 2, 0], complete: vec![] });
    assert!(VectorBatch::read(&b.to_binary()).unwrap_err().to_string().contains("gram length 0"));
    b.shape = Some(gramlink::matching::Shape { lengths: vec![1, 2, 3], complete: vec![4] });
    assert!(b.validate().unwrap_err().to_string().contains("complete"));
    // a batch without a shape (older, or keyed) still reads
    b.shape = None;
    assert_eq!(VectorBatch::read(b.to_json().as_bytes()).unwrap(), b);
}

#[test]
fn implausible_batches_are_refused_by_name() {
    // issue 31: values of 3e38 and a threshold of 1e308 were linked with exit 0
    let mut huge = batch();
    if let BatchVectors::Dense(v) = &mut huge.vectors {
        v.data[4] = 3e38;
    }
    let mut wide = batch();
    wide.thresholds.as_mut().unwrap().values[0] = 1e308;
    for (b, why) in [(&huge, "row 2"), (&wide, "threshold of record 1 is 1e308")] {
        for bytes in [b.to_json().into_bytes(), b.to_binary()] {
            let e = VectorBatch::read(&bytes).unwrap_err();
            assert!(matches!(e, ProtocolError::Implausible { .. }) && e.to_string().contains(why), "{e}");
            let e = gramlink::matcher::Matcher::read(&bytes, &batch().to_binary()).err().unwrap();
            assert_eq!(e.code(), "IMPLAUSIBLE_BATCH", "{e}");
            assert!(e.to_string().contains("party A's vector batch"), "{e}");
        }
    }
    // the real batch (a sound threshold, counts a record can have) passes
    VectorBatch::read(&batch().to_binary()).unwrap();
}
