//! The paper's partitioning of a homogenized segment into groups of at least
//! `k` templates (section 2): a first pass around random seed strings, then
//! passes around the previous groups' centroids, until the objective improves
//! by less than 1 %.
//!
//! Readings taken (the paper leaves them open):
//! - the objective is the sum over strings of the distance (2.3) to their
//!   group's centroid;
//! - the passes stop after `max_passes` even if they still improve by 1 % or
//!   more, and the best assignment seen is kept;
//! - the strings left over at the end of a pass (fewer than `k`) join the group
//!   with the closest centroid, as the paper says for the first pass, in every pass;
//! - section 2.2's optional re-assignment test (dissolving groups) is
//!   [`super::reassign`], run on the kept assignment when asked.

use super::template::Template;
use crate::dp::Randomness;

/// Groups the templates (all of length `len`, over `l` symbols) into groups of
/// at least `k` (`templates.len() ≥ k ≥ 1`). Returns groups of indices.
pub fn group(
    templates: &[&Template],
    len: usize,
    l: usize,
    k: usize,
    max_passes: usize,
    rng: &mut Randomness,
) -> Vec<Vec<usize>> {
    let n = templates.len();
    debug_assert!(n >= k && k >= 1);
    // pass 1: seeds are random strings; the seed and its k-1 closest form a group
    let mut assigned = vec![false; n];
    let mut remaining = n;
    let mut groups: Vec<Vec<usize>> = Vec::new();
    let mut seed_row = vec![0.0f32; len * l];
    for seed in rng.permutation(n) {
        if remaining < k {
            break;
        }
        if assigned[seed] {
            continue;
        }
        seed_row.iter_mut().for_each(|x| *x = 0.0);
        templates[seed].add_to(&mut seed_row, l);
        assigned[seed] = true;
        let mut members = closest(templates, &assigned, &seed_row, l, k - 1);
        for &j in &members {
            assigned[j] = true;
        }
        members.push(seed);
        remaining -= k;
        groups.push(members);
    }
    leftovers_to_closest(templates, &assigned, &mut groups, len, l);
    let mut best_objective = objective(templates, &groups, len, l);
    let mut best = groups;
    // later passes: each centroid of the last assignment takes its k closest
    for _ in 1..max_passes {
        let mut centroids: Vec<Vec<f32>> = best.iter().map(|g| centroid(templates, g, len, l)).collect();
        rng.shuffle(&mut centroids);
        let mut assigned = vec![false; n];
        let mut remaining = n;
        let mut groups = Vec::with_capacity(centroids.len());
        for c in &centroids {
            if remaining < k {
                break;
            }
            let members = closest(templates, &assigned, c, l, k);
            for &j in &members {
                assigned[j] = true;
            }
            remaining -= k;
            groups.push(members);
        }
        leftovers_to_closest(templates, &assigned, &mut groups, len, l);
        let obj = objective(templates, &groups, len, l);
        let improved = best_objective - obj;
        if obj < best_objective {
            best_objective = obj;
            best = groups;
        }
        if improved < 0.01 * best_objective.max(f64::MIN_POSITIVE) {
            break;
        }
    }
    best
}

/// The `m` unassigned templates closest to `row` (ties by index).
fn closest(templates: &[&Template], assigned: &[bool], row: &[f32], l: usize, m: usize) -> Vec<usize> {
    let mut d: Vec<(f32, usize)> =
        (0..templates.len()).filter(|&j| !assigned[j]).map(|j| (templates[j].distance(row, l), j)).collect();
    let cmp = |a: &(f32, usize), b: &(f32, usize)| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1));
    if m == 0 {
        return Vec::new();
    }
    if d.len() > m {
        d.select_nth_unstable_by(m - 1, cmp);
        d.truncate(m);
    }
    d.into_iter().map(|(_, j)| j).collect()
}

/// Each unassigned template joins the group with the closest centroid.
fn leftovers_to_closest(templates: &[&Template], assigned: &[bool], groups: &mut [Vec<usize>], len: usize, l: usize) {
    let centroids: Vec<Vec<f32>> = groups.iter().map(|g| centroid(templates, g, len, l)).collect();
    for j in (0..templates.len()).filter(|&j| !assigned[j]) {
        let best = centroids
            .iter()
            .enumerate()
            .map(|(g, c)| (templates[j].distance(c, l), g))
            .min_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
        if let Some((_, g)) = best {
            groups[g].push(j);
        }
    }
}

/// The average of the group's templates, `len × l` (rows sum to 1).
pub(super) fn centroid(templates: &[&Template], members: &[usize], len: usize, l: usize) -> Vec<f32> {
    let mut c = vec![0.0f32; len * l];
    for &j in members {
        templates[j].add_to(&mut c, l);
    }
    let n = members.len().max(1) as f32;
    c.iter_mut().for_each(|x| *x /= n);
    c
}

pub(super) fn objective(templates: &[&Template], groups: &[Vec<usize>], len: usize, l: usize) -> f64 {
    groups.iter().map(|g| cost(templates, g, &centroid(templates, g, len, l), l)).sum()
}

/// One group's share of the objective: its strings' distances to `centroid`.
pub(super) fn cost(templates: &[&Template], members: &[usize], centroid: &[f32], l: usize) -> f64 {
    members.iter().map(|&j| templates[j].distance(centroid, l) as f64).sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_template_in_one_group_of_at_least_k() {
        let mut rng = Randomness::seeded(5);
        let ts: Vec<Template> = (0..53u16).map(|i| Template::convert(&[i % 3, (i / 3) % 4, i % 5, 7], 4)).collect();
        let refs: Vec<&Template> = ts.iter().collect();
        for k in [1, 5, 10, 53] {
            let groups = group(&refs, 4, 8, k, 6, &mut rng);
            let mut all: Vec<usize> = groups.iter().flatten().copied().collect();
            all.sort_unstable();
            assert_eq!(all, (0..53).collect::<Vec<_>>());
            assert!(groups.iter().all(|g| g.len() >= k), "k {k}");
            assert_eq!(groups.len(), 53 / k);
        }
    }

    #[test]
    fn similar_strings_group_together() {
        // two clusters of 10 far apart: with k = 10 each group is one cluster
        let mut ts = Vec::new();
        for i in 0..10u16 {
            ts.push(Template::convert(&[0, 0, 0, i % 2], 4));
            ts.push(Template::convert(&[5, 5, 5, 5 + i % 2], 4));
        }
        let refs: Vec<&Template> = ts.iter().collect();
        let groups = group(&refs, 4, 8, 10, 5, &mut Randomness::seeded(1));
        for g in groups {
            let first = g[0] % 2;
            assert!(g.iter().all(|&j| j % 2 == first), "{g:?}");
        }
    }
}
