//! The labelling attack's decoding ([`super`]): public values encoded through
//! a learned map, the rows that map decodes exactly (anchors), the
//! decode-and-learn refinement, and the scoring against the truth.

use super::model::LabellingReport;
use crate::dp::Randomness;
use crate::embed::Embedder;
use crate::error::Error;
use std::collections::HashMap;

/// The frequency attack's guesses as anchors: identical rows grouped, the
/// groups of three rows or more ranked by size and named after the values by
/// decreasing frequency in `prior` (one anchor row per group).
pub(super) fn frequency_anchors(
    rows: &[Vec<(u32, u32)>],
    prior: &[(String, f64)],
    dictionary: &[String],
) -> Vec<(usize, usize)> {
    let mut groups: HashMap<&[(u32, u32)], (usize, usize)> = HashMap::new();
    for (r, row) in rows.iter().enumerate() {
        groups.entry(row.as_slice()).or_insert((0, r)).0 += 1;
    }
    let mut sized: Vec<(usize, usize)> = groups.into_values().filter(|&(n, _)| n >= 3).collect();
    sized.sort_by(|x, y| y.0.cmp(&x.0).then(x.1.cmp(&y.1)));
    let mut ranked: Vec<&(String, f64)> = prior.iter().collect();
    ranked.sort_by(|x, y| y.1.total_cmp(&x.1).then(x.0.cmp(&y.0)));
    let position: HashMap<&str, usize> = dictionary.iter().enumerate().map(|(i, s)| (s.as_str(), i)).collect();
    sized.iter().zip(ranked).filter_map(|(&(_, r), (name, _))| position.get(name.as_str()).map(|&i| (r, i))).collect()
}

/// A public value's encoding through a map of grams to coordinates: (coordinate, count).
fn image(map: &[u32], embedder: &Embedder, s: &str) -> Vec<(u32, u32)> {
    let mut m: Vec<(u32, u32)> = embedder
        .embed_sparse(s)
        .into_iter()
        .map(|(g, v)| (map[g], (v as f64 * embedder.gram_len(g) as f64).round() as u32))
        .collect();
    m.sort_unstable();
    let mut out: Vec<(u32, u32)> = Vec::new();
    for (b, c) in m {
        match out.last_mut() {
            Some((lb, lc)) if *lb == b => *lc += c,
            _ => out.push((b, c)),
        }
    }
    out
}

/// Rows whose encoding equals exactly one public value's under `map`: (row, value).
fn anchors(map: &[u32], embedder: &Embedder, rows: &[Vec<(u32, u32)>], dictionary: &[String]) -> Vec<(usize, usize)> {
    let mut exact: HashMap<Vec<(u32, u32)>, Vec<usize>> = HashMap::new();
    for (i, s) in dictionary.iter().enumerate() {
        exact.entry(image(map, embedder, s)).or_default().push(i);
    }
    rows.iter().enumerate().filter_map(|(r, row)| exact.get(row).filter(|v| v.len() == 1).map(|v| (r, v[0]))).collect()
}

/// Decode and learn: the rows the map decodes to exactly one public value
/// vote, for each gram of that value, for the coordinates of its length the
/// row holds; the map is rebuilt from the votes (most votes first, at most
/// `spread` grams a coordinate; grams without votes keep theirs where there
/// is room). A new map is kept while it decodes more rows so (C needs no
/// truth for that); five rounds at most.
#[allow(clippy::too_many_arguments)]
pub(super) fn refine(
    mut map: Vec<u32>,
    embedder: &Embedder,
    len: &[u8],
    shape: &crate::shape::Shape,
    rows: &[Vec<(u32, u32)>],
    dictionary: &[String],
    spread: usize,
    seeds: &[(usize, usize)],
) -> Vec<u32> {
    let (d, m) = (len.len(), shape.lengths.len());
    let mut current = anchors(&map, embedder, rows, dictionary);
    for _ in 0..5 {
        // the frequency guesses vote too: they name the most frequent values
        // whatever the map, and so seed the labels of their grams
        let voters: Vec<(usize, usize)> = current.iter().chain(seeds).copied().collect();
        let mut votes = vec![0u32; d * m];
        for &(r, v) in &voters {
            for (g, _) in embedder.embed_sparse(&dictionary[v]) {
                for &(b, _) in &rows[r] {
                    if shape.lengths[b as usize] == len[g].min(crate::shape::MAX_SHAPE_LEN) {
                        votes[g * m + b as usize] += 1;
                    }
                }
            }
        }
        let mut pairs: Vec<(u32, usize, usize)> = (0..d)
            .flat_map(|g| (0..m).map(move |b| (g, b)))
            .filter_map(|(g, b)| {
                let v = votes[g * m + b];
                (v > 0).then_some((v, g, b))
            })
            .collect();
        pairs.sort_unstable_by(|x, y| y.0.cmp(&x.0).then(x.1.cmp(&y.1)).then(x.2.cmp(&y.2)));
        let mut next = vec![u32::MAX; d];
        let mut filled = vec![0usize; m];
        for (_, g, b) in pairs {
            if next[g] == u32::MAX && filled[b] < spread {
                next[g] = b as u32;
                filled[b] += 1;
            }
        }
        for g in 0..d {
            if next[g] != u32::MAX {
                continue;
            }
            let old = map[g] as usize;
            let class = shape.lengths[old];
            let b = if filled[old] < spread {
                old
            } else {
                match (0..m).find(|&b| shape.lengths[b] == class && filled[b] < spread) {
                    Some(b) => b,
                    None => return map,
                }
            };
            next[g] = b as u32;
            filled[b] += 1;
        }
        let found = anchors(&next, embedder, rows, dictionary);
        if found.len() <= current.len() {
            break;
        }
        map = next;
        current = found;
    }
    map
}

