//! Wall-clock time for the phase timings. `std::time::Instant` does not exist on
//! wasm32-unknown-unknown, so the caller passes a clock: [`SystemClock`] natively,
//! `performance.now()` from the wasm bindings.

pub trait Clock {
    /// Milliseconds since an arbitrary origin.
    fn now_ms(&self) -> f64;
}

/// No clock: every timing reads 0 (tests that do not care).
#[derive(Debug, Default, Clone, Copy)]
pub struct NoClock;

impl Clock for NoClock {
    fn now_ms(&self) -> f64 {
        0.0
    }
}

#[cfg(not(target_arch = "wasm32"))]
#[derive(Debug, Clone, Copy)]
pub struct SystemClock(std::time::Instant);

#[cfg(not(target_arch = "wasm32"))]
impl Default for SystemClock {
    fn default() -> Self {
        SystemClock(std::time::Instant::now())
    }
}

#[cfg(not(target_arch = "wasm32"))]
impl Clock for SystemClock {
    fn now_ms(&self) -> f64 {
        self.0.elapsed().as_secs_f64() * 1000.0
    }
}
