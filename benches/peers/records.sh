#!/usr/bin/env bash
# gramlink's record linkage beside clkhash + anonlink and recordlinkage on FEBRL 1-3
# (benches/peers/records.py says how each is run); writes docs/results/records.{csv,md}.
set -euo pipefail
cd "$(dirname "$0")/../.."
. benches/peers/setup.sh
exec "$VENV/bin/python" benches/peers/records.py --gramlink "$GRAMLINK" --out "${OUT:-docs/results}"