#[allow(clippy::too_many_arguments)]
pub(super) fn decode(
    map: &[u32],
    embedder: &Embedder,
    shape: &crate::shape::Shape,
    rows: &[Vec<(u32, u32)>],
    dictionary: &[String],
    truth: &[String],
    targets: usize,
    residual: f64,
    rng: &mut Randomness,
) -> Result<LabellingReport, Error> {
    let images: Vec<Vec<(u32, u32)>> = dictionary.iter().map(|s| image(map, embedder, s)).collect();
    let mut exact: HashMap<&[(u32, u32)], Vec<u32>> = HashMap::new();
    for (i, im) in images.iter().enumerate() {
        exact.entry(im.as_slice()).or_default().push(i as u32);
    }
    let position: HashMap<&str, u32> = dictionary.iter().enumerate().map(|(i, s)| (s.as_str(), i as u32)).collect();
    let weight = |b: u32| 1.0 / (shape.lengths[b as usize] as f64).powi(2);
    let dist = |x: &[(u32, u32)], y: &[(u32, u32)]| -> f64 {
        let (mut i, mut j, mut d) = (0, 0, 0.0);
        while i < x.len() || j < y.len() {
            if j >= y.len() || (i < x.len() && x[i].0 < y[j].0) {
                d += weight(x[i].0) * (x[i].1 as f64).powi(2);
                i += 1;
            } else if i >= x.len() || y[j].0 < x[i].0 {
                d += weight(y[j].0) * (y[j].1 as f64).powi(2);
                j += 1;
            } else {
                d += weight(x[i].0) * (x[i].1 as f64 - y[j].1 as f64).powi(2);
                i += 1;
                j += 1;
            }
        }
        d
    };
    let n = targets.min(rows.len());
    let chosen: Vec<usize> = rng.permutation(rows.len()).into_iter().take(n).collect();
    let (mut hits, mut exact_n) = (0.0, 0usize);
    let mut per_value: HashMap<&str, (f64, usize)> = HashMap::new();
    for &r in &chosen {
        let row = &rows[r];
        let t = position.get(truth[r].as_str()).copied();
        let ties: Vec<u32> = match exact.get(row.as_slice()) {
            Some(names) => {
                exact_n += 1;
                names.clone()
            }
            None => {
                let mut best = f64::INFINITY;
                let mut ties = Vec::new();
                for (i, im) in images.iter().enumerate() {
                    let d = dist(row, im);
                    if d < best - 1e-9 {
                        best = d;
                        ties.clear();
                    }
                    if d <= best + 1e-9 {
                        ties.push(i as u32);
                    }
                }
                ties
            }
        };
        let hit = t.filter(|t| ties.contains(t)).map_or(0.0, |_| 1.0 / ties.len() as f64);
        hits += hit;
        let e = per_value.entry(truth[r].as_str()).or_default();
        e.0 += hit;
        e.1 += 1;
    }
    let distinct = per_value.values().map(|(h, c)| h / *c as f64).sum::<f64>() / per_value.len().max(1) as f64;
    Ok(LabellingReport {
        records: hits / n.max(1) as f64,
        distinct,
        targets: n,
        exact: exact_n as f64 / n.max(1) as f64,
        residual,
    })
}
