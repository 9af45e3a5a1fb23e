"""The matcher of whole records as an Apache Spark job (``link_records``): the
record linker's candidates and levels computed per shard of A's rows
(src/record/shard.rs), then the fit and the decision in one task over their
union, as the single machine's. The vector job and the shared machinery (the
shards, the two-stage run, the atomic output) are in :mod:`gramlink.spark`,
which re-exports ``link_records``.
"""

from __future__ import annotations

import json
import os
from typing import Any, Iterator, Optional

from ._native import RecordBatchFile, record_check, record_link_shards, record_shard
from .spark import _column, _kept, _literal, _one_thread, _run, _shards, _with_ids

# --- whole records (src/record/shard.rs) ----------------------------------------------

#: The record shards' output: candidates (kind 0) with ids, levels (one byte per
#: sent field) and whether the names matched swapped; the u sample's patterns
#: (kind 1, levels only); the shard's rule counts (kind 2, JSON in ``rules``).
RECORD_CANDIDATES = "kind int, a long, b long, a_id string, b_id string, levels binary, swapped boolean, rules string"
#: The record pairs: ids, weight, match probability, class (M or P), rows.
RECORD_PAIRS = "a_id string, b_id string, weight double, probability double, class string, a long, b long"
RECORD_ASSIGNED = RECORD_PAIRS + ", summary string"

_record_batches: dict = {}


def _record_batch(path: str):
    return _kept(_record_batches, path, lambda p: _with_ids(RecordBatchFile.open(p)), keep=2)


def _schema_for_executors(schema):
    """A schema given as a file's path made absolute (the executors' working
    directory may be another); JSON text and dicts as they are."""
    if isinstance(schema, os.PathLike):
        schema = os.fspath(schema)
    if isinstance(schema, str) and not schema.lstrip().startswith("{") and os.path.exists(schema):
        schema = os.path.abspath(schema)
    return schema


def _fixed(buf: bytes, width: int) -> Any:
    """Bytes as a binary column of ``width``-byte values (no Python loop)."""
    import numpy as np
    import pyarrow as pa

    n = len(buf) // max(1, width)
    offsets = np.arange(0, (n + 1) * width, width, dtype=np.int32)[: n + 1]
    return pa.Array.from_buffers(pa.binary(), n, [None, pa.py_buffer(offsets.tobytes()), pa.py_buffer(buf)])


def _binary_bytes(arr) -> bytes:
    """A binary column's values, concatenated (no Python loop)."""
    import numpy as np

    if len(arr) == 0:
        return b""
    offs = np.frombuffer(arr.buffers()[1], dtype=np.int32)[arr.offset : arr.offset + len(arr) + 1]
    data = arr.buffers()[2]
    return np.frombuffer(data, dtype=np.uint8)[offs[0] : offs[-1]].tobytes() if data is not None else b""


def _record_candidates(schema, path_a: str, path_b: str, rows_per_shard: int):
    def run(batches: Iterator[Any]) -> Iterator[Any]:
        import numpy as np
        import pyarrow as pa

        _one_thread()
        a, a_ids = _record_batch(path_a)
        b, b_ids = _record_batch(path_b)
        for rb in batches:
            for shard in rb.column(0).to_pylist():
                start = shard * rows_per_shard
                ca, cb, levels, swapped, sample, rules, nf = record_shard(schema, a, b, start, start + rows_per_shard)
                rows_a = _column(ca, pa.uint32())
                rows_b = _column(cb, pa.uint32())
                n, ns = len(rows_a), len(sample) // max(1, nf)

                yield pa.RecordBatch.from_arrays(
                    [
                        pa.array(np.zeros(n, np.int32)),
                        rows_a.cast(pa.int64()),
                        rows_b.cast(pa.int64()),
                        a_ids.take(rows_a),
                        b_ids.take(rows_b),
                        _fixed(levels, nf),
                        pa.array(np.frombuffer(swapped, np.uint8).astype(bool)),
                        pa.nulls(n, pa.string()),
                    ],
                    names=["kind", "a", "b", "a_id", "b_id", "levels", "swapped", "rules"],
                )
                yield pa.RecordBatch.from_arrays(
                    [
                        pa.array(np.full(ns, 1, np.int32)),
                        pa.nulls(ns, pa.int64()),
                        pa.nulls(ns, pa.int64()),
                        pa.nulls(ns, pa.string()),
                        pa.nulls(ns, pa.string()),
                        _fixed(sample, nf),
                        pa.nulls(ns, pa.bool_()),
                        pa.nulls(ns, pa.string()),
                    ],
                    names=["kind", "a", "b", "a_id", "b_id", "levels", "swapped", "rules"],
                )
                yield pa.RecordBatch.from_pylist(
                    [{"kind": 2, "rules": json.dumps(rules)}],
                    schema=pa.schema(
                        [("kind", pa.int32()), ("a", pa.int64()), ("b", pa.int64()), ("a_id", pa.string())]
                        + [("b_id", pa.string()), ("levels", pa.binary()), ("swapped", pa.bool_())]
                        + [("rules", pa.string())]
                    ),
                )

    return run


