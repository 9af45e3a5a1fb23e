#!/usr/bin/env bash
# The main job: the whole private linkage on the bundled surnames (data/names.txt,
# docs/SCENARIO.md): party B holds a copy with one random edit per name, both parties
# mine ε-DP gram bases (ε = 0.1 each), merge, embed; party A sends thresholds; the
# matcher links. Prints precision, recall, F1 and the time of each phase.
# Needs only cargo (no scripts/setup.sh).
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."

export PATH="${CARGO_HOME:-$HOME/.cargo}/bin:$PATH"

cargo build --release --quiet
./target/release/gramlink eval --data data/names.txt --ed 1 --seed 42 "$@"
