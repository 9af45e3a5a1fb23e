"""The roles end to end: data owners, merge, embed, the matcher under every
rule, scoring; columns as lists, pandas and pyarrow; options and errors."""

import csv

import pandas as pd
import pyarrow as pa
import pytest

import gramlink
from gramlink import DataOwner, GramlinkError, Matcher


def owners(cities, seed=5):
    a = DataOwner.read(cities / "a.csv", column="name", id_column="id", budget=1, seed=seed)
    b = DataOwner.read(cities / "b.csv", column="name", id_column="id", budget=1, seed=seed + 1)
    return a, b


def test_roles_end_to_end_every_rule_and_score(cities):
    a, b = owners(cities)
    assert (a.size, len(b)) == (600, b.size) and a.ids[0] == "a1" and not a.private
    shared = gramlink.merge_bases(a.mine(epsilon=1), b.mine(epsilon=1), epsilon=1)
    assert a.epsilon_spent == pytest.approx(1.0) and len(gramlink.fingerprint(shared)) == 64
    # the own ids (keep_ids): the linkage is scored against a truth of ids below
    ba = a.embed(shared, party="A", no_key=True, keep_ids=True)
    bb = b.embed(shared, party="B", no_key=True, keep_ids=True)
    m = Matcher(ba, bb)
    assert (m.size_a, m.size_b, m.ed) == (600, b.size, 2)  # ed auto: thresholds for its bound
    counts = {}
    for rule in ["ranked", "all", "greedy", "nearest"]:
        link = m.link(rule)
        assert link.rule == rule and len(link) == len(link.a_ids) == len(link.distances)
        counts[rule] = len(link)
        if rule != "all":  # one-to-one rules: each record at most once
            assert len(set(link.a_ids)) == len(link) == len(set(link.b_ids))
        q = gramlink.score(link, cities / "truth.csv")
        assert q["pairs"] == len(link) and 0 <= q["precision"] <= 1
    assert counts["all"] >= counts["greedy"] >= counts["nearest"] > 0
    q = gramlink.score(m.link(), cities / "truth.csv")
    assert q["f1"] > 0.9, q  # CITIES at one edit, the recommended configuration
    # a truth given as pairs scores the same
    with open(cities / "truth.csv", newline="") as f:
        truth = [tuple(r) for r in list(csv.reader(f))[1:]]
    assert gramlink.score(m.link(), truth) == q
    df = m.link().to_pandas()
    assert list(df.columns) == ["a_id", "b_id", "distance", "a", "b"] and len(df) == q["pairs"]
    assert m.link().to_arrow().num_rows == q["pairs"]


def test_columns_from_list_pandas_and_pyarrow_give_the_same_batch():
    names = ["Smith", "Johnson", "Williams", "Brown", "Jones", "Garcia"]
    ids = [f"p{i}" for i in range(len(names))]
    made = []
    for column, id_column in [
        (names, ids),
        (pd.Series(names), pd.Series(ids)),
        (pa.array(names), pa.chunked_array([ids[:3], ids[3:]])),
        (pd.Series(names, dtype="string[pyarrow]"), ids),
    ]:
        o = DataOwner(column, ids=id_column, budget=1, seed=9)
        shared = gramlink.merge_bases(o.mine(epsilon=0.5), o.mine(epsilon=0.5), epsilon=0.5)
        # pseudonyms and the row order would differ by design: own ids, and what the batch links
        a = o.embed(shared, no_key=True, keep_ids=True)
        b = o.embed(shared, party="B", no_key=True, keep_ids=True)
        link = gramlink.Matcher(a, b).link("all")
        made.append(sorted(zip(link.a_ids, link.b_ids, link.distances)))
    assert made[0] and all(m == made[0] for m in made[1:])


def test_vectors_thresholds_report_and_json_batches():
    o = DataOwner(["Smith", "Smyth", "Jones", "Ångström"], budget=1, seed=1)
    shared = gramlink.merge_bases(o.mine(epsilon=0.5), o.mine(epsilon=0.5), epsilon=0.5)
    v = o.vectors(shared)
    assert len(v) == 4 and len({len(r) for r in v}) == 1
    assert len(o.thresholds(shared)) == 4 and o.thresholds(shared, ed=2) > o.thresholds(shared, ed=1)
    assert o.normalization_report()["kept"] == 4
    text = o.embed(shared, binary=False, no_key=True, keep_ids=True)
    assert isinstance(text, str) and '"gramlink/vector-batch"' in text
    # the rows are shuffled, kept ids too: each record still links to itself
    assert sorted(Matcher(text, o.embed(shared, party="B", no_key=True)).link().a_ids)[:2] == ["1", "2"]
    assert gramlink.defaults()["presets"]["paper"]["rule"] == "all"


