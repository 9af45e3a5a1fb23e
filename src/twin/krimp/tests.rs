use super::compress::cover;
use super::*;

fn cols(n: usize) -> Vec<String> {
    (0..n).map(|c| format!("c{c}")).collect()
}

/// Rows where column 1 follows column 0 and column 2 is noise: KRIMP must find the pairs.
fn correlated(rows: usize, seed: u64) -> CategoricalDb {
    let mut rng = Randomness::seeded(seed);
    let data: Vec<Vec<String>> = (0..rows)
        .map(|_| {
            let a = rng.below(4);
            vec![format!("a{a}"), format!("b{}", (a * 7) % 4), format!("x{}", rng.below(3))]
        })
        .collect();
    CategoricalDb::new(&cols(3), &data, "t").unwrap()
}

#[test]
fn named_errors() {
    let rows = vec![vec!["a".to_string(), "x".to_string()], vec!["b".to_string(), "x".to_string()]];
    assert_eq!(CategoricalDb::new(&cols(2), &rows, "t").unwrap_err().code(), "CONSTANT_COLUMN");
    let rows = vec![vec!["a".to_string(), String::new()], vec!["b".to_string(), String::new()]];
    assert_eq!(CategoricalDb::new(&cols(2), &rows, "t").unwrap_err().code(), "EMPTY_COLUMN");
    assert_eq!(CategoricalDb::new(&cols(2), &[], "t").unwrap_err().code(), "EMPTY_INPUT");
    let db = correlated(50, 1);
    let zero = KrimpOptions { min_sup: 0, ..Default::default() };
    assert_eq!(KrimpModel::fit(db.clone(), &zero).unwrap_err().code(), "INVALID_PARAMETER");
    let no_laplace = KrimpOptions { laplace: 0.0, ..Default::default() };
    assert_eq!(KrimpModel::fit(db, &no_laplace).unwrap_err().code(), "INVALID_PARAMETER");
}

#[test]
fn candidates_are_every_frequent_set_in_standard_order() {
    let db = correlated(200, 2);
    let c = candidates::frequent_item_sets(&db, 5, 1000).unwrap();
    for w in c.windows(2) {
        let (a, b) = (&w[0], &w[1]);
        assert!((a.support(), a.items.len()) >= (b.support(), b.items.len()));
    }
    for x in &c {
        let held = db.rows.iter().filter(|r| x.items.iter().all(|i| r.contains(i))).count();
        assert_eq!(held, x.support());
        assert!(held >= 5 && x.items.len() >= 2);
    }
    // the 4 (a, b) pairs are all there
    assert!(c.iter().filter(|x| x.items.len() == 2 && db.column_of(x.items[1]) == 1).count() == 4);
}

#[test]
fn krimp_compresses_correlated_data_and_its_usages_are_exact() {
    let db = correlated(400, 3);
    let m = KrimpModel::fit(db.clone(), &KrimpOptions::default()).unwrap();
    let t = &m.table;
    assert!(t.ratio() < 0.95, "ratio {}", t.ratio());
    assert!(t.non_singletons() >= 4);
    // covering from scratch with the final table gives the same usages
    let masks: Vec<u64> =
        t.elements.iter().map(|e| e.items.iter().fold(0, |m, &i| m | 1u64 << db.column_of(i))).collect();
    let mut usage = vec![0u32; t.elements.len()];
    for row in &db.rows {
        let c = cover(row, 0..t.elements.len(), |e| (t.elements[e].items.as_slice(), masks[e]), 0b111);
        let covered: usize = c.iter().map(|&e| t.elements[e].items.len()).sum();
        assert_eq!(covered, 3, "a cover covers each column once");
        for e in c {
            usage[e] += 1;
        }
    }
    assert_eq!(usage, t.elements.iter().map(|e| e.usage).collect::<Vec<_>>());
}

#[test]
fn high_min_sup_is_the_standard_table_and_columns_come_out_independent() {
    let db = correlated(300, 4);
    let opts = KrimpOptions { min_sup: 10_000, ..Default::default() };
    let m = KrimpModel::fit(db.clone(), &opts).unwrap();
    assert_eq!(m.table.non_singletons(), 0);
    assert!((m.table.ratio() - 1.0).abs() < 1e-12);
    let g = m.generate(3000, &mut Randomness::seeded(5));
    assert!(g.rows.iter().all(|r| r.iter().enumerate().all(|(c, &i)| db.column_of(i) == c)));
    // the (a, b) rule breaks without the pairs: many rows off it
    let off =
        g.values().iter().filter(|r| r[1] != format!("b{}", (r[0][1..].parse::<usize>().unwrap() * 7) % 4)).count();
    assert!(off > 1500, "{off}");
    // with the pairs, the rule holds in nearly every row
    let m = KrimpModel::fit(db, &KrimpOptions::default()).unwrap();
    let g = m.generate(3000, &mut Randomness::seeded(5));
    let off =
        g.values().iter().filter(|r| r[1] != format!("b{}", (r[0][1..].parse::<usize>().unwrap() * 7) % 4)).count();
    assert!(off < 30, "{off}");
}

#[test]
fn anonymity_scores_follow_the_definitions() {
    let o = vec![vec![0, 2], vec![0, 2], vec![1, 3], vec![1, 2]];
    // support levels: 2 (row 02), 1 (rows 13, 12); AS(o, o) = 1/2 + 1
    assert!((measure::anonymity_score(&o, &o) - 1.5).abs() < 1e-12);
    let p = vec![vec![1, 3], vec![0, 3]];
    // level 1: one of two rows present (½ · 1); level 2: none
    assert!((measure::anonymity_score(&p, &o) - 0.5).abs() < 1e-12);
    assert!((measure::normalized_anonymity_score(&p, &o) - 1.0 / 3.0).abs() < 1e-12);
    assert_eq!(measure::normalized_anonymity_score(&o, &o), 1.0);
    assert_eq!(measure::normalized_anonymity_score(&[vec![0, 3]], &o), 0.0);
}

#[test]
fn dissimilarity_is_zero_to_itself_and_grows_with_difference() {
    let db = correlated(400, 6);
    let m = KrimpModel::fit(db.clone(), &KrimpOptions::default()).unwrap();
    assert!(measure::dissimilarity(&db, &m.table, &db, &m.table).abs() < 1e-12);
    let same = m.evaluate(&m.generate(400, &mut Randomness::seeded(7))).unwrap();
    let indep = KrimpModel::fit(db.clone(), &KrimpOptions { min_sup: 10_000, ..Default::default() }).unwrap();
    let broken = m.evaluate(&indep.generate(400, &mut Randomness::seeded(7))).unwrap();
    assert!(same.dissimilarity < broken.dissimilarity, "{} vs {}", same.dissimilarity, broken.dissimilarity);
}
