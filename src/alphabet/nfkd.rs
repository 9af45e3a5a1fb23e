//! Steps 1 and 2 of normalization, Unicode NFKD and dropping combining marks
//! (General_Category M: Mn, Mc, Me), per platform.
//!
//! Natively both come from the `unicode-normalization` crate. In wasm32 they come
//! from the host's `String.prototype.normalize("NFKD")` and the regular expression
//! `/\p{M}/u` (ECMA-262, present in Node and every browser; not a browser API): the
//! crate's decomposition and mark tables are about 110 KB of the gzipped wasm, a
//! third of the npm package, while every JS engine already ships the same data (ICU).
//!
//! Both follow the Unicode Standard, and Unicode's stability policies keep the
//! decomposition and the general category M of an assigned code point fixed across
//! versions, so the two agree on every code point both versions assign. They may
//! differ only on code points assigned after the older of the two versions: the
//! crate (0.1.26) implements Unicode 18.0; Node 20.20's ICU 78 implements Unicode
//! 17.0, and a browser implements whatever its ICU does. A code point unknown to a
//! version is left as it is (not decomposed, not a mark); since the symbols of Σ
//! are long assigned, such a code point changes a record's normalized form only if
//! it is a mark or its newer decomposition contains symbols of Σ.

/// Calls `f` with each character of the NFKD form of `s` that is not a combining mark.
#[cfg(not(target_arch = "wasm32"))]
pub(super) fn for_each_unmarked_nfkd(s: &str, f: impl FnMut(char)) {
    use unicode_normalization::UnicodeNormalization;
    s.nfkd().filter(|&c| !is_combining_mark(c)).for_each(f);
}

/// Whether `c` is a combining mark (General_Category M).
#[cfg(not(target_arch = "wasm32"))]
pub(super) fn is_combining_mark(c: char) -> bool {
    unicode_normalization::char::is_combining_mark(c)
}

#[cfg(target_arch = "wasm32")]
thread_local! {
    // wasm32 has one thread: each is compiled once per instance
    static MARKS: js_sys::RegExp = js_sys::RegExp::new("\\p{M}", "gu");
    static ONE_MARK: js_sys::RegExp = js_sys::RegExp::new("^\\p{M}$", "u");
}

/// Calls `f` with each character of the NFKD form of `s` that is not a combining mark.
#[cfg(target_arch = "wasm32")]
pub(super) fn for_each_unmarked_nfkd(s: &str, f: impl FnMut(char)) {
    // A JS string is UTF-16; a Rust &str has no lone surrogates, so the round trip
    // is lossless, and NFKD of well-formed text is well-formed.
    let decomposed = js_sys::JsString::from(s).normalize("NFKD");
    let unmarked: String = MARKS.with(|m| decomposed.replace_by_pattern(m, "")).into();
    unmarked.chars().for_each(f);
}

/// Whether `c` is a combining mark (General_Category M).
#[cfg(target_arch = "wasm32")]
pub(super) fn is_combining_mark(c: char) -> bool {
    let mut buf = [0u8; 4];
    ONE_MARK.with(|m| m.test(c.encode_utf8(&mut buf)))
}
