"""What people.py and records.py share: anonlink's greedy one-to-one solve at a Dice
threshold (their clkhash + anonlink peer), and the writing of their results."""

import csv
from importlib import metadata


def greedy_at(cands, t, rows_a, rows_b):
    """anonlink's greedy solve on the candidates ``cands`` (find_candidate_pairs',
    sorted by decreasing similarity) at or above ``t``: the one-to-one pairs of ids
    (each row's first column), and how many candidates were at or above ``t``."""
    import anonlink

    sims, (d0, d1), (r0, r1) = cands
    m = 0
    while m < len(sims) and sims[m] >= t:
        m += 1
    groups = anonlink.solving.greedy_solve((sims[:m], (d0[:m], d1[:m]), (r0[:m], r1[:m])))
    one = []
    for g in groups:
        g = sorted(g)
        if len(g) == 2 and g[0][0] == 0 and g[1][0] == 1:
            one.append((rows_a[g[0][1]][0], rows_b[g[1][1]][0]))
    return one, m


def clk_schema(fields, heavy=("first_name", "last_name", "date_of_birth")):
    """clkhash's schema for a record of ``fields`` (after an ignored id column): each
    field's bigrams, 20 bits a token for ``heavy`` fields and 10 for the rest, 1,024 bits."""
    from clkhash.schema import from_json_dict

    feats = [{"identifier": "rec_id", "ignored": True}]
    for c in fields:
        feats.append({"identifier": c, "format": {"type": "string", "encoding": "utf-8"},
                      "hashing": {"comparison": {"type": "ngram", "n": 2, "positional": False},
                                  "strategy": {"bitsPerToken": 20 if c in heavy else 10},
                                  "hash": {"type": "doubleHash"},
                                  "missingValue": {"sentinel": "", "replaceWith": ""}}})
    return from_json_dict({"version": 3, "clkConfig": {"l": 1024, "kdf": {"type": "HKDF", "hash": "SHA256",
                                                                          "keySize": 64}},
                           "features": feats})


def write_csv(path, rows, keys):
    """The result rows' ``keys`` columns as CSV at ``path``."""
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=keys)
        w.writeheader()
        for r in rows:
            w.writerow({k: r[k] for k in keys})


def versions(packages):
    """The installed versions of ``packages``, as the tables' headers name them."""
    return ", ".join(f"{p} {metadata.version(p)}" for p in packages)
