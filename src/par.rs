//! The one switch between "every core natively" and "one thread in wasm32":
//! each helper runs its closure with rayon natively and as a plain loop on
//! wasm32, in the same order, so results are identical on both (each item's
//! result depends on that item only, and outputs keep the input order).
//!
//! In wasm, work over rows goes in calls of at least [`WASM_ROWS_PER_CALL`]
//! rows: V8 optimizes a function between calls, never inside a running one, so
//! one call over all rows would run its whole first time in baseline code.

use std::ops::Range;

/// The fewest rows one call handles in wasm (see the module docs).
pub const WASM_ROWS_PER_CALL: usize = 2048;

/// `f` over `0..len` in chunks of `chunk` rows (natively; at least
/// [`WASM_ROWS_PER_CALL`] in wasm), results in chunk order.
pub fn chunks<R: Send>(len: usize, chunk: usize, f: impl Fn(Range<usize>) -> R + Sync + Send) -> Vec<R> {
    chunks_init(len, chunk, || (), |_, rows| f(rows))
}

/// [`chunks`] with a per-thread state made by `init` (one in wasm), so that
/// large scratch buffers are allocated once per thread, not once per chunk.
pub fn chunks_init<S, R: Send>(
    len: usize,
    chunk: usize,
    init: impl Fn() -> S + Sync + Send,
    f: impl Fn(&mut S, Range<usize>) -> R + Sync + Send,
) -> Vec<R> {
    #[cfg(target_arch = "wasm32")]
    let chunk = chunk.max(WASM_ROWS_PER_CALL);
    let chunk = chunk.max(1);
    let range = move |c: usize| c * chunk..((c + 1) * chunk).min(len);
    #[cfg(not(target_arch = "wasm32"))]
    {
        use rayon::prelude::*;
        (0..len.div_ceil(chunk)).into_par_iter().map_init(init, |s, c| f(s, range(c))).collect()
    }
    #[cfg(target_arch = "wasm32")]
    {
        let mut state = init();
        (0..len.div_ceil(chunk)).map(|c| f(&mut state, range(c))).collect()
    }
}

/// Sorts `v` by `cmp`, a strict total order (no two elements equal, so every
/// sort gives the one result): natively rayon's parallel unstable sort, in
/// wasm the shared [`crate::sorting::sort_by`].
pub fn sort_strict_by<T: Send>(v: &mut [T], cmp: impl Fn(&T, &T) -> std::cmp::Ordering + Sync) {
    #[cfg(not(target_arch = "wasm32"))]
    {
        use rayon::prelude::*;
        v.par_sort_unstable_by(cmp);
    }
    #[cfg(target_arch = "wasm32")]
    crate::sorting::sort_by(v, cmp);
}

/// `f` of each item, in order.
#[cfg_attr(not(feature = "research"), allow(dead_code))]
pub fn map<T: Sync, R: Send>(items: &[T], f: impl Fn(&T) -> R + Sync + Send) -> Vec<R> {
    #[cfg(not(target_arch = "wasm32"))]
    {
        use rayon::prelude::*;
        items.par_iter().map(f).collect()
    }
    #[cfg(target_arch = "wasm32")]
    {
        items.iter().map(f).collect()
    }
}

/// `f` of each item with a per-thread state made by `init` (one in wasm), in order.
pub fn map_init<T: Sync, S, R: Send>(
    items: &[T],
    init: impl Fn() -> S + Sync + Send,
    f: impl Fn(&mut S, &T) -> R + Sync + Send,
) -> Vec<R> {
    #[cfg(not(target_arch = "wasm32"))]
    {
        use rayon::prelude::*;
        items.par_iter().map_init(init, f).collect()
    }
    #[cfg(target_arch = "wasm32")]
    {
        let mut state = init();
        items.iter().map(|x| f(&mut state, x)).collect()
    }
}

/// Fills row i of `out` (rows of `width` values) from item i, with a per-thread
/// state made by `init` (one in wasm).
pub fn fill_rows<T: Sync, V: Send, S>(
    out: &mut [V],
    width: usize,
    items: &[T],
    init: impl Fn() -> S + Sync + Send,
    f: impl Fn(&mut S, &mut [V], &T) + Sync + Send,
) {
    let width = width.max(1);
    #[cfg(not(target_arch = "wasm32"))]
    {
        use rayon::prelude::*;
        out.par_chunks_mut(width).zip(items.par_iter()).for_each_init(init, |s, (row, x)| f(s, row, x));
    }
    #[cfg(target_arch = "wasm32")]
    {
        let mut state = init();
        for (row, x) in out.chunks_mut(width).zip(items) {
            f(&mut state, row, x);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_keep_the_input_order() {
        let items: Vec<u64> = (0..10_000).collect();
        assert_eq!(map(&items, |x| x * 2), items.iter().map(|x| x * 2).collect::<Vec<_>>());
        assert_eq!(map_init(&items, || 1u64, |s, x| x + *s), items.iter().map(|x| x + 1).collect::<Vec<_>>());
        let parts = chunks(10_001, 512, |r| (r.start, r.end));
        assert_eq!(parts.first(), Some(&(0, 512)));
        assert_eq!(parts.last().map(|p| p.1), Some(10_001));
        let with_state = chunks_init(10_001, 512, Vec::new, |s: &mut Vec<usize>, r| {
            s.push(r.start);
            (r.start, r.end)
        });
        assert_eq!(with_state, parts);
        assert!(parts.windows(2).all(|w| w[0].1 == w[1].0), "contiguous, in order");
        let mut out = vec![0u64; 3 * 100];
        fill_rows(&mut out, 3, &items[..100], || (), |_, row, x| row.iter_mut().for_each(|v| *v = *x));
        assert_eq!(&out[297..], &[99, 99, 99]);
        assert!(chunks(0, 512, |r| r).is_empty());
    }
}
