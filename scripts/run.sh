#!/usr/bin/env bash
# The main job: the whole private linkage on the bundled surnames (data/names.txt,
# docs/SCENARIO.md): party B holds a copy with one random edit per name, both parties
# mine ε-DP gram bases (ε = 0.1 each), merge, embed; party A sends thresholds; the
# matcher links. Prints precision, recall, F1 and the time of each phase.
# Then whole records: FEBRL data set 3 (originals against duplicates with real errors)
# under data/febrl/schema.toml, secure noise (docs/RECORDS.md).
# Needs only cargo (no scripts/setup.sh).
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."

export PATH="${CARGO_HOME:-$HOME/.cargo}/bin:$PATH"

cargo build --release --quiet
./target/release/gramlink lab eval --data data/names.txt --ed 1 --seed 42 "$@"
echo
echo "== FEBRL 3, whole records (data/febrl/schema.toml)"
./target/release/gramlink lab eval --schema data/febrl/schema.toml \
    data/febrl/dataset3-a.csv data/febrl/dataset3-b.csv --truth data/febrl/dataset3-truth.csv
