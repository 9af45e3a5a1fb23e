//! Each party writes its dates its own way: `link --schema` reads a file's
//! format found in its values (said on stderr), or the one the party names
//! (`--date-format-a`, `--date-format-b`), the schema shared unchanged.
#![cfg(not(target_arch = "wasm32"))]

mod common;
use common::gramlink;

const SCHEMA: &str = r#"version = 1
id = "id"
epsilon = 1.0

[[field]]
name = "given"
kind = "name"

[[field]]
name = "surname"
kind = "name"

[[field]]
name = "date_of_birth"
kind = "date"
format = "YYYYMMDD"
invalid = "missing"
"#;

const GIVEN: [&str; 8] = ["mary", "john", "ahmed", "li", "olga", "pedro", "grace", "tomas"];
const SURNAME: [&str; 6] = ["smith", "nguyen", "kowalski", "okafor", "garcia", "berg"];

/// The same 48 people, each party's file with its dates written by its `date`
/// of (year, month, day).
fn people(date: impl Fn(usize, usize, usize) -> String) -> String {
    let mut out = "id,given,surname,date_of_birth\n".to_string();
    for i in 0..48 {
        let (g, s) = (GIVEN[i % 8], SURNAME[i / 8]);
        out.push_str(&format!("p{i},{g},{s},{}\n", date(1940 + i, 1 + i % 12, 1 + (i * 7) % 28)));
    }
    out
}

/// The same 48 people: party A writes dates `YYYYMMDD`, party B `MM/DD/YYYY`.
fn files(dir: &std::path::Path) -> (String, String, String) {
    let a = people(|y, m, d| format!("{y:04}{m:02}{d:02}"));
    let b = people(|y, m, d| format!("{m:02}/{d:02}/{y:04}"));
    let write = |name: &str, text: &str| {
        let p = dir.join(name);
        std::fs::write(&p, text).unwrap();
        p.display().to_string()
    };
    (write("schema.toml", SCHEMA), write("a.csv", &a), write("b.csv", &b))
}

/// `link A B --schema S` (`args`) into `out`: B's dates said to be `said`
/// ("the file's dates are …"), nothing said of A's, at least 45 of the 48
/// people linked; the pairs.
fn linked_saying(args: &[&str], out: &str, said: &str) -> String {
    let (a, b) = (args[0], args[1]);
    let o = gramlink(&[&["link"], args, &["--seed", "1", "-o", out]].concat());
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{stderr}");
    assert!(stderr.contains(&format!("{b}: field date_of_birth: the file's dates are {said}")), "{stderr}");
    assert!(!stderr.contains(&format!("{a}: field")), "{stderr}");
    let pairs = std::fs::read_to_string(out).unwrap();
    let right = (0..48).filter(|i| pairs.lines().any(|l| l.starts_with(&format!("p{i},p{i},")))).count();
    assert!(right >= 45, "{right} of 48 people linked:\n{pairs}");
    pairs
}

#[test]
fn two_files_with_their_own_date_formats_link_under_one_schema() {
    let dir = tempfile::tempdir().unwrap();
    let (schema, a, b) = files(dir.path());
    let out = dir.path().join("pairs.csv").display().to_string();
    let pairs =
        linked_saying(&[&a, &b, "--schema", &schema], &out, "MM/DD/YYYY (48 of 48 values), not the schema's YYYYMMDD");

    // the format B names is B's: the same link, and nothing to say
    let o = gramlink(&[
        "link",
        &a,
        &b,
        "--schema",
        &schema,
        "--seed",
        "1",
        "--date-format-b",
        "date_of_birth=MM/DD/YYYY",
        "-o",
        &out,
    ]);
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{stderr}");
    assert!(!stderr.contains("the file's dates are"), "{stderr}");
    assert_eq!(std::fs::read_to_string(&out).unwrap(), pairs);

    // a named format is never replaced: none of B's dates read as YYYYMMDD
    let bad = dir.path().join("bad.csv").display().to_string();
    let o = gramlink(&["link", &a, &b, "--schema", &schema, "--date-format-b", "date_of_birth=YYYYMMDD", "-o", &bad]);
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success());
    assert!(stderr.contains("no value is a date of format YYYYMMDD (row 1 has \"01/01/1940\")"), "{stderr}");
    // a flag that is not FIELD=FORMAT, or names no date field, is refused by name
    let o = gramlink(&["link", &a, &b, "--schema", &schema, "--date-format-a", "MM/DD/YYYY", "-o", &bad]);
    assert!(String::from_utf8_lossy(&o.stderr).contains("is not FIELD=FORMAT"));
    let o = gramlink(&["link", &a, &b, "--schema", &schema, "--date-format-a", "surname=MM/DD/YYYY", "-o", &bad]);
    assert!(String::from_utf8_lossy(&o.stderr).contains("\"surname\", which is not a date field"));
    assert!(!std::path::Path::new(&bad).exists());
}

#[test]
fn mine_takes_the_partys_own_date_format() {
    let dir = tempfile::tempdir().unwrap();
    let (schema, _, b) = files(dir.path());
    let out = dir.path().join("b.bases.json").display().to_string();
    let ledger = dir.path().join("b.ledger.json").display().to_string();
    let mine = |format: &str| {
        gramlink(&["mine", "--schema", &schema, "-i", &b, "--date-format", format, "--ledger", &ledger, "-o", &out])
    };
    let o = mine("date_of_birth=DD/MM/YYYY");
    // named day first: the months above 12 do not read, the rest do (missing)
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(!String::from_utf8_lossy(&o.stderr).contains("the file's dates are"));
}

#[test]
fn dots_and_eight_digits_month_first_link_without_a_schema_format() {
    // a schema without `format`: A writes DD.MM.YYYY (European), B MMDDYYYY (as US
    // forms without separators do); before, every one of B's dates read as YYYYMMDD and
    // went missing, unsaid
    let dir = tempfile::tempdir().unwrap();
    let (schema, _, _) = files(dir.path());
    std::fs::write(&schema, SCHEMA.replace("format = \"YYYYMMDD\"\n", "")).unwrap();
    let a = people(|y, m, d| format!("{d}.{m}.{y:04}"));
    let b = people(|y, m, d| format!("{m:02}{d:02}{y:04}"));
    let (pa, pb) = (dir.path().join("dots.csv"), dir.path().join("mmdd.csv"));
    std::fs::write(&pa, a).unwrap();
    std::fs::write(&pb, b).unwrap();
    let (pa, pb) = (pa.display().to_string(), pb.display().to_string());
    let out = dir.path().join("pairs.csv").display().to_string();
    // B's layout is found and said; A's dots are read by their shape, with nothing to say
    let said = "MMDDYYYY (48 of 48 values), not YYYYMMDD (eight digits";
    let pairs = linked_saying(&[&pa, &pb, "--schema", &schema], &out, said);
    let exact = pairs.lines().filter(|l| l.contains(",exact,") || l.ends_with(",exact")).count();
    assert!(exact > 0, "no date compared exact:\n{pairs}");
}
