// End-to-end tests of the web app in headless Chromium (playwright-core driving
// Debian's /usr/bin/chromium): two data owners and the matcher, the demo, every
// error display, the no-network guarantee, screenshots (target/e2e-screenshots/). The demo,
// NAMES at scale and the privacy ledger are in owner-scale.test.mjs.
//   npm run test:e2e   (after npm run build)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { harness, text, open, downloadFrom, screenshots, ownerFixtures, root, openAdvanced, ownerLoadAndMine, handKey, refused } from './harness.mjs';
import { mkdirSync } from 'node:fs';

const h = harness();

test('two data owners exchange files through the owner page; the matcher links them; no network request', async () => {
  const fx = ownerFixtures('cities.txt', 1000);
  const csvA = h.file('owner-a.csv', fx.a);
  const csvB = h.file('owner-b.csv', fx.b);
  const pa = await h.page();
  const pb = await h.page();
  const resA = await open(pa, h.url, 'owner.html');
  await open(pb, h.url, 'owner.html');

  // the policy is in the header (and the page's <meta>)
  const policy = resA.headers()['content-security-policy'];
  assert.match(policy, /connect-src 'none'/);
  assert.match(await pa.locator('meta[http-equiv="Content-Security-Policy"]').getAttribute('content'), /connect-src 'none'/);

  // from here on, every request of either owner page is recorded
  const requests = [];
  for (const p of [pa, pb]) p.on('request', (r) => requests.push(`${r.method()} ${r.url()}`));

  // the pages start in the recommended configuration
  assert.equal(await pa.locator('#preset').inputValue(), 'recommended');
  assert.equal(await pa.locator('#q-min').inputValue(), '3');
  assert.equal(await pa.locator('#mode').inputValue(), 'sound');
  assert.match(await text(pa, '#preset-note'), /public 2-gram.*\^record\$.*sound thresholds.*ranked/);
  await ownerLoadAndMine(pa, csvA);
  await ownerLoadAndMine(pb, csvB);
  assert.match(await text(pa, '#norm-summary'), /1,000 records: 1,000 kept/);
  assert.match(await text(pa, '#budget-text'), /^1\.0000 of 1\.0000/);
  const baseA = await downloadFrom(pa, '#download-base', path.join(h.dir, 'a.noisy-base.json'));
  const baseB = await downloadFrom(pb, '#download-base', path.join(h.dir, 'b.noisy-base.json'));
  const noisyA = JSON.parse(readFileSync(baseA, 'utf8'));
  assert.equal(noisyA.format, 'gramlink/noisy-base');
  assert.ok(noisyA.alphabet.endsWith('^$'), 'mined over the padded records');

  // one's own base given as the partner's is refused
  await pa.setInputFiles('#partner', baseA);
  await pa.click('#merge');
  await pa.waitForSelector('#partner-error:not(:empty)');
  assert.equal(await text(pa, '#partner-error'), 'This is your own noisy base: load the one your partner sent you.');
  await pa.setInputFiles('#partner', baseB);
  await pb.setInputFiles('#partner', baseA);
  await pa.click('#merge');
  await pb.click('#merge');
  await pa.waitForSelector('#merge-out:not([hidden])');
  await pb.waitForSelector('#merge-out:not([hidden])');
  const fpA = await pa.locator('#fingerprint').getAttribute('data-value');
  assert.match(fpA, /^[0-9a-f]{64}$/);
  assert.equal(fpA, await pb.locator('#fingerprint').getAttribute('data-value'), 'both owners see the same fingerprint');

  // who sends thresholds: A and every party after B; B only when three parties or more link
  await pb.selectOption('#party', 'C');
  assert.equal(await pb.locator('#ed').isDisabled(), false, 'C sends thresholds');
  assert.equal(await pb.locator('#send-thresholds').isDisabled(), true);
  await pb.selectOption('#party', 'B');
  assert.equal(await pb.locator('#ed').isDisabled(), true, 'B of two parties sends none');
  await pb.check('#send-thresholds');
  assert.equal(await pb.locator('#ed').isDisabled(), false, 'B of three parties sends them');
  await pb.uncheck('#send-thresholds');
  await pa.selectOption('#party', 'A');
  await pb.selectOption('#party', 'B');
  // the vectors leave keyed: without a key (or the explicit unkeyed choice) the page refuses
  await pb.click('#embed');
  await pb.waitForSelector('#key-error:not(:empty)');
  assert.equal(await text(pb, '#key-error'), 'Your vectors leave keyed: press New key and send the key file to your partner (never to the matcher), or paste the key your partner sent.');
  // A makes the key (it downloads, for B); B loads that file
  const keyFile = await handKey(pa, pb, path.join(h.dir, 'shared-key.txt'));
  assert.match(readFileSync(keyFile, 'utf8'), /^[0-9a-f]{64}\n$/);
  const batchA = await downloadFrom(pa, '#embed', path.join(h.dir, 'a.vectors.bin'));
  const batchB = await downloadFrom(pb, '#embed', path.join(h.dir, 'b.vectors.bin'));
  assert.match(await text(pa, '#embed-out'), /1,000 records.*, keyed, ids replaced by random codes\./);
  // the batch carries random codes: each owner downloads its map back to its ids, beside the batch
  assert.match(await text(pa, '#id-map-hint'), /random codes, not by your ids.*keeps the map for step 5.*Never send it/);
  const mapA = readFileSync(await downloadFrom(pa, '#download-ids', path.join(h.dir, 'a.ids.csv')), 'utf8');
  const mapB = readFileSync(await downloadFrom(pb, '#download-ids', path.join(h.dir, 'b.ids.csv')), 'utf8');
  assert.equal(mapA.split('\n')[0], 'pseudonym,id');
  assert.equal(mapA.trim().split('\n').length, 1 + fx.n);
  // "keep my own ids" (Advanced): the batch carries the own ids, and no map is offered
  await pa.check('#keep-ids');
  await downloadFrom(pa, '#embed', path.join(h.dir, 'a-own-ids.vectors.bin'));
  assert.match(await text(pa, '#embed-out'), /, with your own ids\./);
  assert.equal(await pa.locator('#id-map').isHidden(), true);
  await pa.uncheck('#keep-ids');

  // processing files made no network request (downloads are local blob: URLs)
  const network = requests.filter((r) => !/ blob:/.test(r));
  assert.deepEqual(network, [], `owner pages made network requests: ${network.join(', ')}`);
  // and the browser enforces the policy: a fetch from the page is refused
  assert.deepEqual(pa.errors, []);
  const blocked = await pa.evaluate(() => fetch('/data/cities.txt').then(() => 'sent', () => 'refused'));
  assert.equal(blocked, 'refused');
  assert.ok(pa.errors.some((e) => /Content Security Policy/.test(e)), 'the refusal is the policy\'s');
  pa.errors.length = 0;
  await screenshots(pa, 'owner');

  // the matcher
  const pm = await h.page();
  const resM = await open(pm, h.url, 'matcher.html');
  assert.match(resM.headers()['content-security-policy'], /connect-src 'none'/);
  const mreq = [];
  pm.on('request', (r) => mreq.push(r.url()));
  await pm.setInputFiles('#batch-a', batchA);
  await pm.setInputFiles('#batch-b', batchB);
  await pm.waitForSelector('#match:enabled');
  const dims = Number((await text(pm, '#batch-a-info')).match(/(\d+) dimensions/)[1]);
  // keyed by the default sketch: buckets of 4 of the recommended base's ~860 grams
  assert.ok(dims > 180 && dims < 300, `the recommended base sketched in buckets of 4: ${dims} dimensions`);
  assert.match(await text(pm, '#batch-a-info'), /party A, 1,000 records, \d+ dimensions, sound thresholds for ed 2 \(ed auto: this page fits the cut-off\)/);
  assert.equal(await pm.locator('#rule').inputValue(), 'ranked', 'the default rule');
  await pm.click('#match');
  await pm.waitForSelector('#results:not([hidden])', { timeout: 120_000 });
  assert.match(await text(pm, '#summary'), /\(ranked rule\)/);
  const count = Number(await pm.locator('#summary').getAttribute('data-count'));
  console.log(`# CITIES (1,000 records, ε = 1 each): ${count} pairs by the ranked rule`);
  assert.ok(count >= fx.n / 4 && count <= fx.n, `plausible pair count (one-to-one): ${count}`);
  assert.deepEqual(mreq, []);
  // sortable: by distance ascending first, then descending
  const firstAsc = Number(await pm.locator('#pairs tbody tr:first-child td:nth-child(3)').textContent());
  await pm.click('button.sort[data-key="d"]');
  const firstDesc = Number(await pm.locator('#pairs tbody tr:first-child td:nth-child(3)').textContent());
  assert.ok(firstDesc >= firstAsc);
  assert.equal(await pm.locator('#pairs tbody tr').count(), Math.min(50, count));
  await screenshots(pm, 'matcher');
  // the CSV names pseudonyms; mapped back with both owners' maps, most links are the true pairs (A i ↔ B i)
  const sent = readFileSync(await downloadFrom(pm, '#download', path.join(h.dir, 'pairs.csv')), 'utf8');
  assert.match(sent.split('\n')[1], /^[0-9a-f]{16},[0-9a-f]{16},/, 'the matcher sees random codes');
  // step 5 on each owner's page: its own ids in place of its codes (the map kept in the tab)
  const pairsFile = path.join(h.dir, 'pairs.csv');
  await pa.setInputFiles('#pairs', pairsFile);
  // A's last embed kept its ids (no map in the tab): the step asks for the saved copy
  assert.match(await text(pa, '#unmap-out'), /needs your id map/);
  await pa.setInputFiles('#id-map-file', path.join(h.dir, 'a.ids.csv'));
  const ownA = readFileSync(await downloadFrom(pa, '#unmap', path.join(h.dir, 'own-a.csv')), 'utf8').trim().split('\n');
  await pb.setInputFiles('#pairs', pairsFile);
  const ownB = readFileSync(await downloadFrom(pb, '#unmap', path.join(h.dir, 'own-b.csv')), 'utf8').trim().split('\n');
  assert.match(ownA[1], /^A\d+,[0-9a-f]{16},/, 'A sees its own ids, B\'s codes');
  assert.match(ownB[1], /^[0-9a-f]{16},B\d+,/, 'B sees its own ids, A\'s codes');
  assert.equal(ownA[0], 'a_id,b_id,distance');
  // both sides' ids together (what the owners learn by comparing their files)
  const csv = [ownA[0], ...ownA.slice(1).map((l, i) => { const c = l.split(','); c[1] = ownB[i + 1].split(',')[1]; return c.join(','); })];
  const truth = csv.slice(1).filter((l) => l.split(',')[0].slice(1) === l.split(',')[1].slice(1)).length;
  console.log(`# CITIES: ${truth} of ${csv.length - 1} linked pairs are true pairs (of ${fx.n})`);
  assert.ok(truth >= fx.n / 4, `true pairs linked: ${truth}`);

  // greedy one-to-one: at most one pair per record; the paper's rule: every pair within threshold
  await pm.selectOption('#rule', 'greedy');
  await pm.click('#match');
  await pm.waitForFunction(() => document.querySelector('#summary').textContent.includes('(greedy rule)'));
  assert.ok(Number(await pm.locator('#summary').getAttribute('data-count')) <= fx.n);
  await pm.selectOption('#rule', 'all');
  await pm.click('#match');
  await pm.waitForFunction(() => document.querySelector('#summary').textContent.includes('(all rule)'));
  assert.ok(Number(await pm.locator('#summary').getAttribute('data-count')) >= count);

  // mismatched base: B re-merges with another k, so its new batch has another fingerprint
  await pb.fill('#merge-k', '50');
  await pb.click('#merge');
  await pb.waitForFunction((fp) => document.querySelector('#fingerprint').dataset.value !== fp, fpA);
  const batchB2 = await downloadFrom(pb, '#embed', path.join(h.dir, 'b2.vectors.bin'));
  await pm.setInputFiles('#batch-b', batchB2);
  await pm.waitForSelector('#match:enabled');
  await pm.click('#match');
  await pm.waitForSelector('#batch-b-error:not(:empty)');
  assert.match(await text(pm, '#batch-b-error'), /different shared bases.*FINGERPRINT_MISMATCH/);
  assert.equal(await pm.locator('#results').isHidden(), true);
  await screenshots(pm, 'matcher-error');

  // a file that is not a vector batch (a noisy base) is refused next to its input
  await pm.setInputFiles('#batch-a', baseA);
  await pm.waitForSelector('#batch-a-error:not(:empty)');
  assert.match(await text(pm, '#batch-a-error'), /a\.noisy-base\.json: .*expected gramlink\/vector-batch.*WRONG_MESSAGE_KIND/);
  assert.equal(await pm.locator('#match').isDisabled(), true);
  // party B's batch where A's is expected
  await pm.setInputFiles('#batch-a', batchB);
  await pm.waitForSelector('#batch-a-error:not(:empty)');
  assert.match(await text(pm, '#batch-a-error'), /without thresholds/);

  for (const p of [pa, pb, pm]) assert.deepEqual(p.errors, []);
});

