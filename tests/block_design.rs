//! Blocking designed by the tool (src/record/block_design.rs): on FEBRL 3,
//! keyed as by default, the designed rules find every true pair the
//! hand-written ones find, from fewer candidates, with no truth; a one-term
//! rule on a field of eight values is warned about; bad options are named.
#![cfg(not(target_arch = "wasm32"))]

use gramlink::clock::NoClock;
use gramlink::dp::Randomness;
use gramlink::keyed::Key;
use gramlink::progress::NoProgress;
use gramlink::record::score::score;
use gramlink::record::{session, RecordOwner, Schema};
use std::collections::HashSet;

fn febrl_schema(edit: impl FnOnce(&mut Schema)) -> Schema {
    let text = std::fs::read_to_string("data/febrl/schema.toml").unwrap();
    let mut s: Schema = toml::from_str(&text).unwrap();
    edit(&mut s);
    s.validate().unwrap();
    s
}

fn read(path: &str) -> Vec<u8> {
    std::fs::read(path).unwrap()
}

fn link(schema: &Schema) -> session::RecordSession {
    let owner = |side: &str, seed| {
        RecordOwner::read(
            &read(&format!("data/febrl/dataset3-{side}.csv")),
            schema.clone(),
            side,
            Randomness::seeded(seed),
        )
        .unwrap()
    };
    let (mut a, mut b) = (owner("a", 5), owner("b", 6));
    let key = Key::from_bytes([9; 32]);
    session::run(&mut a, &mut b, Some(&key), None, &NoClock, &mut NoProgress).unwrap()
}

fn truth() -> HashSet<(String, String)> {
    gramlink::matching::truth::read_truth(&read("data/febrl/dataset3-truth.csv"), "truth").unwrap()
}

#[test]
fn designed_rules_find_the_pairs_of_hand_written_ones_from_fewer_candidates() {
    let hand = link(&febrl_schema(|_| {}));
    let designed_schema = febrl_schema(|s| {
        s.blocks.clear();
        s.blocking = Some("auto".into());
    });
    let auto = link(&designed_schema);
    let t = truth();
    let q_hand = score(&hand.linkage, &hand.matcher.a().ids, &hand.matcher.b().ids, &t);
    let q_auto = score(&auto.linkage, &auto.matcher.a().ids, &auto.matcher.b().ids, &t);
    assert!(q_auto.pairs_completeness >= q_hand.pairs_completeness - 0.002, "{q_auto:?} against {q_hand:?}");
    assert!(q_auto.matches.f1 >= 0.99, "{q_auto:?}");
    assert!(
        auto.linkage.candidates < hand.linkage.candidates / 4,
        "{} against {}",
        auto.linkage.candidates,
        hand.linkage.candidates
    );

    let design = auto.matcher.design_blocks().unwrap();
    assert!(design.candidates <= design.budget);
    assert_eq!(design.candidates, auto.linkage.candidates, "the linkage blocks with the designed rules");
    assert!(design.completeness >= 0.99, "{}", design.completeness);
    // the rules the linkage reports are the chosen ones, in order
    let names: Vec<&str> = auto.linkage.rules.iter().map(|r| r.rule.as_str()).collect();
    let chosen: Vec<&str> = {
        let mut c: Vec<_> = design.considered.iter().filter(|c| c.chosen.is_some()).collect();
        c.sort_by_key(|c| c.chosen);
        c.iter().map(|c| c.name.as_str()).collect()
    };
    assert_eq!(names, chosen);
    // a chosen rule is never a too-wide one, and conjunctions were considered
    assert!(design.considered.iter().all(|c| c.chosen.is_none() || c.candidates.is_some()));
    assert!(design.considered.iter().any(|c| !c.rule.and.is_empty()));
    let report = design.lines().join("\n");
    assert!(report.contains("<- chosen #1") && report.contains("estimated pairs completeness"), "{report}");
}

#[test]
fn a_one_term_rule_on_a_field_of_few_values_is_warned_about() {
    let schema = febrl_schema(|s| {
        let state = s.fields.iter_mut().find(|f| f.name == "state").unwrap();
        *state = toml::from_str("name = \"state\"\nkind = \"keyed\"").unwrap();
        s.blocks.push(toml::from_str("field = \"state\"").unwrap());
    });
    let run = link(&schema);
    let design = run.matcher.design_blocks().unwrap();
    // state (eight values) agrees for about one pair in eight; the bundled
    // schema's `postcode equal` for one in several hundred (warned too: at a
    // million records a side that is over a billion candidates)
    let state = design.warnings.iter().find(|w| w.contains("\"state equal\"")).expect("state warned about");
    let one_in: f64 = state.split("1 pair in ").nth(1).unwrap().split(' ').next().unwrap().parse().unwrap();
    assert!((4.0..20.0).contains(&one_in), "{state}");
    assert!(state.contains("entropy"), "{state}");
    assert!(
        design.warnings.iter().all(|w| !w.contains("soc_sec_id") && !w.contains("given_name")),
        "{:?}",
        design.warnings
    );
    // the design itself never takes it alone: it is too wide
    let alone = design.considered.iter().find(|c| c.name == "state equal").unwrap();
    assert_eq!((alone.candidates, alone.chosen), (None, None));
}

#[test]
fn blocking_options_are_checked() {
    let bad = |edit: fn(&mut Schema)| {
        let text = std::fs::read_to_string("data/febrl/schema.toml").unwrap();
        let mut s: Schema = toml::from_str(&text).unwrap();
        edit(&mut s);
        s.validate().unwrap_err().to_string()
    };
    let e = bad(|s| s.blocking = Some("auto".into()));
    assert!(e.contains("remove the [[block]] rules"), "{e}");
    let e = bad(|s| {
        s.blocks.clear();
        s.blocking = Some("smart".into());
    });
    assert!(e.contains("\"smart\"") && e.contains("\"auto\""), "{e}");
}
