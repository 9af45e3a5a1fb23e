"""Signed batches (issue 31): keys and signatures are the CLI's files, so a
batch signed by the CLI is verified here and one signed here by the CLI; both
matchers refuse an unsigned or wrongly signed batch by the CLI's codes."""

import csv
import json
from pathlib import Path

import pytest

import gramlink

ROOT = Path(__file__).resolve().parents[2]
FEBRL = ROOT / "data/febrl"


def refused(code, f, *args, **kwargs):
    with pytest.raises(gramlink.GramlinkError) as e:
        f(*args, **kwargs)
    assert e.value.code == code, e.value
    return str(e.value)


def test_the_golden_key_signs_the_golden_bytes_as_natively():
    golden = json.loads((ROOT / "tests/golden/signature_ed25519_batch.json").read_text())
    batch = golden["bytes"].encode()
    assert gramlink.sign_batch(golden["signingKey"], batch) == golden["signature"]
    # the key as its file's bytes, the batch as text: the same signature
    assert gramlink.sign_batch(golden["signingKey"].encode(), golden["bytes"]) == golden["signature"]
    gramlink.verify_batch(golden["publicKey"], batch, golden["signature"])


def test_keygen_sign_and_verify_refuse_by_the_cli_s_codes():
    key, public = gramlink.sign_keygen()
    assert key.startswith("gramlink signing key v1 ") and public.startswith("gramlink signing public key v1 ")
    assert gramlink.sign_keygen()[0] != key
    batch = bytes(range(256)) * 100
    sig = gramlink.sign_batch(key, batch)
    gramlink.verify_batch(public, batch, sig)
    gramlink.verify_batch(public.encode(), bytearray(batch), sig.encode())
    refused("SIGNATURE_MISSING", gramlink.verify_batch, public, batch)
    refused("SIGNATURE_INVALID", gramlink.verify_batch, public, batch[:-1] + b"\x00", sig)
    refused("SIGNATURE_INVALID", gramlink.verify_batch, gramlink.sign_keygen()[1], batch, sig)
    refused("INVALID_KEY", gramlink.verify_batch, key, batch, sig)
    refused("INVALID_KEY", gramlink.sign_batch, public, batch)
    refused("INVALID_PARAMETER", gramlink.sign_batch, 7, batch)


def test_a_batch_signed_by_the_cli_is_verified_here_and_one_signed_here_by_the_cli(cities, cli, tmp_path):
    d, t = cities, tmp_path
    common = ["--column", "name", "--id-column", "id", "--seed", "5"]
    cli("mine", "--input", d / "a.csv", *common, "--out", t / "a-base.json")
    cli("mine", "--input", d / "b.csv", *common, "--out", t / "b-base.json")
    cli("merge", t / "a-base.json", t / "b-base.json", "--out", t / "shared.json")
    cli("sign-keygen", "--out", t / "a.key")
    embed = ["--column", "name", "--id-column", "id", "--base", t / "shared.json", "--no-key"]
    cli("embed", "--input", d / "a.csv", *embed, "--signing-key", t / "a.key", "--out", t / "a.vec")
    batch_a, sig_a, public_a = (t / "a.vec").read_bytes(), (t / "a.vec.sig").read_text(), (t / "a.key.pub").read_text()
    gramlink.verify_batch(public_a, batch_a, sig_a)
    gramlink.verify_batch((t / "a.key.pub").read_bytes(), batch_a, (t / "a.vec.sig").read_bytes())

    # B signs in Python with a key made here, saved as the CLI's files
    key_b, public_b = gramlink.sign_keygen()
    (t / "b.key.pub").write_text(public_b)
    owner_b = gramlink.DataOwner.read(d / "b.csv", column="name", id_column="id")
    batch_b = owner_b.embed((t / "shared.json").read_text(), party="B", no_key=True)
    (t / "b.vec").write_bytes(batch_b)
    (t / "b.vec.sig").write_text(gramlink.sign_batch(key_b, batch_b))
    verified = ["match", t / "a.vec", t / "b.vec", "--verify-a", t / "a.key.pub", "--verify-b", t / "b.key.pub"]
    r = cli(*verified, "--out", t / "pairs.csv")
    assert "party B's batch is signed" in r.stderr
    # the same checks here, on the same files
    m = gramlink.Matcher(batch_a, batch_b, verify_a=public_a, signature_a=sig_a, verify_b=public_b,
                         signature_b=(t / "b.vec.sig").read_text())
    assert len(m.link()) > 0

    # B's signature under A's name: refused alike by the CLI and here
    (t / "b.vec.sig").write_text(gramlink.sign_batch(key_b, batch_a))
    out = cli(*verified, "--out", t / "no.csv", check=False)
    assert out.returncode == 4 and "error[SIGNATURE_INVALID]" in out.stderr, out.stderr
    message = refused("SIGNATURE_INVALID", gramlink.Matcher, batch_a, batch_b, verify_b=public_b,
                      signature_b=(t / "b.vec.sig").read_text())
    assert "party B's vector batch" in message
    message = refused("SIGNATURE_MISSING", gramlink.Matcher, batch_a, batch_b, verify_a=public_a)
    assert "party A's vector batch" in message
    refused("INVALID_PARAMETER", gramlink.Matcher, batch_a, batch_b, signature_a=sig_a)


def test_the_record_matcher_checks_signatures():
    # names as written (no nickname or placeholder rewrite), so that the distinct rows below
    # are the file's distinct pairs of names
    as_written = {"kind": "name", "nicknames": False, "fillers": False}
    schema = {"version": 1, "id": "rec_id", "epsilon": 0.1,
              "field": [{"name": "given_name", **as_written}, {"name": "surname", **as_written}]}
    a = gramlink.RecordOwner(FEBRL / "dataset1-a.csv", schema, seed=1)
    b = gramlink.RecordOwner(FEBRL / "dataset1-b.csv", schema, seed=2)
    shared = gramlink.RecordOwner.merge_bases(a.mine(), b.mine(), schema)
    batch_a, batch_b = a.embed(shared, party="A", no_key=True), b.embed(shared, party="B", no_key=True)
    (key_a, public_a), (key_b, public_b) = gramlink.sign_keygen(), gramlink.sign_keygen()
    sig_a, sig_b = gramlink.sign_batch(key_a, batch_a), gramlink.sign_batch(key_b, batch_b)
    m = gramlink.RecordMatcher(schema, batch_a, batch_b, verify_a=public_a, signature_a=sig_a,
                               verify_b=public_b, signature_b=sig_b)
    # one row for each distinct record (the fields sent: both names)
    def distinct(path):
        with open(path, newline="") as f:
            return len({(r["given_name"], r["surname"]) for r in csv.DictReader(f, skipinitialspace=True)})
    assert (m.size_a, m.size_b) == (distinct(FEBRL / "dataset1-a.csv"), distinct(FEBRL / "dataset1-b.csv"))
    assert m.size_b < b.size
    message = refused("SIGNATURE_MISSING", gramlink.RecordMatcher, schema, batch_a, batch_b, verify_b=public_b)
    assert "party B's record batch" in message
    refused("SIGNATURE_INVALID", gramlink.RecordMatcher, schema, batch_a, batch_b, verify_a=public_b,
            signature_a=sig_a)
