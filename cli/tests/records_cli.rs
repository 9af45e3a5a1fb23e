//! The record protocol one role at a time through the CLI (`mine`, `merge`,
//! `embed`, `match` with `--schema`): FEBRL 1 end to end with fresh secure
//! noise, and each bad input refused by name with nothing written; every
//! command with `--schema` refuses beside it exactly the flags of one string.
#![cfg(not(target_arch = "wasm32"))]

mod common;
use common::{gramlink, ok};
use std::path::{Path, PathBuf};
use std::process::Command;

/// Runs a command that must fail, and returns its message.
fn fails(args: &[&str], out: &Path) -> String {
    let o = gramlink(args);
    assert!(!o.status.success(), "{args:?} succeeded");
    assert!(!out.exists(), "{args:?} wrote {}", out.display());
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn febrl(name: &str) -> String {
    format!("{}/data/febrl/{name}", concat!(env!("CARGO_MANIFEST_DIR"), "/.."))
}

struct Run {
    dir: tempfile::TempDir,
}

impl Run {
    fn p(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }
    fn s(&self, name: &str) -> String {
        self.p(name).display().to_string()
    }
}

/// Both parties' steps on FEBRL 1 with a shared key, up to the two batches.
fn batches() -> Run {
    let r = Run { dir: tempfile::tempdir().unwrap() };
    let schema = febrl("schema.toml");
    ok(&["keygen", "-o", &r.s("key")]);
    for party in ["a", "b"] {
        let csv = febrl(&format!("dataset1-{party}.csv"));
        let (out, ledger) = (r.s(&format!("{party}.bases.json")), r.s(&format!("{party}.ledger.json")));
        ok(&["mine", "--schema", &schema, "-i", &csv, "--ledger", &ledger, "-o", &out]);
    }
    ok(&["merge", "--schema", &schema, &r.s("a.bases.json"), &r.s("b.bases.json"), "-o", &r.s("shared.json")]);
    for party in ["a", "b"] {
        let csv = febrl(&format!("dataset1-{party}.csv"));
        let out = r.s(&format!("{party}.glrb"));
        let base = r.s("shared.json");
        let key = r.s("key");
        ok(&[
            "embed",
            "--schema",
            &schema,
            "-i",
            &csv,
            "--base",
            &base,
            "--party",
            party,
            "--key-file",
            &key,
            "-o",
            &out,
        ]);
    }
    r
}

#[test]
fn the_roles_one_at_a_time_link_febrl_1() {
    let r = batches();
    let schema = febrl("schema.toml");
    let truth = febrl("dataset1-truth.csv");
    let o = ok(&["match", "--schema", &schema, &r.s("a.glrb"), &r.s("b.glrb"), "--json", "-o", &r.s("pairs.csv")]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["private"], true, "secure noise: the batches are private");
    let pairs = std::fs::read_to_string(r.p("pairs.csv")).unwrap();
    let header = pairs.lines().next().unwrap();
    assert!(header.starts_with("a_id,b_id,class,weight,probability,swapped,given_name,surname"), "{header}");
    assert_eq!(pairs.lines().count() as u64, 1 + v["matches"].as_u64().unwrap() + v["possible"].as_u64().unwrap());
    // the batches carried random pseudonyms, not the owners' record ids
    assert!(!pairs.contains("rec-"), "own ids sent");
    // each owner's map (beside its batch) gives the pairs of its own ids back
    let (ma, mb) = (r.s("a.glrb.ids.csv"), r.s("b.glrb.ids.csv"));
    ok(&["unmap", &r.s("pairs.csv"), "--a-map", &ma, "--b-map", &mb, "-o", &r.s("own.csv")]);
    let own = std::fs::read_to_string(r.p("own.csv")).unwrap();
    assert_eq!(own.lines().next(), Some(header), "the columns are kept");
    assert_eq!(own.lines().count(), pairs.lines().count());
    let truth: std::collections::HashSet<(String, String)> = std::fs::read_to_string(&truth)
        .unwrap()
        .lines()
        .skip(1)
        .map(|l| l.split_once(',').map(|(a, b)| (a.to_string(), b.to_string())).unwrap())
        .collect();
    let rows: Vec<(String, String, String)> = own
        .lines()
        .skip(1)
        .map(|l| {
            let c: Vec<&str> = l.split(',').collect();
            (c[0].to_string(), c[1].to_string(), c[2].to_string())
        })
        .collect();
    let matches: Vec<_> = rows.iter().filter(|r| r.2 == "M").map(|r| (r.0.clone(), r.1.clone())).collect();
    let true_matches = matches.iter().filter(|p| truth.contains(p)).count() as f64;
    let (precision, recall) = (true_matches / matches.len() as f64, true_matches / truth.len() as f64);
    let f1 = 2.0 * precision * recall / (precision + recall);
    assert!(f1 >= 0.99, "F1 {f1} with the tool's own thresholds, over the mapped-back pairs");
    let found: std::collections::HashSet<_> = rows.iter().map(|r| (r.0.clone(), r.1.clone())).collect();
    assert!(truth.iter().all(|t| found.contains(t)), "every true pair among M and P");
}

/// `gramlink blocks`: the matcher's analysis on stderr and the designed rules
/// as `[[block]]` TOML on stdout (the schema's fingerprint covers its rules, so
/// they serve the next linkage's schema; `blocking = "auto"` designs them at
/// match time: tests/block_design.rs links with them).
#[test]
fn blocks_prints_the_design_and_its_rules() {
    let r = batches();
    let schema = febrl("schema.toml");
    let o = ok(&["blocks", "--schema", &schema, &r.s("a.glrb"), &r.s("b.glrb")]);
    let report = String::from_utf8_lossy(&o.stderr);
    assert!(report.contains("<- chosen #1") && report.contains("estimated pairs completeness"), "{report}");
    // the bundled schema's `postcode equal` alone is warned about
    assert!(report.contains("warning: the block rule \"postcode equal\" alone"), "{report}");
    #[derive(serde::Deserialize)]
    struct Blocks {
        block: Vec<gramlink::record::schema::BlockRule>,
    }
    let rules: Blocks = toml::from_str(&String::from_utf8(o.stdout).unwrap()).unwrap();
    let schema_fields: gramlink::record::Schema = toml::from_str(&std::fs::read_to_string(&schema).unwrap()).unwrap();
    // a sent field of the schema (state is suppressed)
    let fields: Vec<&str> =
        schema_fields.fields.iter().filter(|f| f.kind != "suppress").map(|f| f.name.as_str()).collect();
    assert!(!rules.block.is_empty());
    for rule in &rules.block {
        assert!(rule.terms().iter().all(|t| fields.contains(&t.field.as_str())), "{rule:?}");
        assert!(report.contains(&format!("{}: ", gramlink::record::blocking::rule_name(&schema_fields, rule))));
    }
    // batches of another party order are refused as by match
    let e = fails(&["blocks", "--schema", &schema, &r.s("b.glrb"), &r.s("a.glrb")], &r.p("none"));
    assert!(e.contains("party A"), "{e}");
}

#[test]
fn the_record_steps_refuse_bad_input_by_name() {
    let r = batches();
    let schema = febrl("schema.toml");
    let csv = febrl("dataset1-a.csv");
    let out = r.p("out");
    let o = out.display().to_string();

    // (the flags of one string beside a schema: every_flag_of_one_string_is_refused_beside_a_schema)

    // a records CSV is streamed: one cut off inside a quoted field is named at the end of
    // the stream (its line, the file), and a file that is not there is an IO error
    let cut = format!("{}rec-9-org,\"open", std::fs::read_to_string(&csv).unwrap());
    std::fs::write(r.p("cut.csv"), cut).unwrap();
    let e = fails(&["mine", "--schema", &schema, "-i", &r.s("cut.csv"), "--seed", "1", "-o", &o], &out);
    assert!(
        e.contains("MALFORMED_CSV") && e.contains("cut.csv: the quoted field opened on line 502 is never closed"),
        "{e}"
    );
    let e = fails(&["mine", "--schema", &schema, "-i", &r.s("absent.csv"), "--seed", "1", "-o", &o], &out);
    assert!(e.contains("error[IO]: cannot read") && e.contains("absent.csv"), "{e}");

    // bases mined under another schema
    let text = std::fs::read_to_string(&schema).unwrap().replace("epsilon = 0.1", "epsilon = 0.2");
    assert!(text.contains("epsilon = 0.2"), "the FEBRL schema states its epsilon");
    std::fs::write(r.p("other.toml"), text).unwrap();
    let other_s = r.s("other.toml");
    let e = fails(&["merge", "--schema", &other_s, &r.s("a.bases.json"), &r.s("b.bases.json"), "-o", &o], &out);
    assert!(e.contains("schema fingerprint") && e.contains("a.bases.json"), "{e}");

    // a one-string noisy base where record bases belong
    let names = format!("{}/data/names.txt", concat!(env!("CARGO_MANIFEST_DIR"), "/.."));
    // its ledger in the scratch folder, not beside the repository's data
    ok(&["mine", "-i", &names, "--ledger", &r.s("names.ledger.json"), "-o", &r.s("one.json")]);
    let e = fails(&["merge", "--schema", &schema, &r.s("one.json"), &r.s("b.bases.json"), "-o", &o], &out);
    assert!(e.contains("gramlink/record-noisy-bases"), "{e}");

    // embedded fields leave keyed: no key is refused by the export policy; with --no-key,
    // the keyed field still needs the key
    let base = r.s("shared.json");
    let e = fails(&["embed", "--schema", &schema, "-i", &csv, "--base", &base, "-o", &o], &out);
    assert!(e.contains("KEY_REQUIRED") && e.contains("--no-key"), "{e}");
    // (state is left out in the FEBRL schema; keyed here)
    let keyed = std::fs::read_to_string(&schema)
        .unwrap()
        .replace("name = \"state\"\nkind = \"suppress\"", "name = \"state\"\nkind = \"keyed\"");
    assert!(keyed.contains("kind = \"keyed\""));
    std::fs::write(r.p("keyed-state.toml"), keyed).unwrap();
    let keyed = r.s("keyed-state.toml");
    for (seed, name) in [("1", "ka.json"), ("2", "kb.json")] {
        ok(&["mine", "--schema", &keyed, "-i", &csv, "--seed", seed, "-o", &r.s(name)]);
    }
    ok(&["merge", "--schema", &keyed, &r.s("ka.json"), &r.s("kb.json"), "-o", &r.s("kshared.json")]);
    let (kbase, ko) = (r.s("kshared.json"), r.s("k-out"));
    let e = fails(&["embed", "--schema", &keyed, "-i", &csv, "--base", &kbase, "--no-key", "-o", &ko], &r.p("k-out"));
    assert!(e.contains("\"state\" is keyed"), "{e}");

    // an id column that is a field's column: its values would leave as ids
    let text = std::fs::read_to_string(&schema).unwrap().replace("id = \"rec_id\"", "id = \"surname\"");
    assert!(text.contains("id = \"surname\""), "the FEBRL schema names its id column");
    std::fs::write(r.p("id-is-field.toml"), text).unwrap();
    let e = fails(&["embed", "--schema", &r.s("id-is-field.toml"), "-i", &csv, "--base", &base, "-o", &o], &out);
    assert!(e.contains("ID_IS_LINKED_COLUMN") && e.contains("surname"), "{e}");

    // parties with different keys
    ok(&["keygen", "-o", &r.s("key2")]);
    let csv_b = febrl("dataset1-b.csv");
    let b2 = r.s("b2.glrb");
    ok(&[
        "embed",
        "--schema",
        &schema,
        "-i",
        &csv_b,
        "--base",
        &base,
        "--party",
        "b",
        "--key-file",
        &r.s("key2"),
        "-o",
        &b2,
    ]);
    let e = fails(&["match", "--schema", &schema, &r.s("a.glrb"), &b2, "-o", &o], &out);
    assert!(e.contains("different keys"), "{e}");

    // batches swapped, and a batch damaged
    let e = fails(&["match", "--schema", &schema, &r.s("b.glrb"), &r.s("a.glrb"), "-o", &o], &out);
    assert!(e.contains("party A's"), "{e}");
    let bytes = std::fs::read(r.p("b.glrb")).unwrap();
    std::fs::write(r.p("cut.glrb"), &bytes[..bytes.len() - 7]).unwrap();
    let e = fails(&["match", "--schema", &schema, &r.s("a.glrb"), &r.s("cut.glrb"), "-o", &o], &out);
    assert!(e.contains("cut.glrb"), "{e}");

    // a match under another schema
    let e = fails(&["match", "--schema", &other_s, &r.s("a.glrb"), &r.s("b.glrb"), "-o", &o], &out);
    assert!(e.contains("schema fingerprint"), "{e}");
}

// The flags of one string and a value each (flags without one: "").
const READ: &[(&str, &str)] = &[("format", "text"), ("column", "c"), ("id-column", "id"), ("alphabet", "letters")];
const PRESET: &[(&str, &str)] = &[("preset", "recommended")];
const MINE: &[(&str, &str)] = &[
    ("miner", "prefix-tree"),
    ("strategy", "hybrid"),
    ("epsilon", "1"),
    ("k", "3"),
    ("qmin", "1"),
    ("qmax", "3"),
    ("hmax", "5"),
    ("max-grams-per-record", "5"),
    ("public-q", "2"),
    ("padding", "true"),
];
const THRESHOLDS: &[(&str, &str)] = &[("ed", "1"), ("threshold", "sound"), ("global-threshold", "1")];
const RULE: &[(&str, &str)] = &[("rule", "ranked")];
const BATCH: &[(&str, &str)] = &[("send-thresholds", ""), ("json", "")];
const SCENARIO: &[(&str, &str)] = &[("data", "names.txt"), ("mean-hmax", ""), ("corrupt-ed", "1")];

/// A value clap takes for a flag valid beside `--schema` (the run then stops at
/// the missing schema file, past clap's checks).
fn accepted_value(flag: &str) -> &'static str {
    match flag {
        "party" => "b",
        "encoding" => "sketch",
        "reassign" => "true",
        f if f.starts_with("date-format") => "dob=YYYYMMDD",
        _ => "1",
    }
}

