#!/usr/bin/env bash
# N parties of LIMIT person records each in FEBRL's columns (`lab corrupt --people LIMIT
# --parties N --presence 1`: party A the originals, every other party its own
# duplicates with 1-3 realistic errors), linked as records under data/febrl/schema-large.toml
# (conjunctive blocks), all roles natively in the default configuration (keyed sketch):
# the time, CPU and peak memory of each step, and the clusters' scores.
#   bash benches/multi/people.sh 1000000 5     (after cargo build --release --bin gramlink)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
g="$root/target/release/gramlink"
schema="$root/data/febrl/schema-large.toml"
limit=${1:?persons}; n=${2:-5}
t=$(mktemp -d); trap 'rm -rf "$t"' EXIT
"$g" lab corrupt --data "$root/data/names.txt" --people "$limit" --parties "$n" --presence 1 --seed 42 --out-dir "$t/p"
"$g" keygen -o "$t/key" >/dev/null 2>&1
letters=abcdefghijklmnopqrstuvwxyz; bases=(); batches=()
for i in $(seq 0 $((n - 1))); do
    x=${letters:$i:1}
    /usr/bin/time -f "mine $x: %e s wall, %U s CPU, %M KB" "$g" mine --schema "$schema" -i "$t/p/party_$x.csv" \
        --ledger "$t/$x.ledger.json" -o "$t/n$x.json" 2>&1 | grep "^mine"
    bases+=("$t/n$x.json")
done
/usr/bin/time -f "merge: %e s wall, %M KB" "$g" merge --schema "$schema" "${bases[@]}" -o "$t/s.json" 2>&1 | grep "^merge"
for i in $(seq 0 $((n - 1))); do
    x=${letters:$i:1}
    /usr/bin/time -f "embed $x: %e s wall, %U s CPU, %M KB" "$g" embed --schema "$schema" -i "$t/p/party_$x.csv" \
        --base "$t/s.json" --party "$x" --key-file "$t/key" --keep-ids -o "$t/$x.glrb" 2>&1 | grep "^embed"
    batches+=("$t/$x.glrb")
done
ls -l "${batches[@]}" | awk '{print "batch " $9 ": " $5 " bytes"}'
# the clusters' truth: id, person
cut -d, -f2,3 "$t/p/truth.csv" > "$t/truth.csv"
/usr/bin/time -f "match: %e s wall, %U s CPU, %M KB" "$g" match --schema "$schema" "${batches[@]}" \
    --truth "$t/truth.csv" -o "$t/clusters.csv" 2>&1 | grep -v warning
