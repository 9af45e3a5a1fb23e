#!/usr/bin/env bash
# gramlink's record linkage beside clkhash + anonlink and recordlinkage on FEBRL 1-3
# (benches/peers/records.py says how each is run); writes docs/results/records.{csv,md}.
set -euo pipefail
cd "$(dirname "$0")/../.."
VENV=target/peers-venv
if [ ! -x "$VENV/bin/python" ]; then
  python3 -m venv "$VENV"
fi
"$VENV/bin/pip" install -q --disable-pip-version-check -r benches/peers/requirements.txt
if [ -z "${GRAMLINK:-}" ]; then
  cargo build --release --quiet
  GRAMLINK=target/release/gramlink
fi
exec "$VENV/bin/python" benches/peers/records.py --gramlink "$GRAMLINK" --out "${OUT:-docs/results}"
