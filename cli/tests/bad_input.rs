//! The bad-input catalogue of the CLI: every malformed input a party or the
//! matcher may feed it, with the exact error expected. Each case must fail with
//! a non-zero exit, print its error (never a panic), and leave no output file
//! and no temporary file behind. Valid fixtures (bases, batches) are made once
//! with the CLI itself on a small CITIES sample.
#![cfg(not(target_arch = "wasm32"))]

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn gramlink(args: &[String]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_gramlink")).args(args).output().expect("run gramlink")
}

struct Fixtures {
    dir: tempfile::TempDir,
}

impl Fixtures {
    fn p(&self, name: &str) -> String {
        self.dir.path().join(name).display().to_string()
    }
    fn write(&self, name: &str, bytes: &[u8]) -> String {
        std::fs::write(self.dir.path().join(name), bytes).unwrap();
        self.p(name)
    }
    fn read(&self, name: &str) -> Vec<u8> {
        std::fs::read(self.dir.path().join(name)).unwrap()
    }
    fn json(&self, name: &str) -> Value {
        serde_json::from_slice(&self.read(name)).unwrap()
    }
    /// Writes `name` as a copy of the JSON fixture `from` edited by `edit`.
    fn edited(&self, from: &str, name: &str, edit: impl FnOnce(&mut Value)) -> String {
        let mut v = self.json(from);
        edit(&mut v);
        self.write(name, v.to_string().as_bytes())
    }
    fn run_ok(&self, args: &[&str]) {
        let o = gramlink(&args.iter().map(|s| s.to_string()).collect::<Vec<_>>());
        assert!(o.status.success(), "{args:?}: {}", String::from_utf8_lossy(&o.stderr));
    }
    /// `gramlink embed -i input --base base <extra> -o out` (out in the fixtures).
    fn embed(&self, input: &str, base: &str, extra: &[&str], out: &str) {
        let out = self.p(out);
        self.run_ok(&[&["embed", "-i", input, "--base", base][..], extra, &["-o", &out]].concat());
    }

    fn new() -> Fixtures {
        let f = Fixtures { dir: tempfile::tempdir().unwrap() };
        let cities =
            std::fs::read_to_string(format!("{}/data/cities.txt", concat!(env!("CARGO_MANIFEST_DIR"), "/.."))).unwrap();
        let lines: Vec<&str> = cities.lines().take(600).collect();
        f.write("a.txt", lines[..400].join("\n").as_bytes());
        f.write("b.txt", lines[200..].join("\n").as_bytes());
        let (a, b) = (f.p("a.txt"), f.p("b.txt"));
        f.run_ok(&["mine", "-i", &a, "--seed", "1", "--epsilon", "1", "-o", &f.p("na.json")]);
        f.run_ok(&["mine", "-i", &b, "--seed", "2", "--epsilon", "1", "-o", &f.p("nb.json")]);
        f.run_ok(&[
            "mine",
            "-i",
            &b,
            "--seed",
            "3",
            "--epsilon",
            "1",
            "--alphabet",
            "ABCDEFGHIJKLMNOPQRSTUVWXYZ",
            "-o",
            &f.p("nb_alpha.json"),
        ]);
        f.run_ok(&["merge", &f.p("na.json"), &f.p("nb.json"), "-o", &f.p("s.json")]);
        f.run_ok(&["merge", &f.p("na.json"), &f.p("nb.json"), "--k", "20", "-o", &f.p("s20.json")]);
        f.write("k1.hex", b"0101010101010101010101010101010101010101010101010101010101010101\n");
        f.write("k2.hex", b"0202020202020202020202020202020202020202020202020202020202020202\n");
        let s = f.p("s.json");
        let (k1, k2) = (f.p("k1.hex"), f.p("k2.hex"));
        f.embed(&a, &s, &["--threshold", "paper", "--no-key"], "ea.bin");
        f.embed(&a, &s, &["--threshold", "paper", "--json", "--no-key"], "ea.json");
        f.embed(&b, &s, &["--party", "b", "--no-key"], "eb.bin");
        f.embed(&b, &f.p("s20.json"), &["--party", "b", "--no-key"], "eb20.bin");
        f.embed(&a, &s, &["--threshold", "paper", "--key-file", &k1], "ea_k1.bin");
        f.embed(&a, &s, &["--threshold", "paper", "--key-file", &k1, "--json"], "ea_k1.json");
        f.embed(&b, &s, &["--party", "b", "--key-file", &k2], "eb_k2.bin");
        f
    }
}

