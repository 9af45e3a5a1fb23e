//! indicatif progress for the core's [`Progress`] ticks (hidden when stderr is
//! not a terminal, so logs stay clean).

use gramlink::error::Error;
use gramlink::progress::Progress;
use indicatif::{ProgressBar, ProgressStyle};

pub struct Bar {
    bar: ProgressBar,
    phase: String,
}

impl Bar {
    pub fn new() -> Self {
        let bar = ProgressBar::new(0);
        bar.set_style(
            ProgressStyle::with_template("{spinner} {msg} [{elapsed}] {wide_bar} {pos}/{len}")
                .unwrap_or_else(|_| ProgressStyle::default_bar()),
        );
        Bar { bar, phase: String::new() }
    }

    pub fn finish(&self) {
        self.bar.finish_and_clear();
    }
}

impl Progress for Bar {
    fn tick(&mut self, phase: &str, done: u64, total: u64) -> Result<(), Error> {
        if phase != self.phase {
            self.phase = phase.to_string();
            self.bar.set_message(self.phase.clone());
        }
        if total > 0 {
            self.bar.set_length(total);
        }
        self.bar.set_position(done);
        Ok(())
    }
}

impl Drop for Bar {
    fn drop(&mut self) {
        self.bar.finish_and_clear();
    }
}
