#!/usr/bin/env bash
# gramlink against a Bloom-filter peer (clkhash + anonlink), side by side on the same
# corrupted data: `gramlink lab corrupt` writes party A's and B's files (seed 42), both
# tools link them, peer.py scores both the same way and writes docs/results/peer.{csv,md}.
#
#   benches/peers/run.sh                  # CITIES and all of NAMES, ed 0, 1, 2
#   NAMES_LIMIT=50000 benches/peers/run.sh  # NAMES on its first 50,000 names (what
#                                           # scripts/experiments.sh runs: the peer is
#                                           # all-pairs, all of NAMES takes ~40 min per ed)
#
# peer.py also runs `gramlink link --preset recommended` (the default) and an extra NAMES
# block on the first 10,000 names; see its --help.
#
# Environment: NAMES_LIMIT (default: all), EDS (default "0 1 2"), SEED (default 42),
# OUT (default docs/results), GRAMLINK (a built binary; default: cargo build --release).
set -euo pipefail
cd "$(dirname "$0")/../.."
. benches/peers/setup.sh
exec "$VENV/bin/python" benches/peers/peer.py --gramlink "$GRAMLINK" \
  --names-limit "${NAMES_LIMIT:-0}" --eds ${EDS:-0 1 2} --seed "${SEED:-42}" --out "${OUT:-docs/results}"