test('owner page: each error is shown in words next to its control', async () => {
  const p = await h.page();
  await open(p, h.url, 'owner.html');
  await openAdvanced(p);

  // bad file: binary content
  await p.setInputFiles('#file', h.file('photo.txt', Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 0x0d, 0xff, 0xfe])));
  await p.click('#load');
  await p.waitForSelector('#file-error:not(:empty)');
  assert.match(await text(p, '#file-error'), /not UTF-8 text|binary/);
  assert.equal(await p.locator('#file').getAttribute('aria-invalid'), 'true');

  // bad file: malformed CSV (a row with more fields than the header)
  await p.setInputFiles('#file', h.file('bad.csv', 'id,name\n1,SMITH\n2,JONES,EXTRA\n'));
  await p.click('#load');
  await p.waitForSelector('#file-error:not(:empty)');
  assert.match(await text(p, '#file-error'), /MALFORMED_CSV/);

  // wrong column: ids instead of names normalize to nothing
  const csv = h.file('people.csv', 'id,name\n1,SMITH\n2,JONES\n2,BROWN\n');
  await p.setInputFiles('#file', csv);
  await p.selectOption('#column', 'id');
  await p.selectOption('#id-column', '');
  await p.click('#load');
  await p.waitForSelector('#column-error:not(:empty)');
  assert.match(await text(p, '#column-error'), /normalizes to the empty string/);
  // duplicate ids, next to the id column
  await p.selectOption('#column', 'name');
  await p.selectOption('#id-column', 'id');
  await p.click('#load');
  await p.waitForSelector('#id-column-error:not(:empty)');
  assert.match(await text(p, '#id-column-error'), /duplicate record id "2".*DUPLICATE_ID/);

  // a good file; then bad parameters
  await p.setInputFiles('#file', h.file('ok.csv', 'id,name\n1,SMITH\n2,JONES\n3,BROWN\n4,,\n'.replace(',,', ',')));
  await p.selectOption('#column', 'name');
  await p.selectOption('#id-column', 'id');
  await p.click('#load');
  await p.waitForSelector('#preview:not([hidden])');
  assert.match(await text(p, '#empty-ids'), /normalize to empty.*: 4$/);
  await refused(p, { '#epsilon': '0' }, '#mine', '#epsilon-error', /greater than 0/);
  await refused(p, { '#epsilon': '0.05', '#q-min': '4', '#q-max': '3' }, '#mine', '#q-max-error', /at least the shortest/);
  // the core's own refusal: more ε than the budget holds
  await refused(p, { '#q-min': '1', '#epsilon': '5' }, '#mine', '#epsilon-error', /BUDGET_EXCEEDED/);
  await p.fill('#epsilon', '0.05');
  await p.click('#mine');
  await p.waitForSelector('#base-out:not([hidden])');
  // a partner file that is not a noisy base
  await p.setInputFiles('#partner', csv);
  await p.click('#merge');
  await p.waitForSelector('#partner-error:not(:empty)');
  assert.match(await text(p, '#partner-error'), /MALFORMED_MESSAGE|INVALID_MESSAGE|WRONG_MESSAGE_KIND/);
  // a partner who mined with the other configuration: refused, in words
  const recommendedBase = await downloadFrom(p, '#download-base', path.join(h.dir, 'recommended.noisy-base.json'));
  await p.selectOption('#preset', 'paper');
  assert.equal(await p.locator('#q-min').inputValue(), '1');
  assert.equal(await p.locator('#mode').inputValue(), 'paper');
  assert.match(await text(p, '#preset-note'), /^paper: shared base = 75 mined 1–3-grams; paper thresholds/);
  await p.fill('#epsilon', '0.05');
  await p.click('#mine');
  await p.waitForFunction(() => /of lengths 1–3 by/.test(document.querySelector('#base-summary').textContent));
  await p.setInputFiles('#partner', recommendedBase);
  await p.click('#merge');
  await p.waitForSelector('#partner-error:not(:empty)');
  assert.match(await text(p, '#partner-error'), /other configuration \(yours: paper\).*INCOMPATIBLE_BASES/);
  await screenshots(p, 'owner-errors');
  assert.deepEqual(p.errors, []);
});

