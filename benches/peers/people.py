#!/usr/bin/env python3
"""gramlink beside splink and clkhash + anonlink on noisy person records, in one run.

The records are pseudopeople's simulated US population (its bundled sample data):
for each seed and noise level, two of its data sets are drawn and written as party A's
and party B's files, each in its own layout (the census writes dates MM/DD/YYYY, the
Social Security Administration YYYYMMDD), with the truth: the row pairs of one
simulant_id. Files go to target/people/ (not committed). Pairs of data sets:

* census-ssa: the 2020 decennial census against SSA's creation events; first name,
  last name, date of birth, sex (the fields of docs issue 30's held-out test).
* census-w2: the census against the 2020 W-2/1099 forms (one form per person); first
  name, middle initial, last name and the mailing address's street number and name
  (the sample's city, state and zipcode are one value).

Noise: pseudopeople's default configuration (`default`), and every cell probability
of it multiplied by --high (`high`, 2 by default); row noise as the default. pseudopeople
writes no initials; with `--initials F` every tool runs instead on a copy of each file in
which a share F of B's first names is cut to its initial, as a form with a box for one
letter gets them (directory `<file>-initials`), and gramlink runs there with its level
"initial" on and off.

Tools, each with thresholds from its own fit, never from the truth unless said so:

* gramlink: `gramlink lab eval` with a naive schema (the columns and their kinds, and
  `invalid = "missing"` on the date, which gramlink's error on the first damaged date
  asks for; no blocks, no weights, no thresholds), the default (keyed) encoding.
* splink (the pinned version), as its tutorials set it up: dates cleaned to ISO by the
  user, NameComparison on the names, DateOfBirthComparison, exact on the rest;
  blocking on each name and on the date (or street name); lambda from a deterministic rule
  with recall 0.7, u by random sampling, m by EM on two blocking rules; pairs with
  match probability >= 0.5; also with a greedy one-to-one step on those pairs.
* clkhash + anonlink: CLKs of the record (each field's bigrams), anonlink's greedy
  one-to-one solver at the fixed Dice threshold 0.8, and at the best threshold and
  solver chosen on the truth (an oracle, favourable to the peer).

Prints one table (F1, precision, recall, seconds per tool per file) and writes
docs/results/people.{csv,md}.
"""

import argparse
import csv
import json
import os
import subprocess
import time

import pandas as pd

from common import clk_schema, greedy_at, write_csv
from common import versions as peer_versions

SAMPLE_YEAR = 2020
SECRET = "gramlink-people-benchmark"
GRID = [round(0.50 + 0.05 * i, 2) for i in range(10)]
FIXED = 0.8
DATA_ROOT = "target/people"

# per pair: A's columns, B's columns renamed to A's, the naive gramlink kinds, dates
PAIRS = {
    "census-ssa": {
        "fields": {"first_name": "name", "last_name": "name", "date_of_birth": "date", "sex": "keyed"},
        "dates": {"a": "MM/DD/YYYY", "b": "YYYYMMDD"},
        "block": "date_of_birth",
        # hand-written conjunctive rules (as data/febrl/schema-large.toml writes them)
        "conjunctive": [("date_of_birth", None, "last_name"), ("date_of_birth", None, "first_name"),
                        ("last_name", 0, "first_name")],
    },
    "census-w2": {
        "fields": {"first_name": "name", "middle_initial": "string", "last_name": "name",
                   "street_number": "number", "street_name": "string"},
        "dates": {},
        "block": "street_name",
        "conjunctive": [("street_number", 0, "last_name"), ("street_number", 0, "first_name"),
                        ("last_name", 0, "first_name")],
    },
}


def scaled(config, factor):
    """`config` with every cell probability times `factor` (at most 0.5)."""
    if isinstance(config, dict):
        return {k: (min(0.5, v * factor) if k == "cell_probability" else scaled(v, factor))
                for k, v in config.items()}
    return config


