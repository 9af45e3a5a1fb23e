// More than two parties through the installed npm package (scripts/check-pkg.mjs runs this in a
// fresh project): three owners hold overlapping parts of CITIES with typos, A and B mine, all
// three embed under one key, `linkParties` clusters them (the CLI's clusters.csv), each owner maps
// its own rows back with `unmapClusters`; every bad linkage is refused by its code.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { DataOwner, RecordOwner, keygen, linkParties, unmapClusters } from 'gramlink';
import { mulberry32 } from './fixtures.mjs';

const cities = readFileSync(new URL('./cities.txt', import.meta.url), 'utf8').split('\n').filter((s) => s).slice(0, 300);

/** One substitution of a letter (past the first) for one record in two. */
function typo(s, r) {
  if (r() < 0.5 || s.length < 3) return s;
  const chars = [...s];
  chars[1 + Math.floor(r() * (chars.length - 1))] = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ'[Math.floor(r() * 26)];
  return chars.join('');
}

// Each party holds each place with probability 0.7; its own ids name the party and the place
// (`C17`: party C's copy of place 17), so the truth is in the ids.
const r = mulberry32(33);
const held = ['A', 'B', 'C'].map((p) => cities.flatMap((s, i) => (r() < 0.7 ? [[`${p}${i}`, p === 'A' ? s : typo(s, r)]] : [])));
const csv = (rows) => 'id,city\n' + rows.map(([id, s]) => `${id},"${s.replaceAll('"', '""')}"`).join('\n') + '\n';
const owners = held.map((rows) => DataOwner.fromBytes(new TextEncoder().encode(csv(rows)), { column: 'city', idColumn: 'id' }, { budget: 1 }));
const MINE = { miner: 'fpm', epsilon: 1, k: 75 };
const noisy = owners.map((o) => o.mine(MINE));
// every party mines; the shared base merges all three (two merge as mergeBases does)
const shared = DataOwner.mergeAllBases(noisy, MINE);
const key = keygen();
const THRESHOLDS = { ed: 2, mode: 'sound' };
const embed = (o, party, extra = {}) => o.embed(shared, { party, key, thresholds: THRESHOLDS, binary: true, ...extra });
const batches = owners.map((o, i) => embed(o, 'ABC'[i]));
const maps = owners.map((o) => o.idMapCsv());

function expectCode(fn, code, says = '') {
  assert.throws(fn, (e) => {
    assert.ok(e instanceof Error, `not an Error: ${e}`);
    assert.equal(e.code, code, `code of: ${e.message}`);
    assert.ok(e.message.includes(says), e.message);
    return true;
  });
}

const rowsOf = (text) => text.trim().split('\n').slice(1).map((l) => l.split(','));

