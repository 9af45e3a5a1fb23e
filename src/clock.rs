//! Wall-clock time for the phase timings. `std::time::Instant` does not exist on
//! wasm32-unknown-unknown, so the caller passes a clock: [`SystemClock`] natively,
//! `performance.now()` from the wasm bindings.

use std::collections::BTreeMap;

pub trait Clock {
    /// Milliseconds since an arbitrary origin.
    fn now_ms(&self) -> f64;
}

/// The milliseconds of a run's steps by name, each step's from the end of
/// the one before (the sessions' `timings_ms`).
pub struct Laps<'c> {
    clock: &'c dyn Clock,
    last: f64,
    timings_ms: BTreeMap<String, f64>,
}

impl<'c> Laps<'c> {
    /// The first step starts now.
    pub fn start(clock: &'c dyn Clock) -> Self {
        Laps { clock, last: clock.now_ms(), timings_ms: BTreeMap::new() }
    }

    /// Step `name` ends now; the next starts.
    pub fn lap(&mut self, name: &str) {
        let now = self.clock.now_ms();
        self.timings_ms.insert(name.to_string(), now - self.last);
        self.last = now;
    }

    pub fn into_timings(self) -> BTreeMap<String, f64> {
        self.timings_ms
    }
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
