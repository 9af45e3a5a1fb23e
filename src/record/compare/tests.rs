use super::*;
use crate::embed::Vectors;
use crate::record::schema::Schema;
use crate::record::sparse_rows::letter_in;

#[test]
fn a_name_s_exact_level_splits_on_a_common_value() {
    // B: records 0-3 "Smith" (one vector), 4 "Etienne", 5 "Rye", 6 missing
    let rows = vec![0, 1, 2, 3, 4, 5];
    let data = [[1.0f32, 0.0], [1.0, 0.0], [1.0, 0.0], [1.0, 0.0], [0.0, 1.0], [0.5, 0.5]].concat();
    let part = Part { rows, vectors: BatchVectors::Dense(Vectors { dim: 2, data }), thresholds: Vec::new() };
    // shares 4/6, 1/6, 1/6 against the chance of agreeing 0.5
    let common = common_values(&part, 7);
    assert_eq!(common, vec![true, true, true, true, false, false, false]);
    let levels = [1, 2];
    assert_eq!(text_level(Some(0), &levels, Some(false), None), 0, "exact, rare value");
    assert_eq!(text_level(Some(0), &levels, Some(true), None), 1, "exact, common value");
    assert_eq!(text_level(Some(1), &levels, Some(true), None), 2, "ed<=1 after both exact levels");
    assert_eq!(text_level(None, &levels, Some(false), None), 4, "disagree");
    // a field that does not split keeps its levels
    assert_eq!((text_level(Some(0), &levels, None, None), text_level(None, &levels, None, None)), (0, 3));
    // the level "initial" sits after the edit levels, before disagree
    assert_eq!(text_level(None, &levels, Some(false), Some(true)), 4, "initial");
    assert_eq!(text_level(None, &levels, Some(false), Some(false)), 5, "disagree after initial");
    assert_eq!(text_level(Some(2), &levels, Some(false), Some(false)), 3, "ed<=2 unchanged");
}

/// The first-name levels of A's records against B's, as the matcher computes
/// them on the two parties' batches (`options`: the field's options as JSON;
/// `key`: keyed with `encoding`).
fn first_name_levels(options: &str, key: Option<crate::keyed::Encoding>) -> (Vec<String>, Vec<Vec<u8>>) {
    let schema = Schema::parse_json(&format!(
        r#"{{"version": 1, "id": "id", "field": [{{"name": "first", "kind": "name"{options}}},
            {{"name": "last", "kind": "name"}}]}}"#
    ))
    .unwrap();
    // A: an initial of B's first name, an initial of another's, a whole name,
    // an initial against a blank
    let a_csv = "id,first,last\na1,J,SMITH\na2,K.,SMITH\na3,JOHN,SMITH\na4,M,SMITH\n";
    let b_csv = "id,first,last\nb1,JOHN,SMITH\nb2,PETER,SMITH\nb3,J,SMITH\nb4,,SMITH\n";
    let (va, vb) = crate::record::test_batches::batches(&schema, a_csv, b_csv, key);
    let cmp = Comparer::new(&schema, &va, &vb).unwrap();
    let names = schema.sent().next().unwrap().level_names();
    (names, (0..4).map(|i| (0..4).map(|j| cmp.fields[0].level(i, j)).collect()).collect())
}

#[test]
fn an_initial_against_the_whole_name_is_its_own_level_on_sparse_encodings() {
    use crate::keyed::Encoding;
    for key in [None, Some(Encoding::default()), Some(Encoding::for_records())] {
        let (names, l) = first_name_levels("", key);
        assert_eq!(
            names,
            ["exact, rare value", "exact, common value", "ed<=1", "ed<=2", "initial", "disagree"],
            "{key:?}"
        );
        let initial = names.iter().position(|n| n == "initial").unwrap() as u8;
        assert_eq!(l[0][0], initial, "{key:?}: J against JOHN");
        assert_eq!(l[2][2], initial, "{key:?}: JOHN against J, B's value the initial");
        assert_eq!(l[0][2], 0, "{key:?}: J against J is exact");
        assert_eq!(l[2][0], 0, "{key:?}: JOHN against JOHN is exact");
        // K against PETER, M against JOHN: no shared first or last letter (a
        // sketch bucket may still join them, which the fit's u weighs); K
        // against J is one edit
        assert_eq!(l[1][1], initial + 1, "{key:?}: K against PETER disagrees");
        assert_eq!(l[1][2], 2, "{key:?}: K against J is within one edit");
        assert_eq!(l[3][3], MISSING, "{key:?}: an initial against a blank is missing");
        // two whole names far apart stay "disagree"
        assert_eq!(l[2][1], initial + 1, "{key:?}: JOHN against PETER");
        // without the level: exact (2), ed<=1, ed<=2, disagree
        let (names, l) = first_name_levels(r#", "initials": false"#, key);
        assert_eq!(names.len(), 5, "{key:?}: {names:?}");
        assert_eq!((l[0][0], l[2][2]), (4, 4), "{key:?}: J against JOHN disagrees");
    }
    // rotated vectors are dense and mixed: the level is in the schema, never
    // shown (their widened edit bounds may even put J within two edits of JOHN)
    let (_, l) = first_name_levels("", Some(Encoding::Rotation));
    assert!(l.iter().flatten().all(|&x| x != 4), "rotated: {l:?}");
}

#[test]
fn a_one_letter_row_is_found_in_another_by_its_bigram_buckets() {
    // coordinates: 0, 1 unigrams; 2..6 complete bigrams; 6 a trigram
    let lengths = [1u8, 1, 2, 2, 2, 2, 3];
    let complete = [true, true, true, true, true, true, false];
    // "^J$": bigrams ^J (2) and J$ (3), each counted once (value 1/2)
    let letter: (&[u32], &[f32]) = (&[0, 2, 3], &[1.0, 0.5, 0.5]);
    assert!(letter_in(letter, &[2, 4, 5], &lengths, &complete), "shares ^J");
    assert!(letter_in(letter, &[1, 3], &lengths, &complete), "shares J$");
    assert!(!letter_in(letter, &[0, 4, 5, 6], &lengths, &complete), "a shared unigram is not enough");
    // both bigrams in one sketch bucket: the bucket counts 2 (value 1)
    assert!(letter_in((&[2], &[1.0]), &[2], &lengths, &complete));
    // two letters have three bigram windows
    let two: (&[u32], &[f32]) = (&[2, 3, 4], &[0.5, 0.5, 0.5]);
    assert!(!letter_in(two, &[2, 3, 4], &lengths, &complete), "JO is no initial");
    // an incomplete bigram class counts nothing
    assert!(!letter_in(letter, &[2], &lengths, &[true, true, false, false, true, true, false]));
}
