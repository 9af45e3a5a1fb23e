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

def reassign(o):
    """Section 2.2's re-assignment off / on: means over seeds 1-3."""
    times = collections.defaultdict(list)
    for line in open(os.path.join(o, "reassign-times.txt")):
        d, k, seed, mode, t = line.split()
        times[(d, k, mode)].append(float(t))
    print("| data | k | groups (off / on) | smallest group (on) | composition L1 (off / on) | equal to a real string (off / on) | nearest real string: mean edits (off / on) | time s (off / on) |")
    print("|---|---|---|---|---|---|---|---|")
    for d in ("names", "cities"):
        for k in ("5", "10", "25", "50"):
            m = {}
            for mode in ("off", "on"):
                rs = [json.load(open(os.path.join(o, f"ra.{d}.k{k}.s{s}.{mode}.txt.report.json")))["fields"][0] for s in (1, 2, 3)]
                mean = lambda f: sum(f(r) for r in rs) / len(rs)
                m[mode] = dict(groups=mean(lambda r: r["groups"]), l1=mean(lambda r: r["compositionL1"]),
                               eq=mean(lambda r: r["equalToReal"]), nn=mean(lambda r: r["nearestNeighbour"]["mean"]),
                               small=min(r["minGroup"] for r in rs), t=sum(times[(d, k, mode)]) / len(times[(d, k, mode)]))
            a, b = m["off"], m["on"]
            print(f"| {d.upper()} | {k} | {a['groups']:.0f} / {b['groups']:.0f} | {b['small']} | {a['l1']:.4f} / {b['l1']:.4f} | "
                  f"{100*a['eq']:.1f}% / {100*b['eq']:.1f}% | {a['nn']:.2f} / {b['nn']:.2f} | {a['t']:.1f} / {b['t']:.1f} |")

if __name__ == "__main__":
    globals()[sys.argv[1]](sys.argv[2])
