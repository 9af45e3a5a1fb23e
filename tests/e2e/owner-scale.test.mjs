// End-to-end tests of the web app in headless Chromium, part two (app.test.mjs is part one):
// the demo page's scenario, NAMES (149,910 rows) on the owner page, and the owner page's
// privacy ledger per file.
//   npm run test:e2e   (after npm run build)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { harness, text, open, downloadFrom, screenshots, ownerFixtures, root, openAdvanced, ownerLoadAndMine, refused } from './harness.mjs';

const h = harness();

test('demo page: the scenario gives F1, timings, sample and three charts; bad parameters are refused', async () => {
  const p = await h.page();
  const res = await open(p, h.url, 'demo.html');
  assert.match(res.headers()['content-security-policy'], /connect-src 'self'/);
  assert.match(await text(p, 'footer'), /GeoNames/);
  assert.equal(await p.locator('#preset').inputValue(), 'recommended');
  assert.equal(await p.locator('#rule').inputValue(), 'ranked');
  assert.equal(await p.locator('#mode').inputValue(), 'sound');
  assert.equal(await p.locator('#q-min').inputValue(), '3');
  await p.selectOption('#dataset', 'cities');
  await p.fill('#n', '400');
  await refused(p, { '#q-min': '3', '#q-max': '2' }, '#run', '#q-max-error', /at least the shortest/);
  await refused(p, { '#q-min': '1', '#q-max': '3', '#epsilon': '-1' }, '#run', '#epsilon-error', /greater than 0/);
  await p.fill('#epsilon', '1');
  await p.click('#run');
  await p.waitForSelector('#result:not([hidden]), #run-error:not(:empty)', { timeout: 120_000 });
  assert.equal(await text(p, '#run-error'), '');
  const f1 = Number(await p.locator('#result').getAttribute('data-f1'));
  console.log(`# demo, CITIES first 400, ε = 1, recommended (q 1–3 mined): F1 ${f1.toFixed(3)}`);
  // the result is scrolled into sight (it is drawn below the settings)
  const top = await p.locator('#result').evaluate((e) => e.getBoundingClientRect().top);
  assert.ok(top > -1 && top < (await p.evaluate(() => innerHeight)), `the result's top at ${top} px is above the fold`);
  assert.ok(f1 > 0 && f1 <= 1);
  assert.match(await text(p, '#result-summary'), /shared base of (\d{4}|7[5-9]\d|[89]\d\d) grams/, 'public 2-grams in the base');
  assert.ok((await p.locator('#sample tbody tr').count()) > 0);
  assert.ok((await p.locator('#timings tbody tr').count()) > 3);
  await p.click('#charts');
  await p.waitForSelector('#chart-section[data-drawn="true"], #run-error:not(:empty)', { timeout: 600_000 });
  assert.equal(await text(p, '#run-error'), '');
  assert.equal(await p.locator('#chart-section canvas').count(), 3);
  console.log(`# demo charts: ${await text(p, '#charts-summary')}`);
  await screenshots(p, 'demo');
  // the paper's configuration, a choice
  await p.selectOption('#preset', 'paper');
  assert.equal(await p.locator('#q-min').inputValue(), '1');
  assert.equal(await p.locator('#rule').inputValue(), 'all');
  assert.equal(await p.locator('#mode').inputValue(), 'paper');
  await p.click('#run');
  await p.waitForFunction(() => /shared base of \d{1,2} grams/.test(document.querySelector('#result-summary').textContent), null, { timeout: 120_000 });
  assert.equal(await text(p, '#run-error'), '');
  console.log(`# demo, CITIES first 400, ε = 1, paper: F1 ${Number(await p.locator('#result').getAttribute('data-f1')).toFixed(3)}`);
  assert.equal(await p.locator('#twin-report').isHidden(), true);
  // on a twin made in the browser: a k above the records is named; then the twin's report beside the result
  await p.selectOption('#party-a', 'twin');
  await p.fill('#twin-k', '500');
  await p.click('#run');
  await p.waitForSelector('#twin-k-error:not(:empty), #run-error:not(:empty)', { timeout: 60_000 });
  assert.match(await text(p, '#twin-k-error'), /TOO_FEW_RECORDS/);
  await p.fill('#twin-k', '5');
  await p.click('#run');
  await p.waitForSelector('#twin-report:not([hidden]), #run-error:not(:empty)', { timeout: 120_000 });
  assert.equal(await text(p, '#run-error'), '');
  assert.match(await text(p, '#twin-summary'), /^SYNTHETIC: party A held \d+ pseudo-strings condensed from the first 400 records \(\d+ groups of at least 5/);
  const twinF1 = Number(await p.locator('#result').getAttribute('data-f1'));
  console.log(`# demo on a twin (k = 5) of CITIES first 400, paper: F1 ${twinF1.toFixed(3)}`);
  assert.ok(twinF1 > 0 && twinF1 <= 1);
  const pi = await h.page();
  await pi.goto(h.url);
  await screenshots(pi, 'index');
  assert.deepEqual(p.errors, []);
});

test('NAMES (149,910 rows) on the owner page: timing of each step; the page stays responsive; Cancel works', async () => {
  const p = await h.page();
  await open(p, h.url, 'owner.html');
  await openAdvanced(p);
  const names = path.join(root, 'data/names.txt');
  const t = {};
  let t0 = Date.now();
  await p.setInputFiles('#file', names);
  // room for the cancelled mining (it keeps its ε) and the real one
  await p.fill('#owner-budget', '0.2');
  await p.click('#load');
  await p.waitForSelector('#preview:not([hidden])', { timeout: 300_000 });
  t.normalize = Date.now() - t0;
  assert.match(await text(p, '#norm-summary'), /149,910 records/);

  // the paper's configuration: the recommended one's ~860 dense dimensions would make a
  // vector batch of ~0.5 GB for 149,910 records (the timing here is of the paper's pipeline)
  await p.selectOption('#preset', 'paper');
  // cancel a mining (a slow one, FPM up to 4-grams, so the click lands during it), then mine for real
  await p.selectOption('#miner', 'fpm');
  await p.fill('#q-max', '4');
  await p.click('#mine');
  await p.waitForSelector('#cancel:not([hidden])');
  await p.click('#cancel');
  await p.waitForFunction(() => /cancelled: no base was made, but its ε stays spent/.test(document.querySelector('#progress-text').textContent), null, { timeout: 300_000 });
  // Mine comes back only once the fresh worker holds the records again
  assert.equal(await p.locator('#mine').isDisabled(), false);
  // its progress depended on the noisy counts: the cancelled mining's ε is not given back
  assert.match(await text(p, '#budget-text'), /^0\.1000 of 0\.2000/);

  await p.selectOption('#miner', 'prefix-tree');
  await p.fill('#q-max', '3');
  t0 = Date.now();
  await p.click('#mine');
  // while the worker mines, the page answers at once
  let worst = 0;
  const deadline = Date.now() + 300_000;
  while (await p.locator('#base-out').isHidden()) {
    // a mining that ends without a base (an error) must fail the test, not hang it
    assert.ok(Date.now() < deadline, `no base after 300 s: ${await text(p, '#progress-text')} ${await text(p, '#mine-error').catch(() => '')}`);
    const s = Date.now();
    await p.evaluate(() => document.querySelector('#progress-text').textContent);
    worst = Math.max(worst, Date.now() - s);
    await p.waitForTimeout(100);
  }
  t.mine = Date.now() - t0;
  // the partner: another owner page, the same configuration, its own (smaller) file
  // (the page refuses one's own base given as the partner's)
  const q = await h.page();
  await open(q, h.url, 'owner.html');
  await openAdvanced(q);
  const cities = readFileSync(path.join(root, 'data/cities.txt'), 'utf8').split('\n').slice(0, 1000).join('\n') + '\n';
  await q.setInputFiles('#file', h.file('names-partner.txt', cities));
  await q.click('#load');
  await q.waitForSelector('#preview:not([hidden])');
  await q.selectOption('#preset', 'paper');
  await q.selectOption('#miner', 'prefix-tree');
  await q.fill('#q-max', '3');
  await q.click('#mine');
  await q.waitForSelector('#base-out:not([hidden])', { timeout: 120_000 });
  const partner = await downloadFrom(q, '#download-base', path.join(h.dir, 'names-partner.noisy-base.json'));
  await p.setInputFiles('#partner', partner);
  t0 = Date.now();
  await p.click('#merge');
  await p.waitForSelector('#merge-out:not([hidden])');
  t.merge = Date.now() - t0;
  await downloadFrom(p, '#new-key', path.join(h.dir, 'names-key.txt'));
  t0 = Date.now();
  await downloadFrom(p, '#embed', path.join(h.dir, 'names.vectors.bin'));
  t['embed+thresholds'] = Date.now() - t0;
  const total = Object.values(t).reduce((a, b) => a + b, 0);
  console.log(`# NAMES on the owner page (149,910 rows, prefix tree, paper configuration): ${Object.entries(t).map(([k, v]) => `${k} ${v} ms`).join(', ')}; total ${total} ms; slowest page answer while mining ${worst} ms`);
  assert.match(await text(p, '#embed-out'), /149,910 records/);
  await screenshots(p, 'owner-names');
  assert.deepEqual(p.errors, []);
});

/** Loads `csv` (its name column) on an open owner page with a budget of ε 0.5, up to the preview. */
async function loadWithBudget(page, csv) {
  await page.setInputFiles('#file', csv);
  await page.selectOption('#column', 'name');
  await openAdvanced(page);
  await page.fill('#owner-budget', '0.5');
  await page.click('#load');
  await page.waitForSelector('#preview:not([hidden])');
}

test('the owner page keeps its privacy ledger per file: Load, a reload and a cancel never reset the meter; it exports', async () => {
  const fx = ownerFixtures('cities.txt', 200);
  const csv = h.file('ledger.csv', fx.a);
  const p = await h.page();
  await open(p, h.url, 'owner.html');
  await ownerLoadAndMine(p, csv, { epsilon: '0.5' });
  // what the mining spent (the prefix tree may stop before it spends all it was given)
  const meter = await text(p, '#budget-text');
  assert.match(meter, /^0\.(?!0000)\d{4} of 0\.5000/);
  // Load and normalize again: the meter stays
  await p.click('#load');
  await p.waitForSelector('#load-status:has-text("loaded")');
  assert.equal(await text(p, '#budget-text'), meter);
  // a reload of the page, the same file: the ledger is still there and refuses a second mining
  await p.reload();
  await p.waitForSelector('body[data-ready="true"]');
  await loadWithBudget(p, csv);
  assert.equal(await text(p, '#budget-text'), meter);
  assert.match(await text(p, '#ledger-text'), /spent so far on this file in this browser: ε 0\.\d{4} in 1 mining$/);
  await refused(p, { '#epsilon': '0.5' }, '#mine', '#epsilon-error', /spent ε 0\.\d{4} of its total 0\.5000; this mining asks for ε 0\.5 more.*BUDGET_EXCEEDED/);
  const exported = JSON.parse(readFileSync(await downloadFrom(p, '#ledger-export', path.join(h.dir, 'ledger.ledger.json')), 'utf8'));
  assert.equal(exported.format, 'gramlink privacy ledger');
  assert.equal(exported.spends.length, 1);
  assert.match(exported.spends[0].released, /noisy base of \d+ grams/);
  assert.deepEqual(p.errors, []);

  // another browser (a fresh context: its own storage) knows nothing of it until the
  // party imports its ledger; a ledger the CLI kept for the same data counts the same way
  const q = await h.page();
  await open(q, h.url, 'owner.html');
  await loadWithBudget(q, csv);
  assert.match(await text(q, '#budget-text'), /^0\.0000 of 0\.5000/);
  const cli = {
    format: 'gramlink privacy ledger', version: 1, data: 'ledger.csv', total: 0.5, spent: 0.125,
    spends: [{ at: '2026-11-25T00:00:00Z', command: 'gramlink mine --input ledger.csv', epsilon: 0.125, released: 'noisy base of 80 grams' }],
  };
  await q.setInputFiles('#ledger-import', h.file('ledger.cli.ledger.json', JSON.stringify(cli)));
  await q.waitForFunction(() => /imported from/.test(document.querySelector('#ledger-text').textContent));
  assert.match(await text(q, '#budget-text'), /^0\.1250 of 0\.5000/);
  const fromPage = path.join(h.dir, 'ledger.ledger.json');
  await q.setInputFiles('#ledger-import', fromPage);
  await q.waitForFunction(() => /2 minings/.test(document.querySelector('#ledger-text').textContent));
  // the page's spend and the CLI's together: the same mining is refused here too
  await refused(q, { '#epsilon': '0.5' }, '#mine', '#epsilon-error', /BUDGET_EXCEEDED/);
  // a damaged ledger is refused by name, and the meter stays
  const meter2 = await text(q, '#budget-text');
  await q.setInputFiles('#ledger-import', h.file('bad.ledger.json', JSON.stringify({ ...cli, spent: 0.01 })));
  await q.waitForSelector('#ledger-import-error:not(:empty)');
  assert.match(await text(q, '#ledger-import-error'), /INVALID_LEDGER/);
  assert.equal(await text(q, '#budget-text'), meter2);
  assert.deepEqual(q.errors, []);
});
