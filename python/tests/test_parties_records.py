"""Record batches of three parties (issue 33): ``match_parties(batches,
schema=...)`` clusters FEBRL 1's originals (A), their duplicates (B) and a
third party holding every other original with its surname one edit off (C),
as the CLI's ``match --schema s a b c`` does (tests/multi_records.rs),
scored pair by pair against the known persons."""

from collections import defaultdict
from itertools import combinations
from pathlib import Path

import gramlink

FEBRL = Path(__file__).resolve().parents[2] / "data/febrl"


def person(record_id: str) -> str:
    """``rec-223-org``, ``rec-223-dup-0`` and C's ``c-223`` are person 223."""
    return record_id.split("-")[1]


def test_three_parties_record_batches_cluster_by_person(tmp_path):
    lines = (FEBRL / "dataset1-a.csv").read_text(encoding="utf-8").splitlines()
    c = [lines[0]]
    for line in lines[1::2]:
        cells = line.split(",")
        cells[0] = f"c-{person(cells[0])}"
        if len(cells[2].strip()) > 3:
            cells[2] = cells[2][:-1]
        c.append(",".join(cells))
    (tmp_path / "c.csv").write_text("\n".join(c) + "\n", encoding="utf-8")
    schema = FEBRL / "schema.toml"
    owners = [
        gramlink.RecordOwner(path, schema, seed=i + 1)
        for i, path in enumerate([FEBRL / "dataset1-a.csv", FEBRL / "dataset1-b.csv", tmp_path / "c.csv"])
    ]
    # A's and B's bases merge into the shared one; C embeds over it too
    shared = gramlink.RecordOwner.merge_bases(owners[0].mine(), owners[1].mine(), schema)
    key = gramlink.keygen()
    batches = [o.embed(shared, party=p, key=key, keep_ids=True) for o, p in zip(owners, "ABC")]
    r = gramlink.match_parties(batches, schema=schema)

    # one row per record, batch after batch; at most one record of a party in a cluster
    n = sum(o.size for o in owners)
    assert len(r["party"]) == len(r["id"]) == len(r["cluster"]) == n
    assert r["party"] == ["A"] * owners[0].size + ["B"] * owners[1].size + ["C"] * owners[2].size
    assert r["clusters"] == max(r["cluster"]) + 1
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
