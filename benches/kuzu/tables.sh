#!/usr/bin/env bash
# The blocking and linkage tables of docs/KUZU.md: `gramlink lab kuzu-eval` (decisions
# in the clear, identical to the encrypted protocol's; seed 42) over the number of
# blocks, ε and w_n, on FEBRL 2 and 3 and the single-string scenario (NAMES, one
# edit), and over the public identifier.
# Usage: benches/kuzu/tables.sh [path/to/gramlink]   (a release build)
set -euo pipefail
G=${1:-target/release/gramlink}
F=data/febrl
row() { # label, then eval arguments
  local label=$1
  shift
  "$G" lab kuzu-eval --json "$@" | python3 -c '
import json, sys
d = json.load(sys.stdin); s = d["scores"]
cells = [sys.argv[1], d["blocks"], d["epsilon"], "%g" % d["wn"], "%.4f" % s["rr"], "%.4f" % s["pc"], d["fakes"],
         d["suppressed"], "%.4f" % s["precision"], "%.4f" % s["recall"], "%.4f" % s["f1"]]
print("| " + " | ".join(str(c) for c in cells) + " |")' "$label"
}
febrl() { row "FEBRL $1, surname" $F/dataset$1-a.csv $F/dataset$1-b.csv --truth $F/dataset$1-truth.csv --rule $F/kuzu.toml --public data/names.txt "${@:2}"; }
names() { row "NAMES ed 1, surname" --names data/names.txt --n 5000 --ed 1 --public data/names.txt "$@"; }
header='| data, identifier | blocks (n_B + 1) | ε | w_n | RR | PC | fakes | suppressed | precision | recall | F1 |
|---|---|---|---|---|---|---|---|---|---|---|'

echo "### Number of blocks (ε 0.3, w_n 5000)"
echo "$header"
for nb in 50 100 250 500 1000; do febrl 2 --blocks $nb; febrl 3 --blocks $nb; names --blocks $nb; done
echo
echo "### ε (n_B 500, w_n 5000)"
echo "$header"
for e in 0.1 0.3 0.5 1.0; do febrl 2 --epsilon $e; febrl 3 --epsilon $e; names --epsilon $e; done
echo
echo "### w_n (n_B 500, ε 0.3)"
echo "$header"
for w in 0.1 1 10 100 1000 5000; do febrl 2 --wn $w; febrl 3 --wn $w; names --wn $w; done
echo
echo "### Public identifier (n_B 500, ε 0.3, w_n 5000)"
echo "$header"
city_rule=$(mktemp --suffix=.toml)
trap 'rm -f "$city_rule"' EXIT
sed 's/^block = "surname"/block = "suburb"/' $F/kuzu.toml > "$city_rule"
for i in 2 3; do
  febrl $i
  row "FEBRL $i, suburb (cities.txt, 600)" $F/dataset$i-a.csv $F/dataset$i-b.csv --truth $F/dataset$i-truth.csv \
    --rule "$city_rule" --public data/cities.txt --take 600
done
