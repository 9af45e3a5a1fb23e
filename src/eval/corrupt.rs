//! Party B's corrupted copy (docs/SCENARIO.md): exactly `ed` edit operations applied one
//! after another, each chosen uniformly among substitute, insert and delete at a
//! uniform position. A substitution picks a letter of A–Z different from the one
//! it replaces, uniformly; an insertion a letter of A–Z uniformly; a deletion that
//! would leave the string empty becomes a substitution. The result is within `ed`
//! edits of the input (it may be closer: a later edit can undo an earlier one).

use crate::dp::Randomness;

const LETTERS: &[u8; 26] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZ";

/// Applies `ed` random edits to `s` (a normalized record).
pub fn corrupt(s: &str, ed: u32, rng: &mut Randomness) -> String {
    let mut chars: Vec<char> = s.chars().collect();
    for _ in 0..ed {
        let mut op = rng.below(3);
        if op == 2 && chars.len() <= 1 {
            op = 0;
        }
        match op {
            0 if !chars.is_empty() => {
                let pos = rng.below(chars.len());
                let old = chars[pos];
                let choices: Vec<char> = LETTERS.iter().map(|&b| b as char).filter(|&c| c != old).collect();
                chars[pos] = choices[rng.below(choices.len())];
            }
            0 | 1 => {
                let pos = rng.below(chars.len() + 1);
                chars.insert(pos, LETTERS[rng.below(26)] as char);
            }
            _ => {
                let pos = rng.below(chars.len());
                chars.remove(pos);
            }
        }
    }
    chars.into_iter().collect()
}

/// `n` distinct two-word records, each two words of `words` drawn uniformly
/// (with replacement) and joined by a space, in drawing order: the scale data of
/// the benchmarks (a million "SURNAME SURNAME" strings from NAMES). `None` when
/// `words` cannot make `n` distinct records (fewer than `n` ordered pairs).
pub fn two_word_records(words: &[String], n: usize, rng: &mut Randomness) -> Option<Vec<String>> {
    let possible = (words.len() as u128) * (words.len() as u128);
    if (n as u128) > possible / 2 {
        // rejection sampling would crawl near the number of pairs: refuse instead
        return None;
    }
    let mut seen = std::collections::HashSet::with_capacity(n);
    let mut out = Vec::with_capacity(n);
    while out.len() < n {
        let (i, j) = (rng.below(words.len()), rng.below(words.len()));
        if seen.insert((i as u32, j as u32)) {
            out.push(format!("{} {}", words[i], words[j]));
        }
    }
    Some(out)
}

/// Levenshtein distance (for tests and diagnostics).
pub fn edit_distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    let mut cur = vec![0; b.len() + 1];
    for i in 1..=a.len() {
        cur[0] = i;
        for j in 1..=b.len() {
            let sub = prev[j - 1] + usize::from(a[i - 1] != b[j - 1]);
            cur[j] = sub.min(prev[j] + 1).min(cur[j - 1] + 1);
        }
        std::mem::swap(&mut prev, &mut cur);
    }
    prev[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn two_word_records_are_distinct_and_seeded() {
        let words: Vec<String> = ["SMITH", "JONES", "BROWN", "GARCIA"].iter().map(|s| s.to_string()).collect();
        let a = two_word_records(&words, 8, &mut Randomness::seeded(3)).unwrap();
        assert_eq!(a, two_word_records(&words, 8, &mut Randomness::seeded(3)).unwrap());
        assert_eq!(a.iter().collect::<std::collections::HashSet<_>>().len(), 8);
        assert!(a.iter().all(|r| r.split(' ').count() == 2));
        assert!(
            two_word_records(&words, 9, &mut Randomness::seeded(3)).is_none(),
            "16 ordered pairs: at most half asked"
        );
    }

    #[test]
    fn stays_within_ed_and_usually_reaches_it() {
        let mut rng = Randomness::seeded(1);
        let mut exact = 0;
        for i in 0..2000 {
            let s = ["SMITH", "A", "LOS ANGELES", "WU"][i % 4];
            let ed = (i % 3) as u32;
            let t = corrupt(s, ed, &mut rng);
            let d = edit_distance(s, &t);
            assert!(d <= ed as usize, "{s} -> {t} at {d} > {ed}");
            assert!(!t.is_empty());
            exact += usize::from(d == ed as usize);
        }
        assert!(exact > 1700, "{exact}");
    }

    #[test]
    fn operations_are_balanced() {
        let mut rng = Randomness::seeded(2);
        let (mut longer, mut shorter, mut same) = (0, 0, 0);
        for _ in 0..30_000 {
            let t = corrupt("JOHNSON", 1, &mut rng);
            match t.len().cmp(&7) {
                std::cmp::Ordering::Greater => longer += 1,
                std::cmp::Ordering::Less => shorter += 1,
                std::cmp::Ordering::Equal => same += 1,
            }
        }
        for n in [longer, shorter, same] {
            assert!((9_500..10_500).contains(&n), "{longer} {shorter} {same}");
        }
    }

    #[test]
    fn single_letter_is_never_deleted_to_empty() {
        let mut rng = Randomness::seeded(3);
        for _ in 0..1000 {
            assert!(!corrupt("Q", 3, &mut rng).is_empty());
        }
    }
}
