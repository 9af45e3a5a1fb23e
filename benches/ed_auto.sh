#!/usr/bin/env bash
# F1 of each fixed --ed and of --ed auto (the default), and what auto chose:
# the scenario (docs/SCENARIO.md) on CITIES and NAMES with B at 1 and 2 edits,
# and one-string linkage of FEBRL 1-3's surname, given name and both ("given
# surname", made here from the split files) scored against their truth files.
# Usage: bash benches/ed_auto.sh [path to gramlink]   (NAMES_LIMIT=20000 for the
# ed 3 column on NAMES: 3 edits over all 149,910 names takes many minutes)
set -euo pipefail
cd "$(dirname "$0")/.."
G=${1:-target/release/gramlink}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
NAMES_LIMIT=${NAMES_LIMIT:-20000}
head -n "$NAMES_LIMIT" data/names.txt > "$T/names.txt"
echo "| data | B's edits | F1 ed 1 | ed 2 | ed 3 | auto | auto chose | auto − best fixed |"
echo "|---|---|---|---|---|---|---|---|"
f1_eval() { "$G" lab eval --data "$1" --ed "$2" --corrupt-ed "$3" --json | python3 -c 'import json,sys; r=json.load(sys.stdin); c=r.get("cutoff"); print("%.4f" % r["f1"], (max([i for i,k in enumerate(c["keptByEdits"]) if k >= max(1, 0.01*c["kept"])] or [0]) if c else "-"))'; }
row() { # name file corrupt_ed
  local a=() chose=
  for e in 1 2 3 auto; do read -r f c < <(f1_eval "$2" $e "$3"); a+=("$f"); [ "$e" = auto ] && chose=$c; done
  python3 -c 'import sys; n,c,x,y,z,w,ch=sys.argv[1:]; b=max(map(float,(x,y,z))); print(f"| {n} | {c} | {x} | {y} | {z} | {w} | ed {ch} | {float(w)-b:+.4f} |")' "$1" "$3" "${a[@]}" "$chose"
}
for c in 1 2; do row CITIES data/cities.txt $c; row "NAMES (first $NAMES_LIMIT)" "$T/names.txt" $c; done
python3 - "$T" <<'PY'
import csv, sys
for ds in (1, 2, 3):
    for side in "ab":
        rows = list(csv.reader(open(f"data/febrl/dataset{ds}-{side}.csv"), skipinitialspace=True))
        h = rows[0]; gi, si = h.index("given_name"), h.index("surname")
        with open(f"{sys.argv[1]}/febrl{ds}-{side}.csv", "w", newline="") as f:
            w = csv.writer(f); w.writerow(["rec_id", "given_name", "surname", "name"])
            for r in rows[1:]: w.writerow([r[0], r[gi], r[si], (r[gi] + " " + r[si]).strip()])
PY
f1_link() { "$G" link "$T/febrl$1-a.csv" "$T/febrl$1-b.csv" --column "$2" --id-column rec_id --ed "$3" --seed 42 \
  --truth "data/febrl/dataset$1-truth.csv" -o "$T/p.csv" 2>&1 | python3 -c '
import re,sys; t=sys.stdin.read(); f=re.search(r"F1 ([0-9.]+)", t).group(1); m=re.search(r"ed auto chose (\d+)", t); print(f, m.group(1) if m else "-")'; }
for ds in 1 2 3; do for col in surname given_name name; do
  a=(); chose=
  for e in 1 2 3 auto; do read -r f c < <(f1_link $ds $col $e); a+=("$f"); [ "$e" = auto ] && chose=$c; done
  python3 -c 'import sys; n,x,y,z,w,ch=sys.argv[1:]; b=max(map(float,(x,y,z))); print(f"| {n} | real | {x} | {y} | {z} | {w} | ed {ch} | {float(w)-b:+.4f} |")' "FEBRL $ds $col" "${a[@]}" "$chose"
done; done
# KEYED=1: the same for keyed batches (the default two-party flow: no q-gram filter,
# so auto fits on distances relative to A's thresholds) on CITIES, the first
# KEYED_NAMES_LIMIT (10000) NAMES and FEBRL 1 "given surname"; slow (the keyed
# matcher compares nearly every pair: NAMES at ed 2 takes minutes and 6 GB).
[ "${KEYED:-0}" = 1 ] || exit 0
head -n "${KEYED_NAMES_LIMIT:-10000}" data/names.txt > "$T/names-keyed.txt"
echo
echo "| data (keyed) | B's edits | F1 ed 1 | ed 2 | auto | auto chose | auto − best fixed |"
echo "|---|---|---|---|---|---|---|"
k_eval() { "$G" lab eval --data "$1" --keyed --ed "$2" --corrupt-ed "$3" --json | python3 -c 'import json,sys; r=json.load(sys.stdin); c=r.get("cutoff"); print("%.4f" % r["f1"], "-" if not c else (["0"]+["%g" % e for e in (0.25,0.5,0.75)]+["1"])[max([i for i,k in enumerate(c["keptByEdits"]) if k >= max(1, 0.01*c["kept"])] or [0])])'; }
k_row() { # name file corrupt_ed
  local a=() chose=
  for e in 1 2 auto; do read -r f c < <(k_eval "$2" $e "$3"); a+=("$f"); [ "$e" = auto ] && chose=$c; done
  python3 -c 'import sys; n,c,x,y,w,ch=sys.argv[1:]; b=max(map(float,(x,y))); print(f"| {n} | {c} | {x} | {y} | {w} | d ≤ {ch}·t | {float(w)-b:+.4f} |")' "$1" "$3" "${a[@]}" "$chose"
}
for c in 1 2; do k_row CITIES data/cities.txt $c; k_row "NAMES (first ${KEYED_NAMES_LIMIT:-10000})" "$T/names-keyed.txt" $c; done
a=()
for e in 1 2 auto; do
  a+=("$("$G" link "$T/febrl1-a.csv" "$T/febrl1-b.csv" --column name --id-column rec_id --ed $e --seed 42 --keyed \
    --truth data/febrl/dataset1-truth.csv -o "$T/p.csv" 2>&1 | python3 -c 'import re,sys; print(re.search(r"F1 ([0-9.]+)", sys.stdin.read()).group(1))')")
done
python3 -c 'import sys; x,y,w=sys.argv[1:]; b=max(map(float,(x,y))); print(f"| FEBRL 1 name | real | {x} | {y} | {w} | | {float(w)-b:+.4f} |")' "${a[@]}"
