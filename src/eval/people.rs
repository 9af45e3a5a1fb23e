//! Seeded person records with realistic errors, for linkage at any size: party
//! A's originals and party B's one duplicate of each, in FEBRL's columns
//! ([`COLUMNS`]), so the bundled FEBRL schema links them as it is.
//!
//! **Values.** Given names, street names, localities (`address_2`), suburbs and
//! states are drawn from `Lists` built from FEBRL's originals (the bundled
//! data/febrl/dataset{1,2,3}-a.csv), keeping their frequencies (a common value
//! appears in more originals); surnames from a surname list (NAMES), skewed to
//! the top of its rank order (the smaller of two uniform ranks: density falling
//! linearly, so common names recur as in a population). Street numbers, postcodes
//! (4 digits), dates of birth (1920–2009, valid days) and social security ids
//! (7 digits) are uniform. A field is left empty with probability
//! [`MISSING_IN_A`], as FEBRL's originals have gaps.
//!
//! **Errors.** Each duplicate gets 1 to [`MAX_ERRORS`] modifications (uniform),
//! each one of, uniformly: a typo (insert, delete, substitute or transpose one
//! letter) in a name, street or suburb; an OCR confusion (`rn`/`m`, `cl`/`d`,
//! `1`/`7`, …); a phonetic respelling (`ph`/`f`, `ck`/`k`, `ie`/`y`, …); a
//! missing value; given name and surname swapped; a date error (day and month
//! swapped, one digit changed, or the year off by 1 to 10); one digit of a
//! number changed or two adjacent digits transposed. FEBRL's generator has the
//! same kinds of errors.
//!
//! **Order and streaming.** Record `i` is made from a generator seeded by
//! `(seed, i)` alone ([`person`], [`duplicate`]), so party B's file, in a
//! seeded random order, can be written one row at a time without holding A's.

use crate::dp::Randomness;

/// The columns of the generated files (FEBRL's).
pub const COLUMNS: [&str; 11] = [
    "rec_id",
    "given_name",
    "surname",
    "street_number",
    "address_1",
    "address_2",
    "suburb",
    "postcode",
    "state",
    "date_of_birth",
    "soc_sec_id",
];

/// Probability that a field of an original is empty.
pub const MISSING_IN_A: f64 = 0.03;
/// Most modifications of one duplicate.
pub const MAX_ERRORS: usize = 3;

/// A record: the values of [`COLUMNS`].
pub type Person = [String; 11];

/// The value lists records are drawn from.
#[derive(Debug, Clone, Default)]
pub struct Lists {
    pub given: Vec<String>,
    pub surnames: Vec<String>,
    pub streets: Vec<String>,
    pub localities: Vec<String>,
    pub suburbs: Vec<String>,
    pub states: Vec<String>,
}

impl Lists {
    /// The lists from FEBRL originals (CSV with FEBRL's header; every
    /// non-empty value of each column, duplicates kept) and a surname list.
    pub fn from_febrl(originals: &[&[u8]], surnames: &[String]) -> Result<Lists, String> {
        let mut l = Lists { surnames: surnames.iter().map(|s| s.to_lowercase()).collect(), ..Lists::default() };
        for (n, bytes) in originals.iter().enumerate() {
            let mut r = csv::ReaderBuilder::new().trim(csv::Trim::All).from_reader(*bytes);
            let header = r.headers().map_err(|e| format!("originals {}: {e}", n + 1))?.clone();
            let col = |name: &str| {
                header.iter().position(|h| h == name).ok_or_else(|| format!("originals {}: no column {name:?}", n + 1))
            };
            let cols = [col("given_name")?, col("address_1")?, col("address_2")?, col("suburb")?, col("state")?];
            for row in r.records() {
                let row = row.map_err(|e| format!("originals {}: {e}", n + 1))?;
                let lists = [&mut l.given, &mut l.streets, &mut l.localities, &mut l.suburbs, &mut l.states];
                for (list, &c) in lists.into_iter().zip(&cols) {
                    if let Some(v) = row.get(c).filter(|v| !v.is_empty()) {
                        list.push(v.to_string());
                    }
                }
            }
        }
        for (name, list) in [
            ("given names", &l.given),
            ("surnames", &l.surnames),
            ("streets", &l.streets),
            ("localities", &l.localities),
            ("suburbs", &l.suburbs),
            ("states", &l.states),
        ] {
            if list.is_empty() {
                return Err(format!("no {name} to draw from"));
            }
        }
        Ok(l)
    }
}

