"""The cluster stage of the multi-party Spark job (``gramlink.spark_parties``),
split so that no task holds every edge:

1. **Connected components** of the kept-edge graph over DataFrames, by the
   large-star / small-star algorithm (Kiveris et al., "Connected Components
   in MapReduce and Beyond", 2014): every round is a few joins and group-bys,
   and the edges shrink to one star per component, centred on its smallest
   record. The edges never leave the executors.
2. **The greedy solver per component.** (Up to ``SPLIT_EDGES`` kept edges,
   ``gramlink.spark_parties`` skips step 1 and solves the whole graph in one
   task: the rounds cost more than they split.) The edges, each labelled with its
   component, are hashed by component into partitions; each task solves the
   components it got with the native solver (``parties_cluster``), its
   records numbered in global order: src/multi/greedy.rs solves each
   connected component alone and shows that this gives the whole graph's
   clusters. A task returns every record's cluster by its first record.
3. **Cluster ids** as the single machine numbers them (in order of each
   cluster's first record, unlinked records included): a cluster's id is its
   first record's index less the records before it that are not the first of
   their cluster, counted per bucket of records and summed over buckets, all
   in Spark SQL.
"""

from __future__ import annotations

from typing import Any, Iterator, Optional, Sequence

from ._native import parties_cluster
from .spark import _one_thread

#: The cluster stage's output: a record on an edge and its cluster's first
#: record; one row per task (``r`` null) with the components it solved and
#: the edges it held.
SOLVED = "r long, first long, components long, edges long"
#: Records per bucket when numbering the clusters (one bucket per window task).
BUCKET = 1 << 16


def components(edges):
    """The connected components of the graph of ``edges`` (a DataFrame with
    columns ``x``, ``y``: records): a DataFrame ``r, comp`` of every record on
    an edge and its component's smallest record."""
    from pyspark.sql import functions as F

    # each edge once, the larger record first (u > v); loops carry no link
    e = edges.select(F.greatest("x", "y").alias("u"), F.least("x", "y").alias("v"))
    e = e.where("u != v").distinct().localCheckpoint()
    size = e.count()
    while True:
        new = _small_star(_large_star(e)).localCheckpoint()
        new_size = new.count()
        # both are sets of oriented edges: equal when as large and none new
        if new_size == size and new.subtract(e).limit(1).count() == 0:
            break
        e, size = new, new_size
    return e.select(F.col("u").alias("r"), F.col("v").alias("comp")).union(
        e.select(F.col("v").alias("r"), F.col("v").alias("comp"))
    ).distinct()


def _large_star(e):
    """Every node links its larger neighbours to its smallest neighbour (or
    itself)."""
    from pyspark.sql import functions as F

    both = e.union(e.select(F.col("v").alias("u"), F.col("u").alias("v")))
    low = both.groupBy("u").agg(F.min("v").alias("m")).select("u", F.least("u", "m").alias("m"))
    out = both.join(low, "u").where(F.col("v") > F.col("u"))
    return out.select(F.col("v").alias("u"), F.col("m").alias("v")).distinct()


def _small_star(e):
    """Every node links itself and its smaller neighbours to the smallest of
    them."""
    from pyspark.sql import functions as F

    low = e.groupBy("u").agg(F.min("v").alias("m"))
    moved = e.join(low, "u").where(F.col("v") != F.col("m")).select(F.col("v").alias("u"), F.col("m").alias("v"))
    return moved.union(low.select("u", F.col("m").alias("v"))).distinct()


def solved(edges, labels, parties: Sequence[str], offsets: Sequence[int], merge_threshold: Optional[float],
           partitions: int):
    """The clusters of the records on ``edges`` (``x, y, score``), each
    component (``labels``: ``r, comp``) solved whole in one task of
    ``partitions``, or (``labels`` None) the whole graph in one task; rows
    of ``SOLVED``, computed once."""
    from pyspark.sql import functions as F

    if labels is None:
        by = edges.withColumn("comp", F.lit(0).cast("long")).repartition(1)
    else:
        by = edges.join(labels.select(F.col("r").alias("x"), "comp"), "x").repartition(partitions, "comp")
    return by.mapInArrow(_solve(list(parties), list(offsets), merge_threshold), SOLVED).localCheckpoint()


def _solve(parties: list, offsets: list, merge_threshold: Optional[float]):
    """A task of the cluster stage: its components' edges in, each record's
    cluster (by first record) out, then its counts."""

    def run(batches: Iterator[Any]) -> Iterator[Any]:
        import numpy as np
        import pyarrow as pa
        import pyarrow.compute as pc

        _one_thread()
        tables = [pa.Table.from_batches([b]) for b in batches if b.num_rows]
        comps = 0
        held = 0
        if tables:
            t = pa.concat_tables(tables).combine_chunks()
            held = t.num_rows
            comps = len(pc.unique(t.column("comp")))

            def raw(name: str, dtype: str) -> bytes:
                return t.column(name).to_numpy().astype(dtype).tobytes()

            records, first = parties_cluster(
                parties, offsets, raw("x", "<u4"), raw("y", "<u4"), raw("score", "<f8"), merge_threshold
            )
            r = np.frombuffer(records, "<u4").astype(np.int64)
            yield pa.RecordBatch.from_arrays(
                [pa.array(r), pa.array(np.frombuffer(first, "<u4").astype(np.int64))]
                + [pa.nulls(len(r), pa.int64()), pa.nulls(len(r), pa.int64())],
                names=["r", "first", "components", "edges"],
            )
        yield pa.RecordBatch.from_pylist(
            [{"r": None, "first": None, "components": comps, "edges": held}],
            schema=pa.schema([("r", pa.int64()), ("first", pa.int64()), ("components", pa.int64()),
                              ("edges", pa.int64())]),
        )

    return run


def numbered(spark, total: int, assigned):
    """Every record's cluster id, ``r, cluster`` for ``r`` in ``0..total``,
    numbered as the single machine does (in order of each cluster's first
    record), from ``assigned`` (``r, first`` of the records on an edge; any
    other record is a cluster of its own)."""
    from pyspark.sql import Window
    from pyspark.sql import functions as F

    rec = (
        spark.range(total)
        .withColumnRenamed("id", "r")
        .join(assigned, "r", "left")
        .select("r", F.coalesce("first", "r").alias("first"))
        .withColumn("bucket", F.floor(F.col("r") / BUCKET))
        .withColumn("later", (F.col("first") != F.col("r")).cast("long"))
    )
    # records before each bucket that are not their cluster's first (few buckets: one task)
    per = rec.groupBy("bucket").agg(F.sum("later").alias("n"))
    before = per.select("bucket", (F.sum("n").over(Window.orderBy("bucket")) - F.col("n")).alias("before"))
    within = Window.partitionBy("bucket").orderBy("r")
    firsts = (
        rec.withColumn("below", F.sum("later").over(within))
        .where("later = 0")
        .join(before, "bucket")
        .select(F.col("r").alias("first"), (F.col("r") - F.col("before") - F.col("below")).alias("cluster"))
    )
    return rec.join(firsts, "first").select("r", "cluster")
