#!/usr/bin/env python3
"""gramlink's record linkage beside two peers, on FEBRL data sets 1-3, in one run.

For each data set, party A holds the originals and party B the duplicates
(data/febrl/datasetN-{a,b}.csv, truth datasetN-truth.csv; scripts/febrl-split.sh):

* gramlink: `gramlink lab eval --schema data/febrl/schema.toml` with secure randomness
  (private: eps = 0.1 per party in all), thresholds proposed by the tool from its EM fit,
  never from the truth; the assignment is the schema's `auto`.
* the Bloom-filter peer: clkhash CLKs of the whole record (every field a bigram feature,
  field weights as bits per token), anonlink candidate generation and either anonlink's
  greedy one-to-one solver or many-to-one (each B record to its most similar A record);
  the Dice threshold of the grid 0.50..0.95 AND the solver are chosen on the truth (an
  oracle choice, favourable to the peer).
* a non-private Fellegi-Sunter linker: the recordlinkage package (blocking on given name,
  surname, postcode and social security number; Jaro-Winkler >= 0.85 on strings, exact on
  the rest; its unsupervised ECM classifier), on the clear records.

Precision = true pairs returned / pairs returned; recall = true pairs returned / all
true pairs (data sets 2 and 3 have several duplicates per original); F1.
Writes docs/results/records.{csv,md}.
"""

import argparse
import csv
import json
import os
import subprocess
import time

import anonlink
import pandas as pd
import recordlinkage as rl
from clkhash import clk
from clkhash.schema import from_json_dict

from common import greedy_at, write_csv
from common import versions as peer_versions

COLUMNS = ["rec_id", "given_name", "surname", "street_number", "address_1", "address_2",
           "suburb", "postcode", "state", "date_of_birth", "soc_sec_id"]
# clkhash field weights: bits per bigram token
WEIGHTS = {"given_name": 30, "surname": 30, "street_number": 10, "address_1": 15,
           "address_2": 10, "suburb": 15, "postcode": 15, "state": 5,
           "date_of_birth": 25, "soc_sec_id": 30}
GRID = [round(0.50 + 0.05 * i, 2) for i in range(10)]
SECRET = "gramlink-records-benchmark"


def clk_schema():
    feats = [{"identifier": "rec_id", "ignored": True}]
    for c in COLUMNS[1:]:
        feats.append({
            "identifier": c,
            "format": {"type": "string", "encoding": "utf-8"},
            "hashing": {
                "comparison": {"type": "ngram", "n": 2, "positional": False},
                "strategy": {"bitsPerToken": WEIGHTS[c]},
                "hash": {"type": "doubleHash"},
                "missingValue": {"sentinel": "", "replaceWith": ""},
            },
        })
    return {"version": 3, "clkConfig": {"l": 2048, "kdf": {"type": "HKDF", "hash": "SHA256", "keySize": 64}},
            "features": feats}


def read(path):
    df = pd.read_csv(path, dtype=str, skipinitialspace=True, keep_default_na=False)
    df.columns = [c.strip() for c in df.columns]
    for c in df.columns:
        df[c] = df[c].str.strip()
    return df


def truth_set(path):
    with open(path, newline="") as f:
        rows = list(csv.reader(f))[1:]
    return {(a.strip(), b.strip()) for a, b in rows}


def score(pairs, truth):
    pairs = list(pairs)
    correct = sum(1 for p in pairs if p in truth)
    p = correct / len(pairs) if pairs else 0.0
    r = correct / len(truth) if truth else 0.0
    return p, r, (2 * p * r / (p + r) if p + r else 0.0), len(pairs)


def run_gramlink(exe, n):
    t0 = time.perf_counter()
    out = subprocess.run([exe, "lab", "eval", "--schema", "data/febrl/schema.toml", f"data/febrl/dataset{n}-a.csv",
                          f"data/febrl/dataset{n}-b.csv", "--truth", f"data/febrl/dataset{n}-truth.csv", "--json"],
                         check=True, capture_output=True, text=True).stdout
    wall = time.perf_counter() - t0
    r = json.loads(out)
    q = r["quality"]["matches"]
    return {"precision": q["precision"], "recall": q["recall"], "f1": q["f1"], "pairs": q["pairs"], "wall_s": wall,
            "note": f"thresholds proposed (upper {r['upper']:.2f}), assignment {r['assignment']}, "
                    f"M {r['matches']} P {r['possible']} U {r['non_matches']}, EM {r['fit']['iterations']} iterations, "
                    f"pairs completeness {r['quality']['pairs_completeness']:.4f}"}


