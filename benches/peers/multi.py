#!/usr/bin/env python3
"""gramlink's multi-party clusters beside anonlink's multi-party solver, on the same files.

For each number of parties N (default 3, 5 and 10), `gramlink lab corrupt --parties N`
writes N parties' files with known clusters (each person of the first --limit names
held by each party with probability --presence, every copy with --ed edits). Then,
on those files:

* gramlink: parties A and B mine (seeded: not private; a benchmark), the bases are
  merged, every party embeds under one key (the default keyed encoding, the
  sketch; thresholds for 2 edits: two copies of a person are up to 2·ed edits
  apart; B with --send-thresholds), and `gramlink match` clusters all N batches
  (anonlink's probabilistic greedy rule over gramlink's candidates);
* anonlink: clkhash CLKs (bigrams, 1,024 bits, as benches/peers/peer.py), anonlink's
  multi-party candidate generation (Dice over every pair of parties, once at the
  grid's lowest threshold) and its multi-party solver (probabilistic_greedy_solve,
  deduplicated, merge threshold 0.5) at each Dice threshold of the grid 0.4–0.9, in
  a process of its own; reported at --dice (fixed) and at the grid's best pair F1 on
  the truth (an oracle choice, favourable to anonlink), each threshold then run
  again alone for its time and memory.

Both are scored here by one scorer: pairwise precision, recall and F1 over the
pairs of records sharing a cluster; cluster precision and recall over exact
clusters of two records or more; the share of persons found exactly, by the
number of parties holding them. Time is wall time of every process of a tool
(gramlink: mine A, mine B, merge, N embeds, match; anonlink: encoding,
candidates, solve); memory is the largest peak resident set of one of its
processes (os.wait4).

    target/peers-venv/bin/python benches/peers/multi.py --gramlink target/debug/gramlink
"""

import argparse
import csv
import json
import os
import subprocess
import sys
import tempfile
import time
from collections import Counter, defaultdict

LETTERS = "abcdefghijklmnopqrstuvwxyz"
# anonlink's Dice thresholds: one fixed (--dice) and the best of this grid on the truth
GRID = [0.4, 0.5, 0.6, 0.7, 0.8, 0.9]


def run_measured(cmd):
    """Runs cmd; returns (seconds, peak RSS in MB, stdout text)."""
    t0 = time.perf_counter()
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        p = subprocess.Popen(cmd, stdout=out, stderr=err)
        # wait4 gives this child's own peak resident set (ru_maxrss, KB on Linux)
        _, status, usage = os.wait4(p.pid, 0)
        dt = time.perf_counter() - t0
        code = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        if code != 0:
            sys.exit(f"{' '.join(cmd)} failed:\n{err.read().decode()}")
        return dt, usage.ru_maxrss / 1024.0, out.read().decode()


def read_rows(path):
    with open(path, newline="", encoding="utf-8") as f:
        return list(csv.reader(f))[1:]


def score(person_of, party_of, cluster_of):
    """person_of, party_of, cluster_of: dicts by record key (party, id)."""
    pairs = lambda n: n * (n - 1) // 2
    true_size = Counter(person_of.values())
    pred_size = Counter(cluster_of.values())
    both = Counter((cluster_of[r], person_of[r]) for r in person_of)
    tp = sum(pairs(n) for n in both.values())
    pp = sum(pairs(n) for n in pred_size.values())
    tpairs = sum(pairs(n) for n in true_size.values())
    found = {t for (c, t), n in both.items() if n == true_size[t] and n == pred_size[c]}
    parties_of = defaultdict(set)
    for r, t in person_of.items():
        parties_of[t].add(party_of[r])
    true_clusters = [t for t, n in true_size.items() if n >= 2]
    exact = sum(1 for t in true_clusters if t in found)
    by_k = defaultdict(lambda: [0, 0])
    for t in true_clusters:
        k = len(parties_of[t])
        by_k[k][1] += 1
        by_k[k][0] += t in found
    pred_clusters = sum(1 for n in pred_size.values() if n >= 2)
    div = lambda x, y: x / y if y else 0.0
    f1 = lambda p, r: 2 * p * r / (p + r) if p + r else 0.0
    pp_, pr_ = div(tp, pp), div(tp, tpairs)
    cp, cr = div(exact, pred_clusters), div(exact, len(true_clusters))
    return {
        "pair_precision": pp_, "pair_recall": pr_, "pair_f1": f1(pp_, pr_),
        "cluster_precision": cp, "cluster_recall": cr, "cluster_f1": f1(cp, cr),
        "by_parties": {k: v for k, v in sorted(by_k.items())},
    }


