//! One stable sort for every comparator: a code-size measure for the wasm package.
//!
//! `slice::sort_by` is monomorphized per element type *and* per comparator closure;
//! each copy of the standard library's driftsort is 5–10 KB of wasm, and the core's
//! 20-odd sort sites made a fifth of the package's code. [`sort_by`] sorts a
//! permutation of `u32` indices with a comparator behind `&dyn`, so the sort itself
//! exists once, and then moves the elements into place (one small loop per element
//! type). The result is exactly that of the standard stable `sort_by` (the index sort
//! is stable, so equal elements keep their order); the cost is an indirect call per
//! comparison, which is small next to the work around every sort site here (mining,
//! building an index, ordering the pairs the matcher found); the matcher's per-query
//! sort of `(row, distance)` candidates keeps a direct sort, [`sort_by_distance`].

use std::cmp::Ordering;

/// Stable sort of `v` by `cmp`, with the same result as `v.sort_by(cmp)`: in wasm
/// the shared [`index_sort_by`]; natively `v.sort_by(cmp)`, since code size does not
/// matter there and the direct sort spares the matcher's large pair lists the index
/// permutation.
pub(crate) fn sort_by<T>(v: &mut [T], cmp: impl Fn(&T, &T) -> Ordering) {
    #[cfg(target_arch = "wasm32")]
    index_sort_by(v, cmp);
    #[cfg(not(target_arch = "wasm32"))]
    v.sort_by(cmp);
}

/// Puts the element that `cmp` (a strict total order) ranks `mid`-th at `mid`,
/// the smaller ones before it and the larger after: natively a selection; in wasm
/// the shared [`sort_by`] (no select routine in the package), which leaves the
/// same elements on each side.
pub(crate) fn partition_at<T>(v: &mut [T], mid: usize, cmp: impl Fn(&T, &T) -> Ordering) {
    #[cfg(target_arch = "wasm32")]
    {
        let _ = mid;
        sort_by(v, cmp);
    }
    #[cfg(not(target_arch = "wasm32"))]
    v.select_nth_unstable_by(mid, cmp);
}

/// Stable sort through one shared index sort (the module's documentation).
#[cfg_attr(not(target_arch = "wasm32"), allow(dead_code))]
fn index_sort_by<T>(v: &mut [T], cmp: impl Fn(&T, &T) -> Ordering) {
    if v.len() < 2 {
        return;
    }
    assert!(v.len() <= u32::MAX as usize, "sorting more than u32::MAX elements");
    let mut perm = sorted_indices(v.len(), &|i, j| cmp(&v[i as usize], &v[j as usize]));
    apply(v, &mut perm);
}

/// Sorts plain keys (integers, tuples of them) ascending. Equal keys are
/// indistinguishable, so stable and unstable sorts give the same slice. In wasm,
/// an insertion sort for the short per-record lists (a few dozen grams) and the
/// shared [`index_sort_by`] beyond, so no per-type copy of the std sort is
/// compiled; natively `sort_unstable`.
pub(crate) fn sort_keys<T: Ord + Copy>(v: &mut [T]) {
    #[cfg(target_arch = "wasm32")]
    small_keys_sort(v);
    #[cfg(not(target_arch = "wasm32"))]
    v.sort_unstable();
}

/// [`sort_keys`] in wasm (tested natively against `sort_unstable`).
#[cfg_attr(not(target_arch = "wasm32"), allow(dead_code))]
fn small_keys_sort<T: Ord + Copy>(v: &mut [T]) {
    if v.len() > 24 {
        return index_sort_by(v, |x, y| x.cmp(y));
    }
    for i in 1..v.len() {
        let x = v[i];
        let mut j = i;
        while j > 0 && v[j - 1] > x {
            v[j] = v[j - 1];
            j -= 1;
        }
        v[j] = x;
    }
}

/// The elements of both sorted slices (ascending, no repeats), in order.
pub(crate) fn intersect_sorted<T: Ord + Copy>(x: &[T], y: &[T]) -> Vec<T> {
    let (mut i, mut j, mut out) = (0, 0, Vec::new());
    while i < x.len() && j < y.len() {
        match x[i].cmp(&y[j]) {
            Ordering::Less => i += 1,
            Ordering::Greater => j += 1,
            Ordering::Equal => {
                out.push(x[i]);
                i += 1;
                j += 1;
            }
        }
    }
    out
}

/// Sorts `(row, distance)` candidates by (distance, row), as the matcher's queries
/// return them. The matcher sorts once per query, so this keeps the inlined
/// comparator of the standard sort; the sites share this one instantiation.
#[inline(never)]
pub(crate) fn sort_by_distance(v: &mut [(u32, f64)]) {
    v.sort_by(|x, y| x.1.total_cmp(&y.1).then(x.0.cmp(&y.0)));
}

/// The indices `0..n` stably sorted by `cmp` (one instantiation of the std sort).
#[inline(never)]
fn sorted_indices(n: usize, cmp: &dyn Fn(u32, u32) -> Ordering) -> Vec<u32> {
    let mut perm: Vec<u32> = (0..n as u32).collect();
    perm.sort_by(|&i, &j| cmp(i, j));
    perm
}

/// Rearranges `v` so that `v[k]` becomes the old `v[perm[k]]`, by following the
/// permutation's cycles with swaps; marks visited entries in `perm`.
fn apply<T>(v: &mut [T], perm: &mut [u32]) {
    const DONE: u32 = u32::MAX;
    for i in 0..v.len() {
        if perm[i] == DONE {
            continue;
        }
        let mut j = i;
        loop {
            let k = perm[j] as usize;
            perm[j] = DONE;
            if k == i {
                break;
            }
            v.swap(j, k);
            j = k;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_as_std_stable_sort() {
        // seeded pseudo-random keys with many ties: stability is visible
        let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
        for n in [0usize, 1, 2, 3, 17, 100, 1000] {
            let v: Vec<(u32, u32)> = (0..n as u32)
                .map(|i| {
                    x ^= x << 13;
                    x ^= x >> 7;
                    x ^= x << 17;
                    ((x % 7) as u32, i)
                })
                .collect();
            let mut a = v.clone();
            let mut b = v.clone();
            a.sort_by_key(|p| p.0);
            index_sort_by(&mut b, |p, q| p.0.cmp(&q.0));
            assert_eq!(a, b);
            let mut s: Vec<String> = v.iter().map(|p| format!("{}-{}", p.0, p.1)).collect();
            let mut t = s.clone();
            s.sort_by(|p, q| q.cmp(p));
            index_sort_by(&mut t, |p, q| q.cmp(p));
            assert_eq!(s, t);
            // plain keys: the wasm sort (insertion up to 24, index sort beyond)
            let mut w = v.iter().map(|p| (p.0, p.1 % 3)).collect::<Vec<_>>();
            let mut w2 = w.clone();
            w.sort_unstable();
            small_keys_sort(&mut w2);
            assert_eq!(w, w2, "n = {n}");
        }
    }
}
