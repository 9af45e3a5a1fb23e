//! More than two parties through the JS API's Rust bindings (`linkParties`,
//! `unmapClusters`), run in Node or headless Chromium as tests/wasm_api.rs: the
//! clusters are the CLI's rows, each owner maps its rows back, and every bad
//! linkage is a JS error with its stable code.
#![cfg(target_arch = "wasm32")]

mod wasm_common;
use gramlink::embed::BatchVectors;
use gramlink::protocol::VectorBatch;
use gramlink::sparse_vectors::SparseVectors;
use gramlink::wasm::{keygen, link_parties, unmap_clusters, DataOwner};
use js_sys::Array;
use std::collections::{HashMap, HashSet};
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_test::*;
use wasm_common::{assert_code, get, js, CITIES};

/// Party `p`'s owner: places `i` with `i % 4 != skip` (so each place is held by
/// three parties or two), B's and C's with their second letter dropped for one
/// place in three; own ids `<p><i>`.
fn owner(p: char, skip: usize) -> DataOwner {
    let mut csv = String::from("id,name\n");
    for (i, s) in CITIES.lines().take(160).enumerate().filter(|(i, _)| i % 4 != skip) {
        let s: String = if p != 'A' && i % 3 == 1 && s.chars().count() > 3 {
            s.chars().enumerate().filter(|&(j, _)| j != 1).map(|(_, c)| c).collect()
        } else {
            s.to_string()
        };
        csv.push_str(&format!("{p}{i},\"{}\"\n", s.replace('"', "\"\"")));
    }
    let bytes = js_sys::Uint8Array::from(csv.as_bytes());
    DataOwner::from_bytes(
        bytes.into(),
        js(r#"{"column": "name", "idColumn": "id"}"#),
        js(r#"{"budget": 1, "seed": 3}"#),
    )
    .unwrap()
}

#[wasm_bindgen_test]
fn three_parties_cluster_and_each_owner_maps_its_rows_back() {
    let mut owners = [owner('A', 0), owner('B', 1), owner('C', 2)];
    let mine = js(r#"{"miner": "fpm", "epsilon": 1, "k": 75}"#);
    let na = owners[0].mine(mine.clone(), None).unwrap();
    let nb = owners[1].mine(mine.clone(), None).unwrap();
    let shared = DataOwner::merge_bases(na.into(), nb.into(), mine).unwrap();
    let key = keygen().unwrap();
    let options =
        |p: &str| js(&format!(r#"{{"party": "{p}", "key": "{key}", "thresholds": {{"ed": 2, "mode": "sound"}}}}"#));
    let batches: Vec<JsValue> = ["A", "B", "C"]
        .iter()
        .zip(owners.iter_mut())
        .map(|(p, o)| o.embed(shared.clone().into(), options(p), None).unwrap())
        .collect();
    let list: Array = batches.iter().cloned().collect();
    let out: JsValue = link_parties(list.clone().into(), js(r#"{"pairs": true}"#)).unwrap().into();
    assert_eq!(get(&out, "sizes").unchecked_into::<Array>().length(), 3);
    let csv = get(&out, "csv").as_string().unwrap();
    assert!(csv.starts_with("party,id,cluster\n"));
    assert!(get(&out, "pairsCsv").as_string().unwrap().starts_with("party_a,id_a,party_b,id_b\n"));
    let mut mapped = csv.clone();
    for (p, o) in ["A", "B", "C"].iter().zip(&owners) {
        mapped = unmap_clusters(mapped.into(), JsValue::from_str(p), o.id_map_csv().unwrap().unwrap().into()).unwrap();
    }
    // 120 records a party; at most one of each party in a cluster; most places found whole
    let rows: Vec<Vec<String>> = mapped.lines().skip(1).map(|l| l.split(',').map(str::to_string).collect()).collect();
    assert_eq!(rows.len(), 360);
    let mut clusters: HashMap<&str, Vec<&str>> = HashMap::new();
    for r in &rows {
        assert!(r[1].starts_with(r[0].as_str()), "{r:?}");
        clusters.entry(r[2].as_str()).or_default().push(r[1].as_str());
    }
    let place = |id: &str| id[1..].to_string();
    for m in clusters.values() {
        assert_eq!(m.iter().map(|id| &id[..1]).collect::<HashSet<_>>().len(), m.len(), "{m:?}");
    }
    let whole = clusters.values().filter(|m| m.len() >= 2 && m.iter().all(|id| place(id) == place(m[0]))).count();
    assert!(whole >= 130, "{whole} of 160 places clustered whole");
    let wrong = unmap_clusters(csv.into(), JsValue::from_str("A"), owners[1].id_map_csv().unwrap().unwrap().into());
    assert_code(wrong, "INVALID_FORMAT");

    // bad linkages, by code
    let three = |c: JsValue| {
        link_parties([batches[0].clone(), batches[1].clone(), c].iter().collect::<Array>().into(), JsValue::NULL)
    };
    assert!(assert_code(three(batches[0].clone()), "BATCH_TWICE").contains("batch 3"));
    assert_code(three(owners[2].embed(shared.clone().into(), options("B"), None).unwrap()), "PARTY_TWICE");
    let mut empty = VectorBatch::read(batches[2].as_string().unwrap().as_bytes()).unwrap();
    empty.ids.clear();
    empty.thresholds.as_mut().unwrap().values.clear();
    empty.vectors = BatchVectors::Sparse(SparseVectors::new(empty.vectors.dim()));
    assert_code(three(JsValue::from_str(&empty.to_json())), "NO_RECORDS");
    let mut kept = |p: &str| {
        let o = js(&format!(r#"{{"party": "{p}", "key": "{key}", "thresholds": {{"ed": 2}}, "keepIds": true}}"#));
        owners[2].embed(shared.clone().into(), o, None).unwrap()
    };
    let clash: Array = [batches[0].clone(), kept("C"), kept("D")].iter().collect();
    assert!(!clash.includes(&JsValue::UNDEFINED, 0));
    assert_code(link_parties(clash.into(), JsValue::NULL), "ID_CLASH");
    assert_code(link_parties(list.slice(0, 1).into(), JsValue::NULL), "INVALID_PARAMETER");
    assert_code(link_parties(list.clone().into(), js(r#"{"mergeThreshold": 2}"#)), "INVALID_PARAMETER");
    assert_code(link_parties(list.into(), js(r#"{"names": ["a"]}"#)), "INVALID_PARAMETER");
}
