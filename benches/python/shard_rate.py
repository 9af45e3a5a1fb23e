"""One Spark task's work, alone, in this process: B read as a Reference (time,
memory), one shard of A read, its candidates scored. For the cluster plan's
rates (docs/PYTHON.md).

    target/pyenv/bin/python benches/python/shard_rate.py a.vec b.vec --rows 50000"""

import argparse
import json
import time

import gramlink


def rss_mb() -> float:
    with open("/proc/self/status") as f:
        return next(int(line.split()[1]) for line in f if line.startswith("VmRSS:")) / 1024


def main():
    p = argparse.ArgumentParser()
    p.add_argument("batch_a")
    p.add_argument("batch_b")
    p.add_argument("--rows", type=int, default=50_000)
    a = p.parse_args()
    m0, t0, c0 = rss_mb(), time.perf_counter(), time.process_time()
    b = gramlink.Reference.open(a.batch_b)
    t1, m1, c1 = time.perf_counter(), rss_mb(), time.process_time()
    shard = gramlink.Batch.open(a.batch_a, 0, a.rows)
    t2, c2 = time.perf_counter(), time.process_time()
    ca, cb, d, s, _, compared = gramlink.shard_candidates(shard, b, 0)
    t3, c3, m3 = time.perf_counter(), time.process_time(), rss_mb()
    print(json.dumps({
        "rows_b": len(b), "reference_s": round(t1 - t0, 2), "reference_cpu_s": round(c1 - c0, 2), "reference_mb": round(m1 - m0),
        "shard_rows": len(shard), "shard_read_s": round(t2 - t1, 2),
        "score_s": round(t3 - t2, 2), "score_cpu_s": round(c3 - c2, 2),
        "rows_per_s": round(len(shard) / (t3 - t2)),
        "candidates": len(ca) // 4, "distances_computed": compared, "peak_mb": round(max(m1, m3)),
    }))


if __name__ == "__main__":
    main()
