"""More than two parties as a Spark job (local mode): ``link_parties`` writes
``match_parties``'s clusters, cluster for cluster, with every party's rows in
shards (ed auto's cut-off fitted on each way's union; keyed or not); a bad
linkage is refused with the core's code before any Spark job and leaves no
output."""

import glob
from pathlib import Path

import numpy as np
import pyarrow.parquet as pq
import pytest

import gramlink
from gramlink import spark_components, spark_parties

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def parties(tmp_path_factory, cli):
    """Three parties of 300 cities, each held with probability 0.7, one edit a
    copy (gramlink lab corrupt --parties 3, seed 11); their batches (every
    party sends thresholds) unkeyed and keyed, and a party whose first id is
    also party A's."""
    d = tmp_path_factory.mktemp("spark-parties")
    cli("lab", "corrupt", "--data", ROOT / "data/cities.txt", "--limit", "300", "--parties", "3", "--seed", "11", "--out-dir", d)
    owners = [
        gramlink.DataOwner.read(d / f"party_{x}.csv", column="name", id_column="id", budget=2, seed=i + 1)
        for i, x in enumerate("abc")
    ]
    shared = gramlink.merge_bases(*[o.mine(epsilon=1) for o in owners], epsilon=1)
    key = gramlink.keygen()
    for o, p in zip(owners, "ACD"):
        (d / f"{p}.vec").write_bytes(o.embed(shared, party=p, no_key=True, keep_ids=True))
        (d / f"keyed-{p}.vec").write_bytes(o.embed(shared, party=p, key=key, keep_ids=True))
    # party E: C's records, its first id replaced by party A's first
    rows = (d / "party_b.csv").read_text(encoding="utf-8").splitlines()
    first_a = (d / "party_a.csv").read_text(encoding="utf-8").splitlines()[1].split(",")[0]
    at = rows[0].split(",").index("id")
    cells = rows[1].split(",")
    cells[at] = first_a
    (d / "clash.csv").write_text("\n".join([rows[0], ",".join(cells), *rows[2:]]) + "\n", encoding="utf-8")
    clash = gramlink.DataOwner.read(d / "clash.csv", column="name", id_column="id", budget=1, seed=9)
    (d / "E.vec").write_bytes(clash.embed(shared, party="E", no_key=True, keep_ids=True))
    return d


def clusters_of(path):
    t = pq.read_table(path)
    return {(p, i): c for p, i, c in zip(t.column("party").to_pylist(), t.column("id").to_pylist(), t.column("cluster").to_pylist())}


@pytest.mark.parametrize("prefix", ["", "keyed-"])
def test_the_job_gives_match_parties_clusters(spark, parties, tmp_path, prefix):
    paths = [parties / f"{prefix}{p}.vec" for p in "ACD"]
    r = gramlink.match_parties([p.read_bytes() for p in paths])
    expected = {(p, i): c for p, i, c in zip(r["party"], r["id"], r["cluster"])}
    for shards in [1, 4]:
        out = tmp_path / f"clusters-{shards}"
        stats = spark_parties.link_parties(spark, [str(p) for p in paths], str(out), shards=shards)
        assert clusters_of(out) == expected, shards
        assert (stats["records"], stats["clusters"]) == (len(expected), r["clusters"])
        assert (stats["candidates"], stats["compared"]) == (r["candidates"], r["compared"])
        # one task per pair of parties and shard of the first party's rows (both ways)
        assert stats["tasks"] == 3 * shards and stats["parties"] == ["A", "C", "D"]
        # few edges: one task solves the whole graph, no component rounds
        assert (stats["components"], stats["solve_tasks"]) == (1, 1) and stats["solve_edges"] > 0
    # linked clusters exist: some cluster holds records of all three parties
    sizes = {}
    for c in expected.values():
        sizes[c] = sizes.get(c, 0) + 1
    assert max(sizes.values()) == 3
    low = spark_parties.link_parties(spark, [str(p) for p in paths], str(tmp_path / "low"), merge_threshold=0.2)
    assert low["clusters"] == gramlink.match_parties([p.read_bytes() for p in paths], merge_threshold=0.2)["clusters"]


