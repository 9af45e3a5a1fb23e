"""The matcher of more than two parties (``gramlink.match_parties``, the
CLI's ``match a.vec b.vec c.vec …``) as an Apache Spark job: the same
clusters, cluster for cluster, with every party's rows in shards across the
executors.

How the work is split (docs/PYTHON.md has the measurements):

1. **Before any work**, the driver checks every batch file as the single
   machine does (``parties_check``: src/multi/mod.rs ``check_batches``), one
   file at a time, keeping its header and ids: a batch twice, a party twice,
   a party without records, an id in two parties, another base or key, a
   batch without thresholds, a merge threshold outside (0, 1] are refused
   here with the core's code, and no Spark job starts.
2. **Candidates, in parallel.** A pair of parties is linked both ways (each
   side within its own records' thresholds). One task per ordered pair of
   parties (i, j) and shard of i's rows: it reads its shard of batch i and
   the whole of batch j (which the Python worker keeps while its next tasks
   name the same j: the tasks are ordered by j), and scores the shard
   against all of j with the single machine's function
   (``parties_one_way``: src/multi/edges.rs ``one_way``). A row's
   candidates depend only on that row and all of j, so the union over shards
   is the single machine's.
3. **Clusters.** Every candidate goes to one task (``parties_solve``): per
   pair of parties, ``ed auto``'s cut-off fitted on each way's union and
   each record pair's best score of both ways (src/multi/edges.rs
   ``pair_edges``, as ``multi::link`` calls it), then anonlink's greedy
   solver over all pairs; the task reads every batch's ids and writes one
   row per record.
4. **Output.** Parquet ``party, id, cluster`` written to a temporary
   directory, renamed to ``out`` only when the job succeeded (as
   ``gramlink.spark.link``): a failed task raises ``GramlinkError`` with the
   core's code on the driver and leaves no output.

**Record batches** (``schema=...``: ``match_parties(batches, schema=...)``'s
clusters). Each pair of parties is linked one way, B second
(src/multi/records.rs ``orient``): the tasks are (pair, shard of the first's
records), each comparing its records with the whole other batch field by
field (``parties_record_shard``: src/record/shard.rs ``pair_levels``); the
last task makes each pair's decision on its shards' union and clusters the
matches (``parties_record_solve``: src/multi/records.rs ``pair_edges``, as
``multi::records::link`` calls it).

**Memory.** A candidate task holds one party's whole batch and a shard of
another's; the last task holds every candidate (at most 64 per row and way,
a few in practice) and every record's id and cluster.
"""

from __future__ import annotations

import json
import os
from typing import Any, Iterator, Optional, Sequence

from ._native import (
    Batch,
    RecordBatchFile,
    parties_check,
    parties_one_way,
    parties_record_check,
    parties_record_shard,
    parties_record_solve,
    parties_solve,
)
from .spark import _column, _kept, _literal, _one_thread, _run, _shards
from .spark_records import _binary_bytes, _fixed, _record_batch, _schema_for_executors

#: The candidates' schema (between the two stages): ``way`` is ``i * n + j``
#: for batch i's rows (``a``) against batch j's (``b``); a row of way -1
#: carries a task's count of pairs compared in ``a``.
CANDIDATES = "way int, a long, b long, distance double, score double, edits int"
#: The output's schema: one row per record.
CLUSTERS = "party string, id string, cluster long"
#: The last task's: the rows, and one row with the counts (JSON) alone.
SOLVED = CLUSTERS + ", report string"

# the other party's whole batch, read once per Python worker and kept while
# the next tasks name the same file
_other: dict = {}


def _whole(path: str):
    return _kept(_other, path, Batch.open)


def _candidates(paths: Sequence[str], rows_per_shard: Sequence[int]):
    """The first stage's function (mapInArrow): (i, j, shard) in, candidates out."""
    n = len(paths)

    def run(batches: Iterator[Any]) -> Iterator[Any]:
        import numpy as np
        import pyarrow as pa

        _one_thread()
        names = ["way", "a", "b", "distance", "score", "edits"]
        for rb in batches:
            for i, j, shard in zip(*(rb.column(k).to_pylist() for k in range(3))):
                start = shard * rows_per_shard[i]
                a = Batch.open(paths[i], start, start + rows_per_shard[i])
                ca, cb, dist, score, edits, compared = parties_one_way(a, _whole(paths[j]), start)
                rows_a = _column(ca, pa.uint32())
                yield pa.RecordBatch.from_arrays(
                    [
                        pa.array(np.full(len(rows_a), i * n + j, np.int32)),
                        rows_a.cast(pa.int64()),
                        _column(cb, pa.uint32()).cast(pa.int64()),
                        _column(dist, pa.float64()),
                        _column(score, pa.float64()),
                        _column(edits, pa.uint32()).cast(pa.int32()),
                    ],
                    names=names,
                )
                yield pa.RecordBatch.from_pylist(
                    [{"way": -1, "a": compared}],
                    schema=pa.schema(
                        [("way", pa.int32()), ("a", pa.int64()), ("b", pa.int64()), ("distance", pa.float64())]
                        + [("score", pa.float64()), ("edits", pa.int32())]
                    ),
                )

    return run


