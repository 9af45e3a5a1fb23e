"""The Python API against the native CLI, step by step, on the same files and
seed (so the same bases, batches and pairs: checked). Each side runs every
step once, the CLI as separate processes (reading and writing its files), the
Python API in one process (messages as Python objects).

    target/pyenv/bin/python benches/python/api_vs_cli.py a.csv b.csv --cli target/release/gramlink

Prints a Markdown table (seconds) and one JSON line."""

import argparse
import csv
import json
import subprocess
import tempfile
import time
from pathlib import Path

import gramlink


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("a", help="party A's CSV (columns id, name)")
    p.add_argument("b", help="party B's CSV")
    p.add_argument("--cli", default="target/release/gramlink")
    p.add_argument("--seed", default="1")
    a = p.parse_args()
    t = Path(tempfile.mkdtemp())
    read = ["--column", "name", "--id-column", "id"]

    def cli(*args):
        s = time.perf_counter()
        subprocess.run([a.cli, *map(str, args)], check=True, capture_output=True)
        return time.perf_counter() - s

    c = {}
    c["mine A"] = cli("mine", "--input", a.a, *read, "--seed", a.seed, "--out", t / "a-base.json")
    c["mine B"] = cli("mine", "--input", a.b, *read, "--seed", a.seed, "--out", t / "b-base.json")
    c["merge"] = cli("merge", t / "a-base.json", t / "b-base.json", "--out", t / "shared.json")
    c["embed A"] = cli("embed", "--input", a.a, *read, "--base", t / "shared.json", "--no-key", "--keep-ids", "--out", t / "a.vec")
    c["embed B"] = cli("embed", "--input", a.b, *read, "--base", t / "shared.json", "--party", "b", "--no-key", "--keep-ids", "--out", t / "b.vec")
    c["match"] = cli("match", t / "a.vec", t / "b.vec", "--out", t / "pairs.csv")

    py = {}

    def timed(name, f):
        s = time.perf_counter()
        out = f()
        py[name] = time.perf_counter() - s
        return out

    seed = int(a.seed)

    def read_mine(path):
        o = gramlink.DataOwner.read(path, column="name", id_column="id", seed=seed)
        return o, o.mine()

    # the CLI's mine reads its file: so does this step; its embed reads it again, this one does not
    owner_a, na = timed("mine A", lambda: read_mine(a.a))
    owner_b, nb = timed("mine B", lambda: read_mine(a.b))
    shared = timed("merge", lambda: gramlink.merge_bases(na, nb))
    ba = timed("embed A", lambda: owner_a.embed(shared, no_key=True, keep_ids=True))
    bb = timed("embed B", lambda: owner_b.embed(shared, party="B", no_key=True, keep_ids=True))
    link = timed("match", lambda: gramlink.Matcher(ba, bb).link())

    assert ba == (t / "a.vec").read_bytes() and bb == (t / "b.vec").read_bytes(), "batches differ"
    with open(t / "pairs.csv", newline="") as f:
        rows = [(r["a_id"], r["b_id"]) for r in csv.DictReader(f)]
    same = rows == list(zip(link.a_ids, link.b_ids))
    print("| step | CLI (s) | Python API (s) | ratio |")
    print("|---|---|---|---|")
    for k in c:
        print(f"| {k} | {c[k]:.2f} | {py[k]:.2f} | {py[k] / c[k]:.2f} |")
    tc, tp = sum(c.values()), sum(py.values())
    print(f"| all | {tc:.2f} | {tp:.2f} | {tp / tc:.2f} |")
    print(json.dumps({"cli_s": round(tc, 2), "python_s": round(tp, 2), "pairs": len(rows), "same_pairs": same}))


if __name__ == "__main__":
    main()