test('owner page, the simple path: file, column, one button; the expert settings folded under Advanced', async () => {
  // all 5,000 CITIES: at the default ε = 0.1 a thousand names leave the mined part nearly empty
  const fx = ownerFixtures('cities.txt', 5000);
  // the screenshots in docs/screenshots (docs/JAVASCRIPT.md) are rewritten only on request (SCREENSHOTS=1): a normal run changes no tracked file
  const shotsDir = process.env.SCREENSHOTS === '1' ? path.join(root, 'docs/screenshots') : path.join(root, 'target/e2e-screenshots');
  mkdirSync(shotsDir, { recursive: true });
  for (const [tag, viewport] of [['1366x768', { width: 1366, height: 768 }], ['390x844', { width: 390, height: 844 }]]) {
    const p = await h.page(viewport);
    await open(p, h.url, 'owner.html');
    // folded by default, defaults filled in (shown when opened)
    for (const id of ['advanced-file', 'advanced-mine']) assert.equal(await p.locator(`#${id}`).getAttribute('open'), null, id);
    assert.equal(await p.isVisible('#q-min'), false);
    assert.equal(await p.inputValue('#ed'), 'auto');
    await p.screenshot({ path: path.join(shotsDir, `owner-start-${tag}.png`) });
    await p.setInputFiles('#file', h.file('a.csv', fx.a));
    await p.selectOption('#column', 'name');
    await p.click('#quick');
    await p.waitForSelector('#base-out:not([hidden])', { timeout: 120_000 });
    assert.match(await text(p, '#budget-text'), /^0\.1(000)? of 0\.1(000)? /);
    await p.locator('#base-summary').scrollIntoViewIfNeeded();
    await p.screenshot({ path: path.join(shotsDir, `owner-mined-${tag}.png`) });
    assert.deepEqual(p.errors, []);
    await p.context().close();
  }
});

test('index page: "Try it with sample data" runs both parties and the matcher on CITIES in one tab: precision, recall, F1', async () => {
  const p = await h.page();
  await p.goto(h.url + 'index.html');
  await p.click('#try-sample');
  await p.waitForSelector('#result:not([hidden]), #run-error:not(:empty)', { timeout: 180_000 });
  assert.equal(await text(p, '#run-error'), '');
  const f1 = Number(await p.locator('#result').getAttribute('data-f1'));
  const [pr, re] = [Number(await text(p, '#precision')), Number(await text(p, '#recall'))];
  console.log(`# sample data (CITIES, 5,000, one edit, ed auto): precision ${pr} recall ${re} F1 ${f1.toFixed(4)}`);
  assert.ok(f1 > 0.95 && pr > 0.95 && re > 0.95, `F1 ${f1}`);
  assert.match(await text(p, '#result-summary'), /5,000 records in A and B.*Edit distance auto: of [\d,]+ candidates within 2 edits/);
  // the browser's own request for the favicon of the page navigated to (the demo
  // page's policy allows no data: image) is not the app's error
  assert.deepEqual(p.errors, [], 'no error, the favicon under the page\'s CSP included');
  await p.context().close();
});
