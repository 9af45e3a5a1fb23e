"""The Spark job on two vector batches, measured: wall time, peak memory of
the executor (in local mode the driver's JVM runs the tasks; each task's
Python worker is its own process), and the pairs compared with the native
CLI's `gramlink match` output.

    target/pyenv/bin/python benches/python/spark_scale.py a.vec b.vec pairs-cli.csv \\
        --master local[2] --out pairs-spark.parquet

Prints one JSON line. docs/PYTHON.md has the numbers and the commands that
made the batches."""

import argparse
import csv
import json
import os
import shutil
import threading
import time


def descendants(root: int) -> list:
    children = {}
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open(f"/proc/{pid}/stat") as f:
                ppid = int(f.read().rsplit(")", 1)[1].split()[1])
            children.setdefault(ppid, []).append(int(pid))
        except (OSError, IndexError, ValueError):
            pass
    out, todo = [], [root]
    while todo:
        p = todo.pop()
        for c in children.get(p, []):
            out.append(c)
            todo.append(c)
    return out


def rss_kb(pid: int) -> tuple:
    try:
        with open(f"/proc/{pid}/status") as f:
            rss = next((int(line.split()[1]) for line in f if line.startswith("VmRSS:")), 0)
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            cmd = f.read().replace(b"\0", b" ").decode(errors="replace")
        return rss, cmd
    except OSError:
        return 0, ""


def cpu_s(pid: int) -> float:
    """User + system CPU seconds of a process so far."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, IndexError, ValueError):
        return 0.0


class Peak(threading.Thread):
    """Samples the RSS of this process's descendants every 0.5 s, and their CPU
    time (the last value seen of each process: the JVM and the Python workers
    live until the session stops)."""

    def __init__(self):
        super().__init__(daemon=True)
        self.jvm = self.worker = self.total = 0
        self.cpu = {}
        self.done = False

    def run(self):
        me = os.getpid()
        while not self.done:
            total, own = 0, rss_kb(me)[0]
            for pid in descendants(me):
                self.cpu[pid] = max(self.cpu.get(pid, 0.0), cpu_s(pid))
                rss, cmd = rss_kb(pid)
                total += rss
                if "java" in cmd:
                    self.jvm = max(self.jvm, rss)
                elif "python" in cmd:
                    self.worker = max(self.worker, rss)
            self.total = max(self.total, total + own)
            time.sleep(0.5)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("batch_a")
    p.add_argument("batch_b")
    p.add_argument("cli_pairs", help="the CLI's pairs.csv for the same batches and rule")
    p.add_argument("--master", default="local[2]")
    p.add_argument("--out", default="pairs-spark.parquet")
    p.add_argument("--rows-per-shard", type=int, default=None)
    p.add_argument("--driver-memory", default="2g")
    a = p.parse_args()

    import pyarrow.parquet as pq

    from gramlink import spark as gspark

    shutil.rmtree(a.out, ignore_errors=True)
    peak = Peak()
    peak.start()
    t0 = time.perf_counter()
    spark = gspark.session(a.master, spark_driver_memory=a.driver_memory)
    spark.sparkContext.setLogLevel("ERROR")
    t1 = time.perf_counter()
    stats = gspark.link(spark, a.batch_a, a.batch_b, a.out, rows_per_shard=a.rows_per_shard)
    t2 = time.perf_counter()
    time.sleep(1.0)  # one more sample of the workers' CPU time
    spark.stop()
    peak.done = True

    t = pq.read_table(a.out, columns=["a_id", "b_id", "distance"])
    mine = sorted(zip(t.column("a_id").to_pylist(), t.column("b_id").to_pylist(),
                      (f"{d:.6f}" for d in t.column("distance").to_pylist())))
    with open(a.cli_pairs, newline="") as f:
        cli = sorted((r["a_id"], r["b_id"], r["distance"]) for r in csv.DictReader(f))
    stats.update(
        master=a.master,
        session_s=round(t1 - t0, 1),
        job_s=round(t2 - t1, 1),
        peak_jvm_gb=round(peak.jvm / 2**20, 2),
        peak_python_worker_gb=round(peak.worker / 2**20, 2),
        peak_total_gb=round(peak.total / 2**20, 2),
        cpu_s=round(sum(peak.cpu.values()) + cpu_s(os.getpid()), 1),
        same_pairs_as_cli=mine == cli,
        cli_pairs=len(cli),
    )
    print(json.dumps(stats))


if __name__ == "__main__":
    main()