def _record_decision(schema, rows_a: int, rows_b: int):
    def run(batches: Iterator[Any]) -> Iterator[Any]:
        import numpy as np
        import pyarrow as pa
        import pyarrow.compute as pc

        _one_thread()
        table = pa.Table.from_batches(list(batches)).combine_chunks()
        kind = table.column("kind")
        cand = table.filter(pc.equal(kind, 0))
        sample = table.filter(pc.equal(kind, 1))
        # each rule's pairs summed over the shards; its fields are the same in every shard
        rules: dict = {}
        for text in table.filter(pc.equal(kind, 2)).column("rules").to_pylist():
            for rule, pairs, fields in json.loads(text):
                rules[rule] = (rules.get(rule, (0, fields))[0] + pairs, fields)

        def raw(name: str) -> bytes:
            col = cand.column(name).combine_chunks()
            return col.to_numpy(zero_copy_only=False).astype("<u4").tobytes() if len(col) else b""

        levels = cand.column("levels").combine_chunks() if cand.num_rows else pa.array([], pa.binary())
        swapped = cand.column("swapped").to_numpy(zero_copy_only=False).astype(np.uint8).tobytes()
        s_levels = sample.column("levels").combine_chunks() if sample.num_rows else pa.array([], pa.binary())
        out = record_link_shards(
            schema,
            rows_a,
            rows_b,
            raw("a"),
            raw("b"),
            _binary_bytes(levels),
            swapped,
            _binary_bytes(s_levels),
            [(rule, pairs, fields) for rule, (pairs, fields) in rules.items()],
        )
        if cand.num_rows:
            pairs = cand.take(_column(out["positions"], pa.uint64())).select(["a_id", "b_id", "a", "b"])
            match = np.frombuffer(out["match"], np.uint8)
            names = ["a_id", "b_id", "weight", "probability", "class", "a", "b", "summary"]
            yield pa.RecordBatch.from_arrays(
                [
                    pairs.column("a_id").combine_chunks(),
                    pairs.column("b_id").combine_chunks(),
                    _column(out["weight"], pa.float64()),
                    _column(out["probability"], pa.float64()),
                    pa.array(np.where(match == 1, "M", "P")),
                    pairs.column("a").combine_chunks(),
                    pairs.column("b").combine_chunks(),
                    pa.nulls(pairs.num_rows, pa.string()),
                ],
                names=names,
            )
        summary = out["summary"]
        yield pa.RecordBatch.from_pylist(
            [{"summary": json.dumps(summary)}],
            schema=pa.schema(
                [("a_id", pa.string()), ("b_id", pa.string()), ("weight", pa.float64())]
                + [("probability", pa.float64()), ("class", pa.string()), ("a", pa.int64()), ("b", pa.int64())]
                + [("summary", pa.string())]
            ),
        )

    return run


def link_records(
    spark,
    schema,
    batch_a: str,
    batch_b: str,
    out: str,
    *,
    shards: Optional[int] = None,
    rows_per_shard: Optional[int] = None,
) -> dict:
    """Links party A's and party B's record batches (``GLRB`` files every
    executor can read, made under ``schema``: a path to a .toml or .json file,
    JSON text or a dict) on ``spark``, as ``RecordMatcher(schema, a, b).link()``
    does, and writes the pairs (M then P, by weight) as Parquet to ``out``:
    columns a_id, b_id, weight, probability, class, a, b. A's records go in
    ``shards`` shards (or of ``rows_per_shard``; default 50,000) against all of
    B; the fit and the decision are made on the union of their candidates, in
    one task (src/record/shard.rs). Returns ``{"pairs", "matches", "possible",
    "candidates", "upper", "lower", "assignment", "rules", "shards", "rows_a",
    "rows_b"}``. Errors as ``link``'s: batches of another schema, the parties
    swapped, different keys are refused before any work; a corrupt shard fails
    the job with the core's code and leaves no output."""
    import pyarrow  # noqa: F401

    schema = _schema_for_executors(schema)
    a = RecordBatchFile.open(batch_a)
    b = RecordBatchFile.open(batch_b)
    record_check(schema, a, b)
    n, nb = a.size, b.size
    del a, b
    count, rows_per_shard = _shards(n, shards, rows_per_shard)
    stage1 = _record_candidates(schema, os.path.abspath(batch_a), os.path.abspath(batch_b), rows_per_shard)
    summary = _run(spark, out, count, stage1, RECORD_CANDIDATES, _record_decision(schema, n, nb), RECORD_ASSIGNED,
                   "summary", True)
    summary = dict(summary or {})
    summary.update(pairs=spark.read.parquet(_literal(out)).count(), shards=count, rows_a=n, rows_b=nb)
    return summary
