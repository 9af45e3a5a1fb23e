#!/usr/bin/env bash
# Regenerates docs/results/ (the paper's Figures 4–10 as CSV, SVG and tables, and the
# Bloom-filter peer's table) and docs/RESULTS.md, from scratch, in one command.
#
#   scripts/experiments.sh                 # everything, 3 seeded runs per point
#   SKIP_PEER=1 scripts/experiments.sh     # without the clkhash + anonlink peer
#
# Environment: RUNS (default 3), NAMES_LIMIT (NAMES records for Figures 4–8 and
# the peer; default all), SKIP_PEER=1, EXPERIMENT_ARGS (more `gramlink experiment`
# flags, e.g. "--fig5-names 5000").
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --quiet
GL=target/release/gramlink
rm -rf docs/results
mkdir -p docs/results
limit=()
if [ -n "${NAMES_LIMIT:-}" ]; then limit=(--names-limit "$NAMES_LIMIT"); fi
# shellcheck disable=SC2086
"$GL" experiment all --runs "${RUNS:-3}" --out docs/results "${limit[@]}" ${EXPERIMENT_ARGS:-}
if [ "${SKIP_PEER:-0}" != 1 ]; then
  GRAMLINK="$GL" NAMES_LIMIT="${NAMES_LIMIT:-0}" benches/peers/run.sh > docs/results/peer.json
fi
"$GL" results --results-dir docs/results