def test_bad_linkages_are_refused_by_code_before_any_job(spark, parties, tmp_path):
    tracker = spark.sparkContext.statusTracker()
    jobs = sorted(tracker.getJobIdsForGroup())
    a, c, d, e = (parties / f"{p}.vec" for p in "ACDE")
    out = tmp_path / "out"
    cases = [
        ([a, c, a], {}, "BATCH_TWICE"),
        ([a, c, e], {}, "ID_CLASH"),
        ([a, c, parties / "keyed-D.vec"], {}, "TRANSFORM_MISMATCH"),
        ([a], {}, "INVALID_PARAMETER"),
        ([a, c, d], {"merge_threshold": 0}, "INVALID_PARAMETER"),
    ]
    for batches, options, code in cases:
        # the single machine refuses it by the same code
        with pytest.raises(gramlink.GramlinkError) as single:
            gramlink.match_parties([b.read_bytes() for b in batches], **options)
        with pytest.raises(gramlink.GramlinkError) as e:
            spark_parties.link_parties(spark, [str(b) for b in batches], str(out), **options)
        assert e.value.code == single.value.code == code, (e.value, single.value)
        assert not out.exists() and glob.glob(f"{out}.tmp-*") == []
    assert sorted(tracker.getJobIdsForGroup()) == jobs


def test_the_solve_is_split_by_component(spark, parties, tmp_path):
    """No task holds every edge: the graph has many components, hashed into
    more than one solve task, each holding only its components' edges; the
    clusters are still the single machine's, records and vectors alike."""
    paths = [parties / f"{p}.vec" for p in "ACD"]
    r = gramlink.match_parties([p.read_bytes() for p in paths], merge_threshold=0.2)
    out = tmp_path / "split"
    # split_edges 0: split however few the edges (by default this graph is solved in one task)
    stats = spark_parties.link_parties(
        spark, [str(p) for p in paths], str(out), shards=2, merge_threshold=0.2, split_edges=0
    )
    assert clusters_of(out) == {(p, i): c for p, i, c in zip(r["party"], r["id"], r["cluster"])}
    assert stats["components"] > 1 and stats["solve_tasks"] > 1
    assert 0 < stats["solve_edges"] < stats["candidates"] == r["candidates"]
    # a component's records are all linked: fewer components than linked records
    assert stats["components"] <= stats["records"] - stats["clusters"]


def union_find(edges):
    parent = {}

    def root(x):
        while parent.setdefault(x, x) != x:
            x = parent[x]
        return x

    for x, y in edges:
        a, b = root(x), root(y)
        if a != b:
            parent[max(a, b)] = min(a, b)
    return {x: root(x) for x in parent}


def test_components_over_dataframes_are_union_finds(spark):
    """Large-star / small-star on a graph with a long path (several rounds), a
    star, a cycle, isolated pairs and repeated edges: each record's component
    is its smallest record, as a union-find says."""
    import random

    rng = random.Random(5)
    path = list(range(100, 160))
    rng.shuffle(path)
    edges = list(zip(path, path[1:]))
    edges += [(7, k) for k in range(200, 230)] + [(300 + k, 300 + (k + 1) % 9) for k in range(9)]
    edges += [(1000 + 2 * k, 1001 + 2 * k) for k in range(20)] + [(5, 3), (3, 5), (400, 401), (401, 402)]
    edges += [(rng.randrange(500, 600), rng.randrange(500, 600)) for _ in range(60)]
    df = spark.createDataFrame(edges, "x long, y long")
    got = {r: c for r, c in spark_components.components(df).collect()}
    assert got == union_find(edges)


def test_a_cluster_task_solves_each_component_as_the_whole_graph(parties):
    """``parties_cluster`` on two components' edges at once or on each alone:
    the same clusters (by first record), as src/multi/greedy.rs says."""
    parties_ = ["A", "C", "D"]
    offsets = [0, 10, 20]
    one = [(0, 10, 0.1), (10, 20, 0.2), (1, 20, 0.15), (0, 21, 0.3), (1, 11, 0.05)]
    two = [(5, 15, 0.1), (15, 25, 0.1), (6, 25, 0.2), (5, 26, 0.2), (6, 16, 0.25)]

    def solve(edges, threshold):
        x, y, s = (np.array(c, dtype) for c, dtype in zip(zip(*edges), ["<u4", "<u4", "<f8"]))
        records, first = gramlink._native.parties_cluster(parties_, offsets, x.tobytes(), y.tobytes(), s.tobytes(),
                                                          threshold)
        return dict(zip(np.frombuffer(records, "<u4").tolist(), np.frombuffer(first, "<u4").tolist()))

    for threshold in [0.3, 0.5, 1.0]:
        both = solve(one + two, threshold)
        assert both == {**solve(one, threshold), **solve(two, threshold)}
        # a cluster's first record is its smallest, and at most one record per party
        assert all(f <= r for r, f in both.items())
        members = {}
        for r, f in both.items():
            members.setdefault(f, []).append(r // 10)
        assert all(len(set(m)) == len(m) for m in members.values())
    with pytest.raises(gramlink.GramlinkError) as e:
        gramlink._native.parties_cluster(parties_, [0, 20, 10], b"", b"", b"")
    assert e.value.code == "INVALID_PARAMETER"