def run_gramlink(exe, folder, n, seed, tmp):
    steps = []
    key = os.path.join(tmp, "key")
    subprocess.run([exe, "keygen", "-o", key], check=True, capture_output=True)
    party_file = lambda x: os.path.join(folder, f"party_{x}.csv")
    for x, s in (("a", seed), ("b", seed + 1)):
        steps.append(run_measured([exe, "mine", "--input", party_file(x), "--column", "name",
                                   "--seed", str(s), "--out", os.path.join(tmp, f"n{x}.json")]))
    base = os.path.join(tmp, "shared.json")
    steps.append(run_measured([exe, "merge", os.path.join(tmp, "na.json"), os.path.join(tmp, "nb.json"),
                               "--out", base]))
    batches = []
    for x in LETTERS[:n]:
        out = os.path.join(tmp, f"{x}.vec")
        cmd = [exe, "embed", "--input", party_file(x), "--column", "name", "--id-column", "id", "--base", base,
               "--party", x, "--key-file", key, "--keep-ids", "--ed", "2", "--out", out]
        if x == "b":
            cmd.append("--send-thresholds")
        steps.append(run_measured(cmd))
        batches.append(out)
    clusters = os.path.join(tmp, "clusters.csv")
    match = run_measured([exe, "match", *batches, "-o", clusters])
    steps.append(match)
    cluster_of = {(p.lower(), i): c for p, i, c in read_rows(clusters)}
    return cluster_of, sum(s[0] for s in steps), max(s[1] for s in steps), match[0], match[1]


def anonlink_runs(parties, schema, secret, thresholds, k=None):
    """anonlink on ``parties`` (each a list of rows, the id first): clkhash CLKs under
    ``schema``, multi-party candidates (Dice over every pair of parties at the lowest of
    ``thresholds``; each record's best ``k`` in each other party when given) and the
    multi-party solver (probabilistic_greedy_solve, deduplicated, merge threshold 0.5) at
    each threshold. Returns the JSON-able result: clusters (by party and id, tab-separated) and the solve
    time per threshold, the encoding and candidate times."""
    import anonlink
    from clkhash import clk
    t0 = time.perf_counter()
    clks = [clk.generate_clks(rows, schema, secret) for rows in parties]
    t_encode = time.perf_counter() - t0
    t0 = time.perf_counter()
    sims, dsets, recs = anonlink.candidate_generation.find_candidate_pairs(
        clks, anonlink.similarities.dice_coefficient_accelerated, min(thresholds), k=k)
    t_cand = time.perf_counter() - t0
    runs = {}
    for t in thresholds:
        # candidates come sorted by decreasing similarity: those >= t are a prefix
        m = 0
        while m < len(sims) and sims[m] >= t:
            m += 1
        sub = (sims[:m], tuple(d[:m] for d in dsets), tuple(r[:m] for r in recs))
        t0 = time.perf_counter()
        groups = anonlink.solving.probabilistic_greedy_solve(sub, merge_threshold=0.5, deduplicated=True)
        t_solve = time.perf_counter() - t0
        cluster_of = {}
        for c, g in enumerate(groups):
            for d, r in g:
                cluster_of[f"{LETTERS[d]}\t{parties[d][r][0]}"] = c
        # records in no group are clusters of their own
        c = len(groups)
        for d, rows in enumerate(parties):
            for row in rows:
                key = f"{LETTERS[d]}\t{row[0]}"
                if key not in cluster_of:
                    cluster_of[key] = c
                    c += 1
        runs[str(t)] = {"clusters": cluster_of, "solve": t_solve}
    return {"runs": runs, "encode": t_encode, "candidates": t_cand}


def anonlink_child(folder, n, thresholds, out):
    """Runs in a process of its own: CLKs, candidates, the multi-party solver."""
    from clkhash.schema import from_json_dict
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from peer import SCHEMA, SECRET
    parties = [read_rows(os.path.join(folder, f"party_{x}.csv")) for x in LETTERS[:n]]
    with open(out, "w") as f:
        json.dump(anonlink_runs(parties, from_json_dict(SCHEMA), SECRET, thresholds), f)


