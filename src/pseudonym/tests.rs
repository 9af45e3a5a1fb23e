use super::*;

#[test]
fn pseudonyms_are_random_distinct_and_map_back() {
    let ids: Vec<String> = ["1", "2", "SMITH"].iter().map(|s| s.to_string()).collect();
    let m = pseudonymize(&ids, &Distinct::each(3), &mut Randomness::seeded(1));
    let ps = m.pseudonyms();
    assert_eq!(ps.len(), 3);
    assert!(ps.iter().all(|p| p.len() == PSEUDONYM_DIGITS && !ids.contains(p)));
    assert_ne!(ps, pseudonymize(&ids, &Distinct::each(3), &mut Randomness::seeded(2)).pseudonyms());
    let back = IdMap::from_csv(&m.to_csv().unwrap(), "map").unwrap();
    assert_eq!(back, m);
    // the matcher's pairs, unmapped on A's side only, then on both
    let (q1, q2) = ("00000000000000f1", "00000000000000f2");
    let pairs = format!("a_id,b_id,distance,cosine\n{},{q1},0.5,0.1\n{},{q2},0.0,0.0\n", ps[2], ps[0]);
    let b = IdMap::from_pairs([(q1, "b-one"), (q2, "b-two")], "B's map").unwrap();
    let only_a = String::from_utf8(unmap_pairs(pairs.as_bytes(), Some(&m), None).unwrap()).unwrap();
    assert_eq!(only_a, format!("a_id,b_id,distance,cosine\nSMITH,{q1},0.5,0.1\n1,{q2},0.0,0.0\n"));
    let both = String::from_utf8(unmap_pairs(pairs.as_bytes(), Some(&m), Some(&b)).unwrap()).unwrap();
    assert_eq!(both, "a_id,b_id,distance,cosine\nSMITH,b-one,0.5,0.1\n1,b-two,0.0,0.0\n");
    // a pseudonym of another map
    let e = unmap_pairs(pairs.as_bytes(), Some(&b), None).unwrap_err();
    assert_eq!(e.code(), "INVALID_FORMAT");
    assert!(IdMap::from_csv(b"a,b\n", "x").is_err());
    // what is not a pseudonym, or a repeated one, is named
    for (bad, says) in [
        ("pseudonym,id\nq1,x\n", "row 1: \"q1\" is not a pseudonym"),
        ("pseudonym,id\n00000000000000F1,x\n", "is not a pseudonym"),
    ] {
        let e = IdMap::from_csv(bad.as_bytes(), "map.csv").unwrap_err();
        assert_eq!(e.code(), "INVALID_FORMAT");
        assert!(e.to_string().contains(says), "{e}");
    }
    // a pair naming what is not a pseudonym at all
    let e = unmap_pairs(b"a_id,b_id\nSMITH,x\n", Some(&m), None).unwrap_err();
    assert!(e.to_string().contains("pair 1: A's pseudonym \"SMITH\" is not in its id map"), "{e}");
}

#[test]
fn the_policy_sends_pseudonyms_unless_told_to_keep_the_ids() {
    let ids: Vec<String> = ["7", "=SUM(A1)"].iter().map(|s| s.to_string()).collect();
    assert_eq!(IdPolicy::default(), IdPolicy::Pseudonyms);
    assert_eq!(IdPolicy::keep_if(true).apply(&ids, &Distinct::each(2)).unwrap(), (ids.clone(), None));
    let (sent, map) = IdPolicy::keep_if(false).apply(&ids, &Distinct::each(2)).unwrap();
    let map = map.unwrap();
    assert_eq!(sent, map.pseudonyms());
    assert!(sent.iter().all(|p| p.len() == PSEUDONYM_DIGITS && !ids.contains(p)));
    // a record pairs file (class, weight, ... after the ids), B kept its ids:
    // A's ids come back escaped as the matcher escapes kept ids
    let pairs = format!("a_id,b_id,class,weight\n{},'-3,M,9.5\n", sent[1]);
    let out = String::from_utf8(unmap_pairs(pairs.as_bytes(), Some(&map), None).unwrap()).unwrap();
    assert_eq!(out, "a_id,b_id,class,weight\n'=SUM(A1),'-3,M,9.5\n");
    let e = unmap_pairs(b"b_id,a_id\n", Some(&map), None).unwrap_err();
    assert_eq!(e.code(), "INVALID_FORMAT");
    assert_eq!(unmap_pairs(pairs.as_bytes(), None, None).unwrap_err().code(), "INVALID_PARAMETER");
}

