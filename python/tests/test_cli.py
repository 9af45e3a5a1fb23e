"""The same seed gives the native CLI's messages and pairs, byte for byte."""

import csv

import gramlink


def test_the_cli_s_bases_batches_and_pairs_for_the_same_seed(cities, cli, tmp_path):
    d, t = cities, tmp_path
    common = ["--column", "name", "--id-column", "id", "--seed", "11"]
    cli("mine", "--input", d / "a.csv", *common, "--epsilon", "0.5", "--out", t / "a-base.json")
    cli("mine", "--input", d / "b.csv", *common, "--epsilon", "0.5", "--out", t / "b-base.json")
    cli("merge", t / "a-base.json", t / "b-base.json", "--out", t / "shared.json")
    # unkeyed and with the ids as read, on both sides (both require a key unless told
    # --no-key / no_key=True, and send random pseudonyms unless --keep-ids / keep_ids=True)
    embed = ["--column", "name", "--id-column", "id", "--base", t / "shared.json", "--no-key", "--keep-ids"]
    cli("embed", "--input", d / "a.csv", *embed, "--out", t / "a.vec")
    cli("embed", "--input", d / "b.csv", *embed, "--party", "b", "--out", t / "b.vec")

    a = gramlink.DataOwner.read(d / "a.csv", column="name", id_column="id", seed=11, budget=0.5)
    b = gramlink.DataOwner.read(d / "b.csv", column="name", id_column="id", seed=11, budget=0.5)
    noisy_a, noisy_b = a.mine(epsilon=0.5), b.mine(epsilon=0.5)
    assert noisy_a == (t / "a-base.json").read_text().strip()
    assert noisy_b == (t / "b-base.json").read_text().strip()
    shared = gramlink.merge_bases(noisy_a, noisy_b)
    assert shared == (t / "shared.json").read_text().strip()
    batch_a = a.embed(shared, no_key=True, keep_ids=True)
    batch_b = b.embed(shared, party="B", no_key=True, keep_ids=True)
    # rows are shuffled before export (a fresh order each embed): the batches hold the
    # same rows, so every pair within the thresholds is the same
    m = gramlink.Matcher(batch_a, batch_b)
    m_cli = gramlink.Matcher((t / "a.vec").read_bytes(), (t / "b.vec").read_bytes())
    every = [sorted(zip(x.a_ids, x.b_ids, x.distances)) for x in (m.link("all"), m_cli.link("all"))]
    assert every[0] == every[1] and every[0]
    for rule in ["ranked", "all", "greedy", "nearest"]:
        cli("match", t / "a.vec", t / "b.vec", "--rule", rule, "--out", t / f"{rule}.csv")
        with open(t / f"{rule}.csv", newline="") as f:
            rows = list(csv.DictReader(f))
        link = m_cli.link(rule)
        assert [(r["a_id"], r["b_id"]) for r in rows] == list(zip(link.a_ids, link.b_ids)), rule
        assert [r["distance"] for r in rows] == [f"{x:.6f}" for x in link.distances], rule
        assert len(rows) > 0
