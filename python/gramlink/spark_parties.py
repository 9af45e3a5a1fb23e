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
   side within its own records' thresholds). One task per pair of parties
   (i, j), i < j, and shard of i's rows: it reads its shard of batch i and
   the whole of batch j (which the Python worker keeps while its next tasks
   name the same j: the tasks are ordered by j), and scores the shard
   against all of j both ways with the single machine's function
   (``parties_both_ways``: src/multi/edges.rs ``both_ways``: one index over
   j probed by the shard's rows, since the q-gram count filter is
   symmetric). A row of i's candidates depend only on that row and all of
   j, so their union over shards is the single machine's; a row of j gets
   its best candidates among each shard's rows, and the next stage keeps
   its best of their union, which is its best of all of i.
3. **Edges, one task per pair of parties.** The candidates are grouped by
   pair of parties (both ways of a pair in one partition): a task fits
   ``ed auto``'s cut-off on each way's union and keeps each record pair's
   best score of both ways (``parties_pair``: src/multi/edges.rs
   ``pair_edges``, as ``multi::link`` calls it), and emits the kept edges
   (global records x, y and score).
4. **Clusters, split by connected component** (``gramlink.spark_components``;
   up to ``split_edges`` kept edges, one task solves the whole graph instead):
   the components of the kept-edge graph by large-star / small-star rounds
   over DataFrames; the edges, labelled by component, hashed into
   partitions, each task solving its components with anonlink's greedy
   solver (``parties_cluster``: src/multi/greedy.rs solves a component alone
   and gets the whole graph's clusters); then every record's cluster id,
   numbered in order of each cluster's first record as the single machine
   numbers them, in Spark SQL.
5. **Output.** Parquet ``party, id, cluster`` (one task per batch reads its
   ids, joined with the ids of step 4) written to a temporary directory,
   renamed to ``out`` only when the job succeeded (as
   ``gramlink.spark.link``): a failed task raises ``GramlinkError`` with the
   core's code on the driver and leaves no output.

**Record batches** (``schema=...``: ``match_parties(batches, schema=...)``'s
clusters). Each pair of parties is linked one way, B second
(src/multi/records.rs ``orient``): the tasks are (pair, shard of the first's
records), each comparing its records with the whole other batch field by
field (``parties_record_shard``: src/record/shard.rs ``shard_levels`` with
``RecordMatcher::pair``); a
task per pair makes that pair's decision on its shards' union
(``parties_record_pair``: src/multi/records.rs ``pair_edges``, as
``multi::records::link`` calls it); steps 4 and 5 are the same.

**Memory.** A candidate task holds one party's whole batch and a shard of
another's; a pair task holds that pair's candidates (at most 64 per row and
way, a few in practice); a cluster task holds its components' edges and
records, never every edge (the report's ``solve_edges`` is the most any
held, ``solve_tasks`` how many solved a component); the ids are read one
batch per task.
"""

from __future__ import annotations

import json
import os
from typing import Any, Iterator, Optional, Sequence

from ._native import (
    Batch,
    RecordBatchFile,
    parties_both_ways,
    parties_check,
    parties_record_check,
    parties_record_shard,
    parties_pair,
    parties_record_pair,
)
from .spark import _column, _kept, _literal, _one_thread, _output, _shards
from .spark_components import components, numbered, solved
from .spark_records import _binary_bytes, _fixed, _record_batch, _schema_for_executors

#: The candidates' schema (between the two stages): ``way`` is ``i * n + j``
#: for batch i's rows (``a``) against batch j's (``b``), and ``j * n + i``
#: for the way back from the same task; a row of way -1 carries a task's
#: count of pairs compared in ``a``.
CANDIDATES = "way int, a long, b long, distance double, score double, edits int"
#: The pair stage's: the kept edges (global records x, y and score), one row
#: per task with the pairs compared alone, and one per warning of a pair's fit
#: (record batches: named by its pair of parties, as ``match_parties`` says it).
EDGES = "x long, y long, score double, compared long, warning string"
#: The output's schema: one row per record.
CLUSTERS = "party string, id string, cluster long"

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
                forth, back = parties_both_ways(a, _whole(paths[j]), start)
                compared = forth[5]
                for way, (ca, cb, dist, score, edits, _) in [(i * n + j, forth), (j * n + i, back)]:
                    rows_a = _column(ca, pa.uint32())
                    yield pa.RecordBatch.from_arrays(
                        [
                            pa.array(np.full(len(rows_a), way, np.int32)),
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


def _pair_edges(paths: Sequence[str], offsets: Sequence[int]):
    """A pair task's native call, vector batches: pair ``i * n + j`` (i < j)
    and its candidates of both ways in, ``parties_pair``'s edges and the pairs
    compared (counted by the first stage) out."""
    n = len(paths)

    def edges(pair: int, t) -> tuple:
        import pyarrow.compute as pc

        i, j = divmod(pair, n)

        def raw(name: str, dtype: str) -> bytes:
            return t.column(name).to_numpy().astype(dtype).tobytes() if t.num_rows else b""

        back = pc.not_equal(t.column("way"), i * n + j).to_numpy(zero_copy_only=False).astype("<u4").tobytes()
        cols = [raw("a", "<u4"), raw("b", "<u4"), raw("distance", "<f8"), raw("score", "<f8"), raw("edits", "<u4")]
        return (*parties_pair((paths[i], paths[j]), (offsets[i], offsets[j]), back, *cols), 0, [])

    return edges


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


def _record_pair_edges(schema, rows: Sequence[int], offsets: Sequence[int], names: Sequence[str]):
    """A pair task's native call, record batches: way ``x * n + y`` (as
    ``orient`` orders the pair) and its shards' rows in, the pair's decision
    and edges (``parties_record_pair``), the pairs compared and the fit's
    warnings (named by the pair's parties ``names[x]`` and ``names[y]``) out."""
    n = len(names)

    def edges(pair: int, t) -> tuple:
        import numpy as np
        import pyarrow.compute as pc

        x, y = divmod(pair, n)
        kind = t.column("kind")
        cand, sample = t.filter(pc.equal(kind, 0)), t.filter(pc.equal(kind, 1))
        rules = []
        for text in t.filter(pc.equal(kind, 2)).column("rules").to_pylist():
            rules.extend((rule, pairs, fields) for rule, pairs, fields in json.loads(text))

        def raw(name: str) -> bytes:
            col = cand.column(name).combine_chunks()
            return col.to_numpy(zero_copy_only=False).astype("<u4").tobytes() if len(col) else b""

        levels = _binary_bytes(cand.column("levels").combine_chunks()) if cand.num_rows else b""
        s_levels = _binary_bytes(sample.column("levels").combine_chunks()) if sample.num_rows else b""
        swapped = cand.column("swapped").to_numpy(zero_copy_only=False).astype(np.uint8).tobytes()
        *out, said = parties_record_pair(
            schema, (rows[x], rows[y]), (offsets[x], offsets[y]), raw("a"), raw("b"), levels, swapped, s_levels, rules
        )
        return (*out, [f"parties {names[x]} and {names[y]}: {w}" for w in said])

    return edges


def _pairs(edges, n: int):
    """The pair stage (mapInArrow, after a repartition by ``pair``): each pair
    of parties in the partition (``i * n + j``, the candidates' ``way`` of its
    first side; -1: the first stage's counts) in, its edges out (``EDGES``),
    then the pairs compared and the pairs' fit warnings."""

    def run(batches: Iterator[Any]) -> Iterator[Any]:
        import numpy as np
        import pyarrow as pa
        import pyarrow.compute as pc

        _one_thread()
        tables = [pa.Table.from_batches([b]) for b in batches if b.num_rows]
        if not tables:
            return
        table = pa.concat_tables(tables).combine_chunks()
        pair = table.column("pair")
        counted = table.filter(pc.equal(pair, -1))
        compared = pc.sum(counted.column("a")).as_py() or 0
        said = []
        names = ["x", "y", "score", "compared", "warning"]
        for key in sorted(pc.unique(pair).to_pylist()):
            if key < 0:
                continue
            x, y, score, c, warnings = edges(key, table.filter(pc.equal(pair, key)))
            compared += c
            said.extend(warnings)
            k = len(x) // 4
            yield pa.RecordBatch.from_arrays(
                [_column(x, pa.uint32()).cast(pa.int64()), _column(y, pa.uint32()).cast(pa.int64())]
                + [_column(score, pa.float64()), pa.nulls(k, pa.int64()), pa.nulls(k, pa.string())],
                names=names,
            )
        k = 1 + len(said)
        yield pa.RecordBatch.from_arrays(
            [pa.nulls(k, pa.int64()), pa.nulls(k, pa.int64()), pa.nulls(k, pa.float64()),
             pa.array(np.array([compared] + [0] * len(said), np.int64)), pa.array([None] + said, pa.string())],
            names=names,
        )

    return run


def _ids(paths: Sequence[str], offsets: Sequence[int], open_batch):
    """The output's records (mapInArrow over batch numbers): every record's
    global index, party and id, one batch per task."""

    def run(batches: Iterator[Any]) -> Iterator[Any]:
        import numpy as np
        import pyarrow as pa

        for rb in batches:
            for k in rb.column(0).to_pylist():
                b = open_batch(paths[k])
                ids = b.ids
                yield pa.RecordBatch.from_arrays(
                    [
                        pa.array(np.arange(offsets[k], offsets[k] + len(ids), dtype=np.int64)),
                        pa.array([b.party] * len(ids), pa.string()),
                        pa.array(ids, pa.string()),
                    ],
                    names=["r", "party", "id"],
                )
                del b, ids

    return run


#: The most kept edges one task solves whole (about 16 bytes each as Arrow
#: columns, and as much again in the solver: some 160 MB at this size); a
#: larger graph is split by connected component first.
SPLIT_EDGES = 5_000_000


def link_parties(
    spark,
    batches: Sequence[str],
    out: str,
    *,
    schema=None,
    merge_threshold: Optional[float] = None,
    shards: Optional[int] = None,
    rows_per_shard: Optional[int] = None,
    split_edges: int = SPLIT_EDGES,
) -> dict:
    """Clusters the records of every party's batch (files every executor can
    read; two or more) on ``spark``, as ``gramlink.match_parties`` does, and
    writes one row per record as Parquet to ``out`` (which must not exist):
    columns party, id, cluster. Vector batches (every one with thresholds),
    or with ``schema`` (a path to a .toml or .json file, JSON text or a dict)
    record batches (``GLRB`` files). ``merge_threshold`` as
    ``match_parties``'s (0.5 by default). Each party's rows go in ``shards``
    shards (or shards of ``rows_per_shard`` rows; default 50,000), each
    scored against another party's whole batch. Up to ``split_edges`` kept
    edges one task solves them whole; above it the graph is split by
    connected component first (``gramlink.spark_components``), so no task
    holds every edge. Returns ``{"records", "clusters", "candidates",
    "compared", "tasks", "parties", "components", "solve_tasks",
    "solve_edges", "warnings"}`` (the parts the solve was split into: the connected
    components, or 1 where one task solved the whole graph; the tasks that
    solved them and the most edges one of them held; what the pairs' fits
    said, sorted: ``match_parties``'s warnings). Raises
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
        # each pair once, both ways from its tasks: every party bounds its own records' errors
        pairs = [(i, j) for i in range(len(paths)) for j in range(i + 1, len(paths))]
    per_shard = []
    tasks = []
    for i, (_, rows) in enumerate(parties):
        count, size = _shards(rows, shards, rows_per_shard)
        per_shard.append(size)
        # record batches: each pair one way, B second (src/multi/records.rs orient)
        tasks.extend((i, j, s) for x, j in pairs if x == i for s in range(count))
    # a worker keeps the last whole batch it read: the tasks of one j together
    tasks.sort(key=lambda t: (t[1], t[0], t[2]))
    n = len(paths)
    sizes = [rows for _, rows in parties]
    offsets = [sum(sizes[:k]) for k in range(n)]
    if schema is None:
        first, first_schema = _candidates(paths, per_shard), CANDIDATES
        # a pair of parties: both ways' candidates, and -1 for the counts
        pair = f"CASE WHEN way < 0 THEN -1 ELSE least(way div {n}, way % {n}) * {n} + greatest(way div {n}, way % {n}) END"
        edges_of, open_batch = _pair_edges(paths, offsets), Batch.open
    else:
        first, first_schema = _record_candidates(schema, paths, per_shard), RECORD_CANDIDATES
        # one way per pair (orient)
        pair = "way"
        names = [p for p, _ in parties]
        edges_of, open_batch = _record_pair_edges(schema, sizes, offsets, names), RecordBatchFile.open

    def write(tmp_path: str) -> dict:
        from pyspark.sql import functions as F

        sc = spark.sparkContext
        cand = sc.parallelize(tasks, max(1, len(tasks))).toDF("i int, j int, shard int").mapInArrow(first, first_schema)
        # one task per pair of parties (a partition per pair; two may share one)
        by_pair = cand.withColumn("pair", F.expr(pair)).repartition(max(1, len(pairs)), "pair")
        kept = by_pair.mapInArrow(_pairs(edges_of, n), EDGES).localCheckpoint()
        counts = kept.agg(F.count("x"), F.sum("compared")).first()
        warnings = sorted(r[0] for r in kept.where("warning IS NOT NULL").select("warning").collect())
        edges = kept.where("x IS NOT NULL").select("x", "y", "score")
        # up to split_edges one task holds them: the component rounds (a few
        # Spark stages each) would cost more than they split
        labels = components(edges) if counts[0] > split_edges else None
        partitions = max(2, int(spark.conf.get("spark.sql.shuffle.partitions")))
        done = solved(edges, labels, [p for p, _ in parties], offsets, merge_threshold, partitions)
        solve = done.where("r IS NULL").agg(
            F.sum("components"), F.sum((F.col("components") > 0).cast("long")), F.max("edges")
        ).first()
        assigned = done.where("r IS NOT NULL").select("r", "first")
        clusters = numbered(spark, sum(sizes), assigned)
        batches = sc.parallelize([(k,) for k in range(n)], n).toDF("batch int")
        ids = batches.mapInArrow(_ids(paths, offsets, open_batch), "r long, party string, id string")
        ids.join(clusters, "r").select("party", "id", "cluster").write.parquet(tmp_path)
        return {
            "clusters": sum(sizes) - assigned.where("r != first").count(),
            "candidates": counts[0],
            "compared": counts[1] or 0,
            "components": solve[0] or 0,
            "solve_tasks": solve[1] or 0,
            "solve_edges": solve[2] or 0,
            "warnings": warnings,
        }

    report = _output(spark, out, write)
    report.update(
        records=spark.read.parquet(_literal(out)).count(),
        tasks=len(tasks),
        parties=[p for p, _ in parties],
    )
    return report
