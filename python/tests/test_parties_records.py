"""Record batches of three parties (issue 33): ``match_parties(batches,
schema=...)`` clusters FEBRL 1's originals (A), their duplicates (B) and a
third party holding every other original with its surname one edit off (C),
as the CLI's ``match --schema s a b c`` does (tests/multi_records.rs),
scored pair by pair against the known persons."""

from collections import defaultdict
from itertools import combinations
from pathlib import Path

import pyarrow.parquet as pq
import pytest

import gramlink
from gramlink import spark_parties

FEBRL = Path(__file__).resolve().parents[2] / "data/febrl"


def person(record_id: str) -> str:
    """``rec-223-org``, ``rec-223-dup-0`` and C's ``c-223`` are person 223."""
    return record_id.split("-")[1]


SCHEMA = FEBRL / "schema.toml"


@pytest.fixture(scope="module")
def febrl_parties(tmp_path_factory):
    """The three parties' owners and record batches (ids kept), under one key."""
    d = tmp_path_factory.mktemp("febrl-parties")
    lines = (FEBRL / "dataset1-a.csv").read_text(encoding="utf-8").splitlines()
    c = [lines[0]]
    for line in lines[1::2]:
        cells = line.split(",")
        cells[0] = f"c-{person(cells[0])}"
        if len(cells[2].strip()) > 3:
            cells[2] = cells[2][:-1]
        c.append(",".join(cells))
    (d / "c.csv").write_text("\n".join(c) + "\n", encoding="utf-8")
    owners = [
        gramlink.RecordOwner(path, SCHEMA, seed=i + 1)
        for i, path in enumerate([FEBRL / "dataset1-a.csv", FEBRL / "dataset1-b.csv", d / "c.csv"])
    ]
    # A's and B's bases merge into the shared one; C embeds over it too
    shared = gramlink.RecordOwner.merge_bases(owners[0].mine(), owners[1].mine(), SCHEMA)
    key = gramlink.keygen()
    batches = [o.embed(shared, party=p, key=key, keep_ids=True) for o, p in zip(owners, "ABC")]
    paths = []
    for p, batch in zip("ABC", batches):
        (d / f"{p}.glrb").write_bytes(batch)
        paths.append(str(d / f"{p}.glrb"))
    return owners, batches, paths


def test_three_parties_record_batches_cluster_by_person(febrl_parties):
    owners, batches, _ = febrl_parties
    schema = SCHEMA
    r = gramlink.match_parties(batches, schema=schema)

    # one row per record, batch after batch; at most one record of a party in a cluster
    n = sum(o.size for o in owners)
    assert len(r["party"]) == len(r["id"]) == len(r["cluster"]) == n
    assert r["party"] == ["A"] * owners[0].size + ["B"] * owners[1].size + ["C"] * owners[2].size
    assert r["clusters"] == max(r["cluster"]) + 1
    # what the pairs' fits said, each named by its pair of parties
    assert isinstance(r["warnings"], list)
    assert all(w.startswith("parties ") for w in r["warnings"]), r["warnings"]
    members = defaultdict(list)
    for party, record, cluster in zip(r["party"], r["id"], r["cluster"]):
        members[cluster].append((party, record))
    assert all(len({p for p, _ in m}) == len(m) for m in members.values()), "two records of one party in a cluster"

    # pairwise quality against the persons
    predicted = {frozenset(p) for m in members.values() for p in combinations([x for _, x in m], 2)}
    by_person = defaultdict(list)
    for record in r["id"]:
        by_person[person(record)].append(record)
    true = {frozenset(p) for m in by_person.values() for p in combinations(m, 2)}
    correct = len(predicted & true)
    assert len(true) >= 900 and predicted
    assert correct >= 0.95 * len(true), f"{correct} of {len(true)} true pairs found"
    assert correct >= 0.95 * len(predicted), f"{correct} of {len(predicted)} pairs right"
    # persons held by all three parties (every other original) are mostly whole clusters
    three = [p for p, m in by_person.items() if len(m) == 3]
    cluster_of = dict(zip(r["id"], r["cluster"]))
    whole = sum(len({cluster_of[x] for x in by_person[p]}) == 1 for p in three)
    assert three and whole >= 0.9 * len(three), f"{whole} of {len(three)}"


def test_the_spark_job_gives_the_record_clusters(spark, febrl_parties, tmp_path):
    _, batches, paths = febrl_parties
    r = gramlink.match_parties(batches, schema=SCHEMA)
    expected = {(p, i): c for p, i, c in zip(r["party"], r["id"], r["cluster"])}
    # B's batch first: each pair is still linked with B second
    order = [paths[1], paths[0], paths[2]]
    first = gramlink.match_parties([batches[1], batches[0], batches[2]], schema=SCHEMA)
    for shards, given, want in [(1, paths, r), (3, paths, r), (3, order, first)]:
        out = tmp_path / f"clusters-{shards}-{given[0][-6]}"
        stats = spark_parties.link_parties(spark, given, str(out), schema=str(SCHEMA), shards=shards)
        t = pq.read_table(out)
        got = {(p, i): c for p, i, c in zip(*(t.column(k).to_pylist() for k in ("party", "id", "cluster")))}
        assert got == {(p, i): c for p, i, c in zip(want["party"], want["id"], want["cluster"])}, shards
        assert (stats["clusters"], stats["candidates"], stats["compared"]) == (
            want["clusters"],
            want["candidates"],
            want["compared"],
        )
        # what the pairs' fits said, each named by its pair, as the single machine says it
        assert stats["warnings"] == sorted(want["warnings"]), (stats["warnings"], want["warnings"])
        # one task per pair of parties (one way) and shard
        assert stats["tasks"] == 3 * shards
    assert got.keys() == expected.keys()
    with pytest.raises(gramlink.GramlinkError) as e:
        spark_parties.link_parties(spark, [paths[0], paths[1], paths[0]], str(tmp_path / "x"), schema=str(SCHEMA))
    assert e.value.code == "BATCH_TWICE" and not (tmp_path / "x").exists()
