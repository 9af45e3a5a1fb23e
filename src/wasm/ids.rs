//! The owner's side of pseudonymous ids in JS ([`crate::pseudonym`]): the map
//! of an owner's last `embed` (`owner.idMapCsv()`, on `DataOwner` and
//! `RecordOwner`), `unmapPairs`, which maps the matcher's pairs back to the
//! owners' ids with it, and `unmapClusters`, which maps one party's rows of
//! the clusters of more parties (`linkParties`) back.

use super::args::type_name;
use crate::pseudonym::IdMap;
use wasm_bindgen::prelude::*;

/// An id map as its CSV text (`pseudonym,id`); none when the ids were kept.
pub(super) fn map_csv(map: Option<&IdMap>) -> Result<Option<String>, JsValue> {
    let Some(map) = map else { return Ok(None) };
    // the map is written from strings: always UTF-8 (taken as it is, no copy)
    Ok(Some(String::from_utf8(map.to_csv()?).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())))
}

/// An id map as its CSV bytes (`idMapBytes()`): the page's worker hands
/// them over without a JS string (a million records' map is 25 MB of text,
/// which the page would otherwise copy and encode again to save it).
pub(super) fn map_bytes(map: Option<&IdMap>) -> Result<Option<js_sys::Uint8Array>, JsValue> {
    let Some(map) = map else { return Ok(None) };
    Ok(Some(js_sys::Uint8Array::from(&map.to_csv()?[..])))
}

/// `idMapCsv()` and `idMapBytes()` on an owner class (`DataOwner`,
/// `RecordOwner`) whose `id_map` field holds its last `embed`'s map.
macro_rules! id_map_methods {
    ($owner:ident) => {
        #[wasm_bindgen]
        impl $owner {
            /// The map of the last `embed`'s pseudonyms to this owner's ids, as CSV
            /// (`pseudonym,id`): keep it, never send it; `unmapPairs` maps the
            /// matcher's pairs back with it. `undefined` before an embed or after one
            /// with `keepIds`.
            #[wasm_bindgen(js_name = idMapCsv)]
            pub fn id_map_csv(&self) -> Result<Option<String>, JsValue> {
                super::ids::map_csv(self.id_map.as_ref())
            }

            /// `idMapCsv()`'s CSV as UTF-8 bytes (a `Uint8Array`, no JS string):
            /// what a worker transfers to its page for saving.
            #[wasm_bindgen(js_name = idMapBytes)]
            pub fn id_map_bytes(&self) -> Result<Option<js_sys::Uint8Array>, JsValue> {
                super::ids::map_bytes(self.id_map.as_ref())
            }
        }
    };
}
pub(super) use id_map_methods;

/// An optional id map argument: its CSV as a string or a `Uint8Array`, or
/// null / undefined.
fn map_arg(v: &JsValue, what: &str) -> Result<Option<IdMap>, JsValue> {
    if v.is_undefined() || v.is_null() {
        return Ok(None);
    }
    if v.as_string().is_none() && !v.is_instance_of::<js_sys::Uint8Array>() {
        return Err(super::errors::invalid(format!(
            "{what} must be a string or a Uint8Array (CSV), or null, got {}",
            type_name(v)
        )));
    }
    Ok(Some(IdMap::from_csv(&super::args::text_or_bytes(v, what)?, what)?))
}

/// The matcher's pairs CSV (one string or record pairs: `a_id,b_id,…`, a
/// string or a `Uint8Array`) with party A's pseudonyms replaced by its ids
/// (`aMapCsv`, its `idMapCsv()` or `idMapBytes()`), party B's likewise
/// (`bMapCsv`); either may be null, not both. The other columns are kept.
#[wasm_bindgen(js_name = unmapPairs)]
pub fn unmap_pairs(pairs_csv: JsValue, a_map_csv: JsValue, b_map_csv: JsValue) -> Result<String, JsValue> {
    let pairs = super::args::text_or_bytes(&pairs_csv, "the pairs")?;
    let (a, b) = (map_arg(&a_map_csv, "party A's id map")?, map_arg(&b_map_csv, "party B's id map")?);
    let out = crate::pseudonym::unmap_pairs(&pairs, a.as_ref(), b.as_ref())?;
    Ok(String::from_utf8_lossy(&out).into_owned())
}

/// The clusters CSV of `linkParties` (`party,id,cluster`, or its pairs
/// `party_a,id_a,party_b,id_b`; a string or a `Uint8Array`) with `party`'s
/// pseudonyms (a letter) replaced by its ids (`mapCsv`, its `idMapCsv()` or
/// `idMapBytes()`); the other parties' rows unchanged.
#[wasm_bindgen(js_name = unmapClusters)]
pub fn unmap_clusters(clusters_csv: JsValue, party: JsValue, map_csv: JsValue) -> Result<String, JsValue> {
    let rows = super::args::text_or_bytes(&clusters_csv, "the clusters")?;
    let party = super::args::string_arg(&party, "the party")?;
    let party: crate::protocol::Party = party.parse().map_err(|e| super::errors::invalid(format!("{e}")))?;
    let Some(map) = map_arg(&map_csv, &format!("party {party}'s id map"))? else {
        return Err(super::errors::invalid(format!("unmapClusters needs party {party}'s id map")));
    };
    let out = crate::pseudonym::unmap_clusters(&rows, party.name(), &map)?;
    Ok(String::from_utf8_lossy(&out).into_owned())
}