@pytest.mark.parametrize(
    "make, code",
    [
        (lambda: DataOwner([]), "EMPTY_INPUT"),
        (lambda: DataOwner(["a", None]), "INVALID_PARAMETER"),
        (lambda: DataOwner(["a", 3]), "INVALID_PARAMETER"),
        (lambda: DataOwner("Smith"), "INVALID_PARAMETER"),
        (lambda: DataOwner(["a"], budget=-1), "INVALID_EPSILON"),
        (lambda: DataOwner(["a"], alphabet=""), "INVALID_ALPHABET"),
        (lambda: DataOwner(["a", "b"], ids=["x", "x"]), "DUPLICATE_ID"),
        (lambda: DataOwner.read(b"id,name\n1,A\n"), "MISSING_COLUMN"),
        (lambda: DataOwner.read(b"id,name\n1,A\n", column="surname"), "MISSING_COLUMN"),
        (lambda: DataOwner.read("/nonexistent/file.txt"), "IO"),
        (lambda: DataOwner(["Smith"]).mine(epsilonn=1), "INVALID_PARAMETER"),
        (lambda: DataOwner(["Smith"]).mine(k="many"), "INVALID_PARAMETER"),
        (lambda: DataOwner(["Smith"], budget=0.1).mine(epsilon=1), "BUDGET_EXCEEDED"),
        (lambda: gramlink.merge_bases("{}", "{}"), "MALFORMED_MESSAGE"),
        (lambda: Matcher(b"GLVB", b"GLVB"), "TRUNCATED_MESSAGE"),
        (lambda: Matcher(b"nonsense", b"x"), "MALFORMED_MESSAGE"),
        (lambda: DataOwner(["Smith"]).embed("{}", key="00", passphrase="long enough"), "MALFORMED_MESSAGE"),
    ],
)
def test_bad_input_raises_the_core_code(make, code):
    with pytest.raises(GramlinkError) as e:
        make()
    assert e.value.code == code, str(e.value)
    assert str(e.value).startswith(f"[{code}] ")


def test_mismatched_bases_truncated_and_keyed_batches_are_refused(cities):
    a, b = owners(cities)
    sa = gramlink.merge_bases(a.mine(epsilon=0.5), b.mine(epsilon=0.5), epsilon=0.5)
    sb = gramlink.merge_bases(a.mine(epsilon=0.5, k=60), b.mine(epsilon=0.5, k=60), epsilon=0.5, k=60)
    batch_a, other_b = a.embed(sa, no_key=True), b.embed(sb, party="B", no_key=True)
    with pytest.raises(GramlinkError) as e:
        Matcher(batch_a, other_b)
    assert e.value.code == "FINGERPRINT_MISMATCH"
    batch_b = b.embed(sa, party="B", no_key=True)
    for cut in [len(batch_b) - 1, 100, 11]:
        with pytest.raises(GramlinkError) as e:
            Matcher(batch_a, batch_b[:cut])
        assert e.value.code == "TRUNCATED_MESSAGE" and "party B" in str(e.value)
    with pytest.raises(GramlinkError) as e:
        Matcher(b.embed(sa, party="B", no_key=True), batch_b)  # B's batch has no thresholds
    assert e.value.code == "INVALID_PARAMETER"
    key = gramlink.keygen()
    with pytest.raises(GramlinkError) as e:
        Matcher(a.embed(sa, key=key), batch_b)
    assert e.value.code == "TRANSFORM_MISMATCH"
    # a fixed ed: with ed auto the unkeyed matcher fits a cut-off the keyed one cannot
    # (no q-gram filter bounds on rotated vectors), so their pairs may differ
    fixed = {"ed": 1}
    def own_pairs(batch_a, batch_b):
        # each embed draws fresh pseudonyms and a fresh row order: compare the own ids
        maps = (a.id_map_csv(), b.id_map_csv())
        link = Matcher(batch_a, batch_b).link()
        csv = "a_id,b_id\n" + "".join(f"{x},{y}\n" for x, y in zip(link.a_ids, link.b_ids))
        return sorted(gramlink.unmap(csv, *maps).splitlines()[1:])

    # the rotation (a named encoding) keeps every distance: the same pairs
    rot = {"encoding": "rotation"}
    keyed = own_pairs(a.embed(sa, key=key, thresholds=fixed, **rot), b.embed(sa, party="B", key=key, **rot))
    plain = own_pairs(a.embed(sa, thresholds=fixed, no_key=True), b.embed(sa, party="B", no_key=True))
    assert keyed == plain and keyed
    # a passphrase is the key both parties derive, for records as for one string
    secret = "correct horse battery staple"
    derived = own_pairs(
        a.embed(sa, passphrase=secret, thresholds=fixed, **rot), b.embed(sa, party="B", passphrase=secret, **rot)
    )
    assert derived == plain
    # the default encoding (the sketch) merges grams in buckets: most pairs stay
    sketched = own_pairs(a.embed(sa, key=key, thresholds=fixed), b.embed(sa, party="B", key=key))
    assert len(set(sketched) & set(plain)) >= 0.9 * len(plain)
    with pytest.raises(GramlinkError) as e:
        a.embed(sa, key="xyz")
    assert e.value.code == "INVALID_KEY"
    # unkeyed vectors leave only when asked for (the core's export policy)
    with pytest.raises(GramlinkError) as e:
        a.embed(sa)
    assert e.value.code == "KEY_REQUIRED" and "no_key=True" in str(e.value)
    with pytest.raises(GramlinkError) as e:
        a.embed(sa, key=key, no_key=True)
    assert e.value.code == "INVALID_KEY"


