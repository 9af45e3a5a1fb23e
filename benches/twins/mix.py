#!/usr/bin/env python3
"""Party B's file with a mixture of corruptions (benches/twins/measure.sh): each
record of A (gramlink lab corrupt's out-a CSV) replaced by its copy with e edits
(the out-b CSVs of `gramlink lab corrupt --ed e`, ids = A's ids) with probability
rates[e]; e = 0 is the record itself. Seeded; B's order shuffled.
usage: mix.py A.csv RATES SEED B1.csv [B2.csv ...] > B.txt"""
import csv, random, sys

a_path, rates, seed, *bs = sys.argv[1:]
rates = [float(r) for r in rates.split(",")]
rng = random.Random(int(seed))
read = lambda p: {row["id"]: row["name"] for row in csv.DictReader(open(p))}
versions = [read(a_path)] + [read(b) for b in bs]
assert len(versions) >= len(rates), "a B file for every rate after the first"
out = []
for i, s in versions[0].items():
    e = rng.choices(range(len(rates)), weights=rates)[0]
    if i in versions[e]:  # left out when it normalized to empty
        out.append(versions[e][i])
rng.shuffle(out)
print("\n".join(out))
