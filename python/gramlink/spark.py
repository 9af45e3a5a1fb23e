"""The matcher as an Apache Spark job: the same pairs as the single-machine
matcher, pair for pair, with A's rows in shards across the executors.

How the work is split (docs/PYTHON.md has the measurements and the plan for
larger data):

1. **Before any work**, the driver reads the two batches' headers only and
   checks them as the matcher does (same shared base, A's thresholds, same key
   or none, same dimension): batches of another base are refused here, with
   the core's code, and no Spark job starts.
2. **Candidates, in parallel.** A's rows are cut into shards of consecutive
   rows; each task reads its shard's rows (the binary batch's header and those
   rows, nothing else) and scores them against the whole of B, which each
   Python worker reads once, in pieces, and keeps as sparse rows (the
   broadcast: B must fit in an executor's memory, some 0.3 GB a million rows). The Rust core scores (``gramlink.shard_candidates``):
   no Python loop over pairs; ids are attached with pyarrow's ``take``. A row's
   candidates depend only on that row and all of B (src/shard.rs), so the
   union over shards is the single machine's.
3. **Assignment.** The candidates (a few per A row) go to one task, where the
   core's assignment (``gramlink.assign``) keeps the rule's pairs; its order
   of ties is by row, so the shards' order does not matter.
4. **Output.** The pairs are written as Parquet to a temporary directory,
   renamed to ``out`` only when the job succeeded: a failed job (a corrupt
   batch in one shard: its task raises ``GramlinkError`` with the core's
   code) leaves no output, and the driver raises ``GramlinkError`` with that
   code.
"""

from __future__ import annotations

import math
import os
import re
import uuid
from typing import Any, Iterator, Optional

from ._errors import GramlinkError
from ._native import Batch, Reference, assign, check_batches, shard_candidates

#: The candidates' schema (between the two stages).
CANDIDATES = "a long, b long, a_id string, b_id string, distance double, score double"
#: The output's schema: the CLI's pairs (a_id, b_id, distance) and the rows.
PAIRS = "a_id string, b_id string, distance double, a long, b long"
#: Rows of A per shard when neither ``shards`` nor ``rows_per_shard`` is given.
ROWS_PER_SHARD = 50_000

# B's batch, read once per Python worker and kept while the file is the same
_reference: dict = {}


def _batch_b(path: str):
    import pyarrow as pa

    st = os.stat(path)
    key = (path, st.st_size, st.st_mtime_ns)
    if key not in _reference:
        _reference.clear()
        b = Reference.open(path)
        _reference[key] = (b, pa.array(b.ids, pa.string()))
    return _reference[key]


def _one_thread() -> None:
    """One core per task: Spark's task slots are the parallelism, so the core's
    own thread pool (rayon, built on first use in each worker) gets one thread
    unless RAYON_NUM_THREADS says otherwise."""
    os.environ.setdefault("RAYON_NUM_THREADS", "1")


