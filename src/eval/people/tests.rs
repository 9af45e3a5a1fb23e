use super::*;

fn lists() -> Lists {
    let root = env!("CARGO_MANIFEST_DIR");
    let files: Vec<Vec<u8>> =
        (1..=3).map(|n| std::fs::read(format!("{root}/data/febrl/dataset{n}-a.csv")).unwrap()).collect();
    let names: Vec<String> =
        std::fs::read_to_string(format!("{root}/data/names.txt")).unwrap().lines().map(String::from).collect();
    Lists::from_febrl(&files.iter().map(|f| f.as_slice()).collect::<Vec<_>>(), &names).unwrap()
}

#[test]
fn records_depend_on_the_seed_and_their_index_only() {
    let l = lists();
    assert_eq!(person(&l, 7, 123), person(&l, 7, 123));
    assert_eq!(duplicate(&l, 7, 123), duplicate(&l, 7, 123));
    assert_ne!(person(&l, 7, 123), person(&l, 8, 123));
    assert_ne!(person(&l, 7, 123)[1..], person(&l, 7, 124)[1..]);
    assert_eq!(person(&l, 7, 5)[0], "rec-5-org");
    assert_eq!(duplicate(&l, 7, 5)[0], "rec-5-dup-0");
}

fn valid_date(d: &str) -> bool {
    d.len() == 8 && {
        let (y, m, day): (u32, u32, u32) = (d[..4].parse().unwrap(), d[4..6].parse().unwrap(), d[6..].parse().unwrap());
        let leap = y % 4 == 0 && (y % 100 != 0 || y % 400 == 0);
        (1..=12).contains(&m) && day >= 1 && day <= DAYS[m as usize - 1] + u32::from(m == 2 && leap)
    }
}

#[test]
fn originals_are_well_formed() {
    let l = lists();
    let mut empty = 0;
    for i in 0..2000 {
        let p = person(&l, 1, i);
        empty += p.iter().filter(|v| v.is_empty()).count();
        assert!(p[9].is_empty() || valid_date(&p[9]), "{:?}", p[9]);
        assert!(p[7].is_empty() || (p[7].len() == 4 && p[7].bytes().all(|b| b.is_ascii_digit())));
        assert!(p[10].is_empty() || p[10].len() == 7);
        assert!(p[8].is_empty() || l.states.contains(&p[8]));
    }
    // 3 % of 10 fields, and address_2 more often
    let share = empty as f64 / 20_000.0;
    assert!((0.03..0.09).contains(&share), "{share}");
}

#[test]
fn duplicates_carry_every_kind_of_error_and_few_of_them() {
    let l = lists();
    let (mut changed, mut swapped, mut lost, mut dates, mut typo1) = (0, 0, 0, 0, 0);
    let n = 3000;
    for i in 0..n {
        let (a, b) = (person(&l, 2, i), duplicate(&l, 2, i));
        let diff: Vec<usize> = (1..11).filter(|&f| a[f] != b[f]).collect();
        // three modifications touch at most six fields (a swap touches two)
        assert!(diff.len() <= 2 * MAX_ERRORS, "{a:?} {b:?}");
        changed += usize::from(!diff.is_empty());
        swapped += usize::from(!a[1].is_empty() && a[1] != a[2] && b[1] == a[2] && b[2] == a[1]);
        lost += (1..11).filter(|&f| !a[f].is_empty() && b[f].is_empty()).count();
        dates += usize::from(!b[9].is_empty() && a[9] != b[9]);
        typo1 += usize::from(crate::eval::corrupt::edit_distance(&a[2], &b[2]) == 1);
    }
    assert!(changed as f64 > 0.9 * n as f64, "{changed} of {n} changed");
    for (what, count) in [("swaps", swapped), ("missing", lost), ("dates", dates), ("one-edit surnames", typo1)] {
        assert!(count as f64 > 0.03 * n as f64, "{what}: {count} of {n}");
    }
}

#[test]
fn respelling_and_digit_errors_change_what_they_say() {
    let mut r = Randomness::seeded(3);
    assert_eq!(respell("philip", &[("ph", "f")], &mut r), "filip");
    assert_eq!(respell("anna", &[("ph", "f")], &mut r), "anna");
    for _ in 0..200 {
        let d = digit_error("1234567", &mut r);
        assert_eq!(d.len(), 7);
        assert_ne!(d, "1234567");
        let e = date_error("19800102", &mut r);
        assert_ne!(e, "19800102");
        assert_eq!(e.len(), 8);
    }
    assert_eq!(digit_error("", &mut r), "");
    assert_eq!(typo("", &mut r), "");
}

#[test]
fn lists_need_every_column() {
    let bad = b"rec_id, given_name\nrec-1-org, anna\n";
    let e = Lists::from_febrl(&[&bad[..]], &["SMITH".into()]).unwrap_err();
    assert!(e.contains("address_1"), "{e}");
    let e = Lists::from_febrl(&[], &["SMITH".into()]).unwrap_err();
    assert!(e.contains("given names"), "{e}");
}

#[test]
fn party_copies_have_their_own_errors_and_holders_follow_presence() {
    let l = lists();
    let n = 2000;
    let (mut differ_ab, mut differ_bc) = (0, 0);
    for i in 0..n {
        let (a, b, c) = (party_copy(&l, 3, i, 0), party_copy(&l, 3, i, 1), party_copy(&l, 3, i, 2));
        assert_eq!(a[0], format!("rec-{i}-0"));
        // party 0 holds the original; the others each their own duplicate
        assert_eq!(a[1..], person(&l, 3, i)[1..]);
        assert_eq!(b, party_copy(&l, 3, i, 1));
        differ_ab += usize::from(a[1..] != b[1..]);
        differ_bc += usize::from(b[1..] != c[1..]);
    }
    // every duplicate has one modification at least (a few undo themselves:
    // a swap of two equal names, a missing value that was missing)
    assert!(differ_ab > n as usize * 9 / 10 && differ_bc > n as usize * 9 / 10, "{differ_ab} {differ_bc}");
    let mut held = [0usize; 5];
    for i in 0..n {
        let h = holders(3, i, 5, 700);
        assert!(h != 0 && h < 1 << 5, "{h:b}");
        assert_eq!(h, holders(3, i, 5, 700));
        for (k, x) in held.iter_mut().enumerate() {
            *x += (h >> k & 1) as usize;
        }
        assert_eq!(holders(3, i, 5, 1000), 0b11111);
    }
    // 70 % each, within a wide margin of 2,000 draws
    assert!(held.iter().all(|&x| (1300..1500).contains(&x)), "{held:?}");
}
