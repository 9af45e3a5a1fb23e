#!/usr/bin/env python3
"""How many of a pseudopeople file's true pairs agree on at most one identifying field.

For each directory (as benches/peers/people.sh writes them to target/people/: a.csv,
b.csv, truth.csv), counts the true pairs by how many of the identifying fields agree
within two edits (first name, last name, date of birth for census-ssa, B's dates read in
A's order; first name, last name, street number, street name for census-w2). A pair with
one agreeing field is as likely as a random pair sharing that value, so no tool links
those at high precision; the F1 printed is what linking every other true pair at
precision 1 would give (docs/RECORDS.md, "Why not 0.99 at doubled noise").

    python3 benches/peers/ceiling.py target/people/census-ssa-high-s1 ...
"""

import collections
import csv
import os
import sys

FIELDS = {
    "census-ssa": ["first_name", "last_name", "date_of_birth"],
    "census-w2": ["first_name", "last_name", "street_number", "street_name"],
}


def edits(s, t):
    s, t = s.lower(), t.lower()
    prev = list(range(len(t) + 1))
    for i, c in enumerate(s, 1):
        cur = [i]
        for j, e in enumerate(t, 1):
            cur.append(min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (c != e)))
        prev = cur
    return prev[-1]


def compact(date):
    """MM/DD/YYYY (the census's layout) as YYYYMMDD (SSA's); anything else as it is."""
    return date[6:] + date[0:2] + date[3:5] if len(date) == 10 and date[2] == "/" else date


def read(path):
    with open(path, newline="") as f:
        return {r["rec_id"]: r for r in csv.DictReader(f)}


def main(dirs):
    for d in dirs:
        name = os.path.basename(os.path.normpath(d))
        fields = next(v for k, v in FIELDS.items() if name.startswith(k))
        a, b = read(os.path.join(d, "a.csv")), read(os.path.join(d, "b.csv"))
        with open(os.path.join(d, "truth.csv"), newline="") as f:
            truth = [(r["a_id"], r["b_id"]) for r in csv.DictReader(f)]
        agree = collections.Counter()
        for x, y in truth:
            x, y = a[x], b[y]
            n = 0
            for field in fields:
                u, v = x[field], y[field]
                if field == "date_of_birth":
                    u = compact(u)
                n += bool(u and v and edits(u, v) <= 2)
            agree[n] += 1
        low = sum(v for k, v in agree.items() if k <= 1)
        recall = 1 - low / len(truth)
        print(f"{name}: {len(truth)} true pairs, by fields agreeing {dict(sorted(agree.items()))}; "
              f"at most one: {low} ({low / len(truth):.2%}); F1 linking all others at precision 1: "
              f"{2 * recall / (1 + recall):.4f}")


if __name__ == "__main__":
    main(sys.argv[1:])
