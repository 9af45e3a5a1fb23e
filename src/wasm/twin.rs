//! `makeTwin`: a synthetic twin of a party's file ([`crate::twin`]): one
//! string column (an array of strings) or records under a linkage schema (a
//! CSV), with its report.

use super::args::text_or_bytes;
use super::args::{nested_options, option_entries, to_plain};
use super::owner::{seed_arg, string_array};
use super::records::schema_arg;
use crate::alphabet::Alphabet;
use crate::dataset::{Dataset, RawRecord};
use crate::dp::Randomness;
use crate::record::read_table;
use crate::twin::{check_record_options, twin_strings, twin_table, TwinOptions};
use wasm_bindgen::prelude::*;

/// The twin of `input`: an array of strings (normalized onto A–Z and space,
/// empty ones dropped), or with option `schema` (JSON string or object) a CSV
/// string or `Uint8Array`. Options: `{schema, seed, twin}`, `twin` the core's
/// `TwinOptions` (camelCase: `{condense: {k, lengthEpsilon, block, maxPasses},
/// krimp: {minSup, laplace, maxCandidates}, categorical, nnSample}`, each key
/// optional). Returns `{synthetic: true, records}` (an array of strings, or the
/// CSV text with a schema) and `report` (the `TwinReport`). With `seed` the twin
/// is reproducible; without, the secure generator.
#[wasm_bindgen(js_name = makeTwin)]
pub fn make_twin(input: JsValue, options: JsValue) -> Result<JsValue, JsValue> {
    let (mut schema, mut seed, mut twin) = (None, None, TwinOptions::default());
    for (k, x) in option_entries(&options, "makeTwin options", &["schema", "seed", "twin"])? {
        if x.is_null() || x.is_undefined() {
            continue;
        }
        match k.as_str() {
            "schema" => schema = Some(schema_arg(&x)?),
            "seed" => seed = Some(seed_arg(&x)?),
            _ => twin = nested_options(x, "twin options", &[])?,
        }
    }
    let mut rng = Randomness::from_seed_option(seed)?;
    let out = js_sys::Object::new();
    let report = match schema {
        Some(s) => {
            check_record_options(&s, &twin)?;
            let table = read_table(&text_or_bytes(&input, "the records")?, &s, "the records")?;
            let t = twin_table(&table, &s, &twin, &mut rng, "the records")?;
            super::args::set(&out, "records", JsValue::from_str(&t.records));
            t.report
        }
        None => {
            let records = string_array(&input, "the records array")?;
            let raw =
                records.into_iter().enumerate().map(|(i, text)| RawRecord { id: (i + 1).to_string(), text }).collect();
            let d = Dataset::normalize(raw, &Alphabet::default())?;
            let t = twin_strings(d.records(), &twin, &mut rng, "the records")?;
            super::args::set(&out, "records", to_plain(&t.records)?);
            t.report
        }
    };
    super::args::set(&out, "synthetic", JsValue::TRUE);
    super::args::set(&out, "report", to_plain(&report)?);
    Ok(out.into())
}
