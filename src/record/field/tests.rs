use super::*;

fn date(split: Option<bool>, weights: Option<DateWeights>) -> Field {
    Field { split, weights, ..Field::new("d", Kind::Date) }
}

#[test]
fn a_date_is_whole_unless_split_and_only_a_split_date_takes_weights() {
    let whole = date(None, None);
    // a whole date's text, then its day and month unordered (swap, on by default)
    assert_eq!((whole.parts(), whole.text_parts(), whole.part_text(0, "19850617").as_ref()), (2, 1, "19850617"));
    let split = date(Some(true), Some(DateWeights::default()));
    split.validate().unwrap();
    assert_eq!((split.parts(), split.text_parts()), (3, 3));
    assert_eq!([0, 1, 2].map(|c| split.part_text(c, "19850617").into_owned()), ["1985", "06", "17"]);
    let e = date(None, Some(DateWeights::default())).validate().unwrap_err().to_string();
    assert!(e.contains("field \"d\"") && e.contains("add split = true"), "{e}");
    let e = Field { levels: Some(vec![1.5, 3.0]), ..date(None, None) }.validate().unwrap_err().to_string();
    assert!(e.contains("levels of a date field are edit distances"), "{e}");
    Field { levels: Some(vec![1.5, 3.0]), ..date(Some(true), None) }.validate().unwrap();
    let e = Field { split: Some(true), ..Field::new("n", Kind::Name) }.validate().unwrap_err().to_string();
    assert!(e.contains("option split does not apply to a name field"), "{e}");
}
