"""anonlink's greedy one-to-one solve at a Dice threshold, as people.py and records.py
run their clkhash + anonlink peer."""

import anonlink


def greedy_at(cands, t, rows_a, rows_b):
    """anonlink's greedy solve on the candidates ``cands`` (find_candidate_pairs',
    sorted by decreasing similarity) at or above ``t``: the one-to-one pairs of ids
    (each row's first column), and how many candidates were at or above ``t``."""
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