/// The generator of record `i` of stream `stream` (0: originals, 1: errors).
fn rng_for(seed: u64, stream: u64, i: u64) -> Randomness {
    // splitmix64 of the three: distinct inputs give unrelated seeds
    let mut z = seed ^ stream.wrapping_mul(0xD1B5_4A32_D192_ED03) ^ i.wrapping_mul(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    Randomness::seeded(z ^ (z >> 31))
}

fn pick<'a>(list: &'a [String], rng: &mut Randomness) -> &'a str {
    &list[rng.below(list.len())]
}

fn chance(p: f64, rng: &mut Randomness) -> bool {
    (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64 <= p
}

fn digits(n: usize, rng: &mut Randomness) -> String {
    (0..n).map(|_| (b'0' + rng.below(10) as u8) as char).collect()
}

const DAYS: [u32; 12] = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/// Original `i` (0-based), id `rec-{i}-org`.
pub fn person(lists: &Lists, seed: u64, i: u64) -> Person {
    let mut rng = rng_for(seed, 0, i);
    let r = &mut rng;
    let surname = {
        let k = r.below(lists.surnames.len()).min(r.below(lists.surnames.len()));
        lists.surnames[k].clone()
    };
    let month = 1 + r.below(12) as u32;
    let year = 1920 + r.below(90) as u32;
    let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0);
    let days = DAYS[month as usize - 1] + u32::from(month == 2 && leap);
    let day = 1 + r.below(days as usize) as u32;
    // house numbers: small ones more often (uniform below a uniform bound)
    let bound = r.below(400) + 1;
    let mut p: Person = [
        format!("rec-{i}-org"),
        pick(&lists.given, r).to_string(),
        surname,
        (1 + r.below(bound)).to_string(),
        pick(&lists.streets, r).to_string(),
        pick(&lists.localities, r).to_string(),
        pick(&lists.suburbs, r).to_string(),
        format!("{}{}", 2 + r.below(6), digits(3, r)),
        pick(&lists.states, r).to_string(),
        format!("{year:04}{month:02}{day:02}"),
        format!("{}{}", 1 + r.below(9), digits(6, r)),
    ];
    for v in p.iter_mut().skip(1) {
        if chance(MISSING_IN_A, r) {
            v.clear();
        }
    }
    // FEBRL's originals leave address_2 empty more often than the rest
    if chance(0.3, r) {
        p[5].clear();
    }
    p
}

/// The duplicate of original `i`, id `rec-{i}-dup-0`, with 1 to
/// [`MAX_ERRORS`] modifications (see the module docs).
pub fn duplicate(lists: &Lists, seed: u64, i: u64) -> Person {
    let mut p = person(lists, seed, i);
    p[0] = format!("rec-{i}-dup-0");
    add_errors(&mut p, &mut rng_for(seed, 1, i));
    p
}

/// Party `party`'s copy of person `i` in a linkage of more than two parties
/// (`gramlink lab corrupt --people N --parties K`), id `rec-{i}-{party}`:
/// party 0 holds the original, every other party a duplicate with its own 1
/// to [`MAX_ERRORS`] modifications (a stream of its own: two parties' copies
/// differ by up to twice as many), as registries each write a person down
/// with their own errors.
pub fn party_copy(lists: &Lists, seed: u64, i: u64, party: u64) -> Person {
    let mut p = person(lists, seed, i);
    p[0] = format!("rec-{i}-{party}");
    if party > 0 {
        add_errors(&mut p, &mut rng_for(seed, 1 + party, i));
    }
    p
}

/// Which of `parties` parties hold person `i` (bit k for party k): each with
/// probability `presence` per mille, and when the draws leave the person with
/// none, one drawn party. Seeded by `(seed, i)` alone, as [`person`] is.
pub fn holders(seed: u64, i: u64, parties: u32, presence: u32) -> u64 {
    let mut rng = rng_for(seed, u64::MAX, i);
    let parties = parties.clamp(1, 64);
    let mut held = 0u64;
    for k in 0..parties {
        if (rng.below(1000) as u32) < presence {
            held |= 1 << k;
        }
    }
    if held == 0 {
        held = 1 << rng.below(parties as usize);
    }
    held
}

/// Adds 1 to [`MAX_ERRORS`] modifications (see the module docs) to `p`: a
/// duplicate of any record in FEBRL's columns (a rehearsal on a synthetic twin).
pub fn add_errors(p: &mut Person, rng: &mut Randomness) {
    let errors = 1 + rng.below(MAX_ERRORS);
    for _ in 0..errors {
        modify(p, rng);
    }
}

/// The text fields typos, OCR and phonetic errors touch.
const TEXT: [usize; 5] = [1, 2, 4, 5, 6];
/// The number fields digit errors touch (street number, postcode, ssid).
const NUMBERS: [usize; 3] = [3, 7, 10];