def _column(buf: bytes, kind) -> Any:
    import pyarrow as pa

    width = 4 if kind == pa.uint32() else 8
    return pa.Array.from_buffers(kind, len(buf) // width, [None, pa.py_buffer(buf)])


def _candidates(path_a: str, path_b: str, rows_per_shard: int, rule: Optional[str]):
    """The first stage's function (mapInArrow): shard numbers in, candidates out."""

    def run(batches: Iterator[Any]) -> Iterator[Any]:
        import pyarrow as pa
        import pyarrow.compute as pc

        _one_thread()
        b, b_ids = _batch_b(path_b)
        for rb in batches:
            for shard in rb.column(0).to_pylist():
                start = shard * rows_per_shard
                a = Batch.open(path_a, start, start + rows_per_shard)
                ca, cb, dist, score, _ = shard_candidates(a, b, start, rule)
                rows_a = _column(ca, pa.uint32())
                rows_b = _column(cb, pa.uint32())
                local = pc.subtract(rows_a.cast(pa.int64()), start)
                yield pa.RecordBatch.from_arrays(
                    [
                        rows_a.cast(pa.int64()),
                        rows_b.cast(pa.int64()),
                        pa.array(a.ids, pa.string()).take(local),
                        b_ids.take(rows_b),
                        _column(dist, pa.float64()),
                        _column(score, pa.float64()),
                    ],
                    names=["a", "b", "a_id", "b_id", "distance", "score"],
                )

    return run


def _assignment(rule: Optional[str]):
    """The second stage's function: every candidate in, the rule's pairs out."""

    def run(batches: Iterator[Any]) -> Iterator[Any]:
        import pyarrow as pa

        _one_thread()
        table = pa.Table.from_batches(list(batches)).combine_chunks()
        if table.num_rows == 0:
            return

        def raw(name: str, dtype: str) -> bytes:
            return table.column(name).to_numpy().astype(dtype).tobytes()

        kept = assign(raw("a", "<u4"), raw("b", "<u4"), raw("distance", "<f8"), raw("score", "<f8"), rule)
        pairs = table.take(_column(kept, pa.uint64()))
        yield from pairs.select(["a_id", "b_id", "distance", "a", "b"]).to_batches()

    return run


def _code_of(error: BaseException) -> Optional[GramlinkError]:
    """The core's error in a failed job's text (a worker's GramlinkError
    reaches the driver as its traceback)."""
    m = re.search(r"GramlinkError: \[([A-Z_]+)\] ([^\n]*)", str(error))
    return GramlinkError(m.group(2), m.group(1)) if m else None


def _fs(spark, path: str):
    jvm = spark.sparkContext._jvm
    p = jvm.org.apache.hadoop.fs.Path(path)
    return p.getFileSystem(spark.sparkContext._jsc.hadoopConfiguration()), p


def link(
    spark,
    batch_a: str,
    batch_b: str,
    out: str,
    *,
    rule: Optional[str] = None,
    shards: Optional[int] = None,
    rows_per_shard: Optional[int] = None,
) -> dict:
    """Links party A's and party B's vector batches (files every executor can
    read) on ``spark`` and writes the pairs as Parquet to ``out`` (which must
    not exist): columns a_id, b_id, distance, a, b (rows). ``rule`` as the
    matcher's (default "ranked"). A's rows go in ``shards`` shards (or shards
    of ``rows_per_shard`` rows; default 50,000). Returns ``{"pairs", "shards",
    "rows_a", "rows_b", "rule"}``. Raises ``GramlinkError`` with the core's code
    when the batches do not fit (before any work) or a task fails on a batch;
    ``out`` is then left absent."""
    import pyarrow  # noqa: F401  (the tasks need it: fail early if missing)

    head_a = Batch.open(batch_a, 0, 0)
    head_b = Batch.open(batch_b, 0, 0)
    check_batches(head_a, head_b)
    n = head_a.total
    if shards is not None and shards < 1:
        raise GramlinkError("shards must be at least 1", "INVALID_PARAMETER")
    if rows_per_shard is None:
        rows_per_shard = math.ceil(n / shards) if shards else ROWS_PER_SHARD
    rows_per_shard = max(1, rows_per_shard)
    count = max(1, math.ceil(n / rows_per_shard))
    fs, target = _fs(spark, out)
    if fs.exists(target):
        raise GramlinkError(f"{out} exists: the job writes a new directory", "IO")
    tmp_path = f"{out.rstrip('/')}.tmp-{uuid.uuid4().hex}"
    _, tmp = _fs(spark, tmp_path)
    sc = spark.sparkContext
    try:
        shard_rows = sc.parallelize([(i,) for i in range(count)], count).toDF("shard int")
        candidates = shard_rows.mapInArrow(
            _candidates(os.path.abspath(batch_a), os.path.abspath(batch_b), rows_per_shard, rule), CANDIDATES
        )
        pairs = candidates.repartition(1).mapInArrow(_assignment(rule), PAIRS)
        pairs.write.parquet(tmp_path)
        if not fs.rename(tmp, target):
            raise GramlinkError(f"cannot rename {tmp_path} to {out}", "IO")
    except GramlinkError:
        fs.delete(tmp, True)
        raise
    except Exception as e:  # a failed Spark job: the task's error, by its code
        fs.delete(tmp, True)
        core = _code_of(e)
        if core is not None:
            raise core from e
        raise
    written = spark.read.parquet(out).count()
    return {"pairs": written, "shards": count, "rows_a": n, "rows_b": head_b.total, "rule": rule or "ranked"}


def session(master: str = "local[2]", app: str = "gramlink", **conf: str):
    """A SparkSession for the job: Python workers run this interpreter (where
    gramlink is installed), no UI. ``conf``: more Spark settings."""
    import sys

    from pyspark.sql import SparkSession

    # the workers' interpreter: this one (the setting alone is not always read)
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    os.environ.setdefault("PYSPARK_DRIVER_PYTHON", sys.executable)
    builder = (
        SparkSession.builder.master(master)
        .appName(app)
        .config("spark.pyspark.python", sys.executable)
        .config("spark.pyspark.driver.python", sys.executable)
        .config("spark.ui.enabled", "false")
        .config("spark.sql.shuffle.partitions", "2")
    )
    for k, v in conf.items():
        builder = builder.config(k.replace("_", "."), v)
    return builder.getOrCreate()


def main(argv: Optional[list] = None) -> int:
    """``python -m gramlink.spark A.vec B.vec OUT [--master local[2]] [--rule R]
    [--shards N]``: the job from the command line."""
    import argparse
    import json
    import time

    p = argparse.ArgumentParser(prog="python -m gramlink.spark", description=link.__doc__)
    p.add_argument("batch_a")
    p.add_argument("batch_b")
    p.add_argument("out")
    p.add_argument("--master", default="local[2]")
    p.add_argument("--rule", default=None)
    p.add_argument("--shards", type=int, default=None)
    p.add_argument("--rows-per-shard", type=int, default=None)
    p.add_argument("--driver-memory", default="2g")
    a = p.parse_args(argv)
    spark = session(a.master, **{"spark_driver_memory": a.driver_memory})
    spark.sparkContext.setLogLevel("ERROR")
    t = time.perf_counter()
    try:
        stats = link(spark, a.batch_a, a.batch_b, a.out, rule=a.rule, shards=a.shards, rows_per_shard=a.rows_per_shard)
    except GramlinkError as e:
        print(f"error[{e.code}]: {e.message}", file=__import__("sys").stderr)
        return 4
    finally:
        elapsed = time.perf_counter() - t
    stats["seconds"] = round(elapsed, 2)
    print(json.dumps(stats))
    spark.stop()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