def _clusters(paths: Sequence[str], merge_threshold: Optional[float]):
    """The second stage's function: every candidate in, one row per record
    out (its party, id and cluster), then a row with the counts."""

    def run(batches: Iterator[Any]) -> Iterator[Any]:
        import numpy as np
        import pyarrow as pa
        import pyarrow.compute as pc

        _one_thread()
        schema = pa.schema(
            [("way", pa.int32()), ("a", pa.int64()), ("b", pa.int64()), ("distance", pa.float64())]
            + [("score", pa.float64()), ("edits", pa.int32())]
        )
        table = pa.Table.from_batches(list(batches), schema=schema).combine_chunks()
        way = table.column("way")
        compared = pc.sum(table.filter(pc.equal(way, -1)).column("a")).as_py() or 0
        cand = table.filter(pc.greater_equal(way, 0))

        def raw(name: str, dtype: str) -> bytes:
            return cand.column(name).to_numpy().astype(dtype).tobytes() if cand.num_rows else b""

        cluster, candidates, count = parties_solve(
            list(paths),
            raw("way", "<u4"),
            raw("a", "<u4"),
            raw("b", "<u4"),
            raw("distance", "<f8"),
            raw("score", "<f8"),
            raw("edits", "<u4"),
            merge_threshold,
        )
        yield from _rows(paths, np.frombuffer(cluster, "<u4").astype(np.int64), Batch.open)
        yield _report({"clusters": count, "candidates": candidates, "compared": compared})

    return run


#: Record batches (with a schema): candidates (kind 0) with their levels (one
#: byte per sent field) and whether the names matched swapped, the u sample's
#: patterns (kind 1), a task's rule counts (kind 2, JSON in ``rules``); ``way``
#: as in ``CANDIDATES``.
RECORD_CANDIDATES = "kind int, way int, a long, b long, levels binary, swapped boolean, rules string"


def _record_schema():
    import pyarrow as pa

    return pa.schema(
        [("kind", pa.int32()), ("way", pa.int32()), ("a", pa.int64()), ("b", pa.int64())]
        + [("levels", pa.binary()), ("swapped", pa.bool_()), ("rules", pa.string())]
    )


def _record_candidates(schema, paths: Sequence[str], rows_per_shard: Sequence[int]):
    """The first stage with a schema: (i, j, shard) in, i's records of the
    shard against all of j's (``parties_record_shard``), levels out."""
    n = len(paths)

    def run(batches: Iterator[Any]) -> Iterator[Any]:
        import numpy as np
        import pyarrow as pa

        _one_thread()
        for rb in batches:
            for i, j, shard in zip(*(rb.column(k).to_pylist() for k in range(3))):
                start = shard * rows_per_shard[i]
                a, _ = _record_batch(paths[i])
                b, _ = _record_batch(paths[j])
                ca, cb, levels, swapped, sample, rules, nf = parties_record_shard(
                    schema, a, b, start, start + rows_per_shard[i]
                )
                rows_a, rows_b = _column(ca, pa.uint32()), _column(cb, pa.uint32())
                m, ns = len(rows_a), len(sample) // max(1, nf)
                yield pa.RecordBatch.from_arrays(
                    [
                        pa.array(np.zeros(m, np.int32)),
                        pa.array(np.full(m, i * n + j, np.int32)),
                        rows_a.cast(pa.int64()),
                        rows_b.cast(pa.int64()),
                        _fixed(levels, nf),
                        pa.array(np.frombuffer(swapped, np.uint8).astype(bool)),
                        pa.nulls(m, pa.string()),
                    ],
                    schema=_record_schema(),
                )
                yield pa.RecordBatch.from_arrays(
                    [
                        pa.array(np.full(ns, 1, np.int32)),
                        pa.array(np.full(ns, i * n + j, np.int32)),
                        pa.nulls(ns, pa.int64()),
                        pa.nulls(ns, pa.int64()),
                        _fixed(sample, nf),
                        pa.nulls(ns, pa.bool_()),
                        pa.nulls(ns, pa.string()),
                    ],
                    schema=_record_schema(),
                )
                yield pa.RecordBatch.from_pylist(
                    [{"kind": 2, "way": i * n + j, "rules": json.dumps(rules)}], schema=_record_schema()
                )

    return run


