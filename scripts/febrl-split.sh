#!/usr/bin/env bash
# Splits each FEBRL data set (data/febrl/datasetN.csv) into the two parties of
# docs/SCENARIO.md: A holds the originals (rec-N-org), B the duplicates
# (rec-N-dup-K), each in file order, and the truth (every rec-N-org,
# rec-N-dup-K pair). Deterministic; tests/records.rs checks the files it wrote.
set -euo pipefail
cd "$(dirname "$0")/../data/febrl"
for n in 1 2 3; do
  in="dataset$n.csv"
  head -n 1 "$in" > "dataset$n-a.csv"
  head -n 1 "$in" > "dataset$n-b.csv"
  tail -n +2 "$in" | grep -E '^rec-[0-9]+-org,' >> "dataset$n-a.csv"
  tail -n +2 "$in" | grep -E '^rec-[0-9]+-dup-[0-9]+,' >> "dataset$n-b.csv"
  { echo "a_id,b_id"; tail -n +2 "$in" | grep -oE '^rec-[0-9]+-dup-[0-9]+' | sed -E 's/^(rec-[0-9]+)-dup-[0-9]+$/\1-org,&/'; } > "dataset$n-truth.csv"
done
