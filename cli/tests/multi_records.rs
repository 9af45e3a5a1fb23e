//! Record batches of three parties through the CLI (issue 33): FEBRL 1's
//! originals (A), their duplicates (B) and a third party holding every other
//! original with its surname one edit off (C); every party mines, the three
//! bases merge, every party embeds under one key, and `match --schema s a b c`
//! clusters them, scored against the known persons.
#![cfg(not(target_arch = "wasm32"))]

mod common;
use common::{f1_of, gramlink, ok};
use std::collections::HashSet;

fn febrl(name: &str) -> String {
    format!("{}/data/febrl/{name}", concat!(env!("CARGO_MANIFEST_DIR"), "/.."))
}

/// The person of a FEBRL id: `rec-223-org`, `rec-223-dup-0` and C's `c-223` are person 223.
fn person(id: &str) -> &str {
    id.split('-').nth(1).unwrap()
}

#[test]
fn three_parties_record_batches_cluster_by_person() {
    three_parties(false);
}

/// The same with `blocking = "auto"`: each pair of parties' rules are designed
/// from that pair's batches (src/record/block_design.rs).
#[test]
fn three_parties_cluster_with_designed_blocks() {
    three_parties(true);
}

fn three_parties(designed: bool) {
    let d = tempfile::tempdir().unwrap();
    let p = |n: &str| d.path().join(n).display().to_string();
    // party C: every other original, its surname one edit off, its own ids
    party_c(&p("c.csv"), |cells| {
        if cells[2].trim().len() > 3 {
            cells[2].pop();
        }
    });
    let inputs = [febrl("dataset1-a.csv"), febrl("dataset1-b.csv"), p("c.csv")];
    let mut schema = febrl("schema.toml");
    if designed {
        let text = std::fs::read_to_string(&schema).unwrap();
        let fields = &text[..text.find("[[block]]").unwrap()];
        std::fs::write(p("auto.toml"), fields.replacen("epsilon = 0.1\n", "epsilon = 0.1\nblocking = \"auto\"\n", 1))
            .unwrap();
        schema = p("auto.toml");
        assert!(std::fs::read_to_string(&schema).unwrap().contains("blocking = \"auto\""));
    }
    embed_three(&p, &schema, &inputs);
    // the truth: id, person
    let mut truth = String::from("id,person\n");
    let mut records = 0;
    for input in &inputs {
        for line in std::fs::read_to_string(input).unwrap().lines().skip(1) {
            let id = line.split(',').next().unwrap().trim();
            truth.push_str(&format!("{id},{}\n", person(id)));
            records += 1;
        }
    }
    std::fs::write(p("truth.csv"), truth).unwrap();
    let (ga, gb, gc, out) = (p("a.glrb"), p("b.glrb"), p("c.glrb"), p("clusters.csv"));
    let o = ok(&["match", "--schema", &schema, &ga, &gb, &gc, "--truth", &p("truth.csv"), "-o", &out]);
    let report = String::from_utf8_lossy(&o.stdout).into_owned();
    let f1 = |what: &str| f1_of(&report, what);
    assert!(f1("pairs:") >= 0.95 && f1("clusters:") >= 0.9, "{report}");
    assert!(report.contains("persons in 3 parties: "), "{report}");
    // two batches against the same persons truth: the pairs between them are scored
    let two = ok(&["match", "--schema", &schema, &ga, &gb, "--truth", &p("truth.csv"), "-o", &p("two.csv")]);
    let said = String::from_utf8_lossy(&two.stderr).into_owned();
    assert!(f1_of(&said, "against") >= 0.9, "{said}");
    // the shape of the one-string clusters: one row per record, one record per party in a cluster
    let text = std::fs::read_to_string(&out).unwrap();
    assert!(text.starts_with("party,id,cluster\n"));
    let rows: Vec<Vec<&str>> = text.lines().skip(1).map(|l| l.split(',').collect()).collect();
    assert_eq!(rows.len(), records);
    let mut seen = HashSet::new();
    assert!(rows.iter().all(|r| seen.insert((r[2], r[0]))), "two records of one party in a cluster");
    // one party's batch twice is refused by name
    let r = gramlink(&["match", "--schema", &schema, &ga, &gb, &ga, "-o", &p("x.csv")]);
    assert_eq!(r.status.code(), Some(4));
    assert!(
        String::from_utf8_lossy(&r.stderr).contains("error[BATCH_TWICE]"),
        "{}",
        String::from_utf8_lossy(&r.stderr)
    );
}

/// Party C's file at `path`: every other FEBRL 1 original under its own id
/// (`c-223`), each row's cells changed by `edit`.
fn party_c(path: &str, edit: impl Fn(&mut Vec<String>)) {
    let originals = std::fs::read_to_string(febrl("dataset1-a.csv")).unwrap();
    let mut lines = originals.lines();
    let mut c = format!("{}\n", lines.next().unwrap());
    for line in lines.step_by(2) {
        let mut cells: Vec<String> = line.split(',').map(str::to_string).collect();
        cells[0] = format!("c-{}", person(&cells[0]));
        edit(&mut cells);
        c.push_str(&cells.join(","));
        c.push('\n');
    }
    std::fs::write(path, c).unwrap();
}

