"""The matcher as a Spark job (local mode): the single machine's pairs for
every rule, with a fixed ed and with ed auto (the cut-off fitted on the
shards' union), keyed or not; a corrupt shard fails the job with the core's
code and leaves no output; batches of another base are refused before any
Spark job."""

import glob
import struct

import pyarrow.parquet as pq
import pytest

import gramlink
from gramlink import spark as gspark


@pytest.fixture(scope="module")
def batches(cities, tmp_path_factory):
    d = tmp_path_factory.mktemp("batches")
    a = gramlink.DataOwner.read(cities / "a.csv", column="name", id_column="id", budget=2, seed=21)
    b = gramlink.DataOwner.read(cities / "b.csv", column="name", id_column="id", budget=2, seed=22)
    shared = gramlink.merge_bases(a.mine(epsilon=1), b.mine(epsilon=1), epsilon=1)
    (d / "a.vec").write_bytes(a.embed(shared, party="A", thresholds={"ed": 1}, no_key=True))
    (d / "b.vec").write_bytes(b.embed(shared, party="B", no_key=True))
    # the defaults: ed auto; and keyed, as the CLI's embed requires by default
    (d / "auto-a.vec").write_bytes(a.embed(shared, party="A", no_key=True))
    key = gramlink.keygen()
    (d / "keyed-a.vec").write_bytes(a.embed(shared, party="A", key=key))
    (d / "keyed-b.vec").write_bytes(b.embed(shared, party="B", key=key))
    other = gramlink.merge_bases(a.mine(epsilon=0.5, k=10), b.mine(epsilon=0.5, k=10), k=10)
    (d / "other-b.vec").write_bytes(b.embed(other, party="B", no_key=True))
    return d


def pairs_of(path):
    t = pq.read_table(path).sort_by([("a", "ascending"), ("b", "ascending")])
    return list(zip(t.column("a_id").to_pylist(), t.column("b_id").to_pylist(), t.column("distance").to_pylist()))


def test_the_job_gives_the_single_machine_s_pairs_for_every_rule(spark, batches, tmp_path):
    m = gramlink.Matcher((batches / "a.vec").read_bytes(), (batches / "b.vec").read_bytes())
    for rule in ["ranked", "all", "greedy", "nearest"]:
        out = tmp_path / rule
        stats = gspark.link(spark, str(batches / "a.vec"), str(batches / "b.vec"), str(out), rule=rule, shards=4)
        link = m.link(rule)
        expected = sorted(zip(link.a, link.b, link.a_ids, link.b_ids, link.distances))
        assert pairs_of(out) == [(x, y, d) for _, _, x, y, d in expected], rule
        assert stats["pairs"] == len(link) > 0 and stats["shards"] == 4


def test_ed_auto_and_keyed_batches_give_the_single_machine_s_pairs(spark, batches, tmp_path):
    for a_vec, b_vec, fitted in [("auto-a.vec", "b.vec", True), ("keyed-a.vec", "keyed-b.vec", True)]:
        a, b = (batches / a_vec).read_bytes(), (batches / b_vec).read_bytes()
        link = gramlink.Matcher(a, b).link()
        out = tmp_path / a_vec
        stats = gspark.link(spark, str(batches / a_vec), str(batches / b_vec), str(out), shards=3)
        expected = sorted(zip(link.a, link.b, link.a_ids, link.b_ids, link.distances))
        assert pairs_of(out) == [(x, y, d) for _, _, x, y, d in expected], a_vec
        assert stats["pairs"] == len(link) > 0
        # the cut-off is fitted where the single machine fits it: ranked, keyed or not
        assert (stats["cutoff"] is not None) == fitted, a_vec
    cutoff = gspark.link(spark, str(batches / "auto-a.vec"), str(batches / "b.vec"), str(tmp_path / "again"))["cutoff"]
    assert cutoff["candidates"] > cutoff["kept"] > 0 and "ed auto chose" in cutoff["description"]


def test_a_corrupt_shard_fails_with_the_core_code_and_leaves_no_output(spark, batches, tmp_path):
    head = gramlink.Batch.open(batches / "a.vec", 0, 0)
    data = bytearray((batches / "a.vec").read_bytes())
    n = head.total
    # A's thresholds (f64, one per row, last in the file) have a fixed width,
    # unlike the sparse vectors: row 500's is in the last of 4 shards of 150 rows
    row = 500
    at = len(data) - (n - row) * 8
    data[at : at + 8] = struct.pack("<d", float("nan"))
    corrupt = tmp_path / "corrupt-a.vec"
    corrupt.write_bytes(bytes(data))
    gramlink.Batch.open(corrupt, 0, 150)  # the other shards read fine
    out = tmp_path / "pairs"
    with pytest.raises(gramlink.GramlinkError) as e:
        gspark.link(spark, str(corrupt), str(batches / "b.vec"), str(out), shards=4)
    assert e.value.code == "INVALID_MESSAGE" and "must be finite" in e.value.message
    assert not out.exists() and glob.glob(f"{out}.tmp-*") == []


def test_mismatched_or_truncated_batches_are_refused_before_any_job(spark, batches, tmp_path):
    tracker = spark.sparkContext.statusTracker()
    jobs = sorted(tracker.getJobIdsForGroup())
    truncated = tmp_path / "truncated-b.vec"
    truncated.write_bytes((batches / "b.vec").read_bytes()[:-10])
    for b, code in [
        (batches / "other-b.vec", "FINGERPRINT_MISMATCH"),
        (truncated, "TRUNCATED_MESSAGE"),
        (batches / "a.vec", "FINGERPRINT_MISMATCH"),
    ]:
        if code == "FINGERPRINT_MISMATCH" and b.name == "a.vec":
            # A against itself fits; B as party A has no thresholds
            b, a, code = batches / "a.vec", batches / "b.vec", "INVALID_PARAMETER"
        else:
            a = batches / "a.vec"
        with pytest.raises(gramlink.GramlinkError) as e:
            gspark.link(spark, str(a), str(b), str(tmp_path / "out"))
        assert e.value.code == code
    assert sorted(tracker.getJobIdsForGroup()) == jobs
    assert not (tmp_path / "out").exists()
