#!/usr/bin/env bash
# Five of pseudopeople's data sets as five parties (census, SSA, WIC, CPS, ACS), gramlink's
# clusters beside anonlink's multi-party solver (benches/peers/people_parties.py says how
# each is run); the files go to target/people/, the table to
# docs/results/people-parties.{csv,md}. Arguments go to people_parties.py (e.g. --seeds 1 2 3,
# --noise high).
set -euo pipefail
cd "$(dirname "$0")/../.."
. benches/peers/setup.sh
exec "$VENV/bin/python" benches/peers/people_parties.py --gramlink "$GRAMLINK" --out "${OUT:-docs/results}" "$@"
