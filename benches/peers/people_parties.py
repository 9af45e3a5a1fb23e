#!/usr/bin/env python3
"""More than two parties on noisy person records: pseudopeople's observers as parties,
gramlink's clusters beside anonlink's multi-party solver, on the same files, in one run.

The parties are five of pseudopeople's simulated data sets (its bundled sample data), each
in its own layout, as five registries would hold them:

* a: the 2020 decennial census;
* b: the Social Security Administration's creation events (middle name cut to its initial);
* c: WIC (women, infants and children), every year, one row per simulant (the first);
* d: the Current Population Survey, every year, one row per simulant;
* e: the American Community Survey, every year, one row per simulant.

A person appears in any subset of them (a WIC infant is in the census and SSA, hardly in
the surveys). The truth is each record's simulant_id. Fields: first name, middle initial,
last name, date of birth (census and the surveys write MM/DD/YYYY, SSA YYYYMMDD, WIC
MMDDYYYY), sex. Noise: pseudopeople's default, and every cell probability of it times
--high (`high`).

* gramlink: the naive schema (columns and kinds; `invalid = "missing"` on the date; no
  blocks, weights or thresholds), every party mining, the bases merged, every party
  embedding under one key (the default keyed encoding), `gramlink match --schema` on the
  five batches (each pair of parties linked by the record linker with its own fit, then
  anonlink's greedy rule over all pairs' edges).
* anonlink: clkhash CLKs of the record (each field's bigrams, as benches/peers/people.py;
  dates rewritten to ISO first, a help gramlink does not get), anonlink's multi-party
  candidates (Dice over every pair of parties, each record's best 10 in each other party, as
  people.py) and its multi-party solver
  (probabilistic_greedy_solve, deduplicated, merge threshold 0.5) at the fixed Dice 0.8
  and at the best pairwise F1 of the grid 0.50–0.95 on the truth (an oracle, favourable to the peer).

Scores (benches/peers/multi.py's scorer): pairwise precision, recall and F1 over the
record pairs sharing a cluster; cluster precision and recall over exact clusters; the
share of persons found exactly, by the number of parties holding them. Writes
docs/results/people-parties.{csv,md} with --out.

    bash benches/peers/people_parties.sh     (the venv and a release build: benches/peers/setup.sh)
"""

import argparse
import csv
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import clk_schema  # noqa: E402
from multi import anonlink_runs, read_rows, run_anonlink, run_measured, score  # noqa: E402
from people import GRID, SECRET, iso, scaled  # noqa: E402

FIELDS = {"first_name": "name", "middle_initial": "string", "last_name": "name", "date_of_birth": "date",
          "sex": "keyed"}
# party letter: (pseudopeople's generator, its date layout, a note)
SOURCES = {
    "a": ("generate_decennial_census", "MM/DD/YYYY", "census 2020"),
    "b": ("generate_social_security", "YYYYMMDD", "SSA creation events"),
    "c": ("generate_women_infants_and_children", "MMDDYYYY", "WIC, every year"),
    "d": ("generate_current_population_survey", "MM/DD/YYYY", "CPS, every year"),
    "e": ("generate_american_community_survey", "MM/DD/YYYY", "ACS, every year"),
}


