use super::*;
use crate::matching::distance;
use rand_chacha::ChaCha20Rng;
use rand_core::{RngCore, SeedableRng};

const FP: &str = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";

fn key(b: u8) -> Key {
    Key::from_bytes([b; 32])
}

fn vectors(dim: usize, rows: usize, seed: u64) -> Vectors {
    let mut rng = ChaCha20Rng::seed_from_u64(seed);
    let data = (0..dim * rows).map(|_| (rng.next_u32() % 7) as f32 / 3.0).collect();
    Vectors { dim, data }
}

#[test]
fn rotation_is_orthogonal_and_keyed() {
    let t = Transform::new(&key(1), FP, 75).unwrap();
    assert_eq!(t.out_dim(), 128);
    // columns of R are orthonormal: R·e_i · R·e_j = δ_ij
    let cols: Vec<Vec<f64>> = (0..75)
        .map(|i| {
            let mut e = vec![0.0f32; 75];
            e[i] = 1.0;
            let mut out = vec![0.0; 128];
            t.apply_f64(&e, &mut out);
            out
        })
        .collect();
    for i in 0..75 {
        for j in 0..75 {
            let dot: f64 = cols[i].iter().zip(&cols[j]).map(|(x, y)| x * y).sum();
            assert!((dot - if i == j { 1.0 } else { 0.0 }).abs() < 1e-12, "{i} {j} {dot}");
        }
        // the gram is spread: no coordinate keeps most of its mass
        assert!(cols[i].iter().all(|x| x.abs() < 0.5));
    }
    let other = Transform::new(&key(2), FP, 75).unwrap();
    assert_ne!(t.label(), other.label());
    assert_ne!(t.perm, other.perm);
    let other_base = Transform::new(&key(1), &FP.replace('0', "1"), 75).unwrap();
    assert_ne!(t.label(), other_base.label());
    assert_eq!(t.label(), Transform::new(&key(1), FP, 75).unwrap().label());
    assert!(valid_label(t.label()));
}

#[test]
fn distances_are_kept_within_the_bound() {
    let v = vectors(75, 60, 3);
    let t = Transform::new(&key(9), FP, 75).unwrap();
    let r = t.apply(&v).unwrap();
    let th = vec![0.0; v.len()];
    let wide = matching_thresholds(&r, &r, &th, Some(t.label()));
    for (i, w) in wide.iter().enumerate() {
        for j in 0..v.len() {
            let (d, dk) = (distance(v.row(i), v.row(j)), distance(r.row(i), r.row(j)));
            assert!(dk <= d + w && d <= dk + w, "{d} {dk} {w}");
        }
    }
    assert_eq!(matching_thresholds(&v, &v, &th, None), th);
    // the sparse path (DataOwner::embed's) gives the same bits
    assert_eq!(t.apply_sparse(&v.to_sparse()).unwrap(), r);
}

#[test]
fn keys_from_text() {
    let k = Key::random().unwrap();
    assert_eq!(Key::from_hex(&format!("  {}\n", k.to_hex())).unwrap(), k);
    assert_eq!(Key::from_hex("abc").unwrap_err().code(), "INVALID_KEY");
    assert_eq!(Key::from_hex(&"zz".repeat(32)).unwrap_err().code(), "INVALID_KEY");
    assert_eq!(Key::from_hex(&"00".repeat(32)).unwrap_err().code(), "INVALID_KEY");
    assert_eq!(Key::from_passphrase("short").unwrap_err().code(), "INVALID_KEY");
    let p = Key::from_passphrase("correct horse battery\n").unwrap();
    assert_eq!(p, Key::from_passphrase("correct horse battery").unwrap());
    assert_ne!(p, Key::from_passphrase("correct horse battery staple").unwrap());
    // salted per linkage: the same passphrase gives another key for another base
    let (fa, fb) = ("a".repeat(64), "b".repeat(64));
    let pa = Key::from_passphrase_for("correct horse battery", &fa).unwrap();
    assert_ne!(pa, p);
    assert_ne!(pa, Key::from_passphrase_for("correct horse battery", &fb).unwrap());
    assert_eq!(pa, Key::from_passphrase_for(" correct horse battery\n", &fa).unwrap());
    assert!(!format!("{p:?}").contains(&p.to_hex()));
}

#[test]
fn mismatches_are_refused() {
    let l = Transform::new(&key(1), FP, 8).unwrap().label().to_string();
    let m = Transform::new(&key(2), FP, 8).unwrap().label().to_string();
    assert!(check_transforms(None, None).is_ok());
    assert!(check_transforms(Some(&l), Some(&l)).is_ok());
    for (a, b) in [(Some(&l), None), (None, Some(&l)), (Some(&l), Some(&m))] {
        assert_eq!(
            check_transforms(a.map(|s| s.as_str()), b.map(|s| s.as_str())).unwrap_err().code(),
            "TRANSFORM_MISMATCH"
        );
    }
    assert!(Transform::new(&key(1), FP, 0).is_err());
    assert!(Transform::new(&key(1), FP, 8).unwrap().apply(&vectors(7, 2, 1)).is_err());
}
