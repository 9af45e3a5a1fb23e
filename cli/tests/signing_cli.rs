//! Batches the matcher can trust (issue 31): each party signs its batch
//! (`sign-keygen`, `embed --signing-key`), the matcher checks the signatures
//! (`match --verify-a/--verify-b`), and refuses by name a batch without one, with
//! a wrong one, or with numbers no record can give.
#![cfg(not(target_arch = "wasm32"))]

mod common;
use common::{gramlink, names_dir, ok, stderr};

fn refused(args: &[&str], code: &str) -> String {
    let o = gramlink(args);
    assert_eq!(o.status.code(), Some(4), "{args:?}: {}", stderr(&o));
    let e = stderr(&o);
    assert!(e.contains(&format!("error[{code}]")), "{args:?}: {e}");
    e
}

#[test]
fn signed_batches_link_and_unsigned_wrong_or_implausible_ones_are_refused() {
    let d = names_dir();
    let p = |n: &str| d.path().join(n).display().to_string();
    ok(&["mine", "--input", &p("names.txt"), "--seed", "1", "--out", &p("na.json")]);
    ok(&["mine", "--input", &p("names.txt"), "--seed", "2", "--out", &p("nb.json")]);
    ok(&["merge", &p("na.json"), &p("nb.json"), "--out", &p("shared.json")]);
    ok(&["sign-keygen", "--out", &p("a.key")]);
    ok(&["sign-keygen", "--out", &p("b.key")]);
    assert!(std::fs::read_to_string(p("a.key.pub")).unwrap().starts_with("gramlink signing public key v1 "));
    let embed = |party: &str, key: &str, out: &str| {
        let (input, base) = (p("names.txt"), p("shared.json"));
        ok(&[
            "embed",
            "--input",
            &input,
            "--base",
            &base,
            "--party",
            party,
            "--no-key",
            "--json",
            "--signing-key",
            key,
            "--out",
            out,
        ]);
    };
    embed("a", &p("a.key"), &p("a.vec"));
    embed("b", &p("b.key"), &p("b.vec"));
    assert!(d.path().join("a.vec.sig").exists() && d.path().join("b.vec.sig").exists());
    let (pa, pb, out) = (p("a.key.pub"), p("b.key.pub"), p("pairs.csv"));
    let linked = ok(&["match", &p("a.vec"), &p("b.vec"), "--verify-a", &pa, "--verify-b", &pb, "--out", &out]);
    assert!(stderr(&linked).contains("party A's batch is signed"), "{}", stderr(&linked));

    // keys swapped: each batch is signed, but not by the key given for it
    let e = refused(
        &["match", &p("a.vec"), &p("b.vec"), "--verify-a", &pb, "--verify-b", &pa, "--out", &out],
        "SIGNATURE_INVALID",
    );
    assert!(e.contains("party A's batch"), "{e}");
    // a byte changed after signing
    let batch = std::fs::read_to_string(p("a.vec")).unwrap();
    std::fs::write(p("a2.vec"), batch.replacen("\"party\"", " \"party\"", 1)).unwrap();
    std::fs::copy(p("a.vec.sig"), p("a2.vec.sig")).unwrap();
    refused(&["match", &p("a2.vec"), &p("b.vec"), "--verify-a", &pa, "--out", &out], "SIGNATURE_INVALID");
    // unsigned
    std::fs::write(p("u.vec"), &batch).unwrap();
    let e = refused(&["match", &p("u.vec"), &p("b.vec"), "--verify-a", &pa, "--out", &out], "SIGNATURE_MISSING");
    assert!(e.contains("u.vec"), "{e}");
    // without keys the matcher links as before (old batches stay readable)
    ok(&["match", &p("u.vec"), &p("b.vec"), "--out", &out]);

    // numbers no record can have, signed or not: a count of 16 million (a sparse batch's
    // counts are integers; a dense 3e38 is tests/protocol.rs's), a threshold of 1e308
    let mut forged: serde_json::Value = serde_json::from_str(&batch).unwrap();
    forged["grams"][0][1] = serde_json::json!(16_000_000u32);
    std::fs::write(p("huge.vec"), forged.to_string()).unwrap();
    let e = refused(&["match", &p("huge.vec"), &p("b.vec"), "--out", &out], "IMPLAUSIBLE_BATCH");
    assert!(e.contains("party A's vector batch") && e.contains("row 1"), "{e}");
    let mut wide: serde_json::Value = serde_json::from_str(&batch).unwrap();
    wide["thresholds"]["values"][0] = serde_json::json!(1e308);
    std::fs::write(p("wide.vec"), wide.to_string()).unwrap();
    let e = refused(&["match", &p("wide.vec"), &p("b.vec"), "--out", &out], "IMPLAUSIBLE_BATCH");
    assert!(e.contains("party A's vector batch") && e.contains("1e308"), "{e}");
}
