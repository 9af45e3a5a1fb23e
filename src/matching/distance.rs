/// Euclidean distance, accumulated in f64 in coordinate order. Every matcher
/// decides `distance(a, b) <= th` with this function, so brute force and the
/// index agree even on ties at the threshold.
#[inline]
pub fn distance(a: &[f32], b: &[f32]) -> f64 {
    squared(a, b).sqrt()
}

#[inline]
fn squared(a: &[f32], b: &[f32]) -> f64 {
    let mut s = 0.0f64;
    for (x, y) in a.iter().zip(b) {
        let d = *x as f64 - *y as f64;
        s += d * d;
    }
    s
}