/// Every party of three (inputs a, b, c) mines under `schema`, the bases
/// merge (the same base twice is refused), every party embeds under one key:
/// `a.glrb`, `b.glrb`, `c.glrb` where `p` puts files.
fn embed_three(p: &dyn Fn(&str) -> String, schema: &str, inputs: &[String]) {
    let schema = schema.to_string();
    ok(&["keygen", "-o", &p("key")]);
    for (party, input) in ["a", "b", "c"].iter().zip(inputs) {
        let (out, ledger) = (p(&format!("{party}.bases.json")), p(&format!("{party}.ledger.json")));
        ok(&["mine", "--schema", &schema, "-i", input, "--ledger", &ledger, "-o", &out]);
    }
    let (na, nb, nc) = (p("a.bases.json"), p("b.bases.json"), p("c.bases.json"));
    ok(&["merge", "--schema", &schema, &na, &nb, &nc, "-o", &p("shared.json")]);
    let twice = gramlink(&["merge", "--schema", &schema, &na, &nb, &na, "-o", &p("twice.json")]);
    assert!(String::from_utf8_lossy(&twice.stderr).contains("error[BASE_TWICE]"));
    let (base, key) = (p("shared.json"), p("key"));
    for (party, input) in ["a", "b", "c"].iter().zip(inputs) {
        let out = p(&format!("{party}.glrb"));
        let mut args = vec!["embed", "--schema", &schema, "-i", input, "--base", &base, "--party", party];
        args.extend(["--key-file", &key, "--keep-ids", "-o", &out]);
        ok(&args);
    }
}

/// `lab corrupt --people N --parties 3` (person records in FEBRL's columns,
/// each person held by each party with probability 0.7): linked under the
/// bundled schema, with the generator's truth, into clusters of any subset
/// of the parties.
#[test]
fn generated_people_of_three_parties_cluster_by_person() {
    let d = tempfile::tempdir().unwrap();
    let p = |n: &str| d.path().join(n).display().to_string();
    let names = format!("{}/data/names.txt", concat!(env!("CARGO_MANIFEST_DIR"), "/.."));
    let dir = p("people");
    ok(&["lab", "corrupt", "--data", &names, "--people", "400", "--parties", "3", "--seed", "9", "--out-dir", &dir]);
    let inputs: Vec<String> = ["a", "b", "c"].iter().map(|x| format!("{dir}/party_{x}.csv")).collect();
    let sizes: Vec<usize> = inputs.iter().map(|f| std::fs::read_to_string(f).unwrap().lines().count() - 1).collect();
    // each party holds about 70 % of the 400 persons
    assert!(sizes.iter().all(|&n| (230..330).contains(&n)), "{sizes:?}");
    let truth = std::fs::read_to_string(format!("{dir}/truth.csv")).unwrap();
    assert!(truth.starts_with("party,id,person\n"));
    assert_eq!(truth.lines().count() - 1, sizes.iter().sum::<usize>());
    let schema = febrl("schema.toml");
    embed_three(&p, &schema, &inputs);
    let (ga, gb, gc) = (p("a.glrb"), p("b.glrb"), p("c.glrb"));
    let o =
        ok(&["match", "--schema", &schema, &ga, &gb, &gc, "--truth", &format!("{dir}/truth.csv"), "-o", &p("c.csv")]);
    let report = String::from_utf8_lossy(&o.stdout).into_owned();
    assert!(f1_of(&report, "pairs:") >= 0.95 && f1_of(&report, "clusters:") >= 0.9, "{report}");
    // persons held by two parties and by all three are both found
    for k in [2, 3] {
        let line = report.lines().find(|l| l.starts_with(&format!("persons in {k} parties: "))).unwrap_or_default();
        let found: usize = line.split_whitespace().nth(4).and_then(|x| x.parse().ok()).unwrap_or(0);
        assert!(found > 50, "{report}");
    }
}

/// A party that writes a field its own way ("xwa" where the others write "wa"):
/// no candidate of its pairs agrees on it, and the matcher says so for each of
/// those pairs of parties, not for the others (before, nothing was said).
#[test]
fn a_field_one_party_writes_its_own_way_is_said_per_pair() {
    let d = tempfile::tempdir().unwrap();
    let p = |n: &str| d.path().join(n).display().to_string();
    let schema = "version = 1\nid = \"rec_id\"\nepsilon = 0.1\n\n[[field]]\nname = \"given_name\"\nkind = \"name\"\n\n\
                  [[field]]\nname = \"surname\"\nkind = \"name\"\n\n[[field]]\nname = \"date_of_birth\"\nkind = \"date\"\n\
                  invalid = \"missing\"\n\n[[field]]\nname = \"state\"\nkind = \"keyed\"\n";
    std::fs::write(p("s.toml"), schema).unwrap();
    party_c(&p("c.csv"), |cells| cells[8] = format!("x{}", cells[8].trim()));
    embed_three(&p, &p("s.toml"), &[febrl("dataset1-a.csv"), febrl("dataset1-b.csv"), p("c.csv")]);
    let o = ok(&["match", "--schema", &p("s.toml"), &p("a.glrb"), &p("b.glrb"), &p("c.glrb"), "-o", &p("out.csv")]);
    let said = String::from_utf8_lossy(&o.stderr).into_owned();
    for pair in ["A and C", "C and B"] {
        let want = format!("warning: fit: parties {pair}: field \"state\": no candidate pair agrees at any level (");
        assert!(said.contains(&want), "{pair}: {said}");
    }
    assert!(!said.contains("parties A and B: field \"state\""), "{said}");
}
