// The twin page in headless Chromium: a twin of place names, and of FEBRL records
// under a schema, each with its report on the page and both downloads.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { harness, open, downloadFrom, root } from './harness.mjs';

const h = harness();

test('a twin of strings and of records, made, reported and downloaded in the browser', async () => {
  const page = await h.page();
  await open(page, h.url, 'twin.html');
  const cities = readFileSync(path.join(root, 'data/cities.txt'), 'utf8').split('\n').slice(0, 600).join('\n');
  await page.setInputFiles('#file', h.file('cities.txt', cities));
  await page.fill('#k', '5');
  await page.click('#make');
  await page.waitForSelector('#report-section:not([hidden])', { timeout: 120_000 });
  assert.match(await page.textContent('#banner'), /SYNTHETIC/);
  assert.equal(await page.locator('#fields tbody tr').count(), 1);
  const twin = readFileSync(await downloadFrom(page, '#save-twin', path.join(h.dir, 'twin.txt')), 'utf8');
  const report = JSON.parse(readFileSync(await downloadFrom(page, '#save-report', path.join(h.dir, 'r.json')), 'utf8'));
  assert.equal(report.synthetic, true);
  assert.equal(twin.trim().split('\n').length, report.twinRows);
  assert.match(JSON.stringify(report), /"reassign":\s*true/, 'the paper\'s re-assignment, on by default');

  // records: FEBRL 1's originals under a schema with a categorical field
  const schema = { version: 1, id: 'rec_id', field: [{ name: 'surname', kind: 'name' }, { name: 'state', kind: 'keyed' }] };
  await page.setInputFiles('#schema-file', h.file('schema.json', JSON.stringify(schema)));
  await page.setInputFiles('#file', path.join(root, 'data/febrl/dataset1-a.csv'));
  await page.fill('#length-epsilon', '0.5');
  await page.uncheck('#reassign');
  await page.click('#make');
  await page.waitForFunction(() => document.querySelector('#categorical-out').textContent.includes('KRIMP'), null, { timeout: 120_000 });
  const csv = readFileSync(await downloadFrom(page, '#save-twin', path.join(h.dir, 'twin.csv')), 'utf8');
  assert.ok(csv.startsWith('rec_id,surname,state\nsynthetic-1,'), csv.slice(0, 80));
  const off = readFileSync(await downloadFrom(page, '#save-report', path.join(h.dir, 'r2.json')), 'utf8');
  assert.match(off, /"reassign":\s*false/);
  await page.context().close();
});
