#!/usr/bin/env bash
# The main job: mine a differentially private gram base of the bundled surnames
# (data/names.txt) natively, then print it. Needs only cargo (no scripts/setup.sh).
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."

export PATH="${CARGO_HOME:-$HOME/.cargo}/bin:$PATH"

out=target/names-base.json
cargo run --release -- mine \
    --input data/names.txt \
    --miner prefix-tree \
    --strategy hybrid \
    --epsilon 0.1 \
    --k 75 \
    --qmin 1 \
    --qmax 3 \
    --out "$out"

printf '\n==== %s ====\n' "$out"
cat "$out"
printf '\n'