#[test]
fn an_owner_maps_its_rows_of_the_clusters_back() {
    let ids: Vec<String> = ["x1", "x2"].iter().map(|s| s.to_string()).collect();
    let m = pseudonymize(&ids, &Distinct::each(2), &mut Randomness::seeded(3));
    let ps = m.pseudonyms();
    let other = "00000000000000f1";
    let clusters = format!("party,id,cluster\nC,{},0\nA,{other},0\nC,{},1\n", ps[1], ps[0]);
    let back = String::from_utf8(unmap_clusters(clusters.as_bytes(), "c", &m).unwrap()).unwrap();
    assert_eq!(back, format!("party,id,cluster\nC,x2,0\nA,{other},0\nC,x1,1\n"));
    let pairs = format!("party_a,id_a,party_b,id_b\nA,{other},C,{}\n", ps[0]);
    let back = String::from_utf8(unmap_clusters(pairs.as_bytes(), "C", &m).unwrap()).unwrap();
    assert_eq!(back, format!("party_a,id_a,party_b,id_b\nA,{other},C,x1\n"));
    // another party's map, or a file of no party's rows, is refused by name
    let e = unmap_clusters(clusters.as_bytes(), "A", &m).unwrap_err();
    assert!(e.to_string().contains("party A's pseudonym"), "{e}");
    assert!(unmap_clusters(clusters.as_bytes(), "D", &m).unwrap_err().to_string().contains("no row"));
    assert_eq!(unmap_clusters(b"a_id,b_id\n", "A", &m).unwrap_err().code(), "INVALID_FORMAT");
}

#[test]
fn identical_records_are_one_row_and_map_back_to_every_one() {
    let ids: Vec<String> = ["a1", "a2", "a3", "a4"].iter().map(|s| s.to_string()).collect();
    let keys = ["SMITH", "JONES", "SMITH", "SMITH"];
    // kept ids: one row a record, whatever the keys
    let kept = IdPolicy::Keep.groups(keys.iter());
    assert_eq!(kept.len(), 4);
    assert!(IdPolicy::Keep.apply(&ids, &Distinct::of(keys)).is_err());
    let groups = IdPolicy::Pseudonyms.groups(keys.iter());
    let (rows, map) = IdPolicy::Pseudonyms.apply(&ids, &groups).unwrap();
    let map = map.unwrap();
    assert_eq!(rows.len(), 2);
    assert_ne!(rows[0], rows[1]);
    // the map lists the group's pseudonym for each of its records, and reads back
    assert_eq!(map.pseudonyms(), vec![rows[0].clone(), rows[1].clone(), rows[0].clone(), rows[0].clone()]);
    assert_eq!(IdMap::from_csv(&map.to_csv().unwrap(), "map").unwrap(), map);
    // a pair of groups is every pair of their records
    let b = IdMap::from_pairs([("00000000000000b1", "b1"), ("00000000000000b1", "b2")], "B").unwrap();
    let pairs = format!("a_id,b_id,score\n{},00000000000000b1,0.5\n{},00000000000000b1,0.1\n", rows[0], rows[1]);
    let out = String::from_utf8(unmap_pairs(pairs.as_bytes(), Some(&map), Some(&b)).unwrap()).unwrap();
    assert_eq!(
        out,
        "a_id,b_id,score\na1,b1,0.5\na1,b2,0.5\na3,b1,0.5\na3,b2,0.5\na4,b1,0.5\na4,b2,0.5\na2,b1,0.1\na2,b2,0.1\n"
    );
    let clusters = format!("party,id,cluster\nA,{},0\nB,00000000000000b1,0\n", rows[1]);
    let out = String::from_utf8(unmap_clusters(clusters.as_bytes(), "A", &map).unwrap()).unwrap();
    assert_eq!(out, "party,id,cluster\nA,a2,0\nB,00000000000000b1,0\n");
    let clusters = format!("party,id,cluster\nA,{},7\n", rows[0]);
    let out = String::from_utf8(unmap_clusters(clusters.as_bytes(), "A", &map).unwrap()).unwrap();
    assert_eq!(out, "party,id,cluster\nA,a1,7\nA,a3,7\nA,a4,7\n");
}
