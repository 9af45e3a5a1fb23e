"""Whole records on Spark (local mode): the job's pairs equal the single-machine
record matcher's on FEBRL 1, pair for pair (ids, class, weight); a corrupt
number in one shard fails the job with the core's code and leaves no output;
another schema's batches are refused before any Spark job."""

import glob
import json
import struct
from pathlib import Path

import pyarrow.parquet as pq
import pytest

import gramlink
from gramlink import spark as gspark

FEBRL = Path(__file__).resolve().parents[2] / "data/febrl"
SCHEMA = FEBRL / "schema.toml"


@pytest.fixture(scope="module")
def batches(tmp_path_factory):
    d = tmp_path_factory.mktemp("records")
    a = gramlink.RecordOwner(FEBRL / "dataset1-a.csv", SCHEMA, seed=1)
    b = gramlink.RecordOwner(FEBRL / "dataset1-b.csv", SCHEMA, seed=2)
    shared = gramlink.RecordOwner.merge_bases(a.mine(), b.mine(), SCHEMA)
    key = gramlink.keygen()
    (d / "a.glrb").write_bytes(a.embed(shared, party="A", key=key, no_key=True))
    (d / "b.glrb").write_bytes(b.embed(shared, party="B", key=key, no_key=True))
    return d


def test_the_job_gives_the_record_matcher_s_pairs(spark, batches, tmp_path):
    a, b = (batches / "a.glrb").read_bytes(), (batches / "b.glrb").read_bytes()
    whole = gramlink.RecordMatcher(SCHEMA, a, b).link()
    out = tmp_path / "pairs"
    stats = gspark.link_records(spark, SCHEMA, str(batches / "a.glrb"), str(batches / "b.glrb"), str(out), shards=3)
    t = pq.read_table(out).sort_by([("a", "ascending"), ("b", "ascending")])
    got = list(zip(*(t.column(c).to_pylist() for c in ["a_id", "b_id", "class", "weight"])))
    p = whole["pairs"]
    expected = sorted(zip(p["a"], p["b"], p["a_ids"], p["b_ids"], p["class"], p["weight"]))
    assert got == [e[2:] for e in expected]
    assert stats["matches"] == whole["matches"] > 400 and stats["possible"] == whole["possible"]
    assert (stats["candidates"], stats["upper"], stats["rules"]) == (whole["candidates"], whole["upper"], whole["rules"])
    assert stats["shards"] == 3 and stats["pairs"] == len(expected)


def test_a_corrupt_shard_fails_with_the_core_code_and_another_schema_is_refused(spark, batches, tmp_path):
    data = bytearray((batches / "a.glrb").read_bytes())
    (hlen,) = struct.unpack_from("<I", data, 8)
    head = json.loads(data[12 : 12 + hlen])
    # the first field's first part: row counts, columns, values (sparse), then
    # its thresholds (f64 per row): a NaN at the first row past 400 (the last of 3 shards)
    part = head["fields"][0]["parts"][0]
    n = len(part["rows"])
    i = next(k for k, r in enumerate(part["rows"]) if r >= 400)
    at = 12 + hlen + 4 * n + 8 * part["nnz"] + 8 * i
    data[at : at + 8] = struct.pack("<d", float("nan"))
    corrupt = tmp_path / "corrupt-a.glrb"
    corrupt.write_bytes(bytes(data))
    out = tmp_path / "pairs"
    with pytest.raises(gramlink.GramlinkError) as e:
        gspark.link_records(spark, SCHEMA, str(corrupt), str(batches / "b.glrb"), str(out), shards=3)
    assert e.value.code == "INVALID_MESSAGE" and "thresholds" in e.value.message
    assert not out.exists() and glob.glob(f"{out}.tmp-*") == []
    # another schema (another decision): refused before any Spark job
    import tomllib

    other = tomllib.loads(SCHEMA.read_text())
    other["decision"] = dict(other.get("decision", {}), upper=99.0)
    tracker = spark.sparkContext.statusTracker()
    jobs = sorted(tracker.getJobIdsForGroup())
    with pytest.raises(gramlink.GramlinkError) as e:
        gspark.link_records(spark, other, str(batches / "a.glrb"), str(batches / "b.glrb"), str(out))
    assert e.value.code == "FINGERPRINT_MISMATCH"
    assert sorted(tracker.getJobIdsForGroup()) == jobs and not out.exists()
