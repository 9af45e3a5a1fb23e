#!/usr/bin/env bash
# The matcher as an Apache Spark job (local mode, python/gramlink/spark.py), beside the
# native matcher on the same two vector batches: N two-word records for each party
# (party B's with one edit each; N=100000 by default, N=1000000 is docs/PYTHON.md's
# scale run), both parties' steps with the CLI, then `gramlink match` and the Spark job
# in local[2]; prints both times, peak memory and whether the pairs are the same.
# Sets up the Python package first (scripts/python.sh without its tests).
# The embedding is the default one, `ed auto` (the Spark job fits the cut-off on the
# shards' candidates as `gramlink match` does). Unkeyed (`--no-key`) by default: a keyed
# batch has no q-gram filter, and the keyed matcher compares nearly every pair (10,000 ×
# 10,000 NAMES took 523 s in an earlier measurement (docs/PYTHON.md); 100,000 × 100,000 would take about
# 100 times as long); KEYED=1 embeds with a shared key (`gramlink keygen`), for small N.
#
#   bash scripts/spark.sh              # N=100000
#   N=1000000 MASTER='local[1]' bash scripts/spark.sh
#   N=2000 KEYED=1 bash scripts/spark.sh
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
root="$(pwd)"
export PATH="${CARGO_HOME:-$HOME/.cargo}/bin:$PATH"
n="${N:-100000}"
master="${MASTER:-local[2]}"

SETUP_ONLY=1 bash scripts/python.sh
cargo build --release --quiet
g="$root/target/release/gramlink"
keyed="${KEYED:-}"
dir="$root/target/spark-example/$n${keyed:+-keyed}"
mkdir -p "$dir"
cd "$dir"
if [ ! -f b.vec ]; then
    "$g" lab corrupt --data "$root/data/names.txt" --two-words "$n" --ed 1 --out-a a.csv --out-b b.csv --truth t.csv
    read=(--column name --id-column id)
    "$g" mine --input a.csv "${read[@]}" --out a-base.json
    "$g" mine --input b.csv "${read[@]}" --out b-base.json
    "$g" merge a-base.json b-base.json --out shared.json
    if [ -n "$keyed" ]; then
        "$g" keygen --out key.hex
        key=(--key-file key.hex)
    else
        key=(--no-key)
    fi
    "$g" embed --input a.csv "${read[@]}" --base shared.json "${key[@]}" --keep-ids --out a.vec
    "$g" embed --input b.csv "${read[@]}" --base shared.json --party b "${key[@]}" --keep-ids --out b.vec
fi
echo "== native: gramlink match"
TIMEFORMAT='native match: %R s wall, %U s user'
time "$g" match a.vec b.vec --truth t.csv --out pairs-cli.csv
echo "== Spark, $master"
"$root/target/pyenv/bin/python" "$root/benches/python/spark_scale.py" a.vec b.vec pairs-cli.csv \
    --master "$master" --out pairs-spark.parquet 2> spark.log || { tail -n 20 spark.log; exit 1; }
