"""More than two parties (issue 33): ``match_parties`` clusters the batches of
three owners, at most one record per party in a cluster, and refuses a bad
linkage by the CLI's codes."""

import csv
from collections import defaultdict
from pathlib import Path

import pytest

import gramlink
from gramlink import DataOwner, GramlinkError

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def parties(tmp_path_factory, cli):
    """Three parties of 200 cities, each held with probability 0.7, one edit a
    copy (gramlink corrupt --parties 3, seed 7), and the truth."""
    d = tmp_path_factory.mktemp("parties")
    cli("lab", "corrupt", "--data", ROOT / "data/cities.txt", "--limit", "200", "--parties", "3", "--seed", "7", "--out-dir", d)
    return d


def test_three_parties_cluster_by_person(parties):
    owners = [
        DataOwner.read(parties / f"party_{x}.csv", column="name", id_column="id", budget=1, seed=i + 1)
        for i, x in enumerate("abc")
    ]
    # every party's base merges into the shared one
    shared = gramlink.merge_bases(*[o.mine(epsilon=1) for o in owners], epsilon=1)
    # every party sends thresholds: A, and C and D (B sends none unless asked)
    batches = [o.embed(shared, party=p, no_key=True, keep_ids=True) for o, p in zip(owners, "ACD")]
    r = gramlink.match_parties(batches)
    n = sum(o.size for o in owners)
    assert len(r["party"]) == len(r["id"]) == len(r["cluster"]) == n
    assert r["clusters"] == max(r["cluster"]) + 1 and r["candidates"] > 0
    members = defaultdict(list)
    for party, cluster in zip(r["party"], r["cluster"]):
        members[cluster].append(party)
    assert all(len(m) == len(set(m)) for m in members.values()), "two records of one party in a cluster"
    # the clusters against the persons: few mixed, most persons of two parties or more found
    with open(parties / "truth.csv", newline="") as f:
        person = {row["id"]: row["person"] for row in csv.DictReader(f)}
    by_cluster = defaultdict(set)
    for i, cluster in zip(r["id"], r["cluster"]):
        by_cluster[cluster].add(person[i])
    mixed = sum(len(s) > 1 for s in by_cluster.values())
    assert mixed * 20 <= len(by_cluster), f"{mixed} of {len(by_cluster)} clusters mix persons"
    held = defaultdict(int)
    for p in person.values():
        held[p] += 1
    clusters_of = defaultdict(set)
    for i, cluster in zip(r["id"], r["cluster"]):
        clusters_of[person[i]].add(cluster)
    shared_persons = [p for p, k in held.items() if k >= 2]
    found = sum(len(clusters_of[p]) == 1 for p in shared_persons)
    assert found >= 0.9 * len(shared_persons), f"{found} of {len(shared_persons)}"
    # a lower merge threshold merges no less
    assert gramlink.match_parties(batches, merge_threshold=0.2)["clusters"] <= r["clusters"]


def test_bad_linkages_are_refused_by_code(parties):
    a = DataOwner.read(parties / "party_a.csv", column="name", id_column="id", budget=2, seed=1)
    base = a.mine(epsilon=1)
    with pytest.raises(GramlinkError) as e:
        gramlink.merge_bases(base, base, epsilon=1)
    assert e.value.code == "BASE_TWICE", e.value
    shared = gramlink.merge_bases(base, a.mine(epsilon=1), epsilon=1)
    ba = a.embed(shared, party="A", no_key=True, keep_ids=True)
    bc = a.embed(shared, party="C", no_key=True)
    cases = [([ba, ba], "BATCH_TWICE"), ([ba], "INVALID_PARAMETER"), ([ba, bc, bc], "BATCH_TWICE")]
    for batches, code in cases:
        with pytest.raises(GramlinkError) as e:
            gramlink.match_parties(batches)
        assert e.value.code == code, e.value
    with pytest.raises(GramlinkError) as e:
        gramlink.match_parties([ba, bc], merge_threshold=0)
    assert e.value.code == "INVALID_PARAMETER"
