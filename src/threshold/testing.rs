//! Reference implementations for the tests: the definitions, literally.
use super::*;
use crate::alphabet::Alphabet;

pub fn base_over(alphabet: &str, grams: &[&str]) -> SharedBase {
    let lens: Vec<usize> = grams.iter().map(|g| g.chars().count()).collect();
    let lo = lens.iter().copied().min().unwrap_or(1);
    let hi = lens.iter().copied().max().unwrap_or(1);
    let al = if alphabet.is_empty() { Alphabet::default() } else { Alphabet::new(alphabet).unwrap() };
    SharedBase::new(al, lo, hi, grams.iter().map(|g| g.to_string()).collect()).unwrap()
}

/// Exact squared distance of the embeddings, from integer counts.
pub fn dist2(base: &SharedBase, s: &str, t: &str) -> f64 {
    let (s, t): (Vec<char>, Vec<char>) = (s.chars().collect(), t.chars().collect());
    let count = |x: &[char], g: &[char]| {
        if g.len() > x.len() {
            0
        } else {
            x.windows(g.len()).filter(|w| *w == g).count() as i64
        }
    };
    base.grams()
        .iter()
        .map(|g| {
            let g: Vec<char> = g.chars().collect();
            let d = (count(&s, &g) - count(&t, &g)) as f64 / g.len() as f64;
            d * d
        })
        .sum()
}

/// Every string within one edit of `s` over `sigma` (s itself included).
pub fn neighbours(s: &str, sigma: &[char]) -> Vec<String> {
    let c: Vec<char> = s.chars().collect();
    let mut out = vec![s.to_string()];
    for i in 0..=c.len() {
        for &x in sigma {
            let mut t = c.clone();
            t.insert(i, x);
            out.push(t.into_iter().collect());
            if i < c.len() {
                let mut t = c.clone();
                t[i] = x;
                out.push(t.into_iter().collect());
            }
        }
        if i < c.len() {
            let mut t = c.clone();
            t.remove(i);
            out.push(t.into_iter().collect());
        }
    }
    out
}