/// Each command with `--schema` (its other arguments, and the flags of one
/// string it refuses beside it): every flag of its `--help` is given beside
/// `--schema`, and clap refuses exactly the listed ones, by name.
#[test]
fn every_flag_of_one_string_is_refused_beside_a_schema() {
    let dir = tempfile::tempdir().unwrap();
    let commands: &[(&[&str], &[&str], &[&[(&str, &str)]])] = &[
        (&["mine"], &["-i", "in.csv", "-o", "out"], &[READ, PRESET, MINE]),
        (&["merge"], &["a.json", "b.json", "-o", "out"], &[PRESET, MINE]),
        (&["embed"], &["-i", "in.csv", "--base", "s.json", "-o", "out"], &[READ, PRESET, THRESHOLDS, BATCH]),
        (&["match"], &["a.glrb", "b.glrb", "-o", "out"], &[PRESET, RULE]),
        (&["link"], &["a.csv", "b.csv", "-o", "out"], &[READ, PRESET, MINE, THRESHOLDS, RULE]),
        (&["lab", "eval"], &["--truth", "t.csv", "a.csv", "b.csv"], &[SCENARIO, PRESET, MINE, THRESHOLDS, RULE]),
        (&["twin"], &["in.csv", "-o", "out"], &[READ]),
    ];
    let run = |args: &[&str]| {
        let o = Command::new(env!("CARGO_BIN_EXE_gramlink")).current_dir(dir.path()).args(args).output().unwrap();
        (o.status.code(), String::from_utf8_lossy(&o.stderr).into_owned())
    };
    for &(command, rest, refused) in commands {
        let refused: Vec<(&str, &str)> = refused.iter().flat_map(|g| g.iter().copied()).collect();
        let help = String::from_utf8(gramlink(&[command, &["--help"]].concat()).stdout).unwrap();
        // the flags of the help page: "  -i, --input <INPUT>", "      --json"
        let flags: Vec<(&str, bool)> = help
            .lines()
            .filter(|l| l.starts_with("  -") || l.starts_with("      --"))
            .filter_map(|l| {
                let mut words = l.split_whitespace().skip_while(|w| !w.starts_with("--"));
                let flag = words.next()?.trim_start_matches("--");
                Some((flag, words.next().is_some_and(|w| w.starts_with('<'))))
            })
            .filter(|(f, _)| !["help", "schema"].contains(f) && !rest.contains(&format!("--{f}").as_str()))
            .collect();
        for (flag, _) in &refused {
            assert!(flags.iter().any(|(f, _)| f == flag), "{command:?} has no --{flag}");
        }
        for (flag, takes_value) in flags {
            let value = refused.iter().find(|(f, _)| *f == flag).map(|(_, v)| *v);
            let dashed = format!("--{flag}");
            let mut args = [command, rest, &["--schema", "s.toml", &dashed]].concat();
            match value {
                Some("") => {}
                Some(v) => args.push(v),
                None if takes_value => args.push(accepted_value(flag)),
                None => {}
            }
            let (status, e) = run(&args);
            if value.is_some() {
                // clap names the flag given ('--k <K>', '--json'), not a whole group
                let named = [format!("'--{flag}'"), format!("'--{flag} <")].iter().any(|n| e.contains(n.as_str()));
                let named = named && e.contains("'--schema <SCHEMA>'");
                assert!(status == Some(2) && e.contains("cannot be used with") && named, "{args:?}: {e}");
            } else {
                assert!(!e.contains("cannot be used with") && !e.contains("invalid value"), "{args:?}: {e}");
            }
        }
    }
}