def _record_clusters(schema, paths: Sequence[str], merge_threshold: Optional[float]):
    """The second stage with a schema: every pair's decision on its shards'
    union and the clusters (``parties_record_solve``), one row per record out."""

    def run(batches: Iterator[Any]) -> Iterator[Any]:
        import numpy as np
        import pyarrow as pa
        import pyarrow.compute as pc

        _one_thread()
        table = pa.Table.from_batches(list(batches), schema=_record_schema()).combine_chunks()
        kind = table.column("kind")
        cand, sample = table.filter(pc.equal(kind, 0)), table.filter(pc.equal(kind, 1))
        rules = []
        for way, text in zip(*(table.filter(pc.equal(kind, 2)).column(k).to_pylist() for k in ("way", "rules"))):
            rules.extend((way, rule, pairs, fields) for rule, pairs, fields in json.loads(text))

        def raw(t, name: str) -> bytes:
            col = t.column(name).combine_chunks()
            return col.to_numpy(zero_copy_only=False).astype("<u4").tobytes() if len(col) else b""

        levels = _binary_bytes(cand.column("levels").combine_chunks()) if cand.num_rows else b""
        s_levels = _binary_bytes(sample.column("levels").combine_chunks()) if sample.num_rows else b""
        swapped = cand.column("swapped").to_numpy(zero_copy_only=False).astype(np.uint8).tobytes()
        cluster, candidates, count, compared = parties_record_solve(
            schema,
            list(paths),
            raw(cand, "way"),
            raw(cand, "a"),
            raw(cand, "b"),
            levels,
            swapped,
            raw(sample, "way"),
            s_levels,
            rules,
            merge_threshold,
        )
        yield from _rows(paths, np.frombuffer(cluster, "<u4").astype(np.int64), RecordBatchFile.open)
        yield _report({"clusters": count, "candidates": candidates, "compared": compared})

    return run


def _rows(paths: Sequence[str], cluster, open_batch) -> Iterator[Any]:
    """One row per record (party, id, cluster), batch after batch, reading
    one batch at a time."""
    import pyarrow as pa

    at = 0
    for path in paths:
        b = open_batch(path)
        ids = b.ids
        yield pa.RecordBatch.from_arrays(
            [
                pa.array([b.party] * len(ids), pa.string()),
                pa.array(ids, pa.string()),
                pa.array(cluster[at : at + len(ids)]),
                pa.nulls(len(ids), pa.string()),
            ],
            names=["party", "id", "cluster", "report"],
        )
        at += len(ids)
        del b, ids


def _report(report: dict) -> Any:
    import pyarrow as pa

    return pa.RecordBatch.from_pylist(
        [{"report": json.dumps(report)}],
        schema=pa.schema(
            [("party", pa.string()), ("id", pa.string()), ("cluster", pa.int64()), ("report", pa.string())]
        ),
    )


def link_parties(
    spark,
    batches: Sequence[str],
    out: str,
    *,
    schema=None,
    merge_threshold: Optional[float] = None,
    shards: Optional[int] = None,
    rows_per_shard: Optional[int] = None,
) -> dict:
    """Clusters the records of every party's batch (files every executor can
    read; two or more) on ``spark``, as ``gramlink.match_parties`` does, and
    writes one row per record as Parquet to ``out`` (which must not exist):
    columns party, id, cluster. Vector batches (every one with thresholds),
    or with ``schema`` (a path to a .toml or .json file, JSON text or a dict)
    record batches (``GLRB`` files). ``merge_threshold`` as
    ``match_parties``'s (0.5 by default). Each party's rows go in ``shards``
    shards (or shards of ``rows_per_shard`` rows; default 50,000), each
    scored against another party's whole batch. Returns ``{"records",
    "clusters", "candidates", "compared", "tasks", "parties"}``. Raises
    ``GramlinkError`` with the core's code when the batches do not fit
    together (before any work) or a task fails; ``out`` is then left
    absent."""
    import pyarrow  # noqa: F401  (the tasks need it: fail early if missing)

    paths = [os.path.abspath(os.fspath(b)) for b in batches]
    if schema is not None:
        schema = _schema_for_executors(schema)
        parties, pairs = parties_record_check(schema, paths, merge_threshold)
    else:
        parties = parties_check(paths, merge_threshold)
        # both ways: every party bounds its own records' errors
        pairs = [(i, j) for i in range(len(paths)) for j in range(len(paths)) if i != j]
    per_shard = []
    tasks = []
    for i, (_, rows) in enumerate(parties):
        count, size = _shards(rows, shards, rows_per_shard)
        per_shard.append(size)
        # record batches: each pair one way, B second (src/multi/records.rs orient)
        tasks.extend((i, j, s) for x, j in pairs if x == i for s in range(count))
    # a worker keeps the last whole batch it read: the tasks of one j together
    tasks.sort(key=lambda t: (t[1], t[0], t[2]))
    if schema is None:
        stages = (_candidates(paths, per_shard), CANDIDATES, _clusters(paths, merge_threshold))
    else:
        stages = (_record_candidates(schema, paths, per_shard), RECORD_CANDIDATES,
                  _record_clusters(schema, paths, merge_threshold))
    report = _run(
        spark,
        out,
        len(tasks),
        stages[0],
        stages[1],
        stages[2],
        SOLVED,
        "report",
        True,
        tasks=tasks,
        task_schema="i int, j int, shard int",
    )
    report = dict(report or {})
    report.update(
        records=spark.read.parquet(_literal(out)).count(),
        tasks=len(tasks),
        parties=[p for p, _ in parties],
    )
    return report
