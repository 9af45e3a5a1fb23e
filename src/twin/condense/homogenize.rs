//! The paper's *HomogenizeLength* (section 2): segments of strings whose lengths
//! lie in `[l_s, (1 + ε)·l_s]`, each of at least `k` strings; strings that fit no
//! such range are suppressed.

/// A segment: the indices of its strings and its length range.
#[derive(Debug, Clone, PartialEq)]
pub struct Segment {
    pub min_len: usize,
    pub max_len: usize,
    pub members: Vec<usize>,
}

/// Segments `lengths` (one per string, each > 0) as the paper does: from the
/// shortest remaining string `l_s`, if at least `k` remaining strings have a
/// length in `[l_s, (1 + ε)·l_s]`, *all* of them form a segment; otherwise the
/// shortest string is suppressed. Returns the segments and the suppressed indices.
pub fn homogenize(lengths: &[usize], epsilon: f64, k: usize) -> (Vec<Segment>, Vec<usize>) {
    let mut order: Vec<usize> = (0..lengths.len()).collect();
    order.sort_by_key(|&i| (lengths[i], i));
    let (mut segments, mut suppressed) = (Vec::new(), Vec::new());
    let mut at = 0;
    while at < order.len() {
        let ls = lengths[order[at]];
        let upper = (1.0 + epsilon) * ls as f64;
        let end = at + order[at..].iter().take_while(|&&i| lengths[i] as f64 <= upper + 1e-9).count();
        if end - at >= k {
            let members = order[at..end].to_vec();
            segments.push(Segment { min_len: ls, max_len: lengths[order[end - 1]], members });
            at = end;
        } else {
            suppressed.push(order[at]);
            at += 1;
        }
    }
    (segments, suppressed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_are_tight_and_hold_k() {
        let lengths = [4, 4, 4, 5, 5, 6, 9, 10, 10, 10, 30];
        let (segs, sup) = homogenize(&lengths, 0.25, 3);
        // [4, 5]: 4,4,4,5,5; [6, 7.5]: one string, suppressed; [9, 11.25]: 9,10,10,10; 30 alone
        assert_eq!(segs.len(), 2);
        assert_eq!((segs[0].min_len, segs[0].max_len, segs[0].members.len()), (4, 5, 5));
        assert_eq!((segs[1].min_len, segs[1].max_len, segs[1].members.len()), (9, 10, 4));
        assert_eq!(sup, vec![5, 10]);
        for s in &segs {
            assert!(s.max_len as f64 <= 1.25 * s.min_len as f64);
        }
    }

    #[test]
    fn epsilon_zero_is_equal_lengths() {
        let (segs, sup) = homogenize(&[3, 3, 4, 4, 4], 0.0, 2);
        assert_eq!(segs.iter().map(|s| s.members.len()).collect::<Vec<_>>(), vec![2, 3]);
        assert!(sup.is_empty());
    }
}
