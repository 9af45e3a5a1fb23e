//! Section 2.2's optional re-assignment (Aggarwal and Yu): "at the end of the
//! process, each group is examined to check if the strings in it can be
//! re-assigned to other groups in order to reduce the objective function
//! value. If this is the case, then the assignment is performed and the number
//! of groups further reduces."
//!
//! Readings taken (the paper gives no more than the quoted sentences):
//! - "the last set of groups that was created" is the assignment the passes
//!   keep ([`super::group`]), and the test runs once over it;
//! - groups are examined from the last formed to the first (the paper says the
//!   incoherent groups are those formed towards the end of a pass);
//! - re-assigning a group moves *all* its strings, each to the group with the
//!   closest current centroid (the paper: "the number of groups further
//!   reduces"); a group is never split, so every group still holds at least
//!   `k` strings and the k-indistinguishability is untouched;
//! - the move is kept iff the objective (the sum of each string's distance
//!   (2.3) to its group's centroid, the one the passes use) falls; the
//!   centroids of the receiving groups are recomputed after each kept move.

use super::group::{centroid, cost};
use super::template::Template;

/// Dissolves the groups whose strings fit other groups better (see the module
/// docs). `groups` hold at least `k` each and stay so; returns how many were dissolved.
pub fn reassign(templates: &[&Template], groups: &mut Vec<Vec<usize>>, len: usize, l: usize) -> usize {
    let mut centroids: Vec<Vec<f32>> = groups.iter().map(|g| centroid(templates, g, len, l)).collect();
    let mut costs: Vec<f64> = groups.iter().zip(&centroids).map(|(g, c)| cost(templates, g, c, l)).collect();
    let mut alive = vec![true; groups.len()];
    let mut dissolved = 0;
    for g in (0..groups.len()).rev() {
        if alive.iter().filter(|&&a| a).count() < 2 {
            break;
        }
        // each string to the closest other live centroid
        let mut moves: Vec<(usize, usize)> = Vec::with_capacity(groups[g].len());
        for &j in &groups[g] {
            let best = (0..groups.len())
                .filter(|&h| h != g && alive[h])
                .map(|h| (templates[j].distance(&centroids[h], l), h))
                .min_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
            if let Some((_, h)) = best {
                moves.push((j, h));
            }
        }
        let mut receivers: Vec<usize> = moves.iter().map(|m| m.1).collect();
        receivers.sort_unstable();
        receivers.dedup();
        let mut after: Vec<(usize, Vec<usize>, Vec<f32>, f64)> = Vec::with_capacity(receivers.len());
        let mut change = -costs[g];
        for &h in &receivers {
            let mut members = groups[h].clone();
            members.extend(moves.iter().filter(|m| m.1 == h).map(|m| m.0));
            let c = centroid(templates, &members, len, l);
            let new_cost = cost(templates, &members, &c, l);
            change += new_cost - costs[h];
            after.push((h, members, c, new_cost));
        }
        if change < 0.0 {
            for (h, members, c, new_cost) in after {
                groups[h] = members;
                centroids[h] = c;
                costs[h] = new_cost;
            }
            groups[g].clear();
            alive[g] = false;
            dissolved += 1;
        }
    }
    groups.retain(|g| !g.is_empty());
    dissolved
}

#[cfg(test)]
mod tests {
    use super::super::group::objective;
    use super::*;

    #[test]
    fn an_incoherent_group_is_dissolved_into_the_groups_its_strings_fit() {
        // two tight clusters of 4 and a group made of one string of each
        // cluster (k = 2): its strings belong with the clusters
        let mut ts = Vec::new();
        for i in 0..4u16 {
            ts.push(Template::convert(&[0, 0, 0, i % 2], 4));
        }
        for i in 0..4u16 {
            ts.push(Template::convert(&[5, 5, 5, 5 + i % 2], 4));
        }
        ts.push(Template::convert(&[0, 0, 0, 0], 4));
        ts.push(Template::convert(&[5, 5, 5, 5], 4));
        let refs: Vec<&Template> = ts.iter().collect();
        let mut groups = vec![vec![0, 1, 2, 3], vec![4, 5, 6, 7], vec![8, 9]];
        let before = objective(&refs, &groups, 4, 8);
        assert_eq!(reassign(&refs, &mut groups, 4, 8), 1);
        assert_eq!(groups, vec![vec![0, 1, 2, 3, 8], vec![4, 5, 6, 7, 9]]);
        assert!(objective(&refs, &groups, 4, 8) < before);
    }

    #[test]
    fn coherent_groups_are_kept() {
        // two clusters, each its own group: dissolving either would mix them
        let mut ts = Vec::new();
        for i in 0..6u16 {
            ts.push(Template::convert(&[i % 2, 0, 0], 3));
            ts.push(Template::convert(&[7, 7, 6 + i % 2], 3));
        }
        let refs: Vec<&Template> = ts.iter().collect();
        let mut groups = vec![(0..12).step_by(2).collect::<Vec<_>>(), (1..12).step_by(2).collect()];
        let kept = groups.clone();
        assert_eq!(reassign(&refs, &mut groups, 3, 8), 0);
        assert_eq!(groups, kept);
    }
}
