// The whole records flow as three people would do it, each in their own browser context:
// owners A and B and the matcher, on CSVs with ISO dates and their own column names
// (FEBRL 1 renamed), through to the pairs with each owner's own ids, with no CLI step.
// F1 against the truth; the accessibility audit of each page at 0 violations.
// SCREENSHOTS=1 also saves each step at 1366 and 390 px into docs/screenshots/.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { harness, open, downloadFrom, root, audit, handKey, loadShared } from './harness.mjs';

const h = harness();

const febrl = (f) => path.join(root, 'data/febrl', f);
// FEBRL's columns under other names, dates as YYYY-MM-DD (a malformed one left as it is)
const RENAMED = ['person_id', 'first_name', 'last_name', 'house', 'street', 'street_2', 'town', 'zip', 'region', 'birth_date', 'ssn'];
function renamed(file) {
  const rows = readFileSync(febrl(file), 'utf8').trim().split('\n').slice(1).map((l) => l.split(',').map((x) => x.trim()));
  const iso = (d) => (/^\d{8}$/.test(d) ? `${d.slice(0, 4)}-${d.slice(4, 6)}-${d.slice(6)}` : d);
  return [RENAMED.join(','), ...rows.map((r) => r.map((x, i) => (i === 9 ? iso(x) : x)).join(','))].join('\n') + '\n';
}

const WIDTHS = [['1366', { width: 1366, height: 900 }], ['390', { width: 390, height: 844 }]];
/** Each step at 1366 and 390 px into docs/screenshots/, only when SCREENSHOTS=1 (a normal run writes no tracked file). */
async function shot(page, name) {
  if (process.env.SCREENSHOTS !== '1') return;
  const viewport = page.viewportSize();
  for (const [w, vp] of WIDTHS) {
    await page.setViewportSize(vp);
    await page.waitForTimeout(150);
    await page.screenshot({ path: path.join(root, 'docs/screenshots', `records-flow-${name}-${w}.png`), fullPage: true });
  }
  await page.setViewportSize(viewport);
}