fn modify(p: &mut Person, r: &mut Randomness) {
    match r.below(7) {
        0 => {
            let f = TEXT[r.below(TEXT.len())];
            p[f] = typo(&p[f], r);
        }
        1 => {
            let f = TEXT[r.below(TEXT.len())];
            p[f] = respell(&p[f], OCR, r);
        }
        2 => {
            let f = TEXT[r.below(TEXT.len())];
            p[f] = respell(&p[f], PHONETIC, r);
        }
        3 => p[1 + r.below(10)].clear(),
        4 => p.swap(1, 2),
        5 => p[9] = date_error(&p[9], r),
        _ => {
            let f = NUMBERS[r.below(NUMBERS.len())];
            p[f] = digit_error(&p[f], r);
        }
    }
}

const KEYS: &[u8; 26] = b"abcdefghijklmnopqrstuvwxyz";

fn typo(s: &str, r: &mut Randomness) -> String {
    let mut c: Vec<char> = s.chars().collect();
    if c.is_empty() {
        return String::new();
    }
    let pos = r.below(c.len());
    let letter = KEYS[r.below(26)] as char;
    match r.below(4) {
        0 => c.insert(pos, letter),
        1 if c.len() > 1 => {
            c.remove(pos);
        }
        2 if pos + 1 < c.len() => c.swap(pos, pos + 1),
        _ => c[pos] = letter,
    }
    c.into_iter().collect()
}

/// Visually confusable sequences (both directions are listed).
const OCR: &[(&str, &str)] = &[
    ("rn", "m"),
    ("m", "rn"),
    ("cl", "d"),
    ("d", "cl"),
    ("vv", "w"),
    ("w", "vv"),
    ("h", "b"),
    ("b", "h"),
    ("e", "c"),
    ("c", "e"),
    ("i", "l"),
    ("l", "i"),
    ("u", "v"),
    ("n", "h"),
    ("1", "7"),
    ("7", "1"),
    ("3", "8"),
    ("8", "3"),
    ("5", "6"),
    ("0", "8"),
];

/// Sequences that sound alike.
const PHONETIC: &[(&str, &str)] = &[
    ("ph", "f"),
    ("f", "ph"),
    ("ck", "k"),
    ("k", "ck"),
    ("c", "k"),
    ("ie", "y"),
    ("y", "ie"),
    ("ee", "ea"),
    ("ou", "ow"),
    ("s", "z"),
    ("z", "s"),
    ("th", "t"),
    ("gh", "g"),
    ("x", "ks"),
    ("qu", "kw"),
    ("ai", "ay"),
];

/// Replaces one occurrence (a random one of those present) of a random rule's
/// left side; unchanged when no rule applies.
fn respell(s: &str, rules: &[(&str, &str)], r: &mut Randomness) -> String {
    let found: Vec<(usize, usize)> =
        rules.iter().enumerate().flat_map(|(k, (from, _))| s.match_indices(from).map(move |(at, _)| (k, at))).collect();
    if found.is_empty() {
        return s.to_string();
    }
    let (k, at) = found[r.below(found.len())];
    let (from, to) = rules[k];
    format!("{}{to}{}", &s[..at], &s[at + from.len()..])
}

fn date_error(d: &str, r: &mut Randomness) -> String {
    if d.len() != 8 || !d.bytes().all(|b| b.is_ascii_digit()) {
        return d.to_string();
    }
    match r.below(3) {
        // day and month swapped, when the day can be a month
        0 if d[6..8].parse::<u32>().is_ok_and(|x| (1..=12).contains(&x)) => {
            format!("{}{}{}", &d[..4], &d[6..8], &d[4..6])
        }
        1 => {
            let y: i64 = d[..4].parse().unwrap_or(1970);
            let off = 1 + r.below(10) as i64;
            let y = if r.bit() { y + off } else { y - off };
            format!("{y:04}{}", &d[4..])
        }
        _ => digit_error(d, r),
    }
}

fn digit_error(s: &str, r: &mut Randomness) -> String {
    let mut c: Vec<u8> = s.bytes().collect();
    if c.is_empty() || !c.iter().all(u8::is_ascii_digit) {
        return s.to_string();
    }
    let pos = r.below(c.len());
    if r.bit() && pos + 1 < c.len() && c[pos] != c[pos + 1] {
        c.swap(pos, pos + 1);
    } else {
        let old = c[pos];
        let mut new = b'0' + r.below(9) as u8;
        if new >= old {
            new += 1;
        }
        c[pos] = new;
    }
    String::from_utf8(c).unwrap_or_default()
}

#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests;
