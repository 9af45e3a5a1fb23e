//! The web app's copy of a bundled schema (www/js/febrl-schema.js, which the
//! records owner page offers by default: the page may fetch nothing) is the
//! schema of data/febrl/schema.toml, fingerprint for fingerprint.
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
