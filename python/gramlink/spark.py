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
   of ties is by row, so the shards' order does not matter. With ``ed auto``
   (the default embedding) the shards return every candidate within A's
   generous bound with its filter bound on edits (keyed batches: its distance
   level relative to A's threshold), and this task first fits
   the cut-off on their union with the single machine's function
   (src/cutoff.rs: a candidate's pattern compares it with the others of its
   A row and of its B row, so the fit needs every shard's); the driver gets
   the fit's report back (``stats["cutoff"]``).
4. **Output.** The pairs are written as Parquet to a temporary directory,
   renamed to ``out`` only when the job succeeded: a failed job (a corrupt
   batch in one shard: its task raises ``GramlinkError`` with the core's
   code) leaves no output, and the driver raises ``GramlinkError`` with that
   code.

More than two parties (``match_parties``'s clusters): ``gramlink.spark_parties``.
"""

from __future__ import annotations

import json
import math
import os
import re
import uuid
from typing import Any, Iterator, Optional

from ._errors import GramlinkError
from ._native import (
    Batch,
    Reference,
    assign,
    check_batches,
    cutoff_bound,
    shard_candidates,
)

#: The candidates' schema (between the two stages); edits: the q-gram filter's bound
#: (keyed batches under ed auto: the distance level the cut-off reads).
CANDIDATES = "a long, b long, a_id string, b_id string, distance double, score double, edits int"
#: The output's schema: the CLI's pairs (a_id, b_id, distance) and the rows.
PAIRS = "a_id string, b_id string, distance double, a long, b long"
#: The assignment's: the pairs, and one row with the fitted cut-off (JSON) alone.
ASSIGNED = PAIRS + ", cutoff string"
#: Rows of A per shard when neither ``shards`` nor ``rows_per_shard`` is given.
ROWS_PER_SHARD = 50_000

# B's batch, read once per Python worker and kept while the file is the same
_reference: dict = {}


def _kept(cache: dict, path: str, read, keep: int = 1):
    """``read(path)``, kept in ``cache`` while the file (its size and time of
    change) is the same: a worker reads each batch once; ``keep`` files at most."""
    st = os.stat(path)
    key = (path, st.st_size, st.st_mtime_ns)
    if key not in cache:
        if len(cache) >= keep:
            cache.clear()
        cache[key] = read(path)
    return cache[key]


def _with_ids(batch) -> tuple:
    """A batch and its ids as an Arrow column."""
    import pyarrow as pa

    return batch, pa.array(batch.ids, pa.string())


def _batch_b(path: str):
    return _kept(_reference, path, lambda p: _with_ids(Reference.open(p)))


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
                ca, cb, dist, score, edits, _ = shard_candidates(a, b, start, rule)
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
                        _column(edits, pa.uint32()).cast(pa.int32()),
                    ],
                    names=["a", "b", "a_id", "b_id", "distance", "score", "edits"],
                )

    return run


def _assignment(rule: Optional[str], auto: Optional[tuple]):
    """The second stage's function: every candidate in, the rule's pairs out
    (after ``ed auto``'s cut-off, fitted here on all of them, when ``auto``
    is ``((bound, evidence), rows of A, rows of B)``), then a row with the fit's report."""

    def run(batches: Iterator[Any]) -> Iterator[Any]:

        import pyarrow as pa

        _one_thread()
        table = pa.Table.from_batches(list(batches)).combine_chunks()

        def raw(name: str, dtype: str) -> bytes:
            return table.column(name).to_numpy().astype(dtype).tobytes() if table.num_rows else b""

        kept, cutoff = assign(
            raw("a", "<u4"),
            raw("b", "<u4"),
            raw("distance", "<f8"),
            raw("score", "<f8"),
            rule,
            edits=raw("edits", "<u4"),
            auto=auto,
        )
        if table.num_rows:
            pairs = table.take(_column(kept, pa.uint64())).select(["a_id", "b_id", "distance", "a", "b"])
            pairs = pairs.append_column("cutoff", pa.nulls(pairs.num_rows, pa.string()))
            yield from pairs.to_batches()
        if cutoff is not None:
            yield pa.RecordBatch.from_pylist(
                [{"cutoff": json.dumps(cutoff)}],
                schema=pa.schema(
                    [("a_id", pa.string()), ("b_id", pa.string()), ("distance", pa.float64())]
                    + [("a", pa.int64()), ("b", pa.int64()), ("cutoff", pa.string())]
                ),
            )

    return run


def _code_of(error: BaseException) -> Optional[GramlinkError]:
    """The core's error in a failed job's text (a worker's GramlinkError
    reaches the driver as its traceback)."""
    m = re.search(r"GramlinkError: \[([A-Z_]+)\] ([^\n]*)", str(error))
    return GramlinkError(m.group(2), m.group(1)) if m else None


def _literal(path: str) -> str:
    """``path`` with Hadoop's glob characters escaped (``local[2]`` in a name
    would otherwise be read as a pattern)."""
    return re.sub(r"([\[\]{}*?\\])", r"\\\1", path)


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
    "rows_a", "rows_b", "rule", "cutoff"}`` (cutoff: the fit of ``ed auto``,
    with its ``description``, or None). Raises ``GramlinkError`` with the
    core's code when the batches do not fit (before any work) or a task fails
    on a batch; ``out`` is then left absent."""
    import pyarrow  # noqa: F401  (the tasks need it: fail early if missing)

    head_a = Batch.open(batch_a, 0, 0)
    head_b = Batch.open(batch_b, 0, 0)
    check_batches(head_a, head_b)
    bound = cutoff_bound(head_a, head_b, rule)
    n = head_a.total
    auto = None if bound is None else (bound, n, head_b.total)
    count, rows_per_shard = _shards(n, shards, rows_per_shard)
    stage1 = _candidates(os.path.abspath(batch_a), os.path.abspath(batch_b), rows_per_shard, rule)
    cutoff = _run(spark, out, count, stage1, CANDIDATES, _assignment(rule, auto), ASSIGNED, "cutoff", auto is not None)
    written = spark.read.parquet(_literal(out)).count()
    return {
        "pairs": written,
        "shards": count,
        "rows_a": n,
        "rows_b": head_b.total,
        "rule": rule or "ranked",
        "cutoff": cutoff,
    }


def _shards(n: int, shards: Optional[int], rows_per_shard: Optional[int]) -> tuple:
    """(number of shards, rows per shard) for ``n`` rows of A."""
    if shards is not None and shards < 1:
        raise GramlinkError("shards must be at least 1", "INVALID_PARAMETER")
    if rows_per_shard is None:
        rows_per_shard = math.ceil(n / shards) if shards else ROWS_PER_SHARD
    rows_per_shard = max(1, rows_per_shard)
    return max(1, math.ceil(n / rows_per_shard)), rows_per_shard


def _run(spark, out: str, count: int, stage1, schema1: str, stage2, schema2: str, report: str, read_report: bool,
         tasks: Optional[list] = None, task_schema: str = "shard int"):
    """The two stages on ``count`` shards: ``stage1`` per shard (or per row of
    ``tasks``, tuples of ``task_schema``, one task each), ``stage2`` on
    the union in one task; its rows with column ``report`` null are written as
    Parquet to ``out`` (``_output``), its one row with ``report`` set is
    returned (JSON, read when ``read_report``)."""

    def write(tmp_path: str):
        sc = spark.sparkContext
        rows = tasks if tasks is not None else [(i,) for i in range(count)]
        shard_rows = sc.parallelize(rows, max(1, len(rows))).toDF(task_schema)
        result = shard_rows.mapInArrow(stage1, schema1).repartition(1).mapInArrow(stage2, schema2)
        value = None
        if read_report:
            # computed once: the report is read, then the pairs written, from the cache
            result = result.persist()
            got = result.where(f"{report} IS NOT NULL").select(report).collect()
            value = json.loads(got[0][0]) if got else None
        result.where(f"{report} IS NULL").drop(report).write.parquet(tmp_path)
        if read_report:
            result.unpersist()
        return value

    return _output(spark, out, write)


def _output(spark, out: str, write):
    """Runs ``write(tmp_path)``, which writes the job's Parquet to a temporary
    directory beside ``out``, renamed to ``out`` once it succeeded; returns
    what ``write`` returns. On failure nothing is left and the task's
    GramlinkError is raised."""
    fs, target = _fs(spark, out)
    if fs.exists(target):
        raise GramlinkError(f"{out} exists: the job writes a new directory", "IO")
    tmp_path = f"{out.rstrip('/')}.tmp-{uuid.uuid4().hex}"
    _, tmp = _fs(spark, tmp_path)
    try:
        value = write(tmp_path)
        if not fs.rename(tmp, target):
            raise GramlinkError(f"cannot rename {tmp_path} to {out}", "IO")
        return value
    except GramlinkError:
        fs.delete(tmp, True)
        raise
    except Exception as e:  # a failed Spark job: the task's error, by its code
        fs.delete(tmp, True)
        core = _code_of(e)
        if core is not None:
            raise core from e
        raise


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
    [--shards N]``, or ``--schema S.toml A.glrb B.glrb OUT`` for whole records:
    the job from the command line."""
    import argparse
    import time

    p = argparse.ArgumentParser(prog="python -m gramlink.spark", description=link.__doc__)
    p.add_argument("batch_a")
    p.add_argument("batch_b")
    p.add_argument("out")
    p.add_argument("--master", default="local[2]")
    p.add_argument("--rule", default=None)
    p.add_argument("--schema", default=None, help="a linkage schema: the batches are record batches (link_records)")
    p.add_argument("--shards", type=int, default=None)
    p.add_argument("--rows-per-shard", type=int, default=None)
    p.add_argument("--driver-memory", default="2g")
    a = p.parse_args(argv)
    spark = session(a.master, **{"spark_driver_memory": a.driver_memory})
    spark.sparkContext.setLogLevel("ERROR")
    t = time.perf_counter()
    try:
        shards = {"shards": a.shards, "rows_per_shard": a.rows_per_shard}
        if a.schema:
            stats = link_records(spark, a.schema, a.batch_a, a.batch_b, a.out, **shards)
        else:
            stats = link(spark, a.batch_a, a.batch_b, a.out, rule=a.rule, **shards)
    except GramlinkError as e:
        print(f"error[{e.code}]: {e.message}", file=__import__("sys").stderr)
        return 4
    finally:
        elapsed = time.perf_counter() - t
    stats["seconds"] = round(elapsed, 2)
    if stats.get("cutoff"):
        print(stats["cutoff"]["description"], file=__import__("sys").stderr)
    print(json.dumps(stats))
    spark.stop()
    return 0


# the records job, re-exported: `gramlink.spark.link_records` (its module imports this one)
from .spark_records import link_records  # noqa: E402

if __name__ == "__main__":
    raise SystemExit(main())