def run_anonlink(script, child_args, thresholds, tmp):
    """anonlink at each of thresholds, in a process of its own (``script --anonlink-child
    *child_args thresholds out``): ({threshold: clusters}, wall seconds, peak MB, details:
    encode and candidate seconds, solve seconds by threshold)."""
    out = os.path.join(tmp, "anonlink.json")
    dt, rss, _ = run_measured([sys.executable, os.path.abspath(script), "--anonlink-child", *child_args,
                               ",".join(map(str, thresholds)), out])
    with open(out) as f:
        r = json.load(f)
    runs = {float(t): {tuple(k.split("\t")): v for k, v in x["clusters"].items()} for t, x in r["runs"].items()}
    return runs, dt, rss, r


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--gramlink", default="target/release/gramlink")
    ap.add_argument("--data", default="data/cities.txt")
    ap.add_argument("--limit", type=int, default=2000, help="persons (the first names of --data)")
    ap.add_argument("--parties", type=int, nargs="+", default=[3, 5, 10])
    ap.add_argument("--presence", type=float, default=0.7)
    ap.add_argument("--ed", type=int, default=1)
    ap.add_argument("--dice", type=float, default=0.8, help="anonlink's fixed Dice threshold (one of the grid)")
    ap.add_argument("--seed", type=int, default=42)
    ap.add_argument("--out", default=None, help="a folder for multi.csv (default: print only)")
    ap.add_argument("--anonlink-child", nargs=4, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.anonlink_child:
        folder, n, thresholds, out = args.anonlink_child
        anonlink_child(folder, int(n), [float(t) for t in thresholds.split(",")], out)
        return
    rows = []
    for n in args.parties:
        with tempfile.TemporaryDirectory() as tmp:
            folder = os.path.join(tmp, "parties")
            subprocess.run([args.gramlink, "lab", "corrupt", "--data", args.data, "--limit", str(args.limit),
                            "--parties", str(n), "--presence", str(args.presence), "--ed", str(args.ed),
                            "--seed", str(args.seed), "--out-dir", folder], check=True, capture_output=True)
            person_of, party_of = {}, {}
            for p, i, person in read_rows(os.path.join(folder, "truth.csv")):
                key = (p.lower(), i)
                person_of[key], party_of[key] = person, p.lower()
            records = len(person_of)
            g_clusters, g_time, g_rss, m_time, m_rss = run_gramlink(args.gramlink, folder, n, args.seed, tmp)
            # the grid chooses the oracle's threshold; then each reported threshold runs alone,
            # so its time and memory are those of one real run
            grid, _, _, _ = run_anonlink(__file__, [folder, str(n)], sorted(set(GRID + [args.dice])), tmp)
            scored = {t: score(person_of, party_of, c) for t, c in grid.items()}
            best = max(scored, key=lambda t: scored[t]["pair_f1"])
            alone = {}
            for t in sorted({args.dice, best}):
                _, dt, rss, detail = run_anonlink(__file__, [folder, str(n)], [t], tmp)
                parts = f"encode {detail['encode']:.2f} s, candidates {detail['candidates']:.2f} s, " \
                        f"solve {detail['runs'][str(t)]['solve']:.2f} s"
                alone[t] = (dt, rss, parts)
            for tool, s, t, rss, note in (
                ("gramlink", score(person_of, party_of, g_clusters), g_time, g_rss,
                 f"match {m_time:.2f} s, {m_rss:.0f} MB"),
                (f"anonlink Dice {args.dice} (fixed)", scored[args.dice], *alone[args.dice]),
                (f"anonlink Dice {best} (best of grid on truth)", scored[best], *alone[best]),
            ):
                rows.append({"parties": n, "records": records, "tool": tool, **s, "seconds": t, "peak_mb": rss,
                             "note": note})
                by = ", ".join(f"{k}: {v[0]}/{v[1]}" for k, v in s["by_parties"].items())
                print(f"N={n} {tool}: records {records}; pairs P {s['pair_precision']:.4f} R {s['pair_recall']:.4f} "
                      f"F1 {s['pair_f1']:.4f}; clusters P {s['cluster_precision']:.4f} R {s['cluster_recall']:.4f} "
                      f"F1 {s['cluster_f1']:.4f}; {t:.2f} s, peak {rss:.0f} MB ({note}); found by parties {by}",
                      flush=True)
    if args.out:
        os.makedirs(args.out, exist_ok=True)
        keys = ["parties", "records", "tool", "pair_precision", "pair_recall", "pair_f1", "cluster_precision",
                "cluster_recall", "cluster_f1", "seconds", "peak_mb", "note"]
        with open(os.path.join(args.out, "multi.csv"), "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(keys)
            for r in rows:
                w.writerow([f"{r[k]:.4f}" if isinstance(r[k], float) else r[k] for k in keys])


if __name__ == "__main__":
    main()