def run_clkhash(a, b, truth):
    schema = from_json_dict(clk_schema())
    t0 = time.perf_counter()
    rows_a = a[COLUMNS].values.tolist()
    rows_b = b[COLUMNS].values.tolist()
    ca = clk.generate_clks(rows_a, schema, SECRET)
    cb = clk.generate_clks(rows_b, schema, SECRET)
    cands = anonlink.candidate_generation.find_candidate_pairs(
        [ca, cb], anonlink.similarities.dice_coefficient_accelerated, GRID[0], k=20)
    _, (d0, _), (r0, r1) = cands
    wall = time.perf_counter() - t0
    best = None
    for t in GRID:
        one, m = greedy_at(cands, t, rows_a, rows_b)
        best_a = {}
        for i in range(m):
            ia, ib = (r0[i], r1[i]) if d0[i] == 0 else (r1[i], r0[i])
            if ib not in best_a:  # sorted by decreasing similarity: the first is the best
                best_a[ib] = ia
        many = [(rows_a[ia][0], rows_b[ib][0]) for ib, ia in best_a.items()]
        for solver, pairs in (("greedy one-to-one", one), ("many-to-one", many)):
            p, r, f, n = score(pairs, truth)
            if best is None or f > best["f1"]:
                best = {"precision": p, "recall": r, "f1": f, "pairs": n,
                        "note": f"best on the truth: Dice threshold {t}, {solver}"}
    best["wall_s"] = wall
    return best


def run_recordlinkage(a, b, truth):
    t0 = time.perf_counter()
    a = a.set_index("rec_id")
    b = b.set_index("rec_id")
    idx = rl.Index()
    for c in ("given_name", "surname", "postcode", "soc_sec_id"):
        idx.block(c)
    cands = idx.index(a, b)
    c = rl.Compare()
    for f in ("given_name", "surname", "address_1", "address_2", "suburb"):
        c.string(f, f, method="jarowinkler", threshold=0.85, label=f)
    for f in ("street_number", "postcode", "state", "date_of_birth", "soc_sec_id"):
        c.exact(f, f, label=f)
    feats = c.compute(cands, a, b)
    ecm = rl.ECMClassifier()
    links = ecm.fit_predict(feats)
    wall = time.perf_counter() - t0
    p, r, f, n = score(((x, y) for x, y in links), truth)
    return {"precision": p, "recall": r, "f1": f, "pairs": n, "wall_s": wall,
            "note": f"ECM (unsupervised), {len(cands)} candidates from blocking"}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--gramlink", required=True)
    ap.add_argument("--out", default="docs/results")
    args = ap.parse_args()
    rows = []
    for n in (1, 2, 3):
        a, b = read(f"data/febrl/dataset{n}-a.csv"), read(f"data/febrl/dataset{n}-b.csv")
        truth = truth_set(f"data/febrl/dataset{n}-truth.csv")
        for tool, fn in (("gramlink (private, eps 0.1/party)", lambda: run_gramlink(args.gramlink, n)),
                         ("clkhash + anonlink", lambda: run_clkhash(a, b, truth)),
                         ("recordlinkage (not private)", lambda: run_recordlinkage(a, b, truth))):
            r = fn()
            r.update({"dataset": f"FEBRL {n}", "tool": tool})
            rows.append(r)
            print(f"FEBRL {n}  {tool:<36} P {r['precision']:.4f} R {r['recall']:.4f} F1 {r['f1']:.4f}  "
                  f"{r['wall_s']:.1f} s  {r['note']}", flush=True)
    os.makedirs(args.out, exist_ok=True)
    keys = ["dataset", "tool", "precision", "recall", "f1", "pairs", "wall_s", "note"]
    write_csv(os.path.join(args.out, "records.csv"), rows, keys)
    versions = peer_versions(("clkhash", "anonlink", "recordlinkage", "pandas"))
    with open(os.path.join(args.out, "records.md"), "w") as f:
        f.write("# FEBRL records: gramlink beside the peers\n\n")
        f.write("Written by `benches/peers/records.sh` (" + versions + "). Party A: originals, party B: "
                "duplicates; recall over every true pair.\n\n")
        f.write("| data set | tool | precision | recall | F1 | pairs | wall (s) | how |\n|---|---|---|---|---|---|---|---|\n")
        for r in rows:
            f.write(f"| {r['dataset']} | {r['tool']} | {r['precision']:.4f} | {r['recall']:.4f} | {r['f1']:.4f} | "
                    f"{r['pairs']} | {r['wall_s']:.1f} | {r['note']} |\n")


if __name__ == "__main__":
    main()
