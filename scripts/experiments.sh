#!/usr/bin/env bash
# Regenerates docs/results/ (the paper's Figures 4–10 as CSV, SVG and tables, the
# linkage-quality levers table and the Bloom-filter peer's table) and
# docs/RESULTS.md (its F1 tables too), from scratch, in one command. Its defaults are
# what docs/ shows.
#
#   scripts/experiments.sh                 # everything, 3 seeded runs per point
#   SKIP_PEER=1 scripts/experiments.sh     # without the clkhash + anonlink peer
#
# Environment (defaults in brackets):
#   RUNS [3]                 seeded runs per point of each figure
#   NAMES_LIMIT [20000]      NAMES records for Figures 4–8 and 10 (0: all 149,910; the
#                            figures then take hours on 2 cores)
#   PEER_NAMES_LIMIT [50000] NAMES records for the peer (0: all). The peer compares all
#                            pairs, so its time grows with n²: 50,000 names take ~4 min
#                            per ed, all of NAMES ~25–40 min per ed under load (peer.md
#                            states the extrapolation from the measured times)
#   LEVERS_NAMES [10000]     NAMES records (a seeded random subset) of the levers table
#   SKIP_PEER=1, EXPERIMENT_ARGS (more `gramlink lab experiment` flags, e.g. "--fig5-names 5000")
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --quiet
GL=target/release/gramlink
rm -rf docs/results
mkdir -p docs/results
limit=()
if [ "${NAMES_LIMIT:-20000}" != 0 ]; then limit=(--names-limit "${NAMES_LIMIT:-20000}"); fi
# shellcheck disable=SC2086
"$GL" lab experiment all --runs "${RUNS:-3}" --out docs/results "${limit[@]}" ${EXPERIMENT_ARGS:-}
"$GL" lab levers --names-n "${LEVERS_NAMES:-10000}" --csv docs/results/levers.csv --md docs/results/levers.md > /dev/null
if [ "${SKIP_PEER:-0}" != 1 ]; then
  GRAMLINK="$GL" NAMES_LIMIT="${PEER_NAMES_LIMIT:-50000}" benches/peers/run.sh > docs/results/peer.json
fi
"$GL" lab results --results-dir docs/results
