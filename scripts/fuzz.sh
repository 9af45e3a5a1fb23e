#!/usr/bin/env bash
# Runs the fuzz targets of fuzz/ with libFuzzer for SECS seconds each (default 60).
# With cargo-fuzz installed this is `cargo +nightly fuzz run <target>`; without it,
# the targets are built with the flags cargo-fuzz passes (SanitizerCoverage for
# libFuzzer, debug assertions and overflow checks; no AddressSanitizer: the code
# is safe Rust, the bugs sought are panics) and run directly.
# New interesting inputs are merged (minimized) into fuzz/corpus/<target>.
set -euo pipefail
cd "$(dirname "$0")/../fuzz"
SECS="${SECS:-60}"
TARGETS=("${@:-message_json binary_batch csv text}")
export RUSTFLAGS="-Cpasses=sancov-module -Cllvm-args=-sanitizer-coverage-level=4 -Cllvm-args=-sanitizer-coverage-inline-8bit-counters -Cllvm-args=-sanitizer-coverage-pc-table -Cllvm-args=-sanitizer-coverage-trace-compares --cfg fuzzing -Cdebug-assertions -Coverflow-checks"
# an explicit --target keeps RUSTFLAGS off build scripts and proc macros, as cargo-fuzz does
cargo +nightly build --release --bins --target x86_64-unknown-linux-gnu
for t in ${TARGETS[@]}; do
  mkdir -p "corpus/$t" "artifacts/$t" "work/$t"
  echo "---- $t: ${SECS}s"
  "target/x86_64-unknown-linux-gnu/release/$t" -max_total_time="$SECS" -max_len=65536 -rss_limit_mb=2048 -print_final_stats=1 \
    -artifact_prefix="artifacts/$t/" "work/$t" "corpus/$t" 2>&1 | grep -E "^(#[0-9]+ +DONE|stat::|==|SUMMARY|Done)" || true
  # keep the committed corpus small: only inputs that add coverage
  mkdir -p "work/$t.min"
  "target/x86_64-unknown-linux-gnu/release/$t" -merge=1 "work/$t.min" "corpus/$t" "work/$t" >/dev/null 2>&1 || true
  if [ -n "$(ls -A "work/$t.min")" ]; then
    rm -rf "corpus/$t" && mv "work/$t.min" "corpus/$t"
  fi
  rm -rf "work/$t" "work/$t.min"
done