test('records flow in three browser contexts: ISO dates, own column names, pairs back with the owners\' ids, no CLI', async () => {
  const pa = await h.page(undefined, { bypassCSP: true });
  const pb = await h.page(undefined, { bypassCSP: true });
  const pm = await h.page(undefined, { bypassCSP: true });
  await open(pa, h.url, 'records-owner.html');
  await open(pb, h.url, 'records-owner.html');
  await open(pm, h.url, 'records-matcher.html');
  const fileA = h.file('clinic-a.csv', renamed('dataset1-a.csv'));
  const fileB = h.file('clinic-b.csv', renamed('dataset1-b.csv'));

  // A: its columns are not FEBRL's, so the schema is guessed; the date format is guessed and shown
  await pa.setInputFiles('#file', fileA);
  await pa.waitForFunction(() => !document.querySelector('#quick').disabled);
  assert.equal(await pa.inputValue('#schema-choice'), 'guessed');
  assert.equal(await pa.isVisible('#date-format-birth_date'), true);
  assert.equal(await pa.inputValue('#date-format-birth_date'), 'YYYY-MM-DD');
  assert.match(await pa.locator('#date-format-birth_date-hint').textContent(), /^Guessed from your first values \(\d{4}-\d\d-\d\d/);
  // the wrong format: the error says what was found and what was expected, not "missing"
  await pa.selectOption('#date-format-birth_date', 'YYYYMMDD');
  await pa.click('#check');
  await pa.waitForSelector('#check-error:not(:empty)');
  assert.match(await pa.locator('#check-error').textContent(), /field "birth_date": no value is a date of format YYYYMMDD \(row 1 has "\d{4}-\d\d-\d\d"\); choose the file's date format/);
  await pa.selectOption('#date-format-birth_date', 'YYYY-MM-DD');
  await shot(pa, '1-owner-file');
  const schema = await downloadFrom(pa, '#save-schema', path.join(h.dir, 'schema.json'));
  const noisyA = await downloadFrom(pa, '#quick', path.join(h.dir, 'noisy-bases-A.json'));
  assert.equal(pa.lastDownload, 'noisy-bases-A.json');
  assert.match(await pa.locator('#loaded').textContent(), /^500 records read/);
  assert.match(await pa.locator('#schema-next').textContent(), /^Send the schema \(Download the schema: schema\.json\) to your partner, party B, and to the matcher/);
  assert.match(await pa.locator('#mine-next').textContent(), /^Send noisy-bases-A\.json to your partner \(party B\)/);
  await shot(pa, '2-owner-mined');

  // B: party B first, the schema A sent, its own file (dates guessed the same way)
  await pb.selectOption('#party', 'B');
  await pb.setInputFiles('#schema-file', schema);
  await pb.setInputFiles('#file', fileB);
  await pb.waitForFunction(() => !document.querySelector('#quick').disabled);
  assert.equal(await pb.inputValue('#schema-choice'), 'partner');
  assert.equal(await pb.inputValue('#date-format-birth_date'), 'YYYY-MM-DD');
  const noisyB = await downloadFrom(pb, '#quick', path.join(h.dir, 'noisy-bases-B.json'));
  assert.equal(pb.lastDownload, 'noisy-bases-B.json');
  // the same schema on both sides: the fingerprints they read to each other agree
  assert.equal(await pb.locator('#schema-fingerprint').textContent(), await pa.locator('#schema-fingerprint').textContent());

  // both merge the two files; the shared bases' fingerprints agree
  for (const p of [pa, pb]) {
    await p.setInputFiles('#noisy-a', noisyA);
    await p.setInputFiles('#noisy-b', noisyB);
  }
  const shared = await downloadFrom(pa, '#merge', path.join(h.dir, 'shared-bases.json'));
  await downloadFrom(pb, '#merge', path.join(h.dir, 'shared-bases-b.json'));
  assert.equal(await pb.locator('#merge-fingerprint').textContent(), await pa.locator('#merge-fingerprint').textContent());
  await shot(pa, '3-owner-merged');

  // A makes the key and sends the file to B (never to the matcher); both embed
  await handKey(pa, pb, path.join(h.dir, 'shared-key.txt'));
  await loadShared([pa, pb], shared);
  for (const p of [pa, pb]) await p.evaluate(() => (document.body.dataset.largeDownload = String(1e12)));
  const batchA = await downloadFrom(pa, '#embed', path.join(h.dir, 'records-a.glrb'));
  const batchB = await downloadFrom(pb, '#embed', path.join(h.dir, 'records-b.glrb'));
  assert.equal(pb.lastDownload, 'records-b.glrb');
  assert.match(await pa.locator('#status').textContent(), /^records-a\.glrb: [\d.]+ MB, about [\d.]+ KB a record/);
  assert.match(await pa.locator('#embed-next').textContent(), /^Send records-a\.glrb to the matcher, with the schema \(schema\.json\)\. Never send the key or the id map\./);
  await shot(pa, '4-owner-embedded');

  // the matcher: the owners' schema file and the two batches
  assert.match(await pm.locator('#link-why').textContent(), /^Link needs/);
  await pm.selectOption('#schema-choice', 'file');
  await pm.setInputFiles('#schema', schema);
  await pm.setInputFiles('#batch-a', batchA);
  await pm.setInputFiles('#batch-b', batchB);
  await pm.click('#link');
  await pm.waitForSelector('#results:not([hidden])', { timeout: 300_000 });
  assert.match(await pm.locator('#summary').textContent(), /^[\d,]+ pairs linked, [\d,]+ to review/);
  assert.match(await pm.locator('#link-next').textContent(), /send record-pairs\.csv to both data owners/);
  await shot(pm, '5-matcher-linked');
  const pairs = await downloadFrom(pm, '#export', path.join(h.dir, 'record-pairs.csv'));
  assert.ok(!readFileSync(pairs, 'utf8').includes('rec-'), 'the matcher never saw a record id');

  // each owner: the pairs with its own ids, in its own page (the id map never left it)
  await pa.setInputFiles('#pairs', pairs);
  const ownA = readFileSync(await downloadFrom(pa, '#unmap', path.join(h.dir, 'own-a.csv')), 'utf8').trim().split('\n');
  await pb.setInputFiles('#pairs', pairs);
  const ownB = readFileSync(await downloadFrom(pb, '#unmap', path.join(h.dir, 'own-b.csv')), 'utf8').trim().split('\n');
  assert.equal(pa.lastDownload, 'record-pairs-a-own-ids.csv');
  await shot(pa, '6-owner-own-ids');
  assert.match(ownA[0], /^a_id,b_id,class,/);
  assert.match(ownA[1], /^rec-\d+-org,[0-9a-f]{16},/);
  assert.match(ownB[1], /^[0-9a-f]{16},rec-\d+-dup-\d+,/);

  // F1 of the linked pairs (class M), the two owners' files side by side, against the truth
  const truth = new Set(readFileSync(febrl('dataset1-truth.csv'), 'utf8').trim().split('\n').slice(1));
  const linked = ownA.slice(1).map((l, i) => [l.split(','), ownB[i + 1].split(',')]).filter(([a]) => a[2] === 'M').map(([a, b]) => `${a[0]},${b[1]}`);
  const tp = linked.filter((p) => truth.has(p)).length;
  const precision = tp / linked.length;
  const recall = tp / truth.size;
  const f1 = (2 * precision * recall) / (precision + recall);
  console.log(`# records flow, ISO dates, own columns: ${linked.length} linked, precision ${precision.toFixed(4)}, recall ${recall.toFixed(4)}, F1 ${f1.toFixed(4)}`);
  assert.ok(f1 >= 0.99, `F1 ${f1}`);

  // the accessibility audit of every page at the end of its flow: no violation at all
  for (const [name, p] of [['records-owner A', pa], ['records-owner B', pb], ['records-matcher', pm]]) {
    const v = await audit(p);
    assert.deepEqual(v, [], `${name}: ${JSON.stringify(v)}`);
  }
  for (const p of [pa, pb, pm]) assert.deepEqual(p.errors, []);
});
