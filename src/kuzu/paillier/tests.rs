use super::*;
use crate::dp::Randomness;
use crate::error::Error;
use crate::error::ProtocolError;
use num_bigint::BigUint;
use proptest::prelude::*;
use std::sync::OnceLock;

/// One 512-bit test key for the whole suite, [`Encryptor`]'s tests too
/// (seeded: NOT secure; the default is 2048).
pub(super) fn key() -> &'static PrivateKey {
    static KEY: OnceLock<PrivateKey> = OnceLock::new();
    KEY.get_or_init(|| PrivateKey::generate(512, &mut Randomness::seeded(17)).unwrap())
}

#[test]
fn generated_key_has_the_asked_size_and_distinct_primes() {
    let k = key();
    assert_eq!(k.public().bits(), 512);
    let (p, q) = k.primes();
    assert_ne!(p, q);
    assert_eq!(p * q, *k.public().n());
    assert!(PrivateKey::generate(511, &mut Randomness::seeded(1)).is_err());
    assert!(PrivateKey::generate(256, &mut Randomness::seeded(1)).is_err());
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    /// Both encryptions, textbook and fixed-base ([`Encryptor`]), give
    /// ciphertexts of one system: each decrypts, re-randomizes, and adds to
    /// the other's.
    #[test]
    fn decryption_recovers_plaintexts(m in any::<u64>(), seed in any::<u64>()) {
        let k = key();
        let pk = k.public();
        let mut rng = Randomness::seeded(seed);
        let fast = Encryptor::new(pk, &mut rng);
        for fixed_base in [false, true] {
            let encrypt = |m, rng: &mut Randomness| if fixed_base { fast.encrypt_u64(m, rng) } else { pk.encrypt_u64(m, rng) };
            let c = encrypt(m, &mut rng);
            prop_assert_eq!(k.decrypt(&c), BigUint::from(m));
            // semantic security needs fresh randomness: the same m encrypts differently
            prop_assert_ne!(&c, &encrypt(m, &mut rng));
            let again = if fixed_base { fast.rerandomize(&c, &mut rng) } else { pk.rerandomize(&c, &mut rng) };
            prop_assert_ne!(&again, &c);
            prop_assert_eq!(k.decrypt(&again), BigUint::from(m));
            let t = if fixed_base { pk.encrypt_u64(7, &mut rng) } else { fast.encrypt_u64(7, &mut rng) };
            prop_assert_eq!(k.decrypt(&pk.add(&c, &t)), (BigUint::from(m) + 7u32) % pk.n());
        }
    }

    #[test]
    fn homomorphic_sums_and_products_equal_plain_ones(
        a in any::<u64>(), b in any::<u64>(), s in any::<u64>(), neg in -1_000_000i64..1_000_000, seed in any::<u64>()
    ) {
        let k = key();
        let pk = k.public();
        let mut rng = Randomness::seeded(seed);
        let (ca, cb) = (pk.encrypt_u64(a, &mut rng), pk.encrypt_u64(b, &mut rng));
        prop_assert_eq!(k.decrypt(&pk.add(&ca, &cb)), BigUint::from(a) + b);
        prop_assert_eq!(k.decrypt(&pk.mul(&ca, &BigUint::from(s))), BigUint::from(a) * s);
        prop_assert_eq!(k.decrypt(&pk.add(&ca, &pk.encrypt_trivial(&BigUint::from(b)))), BigUint::from(a) + b);
        // signed: Enc(neg) ⊕ Enc(a) decrypts to a + neg; (−1) ⊙ c decrypts to −a
        let cn = pk.encrypt(&pk.encode_i64(neg), &mut rng);
        prop_assert_eq!(k.decrypt_i128(&pk.add(&cn, &ca)), Some(a as i128 + neg as i128));
        prop_assert_eq!(k.decrypt_i128(&pk.negate(&ca).unwrap()), Some(-(a as i128)));
    }
}

#[test]
fn keys_round_trip_and_check_their_fingerprints() {
    let k = key();
    let text = write_public_key(k.public());
    assert_eq!(&read_public_key(&text).unwrap(), k.public());
    let back = read_private_key(&write_private_key(k)).unwrap();
    assert_eq!(back.public(), k.public());
    let other = PrivateKey::generate(512, &mut Randomness::seeded(99)).unwrap();
    let forged = text.replace(k.public().fingerprint(), other.public().fingerprint());
    let e = read_public_key(&forged).unwrap_err();
    assert_eq!(e.code(), "FINGERPRINT_MISMATCH", "{e}");
    let e = read_public_key(&text[..text.len() / 2]).unwrap_err();
    assert_eq!(e.code(), "TRUNCATED_MESSAGE", "{e}");
    let e = read_public_key(&text.replace("\"bits\":512", "\"bits\":1024")).unwrap_err();
    assert_eq!(e.code(), "INVALID_KEY", "{e}");
}

#[test]
fn forged_and_truncated_ciphertexts_are_named_errors() {
    let k = key();
    let pk = k.public();
    let mut rng = Randomness::seeded(3);
    let mut bytes = Vec::new();
    pk.encrypt_u64(5, &mut rng).write_to(pk, &mut bytes);
    assert_eq!(bytes.len(), pk.ciphertext_bytes());
    let mut at = 0;
    let c = read_ciphertext(pk, &bytes, &mut at, "test").unwrap();
    assert_eq!(k.decrypt(&c), BigUint::from(5u32));
    check_units(pk, [&c], "test").unwrap();
    // truncated
    let e = read_ciphertext(pk, &bytes[..bytes.len() - 1], &mut 0, "test").unwrap_err();
    assert!(matches!(e, Error::Protocol(ProtocolError::Truncated { .. })), "{e}");
    // out of range: n² itself, and zero
    let mut big = Vec::new();
    Ciphertext(pk.n_squared().clone()).write_to(pk, &mut big);
    let e = read_ciphertext(pk, &big, &mut 0, "test").unwrap_err();
    assert_eq!(e.code(), "INVALID_MESSAGE");
    let e = read_ciphertext(pk, &vec![0u8; pk.ciphertext_bytes()], &mut 0, "test").unwrap_err();
    assert_eq!(e.code(), "INVALID_MESSAGE");
    // in range but a multiple of p: not a unit
    let (p, _) = k.primes();
    let e = check_units(pk, [&c, &Ciphertext(p * 7u32)], "test").unwrap_err();
    assert!(e.to_string().contains("not invertible"), "{e}");
}