def generate(noise, seed, factor, out):
    """Writes party_<x>.csv per source and truth.csv (id, person) into ``out``."""
    import pseudopeople as psp
    full = psp.get_config()
    cfg = None if noise == "default" else {k: scaled(v, factor) for k, v in full.items()}
    os.makedirs(out, exist_ok=True)
    truth = []
    for x, (gen, _, _) in SOURCES.items():
        kw = {"seed": seed, "config": cfg, "verbose": False}
        if x in "cde":
            kw["year"] = None
        df = getattr(psp, gen)(**kw)
        if x == "b":
            df = df[df["event_type"] == "creation"].copy()
            df["middle_initial"] = df["middle_name"].astype("string").fillna("").str[:1]
        df = df.drop_duplicates("simulant_id")
        df = df[["simulant_id"] + list(FIELDS)].copy()
        for c in FIELDS:
            df[c] = df[c].astype("string").fillna("")
        ids = [f"{x}{i}" for i in range(len(df))]
        df.insert(0, "rec_id", ids)
        truth += [(i, s) for i, s in zip(ids, df["simulant_id"])]
        df.drop(columns="simulant_id").to_csv(os.path.join(out, f"party_{x}.csv"), index=False)
    with open(os.path.join(out, "truth.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["id", "person"])
        w.writerows(truth)


def naive_schema():
    lines = ["version = 1", 'id = "rec_id"', ""]
    for name, kind in FIELDS.items():
        lines += ["[[field]]", f'name = "{name}"', f'kind = "{kind}"']
        if kind == "date":
            lines.append('invalid = "missing"')
        lines.append("")
    return "\n".join(lines)


def run_gramlink(exe, folder, tmp):
    schema = os.path.join(tmp, "schema.toml")
    with open(schema, "w") as f:
        f.write(naive_schema())
    key = os.path.join(tmp, "key")
    subprocess.run([exe, "keygen", "-o", key], check=True, capture_output=True)
    party = lambda x: os.path.join(folder, f"party_{x}.csv")
    steps, bases, batches = [], [], []
    for x in SOURCES:
        bases.append(os.path.join(tmp, f"n{x}.json"))
        steps.append(run_measured([exe, "mine", "--schema", schema, "-i", party(x),
                                   "--ledger", os.path.join(tmp, f"{x}.ledger.json"), "-o", bases[-1]]))
    shared = os.path.join(tmp, "shared.json")
    steps.append(run_measured([exe, "merge", "--schema", schema, *bases, "-o", shared]))
    for x in SOURCES:
        batches.append(os.path.join(tmp, f"{x}.glrb"))
        steps.append(run_measured([exe, "embed", "--schema", schema, "-i", party(x), "--base", shared,
                                   "--party", x, "--key-file", key, "--keep-ids", "-o", batches[-1]]))
    clusters = os.path.join(tmp, "clusters.csv")
    match = run_measured([exe, "match", "--schema", schema, *batches, "-o", clusters])
    steps.append(match)
    cluster_of = {(p.lower(), i): c for p, i, c in read_rows(clusters)}
    return cluster_of, sum(s[0] for s in steps), max(s[1] for s in steps), match


def anonlink_child(folder, thresholds, out):
    """In a process of its own: anonlink on the five parties' rows (multi.py's
    ``anonlink_runs``), each record's best 10 candidates in each other party."""
    import json
    parties = []
    for x, (_, layout, _) in SOURCES.items():
        rows = read_rows(os.path.join(folder, f"party_{x}.csv"))
        d = list(FIELDS).index("date_of_birth") + 1
        for r in rows:  # each owner writes its dates as ISO before hashing (clkhash compares bigrams)
            r[d] = iso(r[d], layout) if layout != "MMDDYYYY" else iso(r[d][4:] + r[d][:4], "YYYYMMDD")
        parties.append(rows)
    with open(out, "w") as f:
        json.dump(anonlink_runs(parties, clk_schema(FIELDS), SECRET, thresholds, k=10), f)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--gramlink", default="target/release/gramlink")
    ap.add_argument("--seeds", type=int, nargs="+", default=[1, 2])
    ap.add_argument("--noise", nargs="+", default=["default", "high"])
    ap.add_argument("--high", type=float, default=2.0, help="the high noise's factor on every cell probability")
    ap.add_argument("--dice", type=float, default=0.8, help="anonlink's fixed Dice threshold (one of the grid)")
    ap.add_argument("--data", default="target/people", help="where the parties' files are written")
    ap.add_argument("--out", default=None, help="a folder for people-parties.{csv,md} (default: print only)")
    ap.add_argument("--anonlink-child", nargs=3, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.anonlink_child:
        folder, thresholds, out = args.anonlink_child
        anonlink_child(folder, [float(t) for t in thresholds.split(",")], out)
        return
    rows = []
    for noise in args.noise:
        for seed in args.seeds:
            folder = os.path.join(args.data, f"parties-{noise}-s{seed}")
            generate(noise, seed, args.high, folder)
            person_of, party_of = {}, {}
            for i, person in read_rows(os.path.join(folder, "truth.csv")):
                person_of[(i[0], i)], party_of[(i[0], i)] = person, i[0]
            sizes = {x: sum(1 for k in party_of if k[0] == x) for x in SOURCES}
            with tempfile.TemporaryDirectory() as tmp:
                g_clusters, g_time, g_rss, match = run_gramlink(args.gramlink, folder, tmp)
                grid, _, _, _ = run_anonlink(__file__, [folder], sorted(set(GRID + [args.dice])), tmp)
                scored = {t: score(person_of, party_of, c) for t, c in grid.items()}
                best = max(scored, key=lambda t: scored[t]["pair_f1"])
                alone = {}
                for t in sorted({args.dice, best}):
                    _, dt, rss, detail = run_anonlink(__file__, [folder], [t], tmp)
                    alone[t] = (dt, rss, f"encode {detail['encode']:.2f} s, candidates {detail['candidates']:.2f} s, "
                                         f"solve {detail['runs'][str(t)]['solve']:.2f} s")
            name = f"{noise} s{seed}"
            for tool, s, t, rss, note in (
                ("gramlink (naive schema)", score(person_of, party_of, g_clusters), g_time, g_rss,
                 f"match {match[0]:.2f} s, {match[1]:.0f} MB"),
                (f"anonlink Dice {args.dice} (fixed)", scored[args.dice], *alone[args.dice]),
                (f"anonlink Dice {best} (best of grid on truth)", scored[best], *alone[best]),
            ):
                by = ", ".join(f"{k}: {v[0]}/{v[1]}" for k, v in s["by_parties"].items())
                rows.append({"file": name, "records": len(person_of), "tool": tool, **s, "seconds": t,
                             "peak_mb": rss, "found_by_parties": by, "note": note})
                print(f"{name} ({', '.join(f'{x} {n}' for x, n in sizes.items())}) {tool}: pairs P "
                      f"{s['pair_precision']:.4f} R {s['pair_recall']:.4f} F1 {s['pair_f1']:.4f}; clusters P "
                      f"{s['cluster_precision']:.4f} R {s['cluster_recall']:.4f} F1 {s['cluster_f1']:.4f}; "
                      f"{t:.2f} s, peak {rss:.0f} MB ({note}); persons found exactly, by parties holding them: {by}",
                      flush=True)
    if args.out:
        write(args.out, rows)


def write(out, rows):
    from common import versions
    os.makedirs(out, exist_ok=True)
    keys = ["file", "records", "tool", "pair_precision", "pair_recall", "pair_f1", "cluster_precision",
            "cluster_recall", "cluster_f1", "seconds", "peak_mb", "found_by_parties", "note"]
    fmt = lambda v: f"{v:.4f}" if isinstance(v, float) else str(v)
    with open(os.path.join(out, "people-parties.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(keys)
        for r in rows:
            w.writerow([fmt(r[k]) for k in keys])
    with open(os.path.join(out, "people-parties.md"), "w") as f:
        f.write("# Five parties of noisy person records: gramlink beside anonlink's multi-party solver\n\n")
        f.write("Written by `bash benches/peers/people_parties.sh` (" + versions(["pseudopeople", "clkhash", "anonlink"])
                + "). Parties: " + "; ".join(f"{x} {v[2]}" for x, v in SOURCES.items())
                + ". Pairwise and cluster precision / recall / F1; persons found exactly, by the number of "
                  "parties holding them (found / all).\n\n")
        f.write("| file | tool | pairwise P / R / F1 | cluster P / R / F1 | found, by parties | seconds | peak MB |\n")
        f.write("|---|---|---|---|---|---|---|\n")
        for r in rows:
            f.write(f"| {r['file']} | {r['tool']} | {r['pair_precision']:.4f} / {r['pair_recall']:.4f} / "
                    f"**{r['pair_f1']:.4f}** | {r['cluster_precision']:.4f} / {r['cluster_recall']:.4f} / "
                    f"{r['cluster_f1']:.4f} | {r['found_by_parties']} | {r['seconds']:.1f} | {r['peak_mb']:.0f} |\n")


if __name__ == "__main__":
    main()