#[test]
fn people_data_is_seeded_and_links_with_the_large_schema() {
    let r = Run { dir: tempfile::tempdir().unwrap() };
    let names = format!("{}/data/names.txt", concat!(env!("CARGO_MANIFEST_DIR"), "/.."));
    let dir = format!("{}/data/febrl", concat!(env!("CARGO_MANIFEST_DIR"), "/.."));
    let make = |tag: &str| {
        let (a, b, t) = (r.s(&format!("a{tag}.csv")), r.s(&format!("b{tag}.csv")), r.s(&format!("t{tag}.csv")));
        ok(&[
            "lab", "corrupt", "--data", &names, "--people", "3000", "--febrl", &dir, "--seed", "5", "--out-a", &a,
            "--out-b", &b, "--truth", &t,
        ]);
        (a, b, t)
    };
    let (a, b, t) = make("1");
    let (a2, b2, _) = make("2");
    for (x, y) in [(&a, &a2), (&b, &b2)] {
        assert_eq!(std::fs::read(x).unwrap(), std::fs::read(y).unwrap(), "the same seed makes the same file");
    }
    let text = std::fs::read_to_string(&b).unwrap();
    assert!(text.starts_with("rec_id,given_name,surname,street_number,address_1"), "FEBRL's columns");
    assert_eq!(text.lines().count(), 3001);
    let o = ok(&["lab", "eval", "--schema", &febrl("schema-large.toml"), &a, &b, "--truth", &t, "--json"]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let f1 = v["quality"]["matches"]["f1"].as_f64().unwrap();
    assert!(f1 >= 0.98, "F1 {f1}");

    let out = r.p("never.csv");
    let o_s = out.display().to_string();
    let e = fails(&["lab", "corrupt", "--data", &names, "--people", "0", "--out-a", &o_s, "--out-b", &o_s], &out);
    assert!(e.contains("--people"), "{e}");
    let e = fails(
        &[
            "lab",
            "corrupt",
            "--data",
            &names,
            "--people",
            "5",
            "--febrl",
            &r.s("nowhere"),
            "--out-a",
            &o_s,
            "--out-b",
            &o_s,
        ],
        &out,
    );
    assert!(e.contains("dataset1-a.csv"), "{e}");
}
