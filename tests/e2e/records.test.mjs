// The records pages end to end in headless Chromium: two data owners make a schema,
// mine, merge and embed FEBRL data set 1; the matcher links the batches, moves the
// thresholds, reviews a possible match and exports; screenshots.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import * as gl from '../../pkg/node/gramlink.js';
import { FEBRL } from '../../www/js/febrl-schema.js';
import { harness, open, downloadFrom, screenshots, root, audit, serious, LAPTOP } from './harness.mjs';

const h = harness();

const febrl = (f) => path.join(root, 'data/febrl', f);

async function check(page) {
  await page.click('#check');
  await page.waitForSelector('#split-out:not([hidden])', { timeout: 60_000 });
}

/** Sets a range input as a user's drag would end. */
async function slide(page, id, value) {
  await page.locator(`#${id}`).evaluate((el, v) => {
    el.value = String(v);
    el.dispatchEvent(new Event('input', { bubbles: true }));
    el.dispatchEvent(new Event('change', { bubbles: true }));
  }, value);
}

test('two owners and the matcher link FEBRL 1 as whole records in the browser', async () => {
  const pa = await h.page();
  const pb = await h.page();
  // the matcher's context bypasses the page's CSP for the accessibility audit of its results
  const pm = await h.page(LAPTOP, { bypassCSP: true });
  await open(pa, h.url, 'records-owner.html');
  await open(pb, h.url, 'records-owner.html');
  await open(pm, h.url, 'records-matcher.html');

  // A: FEBRL's columns choose the bundled schema by default (the simple path, its own
  // test below); here A makes a schema from the kinds guessed from the header and values,
  // under "Advanced", then sends it to B
  await pa.setInputFiles('#file', febrl('dataset1-a.csv'));
  await pa.waitForFunction(() => !document.querySelector('#quick').disabled);
  assert.equal(await pa.inputValue('#schema-choice'), 'febrl');
  await pa.selectOption('#schema-choice', 'guessed');
  await pa.click('#advanced-schema summary');
  await pa.waitForSelector('#columns:not([hidden])');
  const kind = (c) => pa.locator(`#columns tr[data-column="${c}"] select`).inputValue();
  assert.equal(await kind('rec_id'), 'id');
  assert.equal(await kind('given_name'), 'name');
  assert.equal(await kind('date_of_birth'), 'date');
  // a few values: left out by default (even keyed, the matcher names them by frequency);
  // chosen keyed here, to test the key's path
  assert.equal(await kind('state'), 'suppress');
  await pa.selectOption('#columns tr[data-column="state"] select', 'keyed');
  assert.equal(await kind('soc_sec_id'), 'number');
  assert.equal(await kind('address_1'), 'string');
  await check(pa);
  const split = await pa.locator('#split tbody').textContent();
  assert.match(split, /names.*given_name, surname/);
  await screenshots(pa, 'records-owner');
  const schema = await downloadFrom(pa, '#save-schema', path.join(h.dir, 'schema.json'));
  assert.equal(JSON.parse(readFileSync(schema, 'utf8')).id, 'rec_id');

  // B takes A's schema as it is
  await pb.setInputFiles('#schema-file', schema);
  await pb.setInputFiles('#file', febrl('dataset1-b.csv'));
  await check(pb);
  await pb.selectOption('#party', 'B');

  const noisyA = await downloadFrom(pa, '#mine', path.join(h.dir, 'noisy-a.json'));
  const noisyA0 = () => noisyA;
  const noisyB = await downloadFrom(pb, '#mine', path.join(h.dir, 'noisy-b.json'));
  // the file carries the party, and the page says where it goes
  assert.equal(pb.lastDownload, 'noisy-bases-B.json');
  assert.match(await pb.locator('#mine-next').textContent(), /^Send noisy-bases-B\.json to your partner \(party A\)/);
  assert.match(await pb.locator('#mined').textContent(), /^Grams mined: names \d+/);
  // the same file twice is refused by the page
  await pb.setInputFiles('#noisy-a', noisyB);
  await pb.setInputFiles('#noisy-b', noisyB);
  await pb.click('#merge');
  await pb.waitForSelector('#noisy-b-error:not(:empty)');
  assert.match(await pb.locator('#noisy-b-error').textContent(), /same file twice/);
  await pb.setInputFiles('#noisy-a', noisyA0());
  // mining twice would spend ε twice: the button is off after one run
  assert.equal(await pa.locator('#mine').isDisabled(), true);
  await pa.setInputFiles('#noisy-a', noisyA);
  await pa.setInputFiles('#noisy-b', noisyB);
  const shared = await downloadFrom(pa, '#merge', path.join(h.dir, 'shared.json'));
  // both merge the same two files: the fingerprints they read to each other agree
  await downloadFrom(pb, '#merge', path.join(h.dir, 'shared-b.json'));
  const fpA = await pa.locator('#merge-fingerprint').textContent();
  assert.match(fpA, /^([0-9a-f]{4} ){7}[0-9a-f]{4}$/);
  assert.equal(await pb.locator('#merge-fingerprint').textContent(), fpA);
  assert.equal(await pa.locator('#schema-fingerprint').textContent(), await pb.locator('#schema-fingerprint').textContent());

  // embedded fields leave keyed: without the key the page refuses (KEY_REQUIRED); with the
  // unkeyed choice, the keyed field still needs the key
  await pa.setInputFiles('#shared', shared);
  await pa.click('#embed');
  await pa.waitForFunction(() => document.querySelector('#key-error').textContent.length > 0);
  assert.match(await pa.locator('#key-error').textContent(), /press New key and send the key file to your partner/);
  await pa.check('#no-key');
  assert.equal(await pa.locator('#key').isDisabled(), true);
  await pa.click('#embed');
  await pa.waitForFunction(() => /state/.test(document.querySelector('#key-error').textContent));
  await pa.uncheck('#no-key');
  await downloadFrom(pa, '#new-key', path.join(h.dir, 'key.txt'));
  const key = await pa.locator('#key').inputValue();
  assert.match(key, /^[0-9a-f]{64}$/);
  await pb.fill('#key', key);
  await pb.setInputFiles('#shared', shared);
  const batchA = await downloadFrom(pa, '#embed', path.join(h.dir, 'a.glrb'));
  // a file above the page's large-download size (lowered here) waits for the user's word
  await pb.evaluate(() => (document.body.dataset.largeDownload = '1000'));
  await pb.click('#embed');
  await pb.waitForSelector('#embed-warning .warning');
  assert.match(await pb.locator('#embed-warning').textContent(), /records-b\.glrb is [\d.]+ MB \([\d,]+ bytes\)/);
  const batchB = await downloadFrom(pb, '#embed-warning button.download-anyway', path.join(h.dir, 'b.glrb'));
  assert.equal(await pb.locator('#embed-warning .warning').count(), 0);
  // the batches carry random codes: each owner keeps the map back to its record ids
  assert.match(await pa.locator('#status').textContent(), /ids replaced by random codes/);
  const mapA = readFileSync(await downloadFrom(pa, '#download-ids', path.join(h.dir, 'a.ids.csv')), 'utf8');
  const mapB = readFileSync(await downloadFrom(pb, '#download-ids', path.join(h.dir, 'b.ids.csv')), 'utf8');
  assert.match(mapA.split('\n')[1], /^[0-9a-f]{16},rec-\d+-org$/);

  // the matcher: a disabled Link says why; the owners' schema file (not the bundled one)
  assert.equal(await pm.locator('#link').isDisabled(), true);
  assert.match(await pm.locator('#link-why').textContent(), /^Link needs party A's record batch and party B's record batch\.$/);
  await pm.selectOption('#schema-choice', 'file');
  assert.match(await pm.locator('#link-why').textContent(), /^Link needs the schema file, party A's/);
  await pm.setInputFiles('#schema', schema);
  await pm.setInputFiles('#batch-a', batchA);
  await pm.setInputFiles('#batch-b', batchB);
  assert.equal(await pm.locator('#link-why').textContent(), '');
  // batches swapped are refused, then linked the right way round
  await pm.setInputFiles('#schema', schema);
  await pm.setInputFiles('#batch-a', batchB);
  await pm.setInputFiles('#batch-b', batchA);
  await pm.click('#link');
  await pm.waitForFunction(() => [...document.querySelectorAll('.error')].some((e) => /party A/.test(e.textContent)));
  // in the page's words first, the core's message under "Details"
  assert.match(await pm.locator('#batch-b-error').textContent(), /^The two batches look swapped: put party A's batch \(records-a\.glrb\) in the first box.*\(Details: .*found B and A/);
  await pm.setInputFiles('#batch-a', batchA);
  await pm.setInputFiles('#batch-b', batchB);
  await pm.click('#link');
  await pm.waitForSelector('#results:not([hidden])', { timeout: 120_000 });
  const matches = Number(await pm.locator('#summary').getAttribute('data-matches'));
  // the review band is not empty by construction
  assert.ok(Number(await pm.locator('#summary').getAttribute('data-possible')) >= 0);
  assert.ok(Number(await pm.locator('#lower').inputValue()) < Number(await pm.locator('#upper').inputValue()), 'the proposed thresholds leave a review band');
  assert.ok(matches >= 495 && matches <= 500, `${matches} matches`);
  assert.equal(await pm.locator('#fit tbody tr').count(), 10);
  assert.ok(await pm.locator('#histogram canvas').count() >= 1, 'the histogram is drawn');
  await screenshots(pm, 'records-matcher');
  const violations = await audit(pm);
  console.log(`# records-matcher.html with results: ${violations.length} violations${violations.map((v) => `; ${v.impact} ${v.id}`).join('')}`);
  assert.deepEqual(serious(violations), []);

  // a higher upper threshold: fewer M, some P; accept the first P and export
  const upper = Number(await pm.locator('#upper').inputValue());
  const top = Number(await pm.locator('#upper').getAttribute('max'));
  await slide(pm, 'upper', top - 10);
  await slide(pm, 'lower', upper);
  await pm.waitForFunction((m) => Number(document.querySelector('#summary').dataset.matches) < m, matches);
  const possible = Number(await pm.locator('#summary').getAttribute('data-possible'));
  assert.ok(possible > 0, 'pairs between the thresholds are possible matches');
  await pm.click('#tab-P');
  await pm.locator('#pairs button.review', { hasText: 'Accept' }).first().click();
  await pm.waitForFunction(() => /1 possible matches accepted/.test(document.querySelector('#summary-details').textContent));
  assert.match(await pm.locator('#summary').textContent(), /^\d+ pairs linked, \d+ to review .* 1 accepted in review\./);
  const sent = readFileSync(await downloadFrom(pm, '#export', path.join(h.dir, 'pairs.csv')), 'utf8');
  assert.ok(!sent.includes('rec-'), 'the matcher never saw a record id');
  // step 4 on each owner's page: the pairs with its own ids, from the map kept in the tab
  const pairsFile = path.join(h.dir, 'pairs.csv');
  await pa.setInputFiles('#pairs', pairsFile);
  const ownA = readFileSync(await downloadFrom(pa, '#unmap', path.join(h.dir, 'own-a.csv')), 'utf8').trim().split('\n');
  await pb.setInputFiles('#pairs', pairsFile);
  const ownB = readFileSync(await downloadFrom(pb, '#unmap', path.join(h.dir, 'own-b.csv')), 'utf8').trim().split('\n');
  assert.match(ownA[1], /^rec-\d+-org,[0-9a-f]{16},/, 'A sees its own ids, B\'s codes');
  assert.match(ownB[1], /^[0-9a-f]{16},rec-\d+-dup-\d+,/, 'B sees its own ids, A\'s codes');
  assert.match(await pa.locator('#unmap-out').textContent(), /pairs with your own ids saved as record-pairs-a-own-ids\.csv/);
  // both sides' ids together (what the owners would learn by comparing): the truth's pairs
  const bOf = new Map(ownB.slice(1).map((l, i) => [i, l.split(',')[1]]));
  const csv = [ownA[0], ...ownA.slice(1).map((l, i) => { const c = l.split(','); c[1] = bOf.get(i); return c.join(','); })];
  assert.match(csv[0], /^a_id,b_id,class,weight,probability,swapped,review,given_name/);
  assert.equal(csv.filter((l) => l.includes(',accepted,')).length, 1);
  const truth = new Set(readFileSync(febrl('dataset1-truth.csv'), 'utf8').trim().split('\n').slice(1));
  const m = csv.slice(1).filter((l) => l.split(',')[2] === 'M');
  assert.ok(m.length > 0 && m.every((l) => truth.has(l.split(',').slice(0, 2).join(','))), 'every match above a high threshold is true');
  for (const p of [pa, pb, pm]) assert.deepEqual(p.errors, []);
});

test('records owner page, the simple path: file, one button; FEBRL\'s schema when the columns are FEBRL\'s', async () => {
  const p = await h.page();
  await open(p, h.url, 'records-owner.html');
  // the expert settings folded, their defaults filled in
  assert.equal(await p.locator('#advanced-schema').getAttribute('open'), null);
  assert.equal(await p.isVisible('#epsilon'), false);
  assert.equal(await p.inputValue('#epsilon'), '0.1');
  // columns that are not FEBRL's: the schema guessed from them, and the page says so
  await p.setInputFiles('#file', h.file('people.csv', 'id,name,city\n1,Ann Lee,Oslo\n2,Bo Kim,Rome\n'));
  await p.waitForFunction(() => !document.querySelector('#quick').disabled);
  assert.equal(await p.inputValue('#schema-choice'), 'guessed');
  assert.equal(await p.locator('#schema-choice option[value=febrl]').isDisabled(), true);
  assert.match(await p.locator('#schema-hint').textContent(), /not all FEBRL's/);
  // FEBRL's columns: the bundled schema, one button checks and mines
  await p.setInputFiles('#file', febrl('dataset1-b.csv'));
  await p.waitForFunction(() => document.querySelector('#schema-choice').value === 'febrl');
  const noisy = JSON.parse(readFileSync(await downloadFrom(p, '#quick', path.join(h.dir, 'noisy-simple.json')), 'utf8'));
  assert.ok(noisy, 'the noisy bases downloaded');
  assert.match(await p.locator('#loaded').textContent(), /^500 records/);
  assert.equal(await p.locator('#quick').isDisabled(), true, 'mined once: the button is off');
  assert.equal(await p.locator('#advanced-schema').getAttribute('open'), null);
  assert.deepEqual(p.errors, []);
  await p.context().close();
});

test('records owner page streams the file to the worker: a file past the page\'s 64 KiB head is read whole, a cut-off one is a named error', async () => {
  const p = await h.page();
  // every read of a Blob's bytes on the page's thread, by size (the worker's stream is not one)
  await p.addInitScript(() => {
    window.blobReads = [];
    for (const m of ['arrayBuffer', 'text', 'bytes']) {
      const f = Blob.prototype[m];
      if (f) Blob.prototype[m] = function (...a) { window.blobReads.push(this.size); return f.apply(this, a); };
    }
  });
  await open(p, h.url, 'records-owner.html');
  // 400 KB: the page holds only its first 64 KiB (columns, preview); the worker reads every record
  await p.setInputFiles('#file', febrl('dataset2-a.csv'));
  await p.waitForFunction(() => !document.querySelector('#check').disabled);
  assert.equal(await p.inputValue('#schema-choice'), 'febrl');
  await check(p);
  assert.match(await p.locator('#loaded').textContent(), /^4,000 records/);
  const reads = await p.evaluate(() => window.blobReads);
  assert.ok(reads.length > 0 && reads.every((n) => n <= 65536), `the page read only heads: ${reads}`);
  // the same file cut off inside a quoted field: the core's error at the end of the stream, no table
  const cut = `${readFileSync(febrl('dataset1-a.csv'), 'utf8')}rec-9-org,"open`;
  await p.setInputFiles('#file', h.file('cut.csv', cut));
  await p.waitForFunction(() => !document.querySelector('#quick').disabled);
  await p.click('#check');
  await p.waitForSelector('#check-error:not(:empty)');
  assert.match(await p.locator('#check-error').textContent(), /quoted field opened on line 502 is never closed.*MALFORMED_CSV/);
  assert.equal(await p.locator('#split-out').isHidden(), true);
  assert.equal(await p.locator('#mine').isDisabled(), true);
  assert.deepEqual(p.errors, []);
  await p.context().close();
});

test('records matcher page: a blocking rule that admits most pairs is named before linking', async () => {
  // the owners' schema with a loose rule (a four-digit postcode within four edits);
  // batches made with the package, as the owner pages make them
  const schema = { ...FEBRL, block: [...FEBRL.block, { field: 'postcode', ed: 4 }] };
  const owner = (f) => new gl.RecordOwner(readFileSync(febrl(f)), schema);
  const [a, b] = [owner('dataset1-a.csv'), owner('dataset1-b.csv')];
  const shared = gl.RecordOwner.mergeBases(a.mine(), b.mine(), schema);
  const key = gl.keygen();
  const p = await h.page();
  await open(p, h.url, 'records-matcher.html');
  await p.selectOption('#schema-choice', 'file');
  await p.setInputFiles('#schema', h.file('loose.json', JSON.stringify(schema)));
  await p.setInputFiles('#batch-a', h.file('loose-a.glrb', a.embed(shared, { party: 'A', key })));
  await p.setInputFiles('#batch-b', h.file('loose-b.glrb', b.embed(shared, { party: 'B', key })));
  await p.click('#link');
  await p.waitForSelector('#link-warning .warning', { timeout: 60_000 });
  assert.match(await p.locator('#link-warning').textContent(), /The blocking rule "postcode within 4 edits" makes [\d,]+ of all 250,000 pairs \(5\d %\) candidates/);
  await p.click('#link-warning button.secondary');
  assert.equal(await p.locator('#results').isHidden(), true);
  assert.equal(await p.locator('#link').isDisabled(), false);
  assert.deepEqual(p.errors, []);
  await p.context().close();
});
