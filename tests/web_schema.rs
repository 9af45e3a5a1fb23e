//! The JavaScript copies of the bundled schemas are the schemas, fingerprint
//! for fingerprint: the web app's (www/js/febrl-schema.js, which the records
//! owner page offers by default: the page may fetch nothing) is
//! data/febrl/schema.toml, the wasm records benchmark's is
//! data/febrl/schema-large.toml.
#![cfg(not(target_arch = "wasm32"))]

use gramlink::record::Schema;

#[test]
fn the_web_app_s_febrl_schema_is_data_febrl_schema_toml() {
    let js = std::fs::read_to_string("www/js/febrl-schema.js").unwrap();
    let json = js[js.find('{').unwrap()..].trim_end().trim_end_matches(';');
    let web = Schema::parse_json(json).unwrap();
    let toml: toml::Value = toml::from_str(&std::fs::read_to_string("data/febrl/schema.toml").unwrap()).unwrap();
    let data = Schema::parse_json(&serde_json::to_string(&toml).unwrap()).unwrap();
    assert_eq!(web.fingerprint(), data.fingerprint());
    assert_eq!(web, data);
}

/// The JS object literal `largeSchema` of the wasm records benchmark, as JSON:
/// its keys quoted and trailing commas dropped.
fn js_literal_to_json(js: &str) -> String {
    let (mut out, mut word, mut in_string) = (String::new(), String::new(), false);
    for c in js.chars() {
        if in_string {
            out.push(c);
            in_string = c != '"';
        } else if c.is_ascii_alphanumeric() || c == '_' || c == '.' {
            word.push(c);
        } else {
            if !word.is_empty() {
                let quoted = c == ':' && word.chars().next().is_some_and(|f| f.is_ascii_alphabetic());
                out.push_str(&if quoted { format!("\"{word}\"") } else { std::mem::take(&mut word) });
                word.clear();
            }
            if (c == ']' || c == '}') && out.trim_end().ends_with(',') {
                let t = out.trim_end().len() - 1;
                out.truncate(t);
            }
            in_string = c == '"';
            out.push(c);
        }
    }
    out
}

#[test]
fn the_wasm_records_benchmark_uses_schema_large() {
    let js = std::fs::read_to_string("benches/wasm/records-steps.mjs").unwrap();
    let start = js.find("export const largeSchema = ").unwrap() + "export const largeSchema = ".len();
    let end = start + js[start..].find("\n};").unwrap() + 2;
    let schema = Schema::parse_json(&js_literal_to_json(&js[start..end])).unwrap();
    let toml: Schema = toml::from_str(&std::fs::read_to_string("data/febrl/schema-large.toml").unwrap()).unwrap();
    assert_eq!(schema.fingerprint(), toml.fingerprint());
}