test('three parties link into clusters, one row per record, each owner maps its rows back', () => {
  const out = linkParties(batches, { pairs: true, names: ['a.bin', 'b.bin', 'c.bin'] });
  const sizes = held.map((h) => h.length);
  assert.deepEqual(out.parties, ['A', 'B', 'C']);
  assert.deepEqual(out.sizes, sizes);
  const records = sizes.reduce((x, y) => x + y);
  assert.ok(out.cluster instanceof Uint32Array && out.cluster.length === records);
  // vector batches have no fit of their own to warn about
  assert.deepEqual(out.warnings, []);
  // spans: every cluster once, every record once
  assert.equal(out.spans.length, 4);
  assert.equal(out.spans.reduce((x, y) => x + y), out.count);
  assert.equal(out.spans.reduce((x, n, k) => x + k * n, 0), records);
  assert.ok(out.compared >= out.candidates && out.candidates > 0);

  // the CLI's clusters.csv: party,id,cluster, record after record, with the batches' pseudonyms
  assert.equal(out.csv.split('\n')[0], 'party,id,cluster');
  const rows = rowsOf(out.csv);
  assert.equal(rows.length, records);
  assert.deepEqual(rows.map((x) => Number(x[2])), [...out.cluster]);
  assert.ok(rows.every((x) => /^[0-9a-f]{16}$/.test(x[1])), 'the matcher sees pseudonyms');
  const pairs = rowsOf(out.pairsCsv);
  assert.ok(pairs.length > 0 && pairs.every((p) => p[0] !== p[2]), 'pairs join two parties');

  // each owner maps its own rows; the other parties' rows stay pseudonyms
  let mapped = out.csv;
  for (const [i, party] of ['A', 'B', 'C'].entries()) {
    const next = unmapClusters(mapped, party.toLowerCase(), maps[i]);
    assert.ok(rowsOf(next).filter((x) => x[0] === party).every((x) => x[1].startsWith(party)));
    mapped = next;
  }
  expectCode(() => unmapClusters(out.csv, 'A', maps[1]), 'INVALID_FORMAT', "party A's pseudonym");
  expectCode(() => unmapClusters(out.csv, 'A1', maps[0]), 'INVALID_PARAMETER');

  // at most one record of each party in a cluster; the clusters are the places (their ids' numbers)
  const members = new Map();
  for (const [party, id, cluster] of rowsOf(mapped)) {
    assert.equal(id[0], party);
    const m = members.get(cluster) ?? [];
    assert.ok(!m.some((x) => x[0] === party), `two records of party ${party} in cluster ${cluster}`);
    members.set(cluster, [...m, id]);
  }
  const place = (id) => id.slice(1);
  const linked = [...members.values()].filter((m) => m.length > 1);
  const pure = linked.filter((m) => m.every((id) => place(id) === place(m[0]))).length;
  // the places held by two parties or more, and how many of them came out as exactly their cluster
  const holders = new Map();
  for (const h of held) for (const [id] of h) holders.set(place(id), [...(holders.get(place(id)) ?? []), id]);
  const shared2 = [...holders.values()].filter((ids) => ids.length > 1);
  const exact = shared2.filter((ids) => [...members.values()].some((m) => m.length === ids.length && ids.every((id) => m.includes(id)))).length;
  console.log(`# ${records} records of ${cities.length} places: ${out.count} clusters, spans ${out.spans.join('/')}; ${pure} of ${linked.length} linked clusters pure; ${exact} of ${shared2.length} shared places exact`);
  assert.ok(pure >= 0.95 * linked.length, `${pure} of ${linked.length} clusters are one place`);
  assert.ok(exact >= 0.8 * shared2.length, `${exact} of ${shared2.length} places found exactly`);
});

test('bad linkages are refused by their codes', () => {
  const [a, b, c] = batches;
  expectCode(() => linkParties([a]), 'INVALID_PARAMETER', 'two parties at least');
  expectCode(() => linkParties(a), 'INVALID_PARAMETER', 'an array');
  expectCode(() => linkParties([a, b, a], { names: ['a.bin', 'b.bin', 'a-again.bin'] }), 'BATCH_TWICE', 'a-again.bin');
  // C's records again, as party B
  expectCode(() => linkParties([a, b, embed(owners[2], 'B')]), 'PARTY_TWICE', 'party B');
  // A's and C's owners keep their own ids: one place's id in both would be no clash (A17, C17),
  // so C's records go again as party D with C's ids
  const keptC = embed(owners[2], 'C', { keepIds: true });
  expectCode(() => linkParties([a, keptC, embed(owners[2], 'D', { keepIds: true })]), 'ID_CLASH');
  // a batch without thresholds (B's default)
  expectCode(() => linkParties([a, owners[1].embed(shared, { party: 'B', key, binary: true })]), 'INVALID_PARAMETER', 'no thresholds');
  // a party with no records: C's batch emptied
  const empty = JSON.parse(embed(owners[2], 'C', { binary: false }));
  Object.assign(empty, { ids: [], count: 0, grams: [] });
  empty.thresholds.values = [];
  expectCode(() => linkParties([a, b, JSON.stringify(empty)]), 'NO_RECORDS', "party C's batch (batch 3)");
  // another shared base, another key
  const moved = JSON.parse(embed(owners[2], 'C', { binary: false }));
  moved.fingerprint = '0'.repeat(64);
  expectCode(() => linkParties([a, b, JSON.stringify(moved)]), 'FINGERPRINT_MISMATCH');
  expectCode(() => linkParties([a, b, embed(owners[2], 'C', { key: keygen() })]), 'TRANSFORM_MISMATCH');
  // options
  expectCode(() => linkParties([a, b, c], { mergeThreshold: 0 }), 'INVALID_PARAMETER', 'merge threshold');
  expectCode(() => linkParties([a, b, c], { merge: 1 }), 'INVALID_PARAMETER', 'unknown option');
  expectCode(() => linkParties([a, b, c], { names: ['a'] }), 'INVALID_PARAMETER', '1 names for 3 batches');
  // the bases: one party's twice, or not an array
  expectCode(() => DataOwner.mergeAllBases([noisy[0], noisy[1], noisy[0]], MINE), 'BASE_TWICE', 'noisy base 3');
  expectCode(() => DataOwner.mergeAllBases(noisy[0], MINE), 'INVALID_PARAMETER', 'array');
  assert.equal(DataOwner.mergeAllBases([noisy[0], noisy[1]], MINE), DataOwner.mergeBases(noisy[0], noisy[1], MINE));
  // two batches (both with thresholds) cluster as well
  assert.equal(linkParties([a, c]).spans.length, 3);
});

