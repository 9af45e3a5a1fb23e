#!/usr/bin/env bash
# The measurements of docs/TWINS.md: condensation on NAMES and CITIES for
# k in {5, 10, 25, 50}; KRIMP on FEBRL's categorical columns and two UCI sets
# for min_sup in {1, 5, 20, 50}; the rehearsal's F1 loss on NAMES (first 10,000),
# CITIES and FEBRL 1-3. Writes target/twins/*.md and prints them.
# usage: bash benches/twins/measure.sh [condense|reassign|krimp|rehearse|all]
set -euo pipefail
cd "$(dirname "$0")/../.."
what=${1:-all}
G=target/release/gramlink
[ -x "$G" ] || CARGO_BUILD_JOBS=1 cargo build --release --bin gramlink
O=target/twins
mkdir -p "$O"

if [[ $what == condense || $what == all ]]; then
  for data in names cities; do
    for k in 5 10 25 50; do
      s=$(date +%s.%N)
      "$G" twin "data/$data.txt" -o "$O/$data.k$k.txt" --k "$k" --seed 1 --nn-sample 1000 >/dev/null 2>"$O/$data.k$k.log"
      e=$(date +%s.%N)
      echo "$data $k $(echo "$e - $s" | bc)" >>"$O/times.txt"
    done
  done
  python3 benches/twins/tables.py condense "$O" >"$O/condense.md"
  cat "$O/condense.md"
fi

if [[ $what == reassign || $what == all ]]; then
  # section 2.2's optional re-assignment, off and on, seeds 1-3
  : >"$O/reassign-times.txt"
  for data in names cities; do
    for k in 5 10 25 50; do
      for seed in 1 2 3; do
        for mode in off on; do
          flag=(--reassign true); [[ $mode == off ]] && flag=(--reassign false)
          s=$(date +%s.%N)
          "$G" twin "data/$data.txt" -o "$O/ra.$data.k$k.s$seed.$mode.txt" --k "$k" --seed "$seed" --nn-sample 1000 \
            "${flag[@]}" >/dev/null 2>&1
          e=$(date +%s.%N)
          echo "$data $k $seed $mode $(echo "$e - $s" | bc)" >>"$O/reassign-times.txt"
        done
      done
    done
  done
  python3 benches/twins/tables.py reassign "$O" >"$O/reassign.md"
  cat "$O/reassign.md"
fi

if [[ $what == krimp || $what == all ]]; then
  python3 benches/twins/categorical.py febrl "$O" >/dev/null
  : >"$O/krimp.md"
  for f in "$O"/febrl1-categorical.csv "$O"/febrl2-categorical.csv "$O"/febrl3-categorical.csv data/uci/iris.csv data/uci/pima.csv; do
    "$G" lab krimp "$f" --min-sup 1,5,20,50 --runs 10 --patterns >>"$O/krimp.md"
    echo >>"$O/krimp.md"
  done
  cat "$O/krimp.md"
fi

if [[ $what == rehearse || $what == all ]]; then
  : >"$O/rehearse.md"
  head -n 10000 data/names.txt >"$O/names10k.txt"
  cp data/cities.txt "$O/cities.txt"
  for data in names10k cities; do
    # party B's real file: the scenario's corrupted copy (one edit); and a
    # mixture (40 % untouched, 40 % one edit, 20 % two) for the observed corruption
    "$G" lab corrupt --data "$O/$data.txt" --ed 1 --seed 7 --out-a "$O/$data.a.csv" --out-b "$O/$data.b.csv" 2>/dev/null
    "$G" lab corrupt --data "$O/$data.txt" --ed 2 --seed 8 --out-a "$O/$data.a.csv" --out-b "$O/$data.b2.csv" 2>/dev/null
    cut -d, -f2- "$O/$data.b.csv" | tail -n +2 >"$O/$data.b.txt"
    python3 benches/twins/mix.py "$O/$data.a.csv" 0.4,0.4,0.2 5 "$O/$data.b.csv" "$O/$data.b2.csv" >"$O/$data.bmix.txt"
    "$G" twin "$O/$data.txt" -o "$O/$data.twin-a.txt" --seed 11 >/dev/null 2>&1
    "$G" twin "$O/$data.b.txt" -o "$O/$data.twin-b.txt" --seed 12 >/dev/null 2>&1
    "$G" twin "$O/$data.bmix.txt" -o "$O/$data.twin-bmix.txt" --seed 13 >/dev/null 2>&1
    for ed in 1 2; do
      echo "## $data, corruption $ed edits" >>"$O/rehearse.md"
      "$G" rehearse "$O/$data.twin-a.txt" "$O/$data.twin-b.txt" --real "$O/$data.txt" --real "$O/$data.b.txt" \
        --corrupt-ed "$ed" >>"$O/rehearse.md" 2>/dev/null
    done
    echo "## $data, B one edit, corruption observed on the real files" >>"$O/rehearse.md"
    "$G" rehearse "$O/$data.twin-a.txt" "$O/$data.twin-b.txt" --real "$O/$data.txt" --real "$O/$data.b.txt" \
      --observe "$O/$data.txt" --observe "$O/$data.b.txt" --real-corrupt-rates 0,1 >>"$O/rehearse.md" 2>&1
    for how in fixed real twins; do
      echo "## $data, B mixed 40/40/20, corruption: $how" >>"$O/rehearse.md"
      case $how in
        fixed) c=(--corrupt-ed 1) ;;
        real) c=(--observe "$O/$data.txt" --observe "$O/$data.bmix.txt") ;;
        twins) c=(--observe "$O/$data.twin-a.txt" --observe "$O/$data.twin-bmix.txt") ;;
      esac
      "$G" rehearse "$O/$data.twin-a.txt" "$O/$data.twin-bmix.txt" --real "$O/$data.txt" --real "$O/$data.bmix.txt" \
        "${c[@]}" --real-corrupt-rates 0.4,0.4,0.2 2>&1 | grep -v '^\s*$' >>"$O/rehearse.md"
    done
  done
  # the same schema with every pair above the threshold kept (no one-to-one
  # assignment), where the threshold alone decides
  { grep -v '^\[decision\]' data/febrl/schema.toml; printf '\n[decision]\nassignment = "all"\n'; } >"$O/schema-all.toml"
  for n in 1 2 3; do
    for p in a b; do
      "$G" twin --schema data/febrl/schema.toml "data/febrl/dataset$n-$p.csv" -o "$O/febrl$n.twin-$p.csv" \
        --categorical postcode --k 5 --length-epsilon 0.5 --seed 2$n >/dev/null 2>&1
    done
    for schema in data/febrl/schema.toml "$O/schema-all.toml"; do
      echo "## FEBRL $n, $schema" >>"$O/rehearse.md"
      "$G" rehearse --schema "$schema" "$O/febrl$n.twin-a.csv" "$O/febrl$n.twin-b.csv" \
        --real "data/febrl/dataset$n-a.csv" --real "data/febrl/dataset$n-b.csv" \
        --truth "data/febrl/dataset$n-truth.csv" >>"$O/rehearse.md" 2>/dev/null
    done
  done
  cat "$O/rehearse.md"
fi
