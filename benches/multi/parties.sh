#!/usr/bin/env bash
# N parties of LIMIT two-word persons each (every party holds every person, one edit a copy:
# two copies are up to two edits apart, so every party's thresholds are for ed 2), all
# roles natively in the default configuration (keyed sketch, pseudonyms kept as ids to
# score): the time, CPU and peak memory of each step, and the clusters' scores.
#   bash benches/multi/parties.sh 1000000 5     (after cargo build --release --bin gramlink)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
g="$root/target/release/gramlink"
limit=${1:?persons per party}; n=${2:-5}
t=$(mktemp -d); trap 'rm -rf "$t"' EXIT
# the persons: two-word records drawn from NAMES
"$g" lab corrupt --data "$root/data/names.txt" --two-words "$limit" --ed 1 --seed 7 --out-a "$t/tw.csv" --out-b "$t/twb.csv" >/dev/null 2>&1
tail -n +2 "$t/tw.csv" | cut -d, -f2 > "$t/persons.txt"
"$g" lab corrupt --data "$t/persons.txt" --parties "$n" --presence 1 --ed 1 --seed 42 --out-dir "$t/p"
"$g" keygen -o "$t/key" >/dev/null 2>&1
for x in a b; do
    /usr/bin/time -f "mine $x: %e s wall, %U s CPU, %M KB" "$g" mine --input "$t/p/party_$x.csv" --column name --ledger "$t/$x.ledger.json" --out "$t/n$x.json" 2>&1 | grep "^mine"
done
"$g" merge "$t/na.json" "$t/nb.json" --out "$t/s.json" >/dev/null 2>&1
letters=abcdefghijklmnopqrstuvwxyz; batches=()
for i in $(seq 0 $((n - 1))); do
    x=${letters:$i:1}
    /usr/bin/time -f "embed $x: %e s wall, %U s CPU, %M KB" "$g" embed --input "$t/p/party_$x.csv" --column name --id-column id \
        --base "$t/s.json" --party "$x" --key-file "$t/key" --keep-ids --ed 2 --send-thresholds -o "$t/$x.vec" 2>&1 | grep "^embed"
    batches+=("$t/$x.vec")
done
ls -l "${batches[@]}" | awk '{print "batch " $9 ": " $5 " bytes"}'
/usr/bin/time -f "match: %e s wall, %U s CPU, %M KB" "$g" match "${batches[@]}" --truth "$t/p/truth.csv" -o "$t/clusters.csv" 2>&1 | grep -v warning