/// One case: the command line (`{x}` = fixture path of x, `OUT` = the output
/// path that must not appear) and the exact text its error must contain.
struct Case {
    name: &'static str,
    args: Vec<String>,
    expect: String,
}

fn args(f: &Fixtures, line: &str, out: &str) -> Vec<String> {
    line.split(' ')
        .filter(|s| !s.is_empty())
        .map(|w| {
            if w == "OUT" {
                out.to_string()
            } else if let Some(name) = w.strip_prefix('{').and_then(|w| w.strip_suffix('}')) {
                f.p(name)
            } else {
                w.to_string()
            }
        })
        .collect()
}

fn le32(x: u32) -> [u8; 4] {
    x.to_le_bytes()
}

#[test]
fn every_bad_input_fails_cleanly_with_its_error() {
    let f = Fixtures::new();
    // ---- files for the cases
    f.write("unclosed.csv", b"name,id\n\"abc,1\ndef,2\n");
    f.write("ragged.csv", b"name,id\nabc,1,extra\n");
    f.write("ok.csv", b"name,id\nabc,1\n");
    f.write("header_only.csv", b"name,id\n");
    f.write("dupid.csv", b"name,id\nabc,1\ndef,1\n");
    f.write("emptyid.csv", b"name,id\nabc,\n");
    f.write("empty.txt", b"");
    f.write("nul.txt", b"ab\x00c\n");
    f.write("latin1.txt", b"abc\xe9\n");
    f.write("blank.txt", b"\n\n   \n\t\n");
    f.write("odd_unicode.txt", "王\n😀\n\u{200B}\n\u{0301}\n".as_bytes());
    f.write("long.txt", "A".repeat(5000).as_bytes());
    f.write("not_json.json", b"hello");
    f.write("array.json", b"[1,2,3]");
    let na = String::from_utf8(f.read("na.json")).unwrap();
    f.write("na_trunc.json", &na.as_bytes()[..na.len() / 2]);
    f.edited("na.json", "na_v2.json", |v| v["version"] = 2.into());
    f.edited("na.json", "na_noformat.json", |v| {
        v.as_object_mut().unwrap().remove("format");
    });
    f.edited("na.json", "na_badgram.json", |v| v["grams"][0]["gram"] = "a1!".into());
    f.edited("na.json", "na_overspent.json", |v| v["params"]["epsilon_spent"] = 99.0.into());
    f.edited("s.json", "s_tampered.json", |v| v["grams"][0] = "ZZZ".into());
    f.edited("s.json", "s_badfp.json", |v| v["fingerprint"] = "00".repeat(32).into());
    f.write("k_short.hex", b"abcd\n");
    f.write("k_nothex.hex", "zz".repeat(32).as_bytes());
    f.write("k_zero.hex", "00".repeat(32).as_bytes());
    f.write("pass_short.txt", b"secret\n");
    let ea = f.read("ea.bin");
    f.write("ea_cut5.bin", &ea[..5]);
    f.write("ea_cuthdr.bin", &ea[..100]);
    f.write("ea_cutnums.bin", &ea[..ea.len() - 3]);
    f.write("ea_trailing.bin", &[&ea[..], b"xyz"].concat());
    let mut v9 = ea.clone();
    v9[4..8].copy_from_slice(&le32(9));
    f.write("ea_v9.bin", &v9);
    let mut hugehdr = ea.clone();
    hugehdr[8..12].copy_from_slice(&le32(u32::MAX));
    f.write("ea_hugehdr.bin", &hugehdr);
    f.write("magic_only.bin", b"GLVB\x01\x00\x00\x00");
    f.edited("ea.json", "ea_v1.json", |v| v["version"] = 1.into());
    let mut v1 = ea.clone();
    v1[4..8].copy_from_slice(&le32(1));
    f.write("ea_v1.bin", &v1);
    // sparse rows (gram id, count, ...) damaged in the JSON form
    f.edited("ea.json", "ea_gram_range.json", |v| v["grams"][0] = serde_json::json!([1_000_000, 1]));
    f.edited("ea.json", "ea_gram_order.json", |v| v["grams"][0] = serde_json::json!([3, 1, 3, 1]));
    f.edited("ea.json", "ea_gram_zero.json", |v| v["grams"][0] = serde_json::json!([2, 0]));
    f.edited("ea.json", "ea_dupid.json", |v| v["ids"][1] = v["ids"][0].clone());
    f.edited("ea.json", "ea_negth.json", |v| v["thresholds"]["values"][0] = (-1.0).into());
    f.edited("ea.json", "ea_hugedim.json", |v| v["dim"] = (u64::MAX / 2).into());
    f.edited("ea.json", "ea_count.json", |v| v["count"] = 3.into());
    f.edited("ea.json", "ea_fewvec.json", |v| {
        v["grams"].as_array_mut().unwrap().pop();
    });
    f.edited("ea.json", "ea_party.json", |v| v["party"] = "C1".into());
    f.edited("ea.json", "ea_badfp.json", |v| v["fingerprint"] = "xyz".into());
    f.edited("ea_k1.json", "ea_badlabel.json", |v| v["transform"] = "rot13".into());
    f.edited("ea.json", "ea_unkeyed_label.json", |v| {
        v["transform"] = "keyed-v1:0123456789abcdef0123456789abcdef".into()
    });

    let fp_shared = f.json("s.json")["fingerprint"].as_str().unwrap().to_string();
    let fp20 = f.json("s20.json")["fingerprint"].as_str().unwrap().to_string();

    let table: Vec<(&str, &str, String)> = vec![
        // ---- records: CSV and text ingestion (mine)
        ("unclosed quote", "mine -i {unclosed.csv} --column name -o OUT", "the quoted field opened on line 2 is never closed".into()),
        ("ragged CSV row", "mine -i {ragged.csv} --column name -o OUT", "malformed CSV at record 1".into()),
        ("missing CSV column", "mine -i {ok.csv} --column nope -o OUT", "CSV column \"nope\" not found; the header has: \"name\", \"id\"".into()),
        ("missing id column", "mine -i {ok.csv} --column name --id-column key -o OUT", "CSV column \"key\" not found".into()),
        ("id column = linked column", "mine -i {ok.csv} --column name --id-column name -o OUT", "the id column \"name\" is the linked column".into()),
        ("CSV header only", "mine -i {header_only.csv} --column name -o OUT", "is empty: it holds no records".into()),
        ("duplicate id", "mine -i {dupid.csv} --column name --id-column id -o OUT", "duplicate record id \"1\" (records 1 and 2)".into()),
        ("empty id", "mine -i {emptyid.csv} --column name --id-column id -o OUT", "the id column is empty".into()),
        ("empty file", "mine -i {empty.txt} -o OUT", "is empty: it holds no records".into()),
        ("NUL byte", "mine -i {nul.txt} -o OUT", "looks like a binary file (it contains a NUL byte at offset 2)".into()),
        ("non-UTF-8 (Latin-1)", "mine -i {latin1.txt} -o OUT", "is not UTF-8 text (first invalid byte at offset 3)".into()),
        ("blank lines only", "mine -i {blank.txt} -o OUT", "after normalization onto the alphabet is empty".into()),
        ("odd Unicode only (CJK, emoji, ZWSP, lone accent)", "mine -i {odd_unicode.txt} -o OUT", "after normalization onto the alphabet is empty".into()),
        ("record too long", "mine -i {long.txt} -o OUT", "record 1 is too long (5000 bytes; the limit is 4096)".into()),
        ("missing input file", "mine -i {nope.txt} -o OUT", "cannot read".into()),
        ("--id-column without --column", "mine -i {a.txt} --id-column x -o OUT", "an id column applies to CSV input".into()),
        // ---- mining parameters
        ("negative epsilon", "mine -i {a.txt} --epsilon -1 -o OUT", "invalid epsilon -1: it must be greater than 0".into()),
        ("NaN epsilon", "mine -i {a.txt} --epsilon NaN -o OUT", "it is not a number (NaN)".into()),
        ("infinite epsilon", "mine -i {a.txt} --epsilon inf -o OUT", "invalid epsilon inf".into()),
        ("k = 0", "mine -i {a.txt} --k 0 -o OUT", "k must be at least 1".into()),
        ("huge k", "mine -i {a.txt} --k 99999999999 -o OUT", "k = 99999999999 is too large (at most 100000)".into()),
        ("q_min > q_max", "mine -i {a.txt} --qmin 3 --qmax 1 -o OUT", "q_min (3) is greater than q_max (1)".into()),
        ("huge q_max", "mine -i {a.txt} --qmax 40 -o OUT", "q_max = 40 is too large (at most 12)".into()),
        ("h_max = 0", "mine -i {a.txt} --hmax 0 -o OUT", "h_max = 0 must be in 1..=64".into()),
        ("duplicate alphabet symbol", "mine -i {a.txt} --alphabet AA -o OUT", "invalid alphabet: symbol 'A' appears twice".into()),
        ("output directory missing", "mine -i {a.txt} -o {nodir}/out.json", "cannot write in".into()),
        // ---- noisy bases (merge)
        ("noisy base missing", "merge {na.json} {nope.json} -o OUT", "cannot read".into()),
        ("shared base given as noisy", "merge {na.json} {s.json} -o OUT", "wrong message kind: expected gramlink/noisy-base, found gramlink/shared-base".into()),
        ("not JSON", "merge {na.json} {not_json.json} -o OUT", "not a gramlink gramlink/noisy-base message".into()),
        ("JSON array", "merge {na.json} {array.json} -o OUT", "not a JSON object".into()),
        ("truncated JSON", "merge {na.json} {na_trunc.json} -o OUT", "truncated gramlink/noisy-base".into()),
        ("noisy base version 2", "merge {na.json} {na_v2.json} -o OUT", "unsupported gramlink/noisy-base version 2 (this build reads version 1)".into()),
        ("no format field", "merge {na.json} {na_noformat.json} -o OUT", "no \"format\" field".into()),
        ("gram off the alphabet", "merge {na.json} {na_badgram.json} -o OUT", "is not a gram of lengths".into()),
        ("overspent budget claimed", "merge {na.json} {na_overspent.json} -o OUT", "it claims to spend 99".into()),
        ("different alphabets", "merge {na.json} {nb_alpha.json} -o OUT", "bases are incompatible".into()),
        ("merge k = 0", "merge {na.json} {nb.json} --k 0 -o OUT", "k must be at least 1".into()),
        // ---- shared base and keys (embed)
        ("noisy base given as shared", "embed -i {a.txt} --base {na.json} -o OUT", "wrong message kind: expected gramlink/shared-base".into()),
        ("tampered shared base", "embed -i {a.txt} --base {s_tampered.json} -o OUT", "shared-base fingerprint mismatch".into()),
        ("forged fingerprint", "embed -i {a.txt} --base {s_badfp.json} -o OUT", "shared-base fingerprint mismatch".into()),
        ("key file too short", "embed -i {a.txt} --base {s.json} --key-file {k_short.hex} -o OUT", "invalid key: a key is 64 hex digits (32 bytes); found 4 characters".into()),
        ("key not hex", "embed -i {a.txt} --base {s.json} --key-file {k_nothex.hex} -o OUT", "invalid key: not hex".into()),
        ("all-zero key", "embed -i {a.txt} --base {s.json} --key-file {k_zero.hex} -o OUT", "the all-zero key is refused".into()),
        ("short passphrase", "embed -i {a.txt} --base {s.json} --passphrase-file {pass_short.txt} -o OUT", "invalid key: the passphrase has 6 chars; at least 8 are needed".into()),
        ("key file missing", "embed -i {a.txt} --base {s.json} --key-file {nope.hex} -o OUT", "cannot read".into()),
        ("key and passphrase", "embed -i {a.txt} --base {s.json} --key-file {k1.hex} --passphrase-file {pass_short.txt} -o OUT", "cannot be used with".into()),
        ("global threshold without global mode", "embed -i {a.txt} --base {s.json} --global-threshold 1 -o OUT", "--global-threshold goes with --threshold global".into()),
        ("unkeyed export without --no-key", "embed -i {a.txt} --base {s.json} -o OUT", "key required: unkeyed vectors are public functions".into()),
        ("--no-key with a key", "embed -i {a.txt} --base {s.json} --key-file {k1.hex} --no-key -o OUT", "give a key or the opt-out to export unkeyed vectors, not both".into()),
        // ---- vector batches (match)
        ("B's batch as A (no thresholds)", "match {eb.bin} {eb.bin} -o OUT", "has no thresholds: embed it as party A".into()),
        ("binary cut in the preamble", "match {ea_cut5.bin} {eb.bin} -o OUT", "binary vector batch: 5 bytes, shorter than the 12-byte preamble".into()),
        ("binary cut in the header", "match {ea_cuthdr.bin} {eb.bin} -o OUT", "binary vector batch: header of".into()),
        ("binary cut in the numbers", "match {ea_cutnums.bin} {eb.bin} -o OUT", "bytes of numbers".into()),
        ("binary with trailing bytes", "match {ea_trailing.bin} {eb.bin} -o OUT", "3 trailing bytes".into()),
        ("binary version 9", "match {ea_v9.bin} {eb.bin} -o OUT", "unsupported gramlink/vector-batch version 9".into()),
        ("binary header length 4 GiB", "match {ea_hugehdr.bin} {eb.bin} -o OUT", "binary vector batch: header of 4294967295 bytes announced".into()),
        ("magic only", "match {magic_only.bin} {eb.bin} -o OUT", "shorter than the 12-byte preamble".into()),
        ("empty batch file", "match {empty.txt} {eb.bin} -o OUT", "truncated party A's gramlink/vector-batch".into()),
        ("shared base given as batch", "match {s.json} {eb.bin} -o OUT", "wrong message kind: expected gramlink/vector-batch, found gramlink/shared-base".into()),
        ("JSON batch version 1 (older, dense)", "match {ea_v1.json} {eb.bin} -o OUT", "unsupported gramlink/vector-batch version 1 (this build reads version 2)".into()),
        ("binary batch version 1 (older, dense)", "match {ea_v1.bin} {eb.bin} -o OUT", "unsupported gramlink/vector-batch version 1 (this build reads version 2)".into()),
        ("sparse gram id out of range", "match {ea_gram_range.json} {eb.bin} -o OUT", "row 1: gram id 1000000 is out of range".into()),
        ("sparse gram ids not ascending", "match {ea_gram_order.json} {eb.bin} -o OUT", "row 1: gram ids are not ascending (3 then 3)".into()),
        ("sparse count of zero", "match {ea_gram_zero.json} {eb.bin} -o OUT", "row 1: gram 2 has count 0".into()),
        ("duplicate ids in batch", "match {ea_dupid.json} {eb.bin} -o OUT", "is used twice".into()),
        ("negative threshold", "match {ea_negth.json} {eb.bin} -o OUT", "threshold of record 1 is -1 (must be finite and >= 0)".into()),
        ("dimension overflow", "match {ea_hugedim.json} {eb.bin} -o OUT", "gram lengths for dimension 9223372036854775807".into()),
        ("count disagrees with ids", "match {ea_count.json} {eb.bin} -o OUT", "count says 3 but there are 400 ids".into()),
        ("vectors one row short", "match {ea_fewvec.json} {eb.bin} -o OUT", "400 ids but 399 sparse rows".into()),
        ("unknown party", "match {ea_party.json} {eb.bin} -o OUT", r#"party must be one letter, "A" to "Z", not "C1""#.into()),
        ("malformed fingerprint", "match {ea_badfp.json} {eb.bin} -o OUT", "vector batch: fingerprint".into()),
        ("different shared bases", "match {ea.bin} {eb20.bin} -o OUT", format!("shared-base fingerprint mismatch: party B's vector batch was made with base {fp20}, expected {fp_shared}")),
        ("keyed A, unkeyed B", "match {ea_k1.bin} {eb.bin} -o OUT", "transform mismatch: party A's batch is keyed but party B's is not".into()),
        ("different keys", "match {ea_k1.bin} {eb_k2.bin} -o OUT", "transform mismatch: the batches were transformed with different keys".into()),
        ("unknown transform label", "match {ea_badlabel.json} {eb.bin} -o OUT", "unknown transform \"rot13\"".into()),
        ("keyed label on an odd dimension", "match {ea_unkeyed_label.json} {eb.bin} -o OUT", "a rotated batch has a power-of-two dimension".into()),
        // ---- whole runs
        ("link with an empty B", "link {a.txt} {empty.txt} -o OUT", "is empty: it holds no records".into()),
        ("eval with huge k", "lab eval --data {a.txt} --k 99999999999", "is too large (at most 100000)".into()),
    ];
    assert!(table.len() >= 40, "the catalogue has {} cases", table.len());
    let mut failures = Vec::new();
    for (i, (name, line, expect)) in table.iter().enumerate() {
        let out = f.p(&format!("out{i}"));
        let case = Case { name, args: args(&f, line, &out), expect: expect.clone() };
        if let Err(e) = check(&case, Path::new(&out)) {
            failures.push(format!("{}: {e}", case.name));
        }
    }
    assert!(failures.is_empty(), "{} of {} cases failed:\n{}", failures.len(), table.len(), failures.join("\n"));
    eprintln!("{} bad inputs, each with its exact error", table.len());
}

fn check(case: &Case, out: &Path) -> Result<(), String> {
    let o = gramlink(&case.args);
    let err = String::from_utf8_lossy(&o.stderr);
    if o.status.success() {
        return Err(format!("succeeded; stderr {err:?}"));
    }
    if err.contains("panicked") {
        return Err(format!("panicked: {err}"));
    }
    if !err.contains(&case.expect) {
        return Err(format!("stderr {err:?} lacks {:?}", case.expect));
    }
    if out.exists() {
        return Err("left an output file".into());
    }
    let dir: PathBuf = out.parent().unwrap().to_path_buf();
    let tmp: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().starts_with(".tmp"))
        .collect();
    if !tmp.is_empty() {
        return Err(format!("left temporary files {tmp:?}"));
    }
    Ok(())
}
