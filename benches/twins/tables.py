#!/usr/bin/env python3
"""Tables of docs/TWINS.md from the twins' reports (benches/twins/measure.sh)."""
import json, sys, os, collections

def condense(o):
    times = {}
    for line in open(os.path.join(o, "times.txt")):
        d, k, t = line.split()
        times[(d, k)] = float(t)
    print("| data | k | groups | suppressed | composition L1 | mean length (real / twin) | equal to a real string | nearest real string: mean edits | 0 / 1 / 2 / 3 / 4+ edits (of 1000) | time (s) |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for d in ("names", "cities"):
        for k in ("5", "10", "25", "50"):
            r = json.load(open(os.path.join(o, f"{d}.k{k}.txt.report.json")))
            f = r["fields"][0]
            nn = f["nearestNeighbour"]
            print(f"| {d.upper()} | {k} | {f['groups']} | {f['suppressed']} | {f['compositionL1']:.4f} | "
                  f"{f['meanLengthSource']:.2f} / {f['meanLengthTwin']:.2f} | {100*f['equalToReal']:.1f}% | "
                  f"{nn['mean']:.2f} | {' / '.join(map(str, nn['histogram']))} | {times[(d, k)]:.2f} |")
    # the paper's figure: symbol composition, real against pseudo (k = 25)
    for d in ("names", "cities"):
        real = [l.rstrip("\n").upper() for l in open(f"data/{d}.txt")]
        twin = [l.rstrip("\n") for l in open(os.path.join(o, f"{d}.k25.txt"))]
        def comp(v):
            c = collections.Counter(ch for s in v for ch in s if ch.isalpha() and ch.isascii() or ch == " ")
            t = sum(c.values())
            return {ch: n / t for ch, n in c.items()}
        a, b = comp(real), comp(twin)
        syms = sorted(set(a) | set(b), key=lambda ch: -a.get(ch, 0))
        print(f"\n*{d.upper()}, k = 25: symbol shares (%), real / pseudo*\n")
        print("| " + " | ".join("␣" if s == " " else s for s in syms) + " |")
        print("|" + "---|" * len(syms))
        print("| " + " | ".join(f"{100*a.get(s,0):.1f} / {100*b.get(s,0):.1f}" for s in syms) + " |")

if __name__ == "__main__":
    globals()[sys.argv[1]](sys.argv[2])
