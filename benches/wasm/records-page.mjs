// The records pages in headless Chromium, as two owners and the matcher use them (simple
// path, the bundled FEBRL schema): the link time in the matcher page and F1 of the matches.
//   npm run build && node benches/wasm/records-page.mjs A.csv B.csv truth.csv LABEL
// e.g. data/febrl/dataset1-{a,b,truth}.csv, or `gramlink lab corrupt --people 2000` output.
import { start, open, downloadFrom } from '../../tests/e2e/harness.mjs';
import { FEBRL } from '../../www/js/febrl-schema.js';
import { unmapPairs } from '../../pkg/node/gramlink.js';
import { readFileSync } from 'node:fs';
import path from 'node:path';
const [fa, fb, ftruth, label] = process.argv.slice(2);
const h = await start();
try {
  const pa = await h.page(), pb = await h.page(), pm = await h.page();
  await open(pa, h.url, 'records-owner.html'); await open(pb, h.url, 'records-owner.html'); await open(pm, h.url, 'records-matcher.html');
  await pb.selectOption('#party', 'B');
  await pa.setInputFiles('#file', fa); await pb.setInputFiles('#file', fb);
  await pa.waitForFunction(() => document.querySelector('#schema-choice').value === 'febrl');
  await pb.waitForFunction(() => document.querySelector('#schema-choice').value === 'febrl');
  const na = await downloadFrom(pa, '#quick', path.join(h.dir, 'na.json'));
  const nb = await downloadFrom(pb, '#quick', path.join(h.dir, 'nb.json'));
  await pa.setInputFiles('#noisy-a', na); await pa.setInputFiles('#noisy-b', nb);
  const shared = await downloadFrom(pa, '#merge', path.join(h.dir, 'shared.json'));
  await downloadFrom(pa, '#new-key', path.join(h.dir, 'key.txt'));
  await pb.fill('#key', await pa.locator('#key').inputValue());
  await pa.setInputFiles('#shared', shared); await pb.setInputFiles('#shared', shared);
  await pa.evaluate(() => (document.body.dataset.largeDownload = String(1e12)));
  await pb.evaluate(() => (document.body.dataset.largeDownload = String(1e12)));
  const ba = await downloadFrom(pa, '#embed', path.join(h.dir, 'a.glrb'));
  const bb = await downloadFrom(pb, '#embed', path.join(h.dir, 'b.glrb'));
  const schema = h.file('schema.json', JSON.stringify(FEBRL));
  if (await pm.locator('#schema').count()) await pm.setInputFiles('#schema', schema).catch(() => {});
  await pm.setInputFiles('#batch-a', ba); await pm.setInputFiles('#batch-b', bb);
  const t0 = Date.now();
  await pm.click('#link');
  // a warning before linking (after the change) is answered "link anyway"
  await pm.waitForFunction(() => !document.querySelector('#results').hidden || document.querySelector('#link-anyway'), null, { timeout: 900_000 });
  if (await pm.locator('#link-anyway').count()) { await pm.click('#link-anyway'); await pm.waitForSelector('#results:not([hidden])', { timeout: 900_000 }); }
  const wall = Date.now() - t0;
  const status = await pm.locator('#status').textContent();
  const summary = await pm.locator('#summary').textContent();
  const sent = readFileSync(await downloadFrom(pm, '#export', path.join(h.dir, 'pairs.csv')), 'utf8');
  const ma = readFileSync(await downloadFrom(pa, '#download-ids', path.join(h.dir, 'a.ids.csv')), 'utf8');
  const mb = readFileSync(await downloadFrom(pb, '#download-ids', path.join(h.dir, 'b.ids.csv')), 'utf8');
  const rows = unmapPairs(sent, ma, mb).trim().split('\n').slice(1).map((l) => l.split(','));
  const truth = new Set(readFileSync(ftruth, 'utf8').trim().split('\n').slice(1));
  const m = rows.filter((r) => r[2] === 'M');
  const tp = m.filter((r) => truth.has(`${r[0]},${r[1]}`)).length;
  const p = tp / m.length, r = tp / truth.size;
  console.log(`${label}: link wall ${wall} ms; page status "${status}"; M ${m.length}, precision ${p.toFixed(4)}, recall ${r.toFixed(4)}, F1 ${(2 * p * r / (p + r)).toFixed(4)}`);
  console.log(`  summary: ${summary.slice(0, 300)}`);
} finally { await h.close(); }