def generate(pair, noise, seed, factor, root):
    import pseudopeople as psp
    out = os.path.join(root, f"{pair}-{noise}-s{seed}")
    os.makedirs(out, exist_ok=True)
    full = psp.get_config()
    cfg = None if noise == "default" else {k: scaled(v, factor) for k, v in full.items()}
    kw = {"seed": seed, "config": cfg, "verbose": False}
    census = psp.generate_decennial_census(**kw)
    if pair == "census-ssa":
        b = psp.generate_social_security(**kw)
        b = b[b["event_type"] == "creation"]
    else:
        b = psp.generate_taxes_w2_and_1099(**kw)
        b = b[b["tax_year"].astype(str) == str(SAMPLE_YEAR)].drop_duplicates("simulant_id")
        b = b.rename(columns={f"mailing_address_{c}": c for c in
                              ("street_number", "street_name", "city", "state", "zipcode")})
    cols = list(PAIRS[pair]["fields"])
    a = census[["simulant_id"] + cols].copy()
    b = b[["simulant_id"] + cols].copy()
    a.insert(0, "rec_id", [f"a{i}" for i in range(len(a))])
    b.insert(0, "rec_id", [f"b{i}" for i in range(len(b))])
    for df in (a, b):
        for c in cols:
            df[c] = df[c].astype("string").fillna("")
    by_sim = {}
    for rid, sim in zip(a["rec_id"], a["simulant_id"]):
        by_sim.setdefault(sim, []).append(rid)
    truth = [(ra, rb) for rb, sim in zip(b["rec_id"], b["simulant_id"]) for ra in by_sim.get(sim, [])]
    a.drop(columns="simulant_id").to_csv(os.path.join(out, "a.csv"), index=False)
    b.drop(columns="simulant_id").to_csv(os.path.join(out, "b.csv"), index=False)
    with open(os.path.join(out, "truth.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["a_id", "b_id"])
        w.writerows(truth)
    return out


def read(path):
    return pd.read_csv(path, dtype=str, keep_default_na=False)


def truth_set(path):
    with open(path, newline="") as f:
        return {(a, b) for a, b in list(csv.reader(f))[1:]}


def score(pairs, truth):
    pairs = set(pairs)
    correct = len(pairs & truth)
    p = correct / len(pairs) if pairs else 0.0
    r = correct / len(truth) if truth else 0.0
    return {"precision": p, "recall": r, "f1": (2 * p * r / (p + r) if p + r else 0.0), "pairs": len(pairs)}


def with_initials(d, share, seed):
    """A copy of file directory `d` in which a share of B's first names is cut to its first
    letter (B's records drawn at random, seeded)."""
    import random
    out = d + "-initials"
    os.makedirs(out, exist_ok=True)
    b = read(os.path.join(d, "b.csv"))
    rng = random.Random(seed)
    b["first_name"] = [v[:1] if v and rng.random() < share else v for v in b["first_name"]]
    b.to_csv(os.path.join(out, "b.csv"), index=False)
    for f in ("a.csv", "truth.csv"):
        with open(os.path.join(d, f), "rb") as src, open(os.path.join(out, f), "wb") as dst:
            dst.write(src.read())
    return out


def naive_schema(pair, dates_per_party, blocking="default"):
    """The schema a new user writes: columns and kinds (with --one-date-layout, A's date layout).
    blocking: "default" (the tool's default rules), "auto" (rules the tool designs from the
    batches) or "conjunctive" (the hand-written rules of PAIRS); "no-initials": the default
    rules, the names without their level "initial"."""
    lines = ["version = 1", 'id = "rec_id"'] + (['blocking = "auto"'] if blocking == "auto" else []) + [""]
    for name, kind in PAIRS[pair]["fields"].items():
        lines += ["[[field]]", f'name = "{name}"', f'kind = "{kind}"']
        if kind == "name" and blocking == "no-initials":
            lines.append("initials = false")
        if kind == "date":
            # what gramlink's error on the first OCR-damaged date asks for
            lines.append('invalid = "missing"')
            d = PAIRS[pair]["dates"]
            if not dates_per_party:  # gramlink reads each value's own layout by default
                lines += [f'format = "{d["a"]}"']
        lines.append("")
    if blocking == "conjunctive":
        for field, ed, other in PAIRS[pair]["conjunctive"]:
            lines += ["[[block]]", f'field = "{field}"'] + ([f"ed = {ed}"] if ed is not None else [])
            lines += [f'and = [{{ field = "{other}" }}]', ""]
    return "\n".join(lines)


def iso(value, layout):
    digits = value
    try:
        if layout == "MM/DD/YYYY":
            m, d, y = value.split("/")
        else:
            y, m, d = digits[:4], digits[4:6], digits[6:8]
        out = f"{int(y):04d}-{int(m):02d}-{int(d):02d}"
        pd.Timestamp(out)
        return out
    except (ValueError, TypeError):
        return ""


def one_layout(path, column, src, dst, out):
    """The file at `path` with `column` rewritten from layout `src` to `dst` (what a user
    of a one-format schema does by hand)."""
    df = read(path)
    if dst == "MM/DD/YYYY":
        df[column] = [(lambda s: f"{s[5:7]}/{s[8:10]}/{s[:4]}" if s else "")(iso(v, src)) for v in df[column]]
    df.to_csv(out, index=False)
    return out


def run_gramlink(exe, pair, d, dates_per_party, blocking="default"):
    schema = os.path.join(d, f"schema-{blocking}.toml")
    with open(schema, "w") as f:
        f.write(naive_schema(pair, dates_per_party, blocking))
    b = os.path.join(d, "b.csv")
    dates = PAIRS[pair]["dates"]
    if dates and not dates_per_party:
        b = one_layout(b, "date_of_birth", dates["b"], dates["a"], os.path.join(d, "b-one-layout.csv"))
    t0 = time.perf_counter()
    p = subprocess.run([exe, "lab", "eval", "--schema", schema, os.path.join(d, "a.csv"), b,
                        "--truth", os.path.join(d, "truth.csv"), "--json"], capture_output=True, text=True)
    wall = time.perf_counter() - t0
    with open(os.path.join(d, f"gramlink-{blocking}.log"), "w") as f:
        f.write(p.stderr)
    if p.returncode != 0:
        last = p.stderr.strip().splitlines()[-1] if p.stderr.strip() else f"exit {p.returncode}"
        return {"precision": 0.0, "recall": 0.0, "f1": 0.0, "pairs": 0, "wall_s": wall, "note": f"failed: {last}"}
    r = json.loads(p.stdout)
    q = r["quality"]["matches"]
    fit = r["fit"]
    return {"precision": q["precision"], "recall": q["recall"], "f1": q["f1"], "pairs": q["pairs"], "wall_s": wall,
            "note": f"{r['candidates']} candidates, pairs completeness {r['quality']['pairs_completeness']:.4f}, "
                    f"lambda {fit.get('lambda', float('nan')):.4g}, {r['assignment']}"}


def splink_frames(pair, a, b):
    dates = PAIRS[pair]["dates"]
    out = []
    for side, df in (("a", a), ("b", b)):
        df = df.copy().replace({"": None})
        if dates:
            df["date_of_birth"] = [iso(v, dates[side]) if v else None for v in df["date_of_birth"]]
            df["date_of_birth"] = df["date_of_birth"].replace({"": None})
        df = df.rename(columns={"rec_id": "unique_id"})
        out.append(df)
    return out


def run_splink(pair, a, b, truth):
    import splink.comparison_library as cl
    from splink import DuckDBAPI, Linker, SettingsCreator, block_on
    t0 = time.perf_counter()
    fa, fb = splink_frames(pair, a, b)
    fields = PAIRS[pair]["fields"]
    comps = []
    for c, kind in fields.items():
        if kind == "name":
            comps.append(cl.NameComparison(c))
        elif kind == "date":
            comps.append(cl.DateOfBirthComparison(c, input_is_string=True, datetime_format="%Y-%m-%d"))
        elif kind == "string" and c != "middle_initial":
            comps.append(cl.LevenshteinAtThresholds(c, [1, 2]))
        else:
            comps.append(cl.ExactMatch(c))
    blocks = [block_on("first_name"), block_on("last_name"), block_on(PAIRS[pair]["block"])]
    settings = SettingsCreator(link_type="link_only", comparisons=comps, blocking_rules_to_generate_predictions=blocks)
    import duckdb
    con = duckdb.connect()
    con.execute(f"SET temp_directory = '{os.path.abspath(os.path.join(DATA_ROOT, 'duckdb-tmp'))}'")
    db = DuckDBAPI(connection=con)
    linker = Linker([db.register(fa), db.register(fb)], settings, log_level="ERROR")
    rule = [block_on(*fields)]
    linker.training.estimate_probability_two_random_records_match(rule, recall=0.7)
    linker.training.estimate_u_using_random_sampling(max_pairs=1e6, seed=1)
    linker.training.estimate_parameters_using_expectation_maximisation(block_on(PAIRS[pair]["block"]))
    linker.training.estimate_parameters_using_expectation_maximisation(block_on("first_name", "last_name"))
    pred = linker.inference.predict(threshold_match_probability=0.5).as_pandas_dataframe()
    wall = time.perf_counter() - t0
    pairs = []
    for l_src, l_id, r_id in zip(pred["source_dataset_l"], pred["unique_id_l"], pred["unique_id_r"]):
        pairs.append((l_id, r_id) if str(l_id).startswith("a") else (r_id, l_id))
    plain = score(pairs, truth)
    order = sorted(zip(pred["match_probability"], pairs), key=lambda t: -t[0])
    used_a, used_b, one = set(), set(), []
    for _, (x, y) in order:
        if x not in used_a and y not in used_b:
            used_a.add(x)
            used_b.add(y)
            one.append((x, y))
    t1 = time.perf_counter() - t0
    return ({**plain, "wall_s": wall, "note": f"{len(pred)} pairs with match probability >= 0.5"},
            {**score(one, truth), "wall_s": t1, "note": "the same, then greedy one-to-one"})


def run_clkhash(pair, a, b, truth):
    import anonlink
    from clkhash import clk

    cols = ["rec_id"] + list(PAIRS[pair]["fields"])
    schema = clk_schema(cols[1:])
    t0 = time.perf_counter()
    fa, fb = a[cols].copy(), b[cols].copy()
    dates = PAIRS[pair]["dates"]
    if dates:  # each party writes its dates the same way before hashing (clkhash compares bigrams)
        fa["date_of_birth"] = [iso(v, dates["a"]) for v in fa["date_of_birth"]]
        fb["date_of_birth"] = [iso(v, dates["b"]) for v in fb["date_of_birth"]]
    rows_a, rows_b = fa.values.tolist(), fb.values.tolist()
    ca = clk.generate_clks(rows_a, schema, SECRET)
    cb = clk.generate_clks(rows_b, schema, SECRET)
    cands = anonlink.candidate_generation.find_candidate_pairs(
        [ca, cb], anonlink.similarities.dice_coefficient_accelerated, GRID[0], k=10)
    base_wall = time.perf_counter() - t0

    def at(t):
        return greedy_at(cands, t, rows_a, rows_b)[0]

    t1 = time.perf_counter()
    fixed = {**score(at(FIXED), truth), "wall_s": base_wall + time.perf_counter() - t1,
             "note": f"greedy one-to-one, Dice >= {FIXED}"}
    best = None
    for t in GRID:
        s = score(at(t), truth)
        if best is None or s["f1"] > best["f1"]:
            best = {**s, "wall_s": base_wall, "note": f"best on the truth: Dice >= {t}, greedy one-to-one"}
    return fixed, best


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--gramlink", required=True)
    ap.add_argument("--out", default="docs/results")
    ap.add_argument("--data", default="target/people")
    ap.add_argument("--seeds", type=int, nargs="+", default=[1, 2])
    ap.add_argument("--pairs", nargs="+", default=list(PAIRS))
    ap.add_argument("--noise", nargs="+", default=["default", "high"])
    ap.add_argument("--high", type=float, default=2.0, help="the high noise's factor on every cell probability")
    ap.add_argument("--one-date-layout", action="store_true",
                    help="give gramlink B's dates rewritten in A's layout and a one-format schema")
    ap.add_argument("--tools", nargs="+", default=["gramlink", "splink", "clkhash"])
    ap.add_argument("--label", default="", help="a line for the header of people.md (what build was measured)")
    ap.add_argument("--initials", type=float, default=0.0,
                    help="run on a copy of each file with this share of B's first names cut to their initial")
    args = ap.parse_args()
    global DATA_ROOT
    DATA_ROOT = args.data
    rows = []
    for pair in args.pairs:
        for noise in args.noise:
            for seed in args.seeds:
                d = generate(pair, noise, seed, args.high, args.data)
                name = f"{pair} {noise} s{seed}"
                if args.initials:
                    d = with_initials(d, args.initials, seed)
                    name += f" initials {args.initials:g}"
                a, b = read(os.path.join(d, "a.csv")), read(os.path.join(d, "b.csv"))
                truth = truth_set(os.path.join(d, "truth.csv"))
                results = []
                if "gramlink" in args.tools:
                    runs = [("default", "gramlink (naive schema)"),
                            ("auto", "gramlink (naive schema, blocking = \"auto\")"),
                            ("conjunctive", "gramlink (hand-written conjunctive blocks)")]
                    if args.initials:
                        runs.insert(1, ("no-initials", "gramlink (naive schema, initials = false)"))
                    for blocking, tool in runs:
                        results.append((tool, run_gramlink(args.gramlink, pair, d, not args.one_date_layout,
                                                           blocking)))
                if "splink" in args.tools:
                    s, s1 = run_splink(pair, a, b, truth)
                    results += [("splink", s), ("splink + one-to-one", s1)]
                if "clkhash" in args.tools:
                    f, bst = run_clkhash(pair, a, b, truth)
                    results += [("clkhash + anonlink (fixed)", f), ("clkhash + anonlink (best)", bst)]
                for tool, r in results:
                    r.update({"file": name, "records": f"{len(a)} x {len(b)}", "true_pairs": len(truth), "tool": tool})
                    rows.append(r)
                    print(f"{name:<24} {tool:<28} F1 {r['f1']:.4f} P {r['precision']:.4f} R {r['recall']:.4f} "
                          f"{r['wall_s']:7.1f} s  {r['note']}", flush=True)
    os.makedirs(args.out, exist_ok=True)
    keys = ["file", "records", "true_pairs", "tool", "f1", "precision", "recall", "pairs", "wall_s", "note"]
    write_csv(os.path.join(args.out, "people.csv"), rows, keys)
    versions = peer_versions(("pseudopeople", "splink", "clkhash", "anonlink"))
    with open(os.path.join(args.out, "people.md"), "w") as f:
        f.write("# Noisy person records: gramlink beside splink and clkhash + anonlink\n\n")
        f.write(f"Written by `benches/peers/people.sh` ({versions}); high noise = every cell probability "
                f"x{args.high}. {args.label}\n\n")
        f.write("| file | records | true pairs | tool | F1 | precision | recall | pairs | s | how |\n"
                "|---|---|---|---|---|---|---|---|---|---|\n")
        for r in rows:
            f.write(f"| {r['file']} | {r['records']} | {r['true_pairs']} | {r['tool']} | {r['f1']:.4f} | "
                    f"{r['precision']:.4f} | {r['recall']:.4f} | {r['pairs']} | {r['wall_s']:.1f} | {r['note']} |\n")


if __name__ == "__main__":
    main()