def test_errors_pickle_with_their_code():
    import pickle

    e = pickle.loads(pickle.dumps(GramlinkError("bad", "INVALID_MESSAGE")))
    assert (e.code, e.message, str(e)) == ("INVALID_MESSAGE", "bad", "[INVALID_MESSAGE] bad")


def test_ids_are_pseudonyms_unless_kept_and_unmap_gives_them_back():
    a = DataOwner(["Smith", "Jones", "Brown"], budget=1, seed=3)
    b = DataOwner.read(b"id,name\n=7,SMYTH\n8,BROWNE\n", column="name", id_column="id", budget=1, seed=4)
    shared = gramlink.merge_bases(a.mine(epsilon=1), b.mine(epsilon=1), epsilon=1)
    assert a.id_map_csv() is None  # no embed yet
    import json

    kept = json.loads(a.embed(shared, binary=False, no_key=True, keep_ids=True))["ids"]
    assert sorted(kept) == ["1", "2", "3"]  # the own ids, in a shuffled order
    assert a.id_map_csv() is None  # ids kept: no map
    sent = json.loads(a.embed(shared, binary=False, no_key=True))["ids"]
    assert all(len(p) == 16 and int(p, 16) >= 0 for p in sent)
    map_a = a.id_map_csv()
    rows_a = [line.split(",") for line in map_a.splitlines()[1:]]
    # the map lists the records in their own order; the batch's rows are shuffled
    assert [i for _, i in rows_a] == ["1", "2", "3"] and sorted(p for p, _ in rows_a) == sorted(sent)
    json.loads(b.embed(shared, party="B", binary=False, no_key=True))
    rows_b = [line.split(",") for line in b.id_map_csv().splitlines()[1:]]
    a1, a3, b7, b8 = rows_a[0][0], rows_a[2][0], rows_b[0][0], rows_b[1][0]
    pairs = f"a_id,b_id,distance\n{a1},{b7},0.5\n{a3},{b8},0.25\n"
    # ids a spreadsheet would run are escaped, as the matcher escapes the ids it writes
    assert gramlink.unmap(pairs, map_a, b.id_map_csv()) == "a_id,b_id,distance\n1,'=7,0.5\n3,8,0.25\n"
    assert gramlink.unmap(pairs.encode(), a_map=map_a).splitlines()[2] == f"3,{b8},0.25"
    for make, code in [
        (lambda: gramlink.unmap(pairs), "INVALID_PARAMETER"),
        (lambda: gramlink.unmap(pairs, b.id_map_csv()), "INVALID_FORMAT"),  # another owner's map
        (lambda: gramlink.unmap(pairs, "a,b\n"), "INVALID_FORMAT"),
        (lambda: gramlink.unmap(42, map_a), "INVALID_PARAMETER"),
        (lambda: DataOwner.read(b"name\nSMITH\n", column="name", id_column="name"), "ID_IS_LINKED_COLUMN"),
    ]:
        with pytest.raises(GramlinkError) as e:
            make()
        assert e.value.code == code, str(e.value)
