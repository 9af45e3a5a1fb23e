//! Average-linkage agglomerative clustering (the paper's §4.1: closeness of two
//! clusters is the mean similarity of their members), by the nearest-neighbour
//! chain algorithm: O(m²) time and one m×m distance matrix. Average linkage is
//! reducible, so the chain finds the same merges as the greedy "merge the two
//! closest clusters" loop the paper describes (up to ties); cutting the
//! dendrogram, sorted by merge height, at n_B clusters gives the paper's blocks.

use super::super::bigrams::Bigrams;

/// Cluster labels in 0..k for `values`, in order of each cluster's first member.
pub fn average_linkage(values: &[Bigrams], k: usize) -> Vec<usize> {
    let m = values.len();
    debug_assert!(k >= 1 && k <= m);
    let mut d = vec![0f32; m * m];
    for i in 0..m {
        for j in i + 1..m {
            let x = 1.0 - values[i].jaccard(&values[j]) as f32;
            d[i * m + j] = x;
            d[j * m + i] = x;
        }
    }
    let mut size = vec![1usize; m];
    let mut active = vec![true; m];
    let mut merges: Vec<(f32, usize, usize)> = Vec::with_capacity(m.saturating_sub(1));
    let mut chain: Vec<usize> = Vec::new();
    while merges.len() + 1 < m {
        if chain.is_empty() {
            chain.push(active.iter().position(|&a| a).unwrap_or(0));
        }
        loop {
            let x = *chain.last().unwrap_or(&0);
            let prev = if chain.len() >= 2 { Some(chain[chain.len() - 2]) } else { None };
            // the nearest active cluster; on a tie the previous link of the chain
            // wins, so the chain always ends in a reciprocal pair
            let mut best = prev.unwrap_or(usize::MAX);
            let mut best_d = prev.map_or(f32::INFINITY, |p| d[x * m + p]);
            for y in 0..m {
                if y != x && active[y] && d[x * m + y] < best_d {
                    best = y;
                    best_d = d[x * m + y];
                }
            }
            if Some(best) == prev {
                chain.pop();
                chain.pop();
                let (a, b) = (x.min(best), x.max(best));
                merges.push((best_d, a, b));
                // Lance–Williams update for average linkage; the merged cluster keeps slot a
                let (sa, sb) = (size[a] as f32, size[b] as f32);
                for y in 0..m {
                    if active[y] && y != a && y != b {
                        let v = (sa * d[a * m + y] + sb * d[b * m + y]) / (sa + sb);
                        d[a * m + y] = v;
                        d[y * m + a] = v;
                    }
                }
                active[b] = false;
                size[a] += size[b];
                break;
            }
            chain.push(best);
        }
    }
    // apply the lowest m − k merges (stable: ties keep the order found)
    merges.sort_by(|a, b| a.0.total_cmp(&b.0));
    let mut parent: Vec<usize> = (0..m).collect();
    fn find(p: &mut [usize], mut x: usize) -> usize {
        while p[x] != x {
            p[x] = p[p[x]];
            x = p[x];
        }
        x
    }
    for &(_, a, b) in merges.iter().take(m - k) {
        let (ra, rb) = (find(&mut parent, a), find(&mut parent, b));
        if ra != rb {
            parent[rb.max(ra)] = ra.min(rb);
        }
    }
    let mut label = vec![usize::MAX; m];
    let mut labels = Vec::with_capacity(m);
    let mut next = 0;
    for i in 0..m {
        let r = find(&mut parent, i);
        if label[r] == usize::MAX {
            label[r] = next;
            next += 1;
        }
        labels.push(label[r]);
    }
    labels
}

#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests {
    use super::*;

    #[test]
    fn groups_similar_values_and_gives_k_clusters() {
        let names = ["SMITH", "SMYTH", "SMITHE", "JOHNSON", "JONSON", "JOHNSEN", "LI", "LEE"];
        let v: Vec<Bigrams> = names.iter().map(|s| Bigrams::of(s)).collect();
        let labels = average_linkage(&v, 3);
        assert_eq!(labels.iter().max(), Some(&2));
        assert_eq!(labels[0], labels[1]);
        assert_eq!(labels[0], labels[2]);
        assert_eq!(labels[3], labels[4]);
        assert_eq!(labels[3], labels[5]);
        assert_ne!(labels[0], labels[3]);
        assert_eq!(average_linkage(&v, 8), (0..8).collect::<Vec<_>>());
        assert!(average_linkage(&v, 1).iter().all(|&l| l == 0));
    }
}
