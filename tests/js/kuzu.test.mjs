// Kuzu et al.'s three roles through the installed npm package (scripts/check-pkg.mjs
// runs this in a fresh project): C makes a 512-bit key (small, for speed: NOT secure)
// and a one-block model, A encrypts six FEBRL 1 records, B compares its six
// duplicates and blinds, C decides; the links, resolved through B's map and A's
// report, are the true pairs the rule accepts. Then progress and cancel, and bad input by error code.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { KuzuOwner, kuzuBlockModel, kuzuDecide, kuzuKeygen } from 'gramlink/lab';
import { KUZU_RULE as rule } from './fixtures.mjs';


// the first six A records and their duplicates in B (FEBRL 1's truth)
const lines = (f) => readFileSync(new URL(`./febrl-${f}`, import.meta.url), 'utf8').trim().split('\n');
const aLines = lines('dataset1-a.csv');
const aCsv = aLines.slice(0, 7).join('\n');
const aIds = aLines.slice(1, 7).map((l) => l.split(',')[0]);
const truth = new Map(lines('dataset1-truth.csv').slice(1).map((l) => l.split(',')));
const bIds = new Set(aIds.map((id) => truth.get(id)));
const bLines = lines('dataset1-b.csv');
const bCsv = [bLines[0], ...bLines.slice(1).filter((l) => bIds.has(l.split(',')[0]))].join('\n');

const key = kuzuKeygen(512, { seed: 7 });
const model = kuzuBlockModel('SMITH\n', { take: 1, blocks: 1, name: 'one block' });

function run({ seed = 1 } = {}) {
  const a = new KuzuOwner(aCsv, rule);
  const b = new KuzuOwner(bCsv, rule);
  const ticks = [];
  const enc = a.encrypt(model, key.publicKey, { epsilon: 50, wn: 10, bRecords: b.size, seed }, (p) => { ticks.push(p); });
  const cmp = b.compare(model, key.publicKey, enc.blocks, { seed: seed + 1 });
  const matches = JSON.parse(kuzuDecide(cmp.pairs, rule, key.privateKey));
  return { a, b, enc, cmp, matches, ticks };
}

test('Kuzu: A, B and C link FEBRL records through the JS API', () => {
  const { a, b, enc, cmp, matches, ticks } = run();
  assert.equal(a.size, 6);
  assert.equal(b.size, 6);
  assert.ok(enc.blocks instanceof Uint8Array && cmp.pairs instanceof Uint8Array);
  assert.equal(key.fingerprint.length, 64);
  assert.ok(ticks.length > 0, 'encrypt reports progress');
  const report = JSON.parse(enc.report);
  assert.equal(report.format, 'gramlink/kuzu-release-report');
  const map = JSON.parse(cmp.map);
  assert.equal(map.pairs.length, report.handles.length * b.size, 'one block: every released record meets every B record');
  assert.equal(matches.format, 'gramlink/kuzu-matches');
  assert.equal(matches.key, key.fingerprint);
  // C's pair ids -> (A handle, B id) with B's map -> (A id, B id) with A's report
  const byPair = new Map(map.pairs.map(([id, handle, bId]) => [id, [handle, bId]]));
  const byHandle = new Map(report.handles);
  const links = matches.pairs.map((id) => { const [h, bId] = byPair.get(id); return [byHandle.get(h), bId]; });
  for (const [aId, bId] of links) {
    assert.notEqual(aId, null, 'a fake record never matches');
    assert.equal(truth.get(aId), bId, `${aId} linked to ${bId}, not its duplicate`);
  }
  // the rule's decisions in the clear: the other three duplicates lost a name (θ 0.6 is not reached)
  assert.deepEqual(links.map(([aId]) => aId).sort(), ['rec-122-org', 'rec-294-org', 'rec-373-org']);
});

test('Kuzu: a progress callback returning false cancels with CANCELLED', () => {
  const a = new KuzuOwner(aCsv, rule);
  assert.throws(() => a.encrypt(model, key.publicKey, { bRecords: 6, seed: 1 }, () => false), { code: 'CANCELLED' });
});

test('Kuzu: bad input is refused by code', () => {
  const a = new KuzuOwner(aCsv, rule);
  const b = new KuzuOwner(bCsv, rule);
  const enc = a.encrypt(model, key.publicKey, { epsilon: 50, wn: 10, bRecords: 6, seed: 3 });
  const other = kuzuKeygen(512, { seed: 8 });
  // B under another key than A's blocks were made with
  assert.throws(() => b.compare(model, other.publicKey, enc.blocks), { code: 'FINGERPRINT_MISMATCH' });
  // another block model
  const model2 = kuzuBlockModel('JONES\n', { take: 1, blocks: 1, name: 'another' });
  assert.throws(() => b.compare(model2, key.publicKey, enc.blocks), { code: 'FINGERPRINT_MISMATCH' });
  // a truncated message
  assert.throws(() => b.compare(model, key.publicKey, enc.blocks.slice(0, enc.blocks.length - 10)), { code: 'TRUNCATED_MESSAGE' });
  // a forged ciphertext: the last one (before the empty last block's count) set to zero
  const forged = enc.blocks.slice();
  forged.fill(0, forged.length - 4 - 128, forged.length - 4);
  assert.throws(() => b.compare(model, key.publicKey, forged), { code: 'INVALID_MESSAGE' });
  // C needs its private key, not the public one
  assert.throws(() => kuzuDecide(new Uint8Array(3), rule, key.publicKey), { code: 'WRONG_MESSAGE_KIND' });
  assert.throws(() => a.encrypt(model, key.publicKey, { bRecords: 6, colour: 1 }), { code: 'INVALID_PARAMETER' });
  assert.throws(() => a.encrypt(model, key.publicKey, {}), { code: 'INVALID_PARAMETER' });
  assert.throws(() => kuzuKeygen(100), { code: 'INVALID_PARAMETER' });
  assert.throws(() => new KuzuOwner('rec_id,given_name\n1,A\n', rule), (e) => typeof e.code === 'string');
});
