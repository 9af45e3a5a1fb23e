"""Whole records (FEBRL 1): RecordOwner and RecordMatcher, as in JS and the CLI."""

from pathlib import Path

import pandas as pd
import pytest

import gramlink

FEBRL = Path(__file__).resolve().parents[2] / "data/febrl"


def test_febrl_1_links_with_the_bundled_schema():
    schema = FEBRL / "schema.toml"
    a = gramlink.RecordOwner(FEBRL / "dataset1-a.csv", schema, seed=1)
    # a DataFrame is read as its CSV
    b = gramlink.RecordOwner(pd.read_csv(FEBRL / "dataset1-b.csv", dtype=str, keep_default_na=False), schema, seed=2)
    assert a.size > 0 and b.size > 0 and a.schema_fingerprint == b.schema_fingerprint
    assert {f["name"] for f in a.fields()} and sum(s["epsilon"] for s in a.budget_split()) <= 1.0 + 1e-9
    shared = gramlink.RecordOwner.merge_bases(a.mine(), b.mine(), schema)
    key = gramlink.keygen()  # the parties' shared key, for the keyed fields
    m = gramlink.RecordMatcher(schema, a.embed(shared, party="A", key=key), b.embed(shared, party="B", key=key))
    assert (m.size_a, m.size_b, m.private) == (a.size, b.size, False)
    out = m.link()
    sent = list(zip(out["pairs"]["a_ids"], out["pairs"]["b_ids"]))
    assert out["matches"] > 0 and len(m.weights()) == out["candidates"]
    # the batches carry random pseudonyms; each owner's map gives its record ids back
    assert not any(x.startswith("rec-") for p in sent for x in p)
    lines = gramlink.unmap(m.pairs_csv(), a.id_map_csv(), b.id_map_csv()).splitlines()
    assert lines[0].startswith("a_id,b_id") and len(lines) == len(sent) + 1
    pairs = [tuple(l.split(",")[:2]) for l in lines[1:]]
    q = gramlink.score(pairs, FEBRL / "dataset1-truth.csv")
    assert q["f1"] > 0.95, q
    # a passphrase (salted with the schema) is a key both parties derive; a
    # batch under another key is refused
    secret = "correct horse battery staple"
    pa, pb = a.embed(shared, party="A", passphrase=secret), b.embed(shared, party="B", passphrase=secret)
    assert gramlink.RecordMatcher(schema, pa, pb).link()["matches"] > 0
    with pytest.raises(gramlink.GramlinkError):
        gramlink.RecordMatcher(schema, pa, b.embed(shared, party="B", key=key))
    with pytest.raises(gramlink.GramlinkError) as e:
        a.mine()
    assert e.value.code == "BUDGET_EXCEEDED"


def test_a_batch_of_another_schema_is_refused():
    schema = FEBRL / "schema.toml"
    import tomllib

    other = tomllib.loads(schema.read_text())
    other["decision"] = dict(other.get("decision", {}), upper=99.0)
    a = gramlink.RecordOwner(FEBRL / "dataset1-a.csv", schema, seed=1)
    b = gramlink.RecordOwner(FEBRL / "dataset1-b.csv", schema, seed=2)
    shared = gramlink.RecordOwner.merge_bases(a.mine(), b.mine(), schema)
    key = gramlink.keygen()
    batch_a, batch_b = a.embed(shared, key=key, no_key=True), b.embed(shared, party="B", key=key, no_key=True)
    with pytest.raises(gramlink.GramlinkError) as e:
        gramlink.RecordMatcher(other, batch_a, batch_b)
    assert e.value.code == "FINGERPRINT_MISMATCH"
    with pytest.raises(gramlink.GramlinkError) as e:
        gramlink.RecordMatcher(schema, batch_a[:50], batch_b)
    assert e.value.code in ("TRUNCATED_MESSAGE", "MALFORMED_MESSAGE")


def test_a_path_is_streamed_and_its_faults_are_named(tmp_path):
    schema = FEBRL / "schema.toml"
    # a path (str or PathLike) and the same file's bytes give the same records
    by_path = gramlink.RecordOwner(str(FEBRL / "dataset1-a.csv"), schema, seed=1)
    by_bytes = gramlink.RecordOwner((FEBRL / "dataset1-a.csv").read_bytes(), schema, seed=1)
    assert by_path.size == by_bytes.size == 500
    with pytest.raises(gramlink.GramlinkError) as e:
        gramlink.RecordOwner(tmp_path / "missing.csv", schema)
    assert e.value.code == "IO" and "missing.csv" in str(e.value)
    # a file cut inside a quoted cell is refused by name, not read in part
    cut = tmp_path / "cut.csv"
    text = (FEBRL / "dataset1-a.csv").read_text()
    cut.write_text(text[: text.index("\n", 2000)] + '\n"rec-x-org,"unterminated')
    with pytest.raises(gramlink.GramlinkError) as e:
        gramlink.RecordOwner(cut, schema)
    assert e.value.code == "MALFORMED_CSV" and "cut.csv" in str(e.value) and "record 20" in str(e.value), e.value


def test_a_partys_own_date_format_is_found_or_named():
    schema = {"version": 1, "id": "id", "field": [{"name": "surname", "kind": "name"}, {"name": "dob", "kind": "date", "format": "YYYYMMDD"}]}
    # month first: 25 and 30 cannot be months, so the file is MM/DD/YYYY, not the schema's YYYYMMDD
    csv = b"id,surname,dob\n1,SMITH,03/25/1980\n2,JONES,11/30/1975\n3,BROWN,01/02/1990\n"
    found = gramlink.RecordOwner(csv, schema)
    assert len(found.notes) == 1 and "MM/DD/YYYY" in found.notes[0] and "dob" in found.notes[0]
    named = gramlink.RecordOwner(csv, schema, date_formats={"dob": "MM/DD/YYYY"})
    assert named.notes == [] and len(named) == 3
    # a format the party names is used as named: day first reads 25 as a month, and the row is refused
    with pytest.raises(gramlink.GramlinkError):
        gramlink.RecordOwner(csv, schema, date_formats={"dob": "DD/MM/YYYY"})


def test_blocking_designed_by_the_tool_links_febrl_1():
    import tomllib

    schema = tomllib.loads((FEBRL / "schema.toml").read_text())
    del schema["block"]
    schema["blocking"] = "auto"  # the matcher designs the rules from the batches
    a = gramlink.RecordOwner(FEBRL / "dataset1-a.csv", schema, seed=1)
    b = gramlink.RecordOwner(FEBRL / "dataset1-b.csv", schema, seed=2)
    shared = gramlink.RecordOwner.merge_bases(a.mine(), b.mine(), schema)
    key = gramlink.keygen()
    m = gramlink.RecordMatcher(schema, a.embed(shared, party="A", key=key), b.embed(shared, party="B", key=key))
    out = m.link()
    # within the design's budget of 20 candidates per record of both sides, and
    # far below the bundled rules' 3,216 on these files
    assert 0 < out["candidates"] <= 20 * (a.size + b.size) and out["candidates"] < 2000, out["candidates"]
    assert out["rules"] and all(r["pairs"] > 0 for r in out["rules"]), out["rules"]
    lines = gramlink.unmap(m.pairs_csv(), a.id_map_csv(), b.id_map_csv()).splitlines()
    q = gramlink.score([tuple(l.split(",")[:2]) for l in lines[1:]], FEBRL / "dataset1-truth.csv")
    assert q["f1"] > 0.98, q
