// What the package tests share (scripts/check-pkg.mjs copies this file next to them; the
// e2e tests import it too): a seeded generator and the Kuzu rule of the FEBRL 1 records.

/** A seeded generator (mulberry32), so a failure can be reproduced. */
export function mulberry32(seed) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Kuzu et al.'s comparison rule on FEBRL's columns: blocks on the surname, two names and the year of birth. */
export const KUZU_RULE = {
  id: 'rec_id', block: 'surname', threshold: 0.6,
  attribute: [
    { column: 'given_name', kind: 'string', weight: 0.45 },
    { column: 'surname', kind: 'string', weight: 0.45 },
    { column: 'date_of_birth', kind: 'year', weight: 0.1, min: 1900, max: 2010 },
  ],
};