// Record batches of three parties from FEBRL 1: A holds the originals, B the duplicates, C every
// other original under its own ids (`c-` and the record's) with one surname letter changed.
// Each pair of parties goes through the record linker, then the one solver.
test('record batches of three parties link into clusters with a schema', () => {
  const febrl = (name) => readFileSync(new URL(`./febrl-${name}`, import.meta.url), 'utf8');
  // the FEBRL columns that tell people apart (the others are left out of the batches)
  const fields = [['given_name', 'name'], ['surname', 'name'], ['postcode', 'number'], ['date_of_birth', 'date'], ['soc_sec_id', 'number']];
  const schema = {
    version: 1,
    id: 'rec_id',
    epsilon: 0.1,
    field: fields.map(([name, kind]) => (kind === 'date' ? { name, kind, invalid: 'missing' } : { name, kind })),
    block: [{ field: 'surname' }, { field: 'soc_sec_id', ed: 1 }],
  };
  const [header, ...lines] = febrl('dataset1-a.csv').trim().split('\n');
  const cols = header.split(',').map((c) => c.trim());
  const surname = cols.indexOf('surname');
  const r = mulberry32(7);
  const cRows = lines.filter((_, i) => i % 2 === 0).map((l) => {
    const x = l.split(',');
    x[0] = `c-${x[0]}`;
    const s = x[surname].trim();
    if (s.length > 2) x[surname] = ` ${s[0]}${'xqz'[Math.floor(r() * 3)]}${s.slice(2)}`;
    return x.join(',');
  });
  const texts = [febrl('dataset1-a.csv'), febrl('dataset1-b.csv'), [header, ...cRows].join('\n') + '\n'];
  const owners = texts.map((t) => new RecordOwner(t, schema, { seed: 3 }));
  const shared = RecordOwner.mergeAllBases(owners.map((o) => o.mine()), schema);
  const rkey = keygen();
  const rb = owners.map((o, i) => o.embed(shared, { party: 'ABC'[i], key: rkey, keepIds: true }));
  const out = linkParties(rb, { schema, pairs: true });
  assert.equal(out.fingerprint, owners[0].schemaFingerprint);
  assert.equal(out.dim, undefined);
  assert.deepEqual(out.parties, ['A', 'B', 'C']);
  const records = out.sizes.reduce((x, y) => x + y);
  assert.equal(out.cluster.length, records);
  assert.equal(out.spans.reduce((x, n, k) => x + k * n, 0), records);
  // a person is the number in rec-N-…; every record's cluster holds only that person's records
  const person = (id) => id.match(/rec-(\d+)-/)[1];
  const members = new Map();
  for (const [party, id, cluster] of rowsOf(out.csv)) members.set(cluster, [...(members.get(cluster) ?? []), [party, id]]);
  const linked = [...members.values()].filter((m) => m.length > 1);
  const pure = linked.filter((m) => m.every(([, id]) => person(id) === person(m[0][1])));
  assert.ok(linked.every((m) => new Set(m.map(([p]) => p)).size === m.length), 'one record of a party in a cluster');
  // the people every party holds (C's half): found whole
  const whole = linked.filter((m) => m.length === 3 && m.every(([, id]) => person(id) === person(m[0][1]))).length;
  console.log(`# record clusters: ${records} records, ${out.count} clusters, spans ${out.spans.join('/')}; ${pure.length} of ${linked.length} linked clusters pure; ${whole} of ${cRows.length} people of all three found whole`);
  assert.ok(pure.length >= 0.98 * linked.length, `${pure.length} of ${linked.length} clusters are one person`);
  assert.ok(whole >= 0.95 * cRows.length, `${whole} of ${cRows.length}`);
  // record batches without the schema are not vector batches
  assert.throws(() => linkParties(rb), (e) => e.code !== undefined);
  // a record batch twice
  expectCode(() => linkParties([rb[0], rb[1], rb[0]], { schema }), 'BATCH_TWICE');
});
