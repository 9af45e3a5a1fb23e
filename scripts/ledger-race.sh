#!/usr/bin/env bash
# The ledger race (issue 31): starts two `gramlink mine` runs on the same file
# at once, TRIALS times, and counts the trials in which both were admitted (both
# exited 0: two noisy bases released on a ledger whose total allows one).
# Usage: scripts/ledger-race.sh [GRAMLINK_BINARY] [TRIALS] [DATA]
set -u
bin=${1:-target/debug/gramlink}
trials=${2:-50}
data=${3:-data/names.txt}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# the ledgers' index of these runs stays in the work folder, not in the user's state
export XDG_STATE_HOME="$work/state"
both=0
one=0
none=0
for i in $(seq 1 "$trials"); do
  dir="$work/$i"
  mkdir "$dir"
  cp "$data" "$dir/names.txt"
  # two runs forked back to back: each takes far longer than the fork between them
  for r in a b; do
    ("$bin" mine --input "$dir/names.txt" --out "$dir/$r.json" 2>"$dir/$r.err"; echo $? >"$dir/$r.rc") &
  done
  wait
  admitted=0
  for r in a b; do
    [ "$(cat "$dir/$r.rc")" = 0 ] && admitted=$((admitted + 1))
  done
  case $admitted in
    2) both=$((both + 1)) ;;
    1) one=$((one + 1)) ;;
    *) none=$((none + 1)) ;;
  esac
done
echo "trials $trials: both admitted $both, one admitted $one, none admitted $none"
