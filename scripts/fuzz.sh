#!/usr/bin/env bash
# Runs the fuzz targets of fuzz/ with libFuzzer for SECS seconds each (default 60).
# With cargo-fuzz installed this is `cargo +nightly fuzz run <target>`; without it,
# the targets are built with the flags cargo-fuzz passes (SanitizerCoverage for
# libFuzzer, debug assertions and overflow checks; no AddressSanitizer: the code
# is safe Rust, the bugs sought are panics) and run directly.
# New interesting inputs are merged (minimized) into fuzz/corpus/<target>.
#
# ASAN=1 adds AddressSanitizer (nightly -Zsanitizer=address; its own target
# folder, fuzz/target-asan): it catches out-of-bounds and use-after-free in
# unsafe code and dependencies, and reports any single allocation past
# -malloc_limit_mb (= RSS_MB) as a crash, which is how a size announced by an
# input and allocated before it is checked shows up.
# BUILD=0 skips the build (to start a second target beside a running one).
# MERGE=0 leaves fuzz/corpus as it is (CI: a run checks, it does not commit).
# STRICT=1 exits non-zero when a target's run did not end cleanly (a crash, a
# leak or a sanitizer report; its input is in fuzz/artifacts/<target>/).
# The full libFuzzer output of each target goes to fuzz/logs/<target>.log (not committed).
set -euo pipefail
cd "$(dirname "$0")/../fuzz"
SECS="${SECS:-60}"
TARGETS=("${@:-message_json binary_batch csv text}")
RSS_MB="${RSS_MB:-2048}"
export RUSTFLAGS="-Cpasses=sancov-module -Cllvm-args=-sanitizer-coverage-level=4 -Cllvm-args=-sanitizer-coverage-inline-8bit-counters -Cllvm-args=-sanitizer-coverage-pc-table -Cllvm-args=-sanitizer-coverage-trace-compares --cfg fuzzing -Cdebug-assertions -Coverflow-checks"
TARGET_DIR=target
if [ "${ASAN:-0}" = 1 ]; then
  # the standard library stays uninstrumented (no -Zbuild-std), as with cargo-fuzz's default
  export RUSTFLAGS="$RUSTFLAGS -Zsanitizer=address -Cunsafe-allow-abi-mismatch=sanitizer"
  export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=0:allocator_may_return_null=1}"
  TARGET_DIR=target-asan
fi
BIN="$TARGET_DIR/x86_64-unknown-linux-gnu/release"
# an explicit --target keeps RUSTFLAGS off build scripts and proc macros, as cargo-fuzz does
if [ "${BUILD:-1}" = 1 ]; then
  cargo +nightly build --release --bins --target x86_64-unknown-linux-gnu --target-dir "$TARGET_DIR"
fi
mkdir -p logs
failed=0
for t in ${TARGETS[@]}; do
  mkdir -p "corpus/$t" "artifacts/$t" "work/$t"
  echo "---- $t: ${SECS}s (log: fuzz/logs/$t.log)"
  # fuzz/seeds/<target> (hand-made valid messages, kept by name) start the search too
  seeds=(); [ -d "seeds/$t" ] && seeds=("seeds/$t")
  rc=0
  "$BIN/$t" -max_total_time="$SECS" -max_len=65536 -rss_limit_mb="$RSS_MB" -print_final_stats=1 \
    -artifact_prefix="artifacts/$t/" "work/$t" "corpus/$t" "${seeds[@]}" >"logs/$t.log" 2>&1 || rc=$?
  grep -E "^(#[0-9]+ +DONE|stat::|==|SUMMARY|Done)" "logs/$t.log" || true
  if [ "$rc" != 0 ]; then
    echo "---- $t: libFuzzer exited with status $rc (see fuzz/logs/$t.log, fuzz/artifacts/$t/)"
    failed=1
  fi
  if [ "${MERGE:-1}" = 0 ]; then
    rm -rf "work/$t"
    continue
  fi
  # keep the committed corpus small: only inputs that add coverage
  mkdir -p "work/$t.min"
  "$BIN/$t" -merge=1 "work/$t.min" "corpus/$t" "work/$t" "${seeds[@]}" >/dev/null 2>&1 || true
  if [ -n "$(ls -A "work/$t.min")" ]; then
    rm -rf "corpus/$t" && mv "work/$t.min" "corpus/$t"
  fi
  rm -rf "work/$t" "work/$t.min"
done
if [ "${STRICT:-0}" = 1 ] && [ "$failed" = 1 ]; then
  exit 1
fi
