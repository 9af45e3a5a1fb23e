// The three-party page (Kuzu et al.) in headless Chromium: Charlie, Alice and Bob each
// in their own tab, exchanging files by download and upload, on six FEBRL 1 records
// and their duplicates with a 512-bit key (small: NOT secure, for speed); the final
// links are true pairs and no console error. Then a long encryption is cancelled.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { harness, open, downloadFrom, root } from './harness.mjs';
import { KUZU_RULE as rule } from '../js/fixtures.mjs';

const h = harness();

const lines = (f) => readFileSync(path.join(root, 'data/febrl', f), 'utf8').trim().split('\n');

/**
 * Charlie's setup on a new tab `page`: the kuzu page with the rule, a public list of SMITH,
 * a 512-bit key and one block; the files named with `tag`. Returns the model and public key
 * downloaded.
 */
async function charlie(page, tag) {
  await open(page, h.url, 'kuzu.html');
  await page.setInputFiles('#rule-file', h.file(`rule${tag}.json`, JSON.stringify(rule)));
  await page.setInputFiles('#public-list', h.file(`list${tag}.txt`, 'SMITH\n'));
  await page.selectOption('#key-bits', '512');
  await page.fill('#blocks', '1');
  await page.fill('#take', '1');
  await page.click('#setup');
  await page.waitForSelector('#setup-out:not([hidden])', { timeout: 120_000 });
  const model = await downloadFrom(page, '#save-model', path.join(h.dir, `model${tag}.json`));
  const pub = await downloadFrom(page, '#save-public-key', path.join(h.dir, `pub${tag}.json`));
  return { model, pub };
}

test('Kuzu page: Charlie, Alice and Bob link records in three tabs', async () => {
  const a = lines('dataset1-a.csv');
  const aCsv = a.slice(0, 7).join('\n') + '\n';
  const truth = new Map(lines('dataset1-truth.csv').slice(1).map((l) => l.split(',')));
  const bIds = new Set(a.slice(1, 7).map((l) => truth.get(l.split(',')[0])));
  const b = lines('dataset1-b.csv');
  const bCsv = [b[0], ...b.slice(1).filter((l) => bIds.has(l.split(',')[0]))].join('\n') + '\n';
  const ruleFile = h.file('rule.json', JSON.stringify(rule));
  const save = async (page, button, name) => downloadFrom(page, button, path.join(h.dir, name));

  const c = await h.page();
  const { model, pub } = await charlie(c, '');
  const priv = await save(c, '#save-private-key', 'key.json');

  // a party's new tab (`side` a: Alice, b: Bob) with the rule, its file, and Charlie's model and key
  const party = async (side, csv) => {
    const page = await h.page();
    await open(page, h.url, 'kuzu.html');
    await page.setInputFiles('#rule-file', ruleFile);
    await page.setInputFiles(`#${side}-file`, h.file(`${side}.csv`, csv));
    await page.setInputFiles(`#${side}-model`, model);
    await page.setInputFiles(`#${side}-key`, pub);
    return page;
  };

  const alice = await party('a', aCsv);
  await alice.fill('#epsilon', '50');
  await alice.fill('#a-budget', '100');
  await alice.fill('#wn', '10');
  await alice.fill('#b-records', '6');
  await alice.click('#encrypt');
  await alice.waitForSelector('#a-out:not([hidden])', { timeout: 300_000 });
  assert.match(await alice.textContent('#a-summary'), /6 records; released \d+ encrypted records/);
  // the release is charged to the file's privacy ledger
  assert.match(await alice.textContent('#a-ledger-text'), /spent so far on this file in this browser: 50\.0000 of 100\.0000/);
  const blocks = await save(alice, '#save-blocks', 'a.glka');
  const report = await save(alice, '#save-report', 'report.json');

  const bob = await party('b', bCsv);
  await bob.setInputFiles('#b-blocks', blocks);
  await bob.click('#compare');
  await bob.waitForSelector('#b-out:not([hidden])', { timeout: 300_000 });
  const pairs = await save(bob, '#save-pairs', 'pairs.glkc');
  const map = await save(bob, '#save-map', 'map.json');

  await c.setInputFiles('#c-key', priv);
  await c.setInputFiles('#c-pairs', pairs);
  await c.click('#decide');
  await c.waitForSelector('#c-out:not([hidden])', { timeout: 300_000 });
  const matches = await save(c, '#save-matches', 'matches.json');

  await bob.setInputFiles('#l-matches', matches);
  await bob.setInputFiles('#l-map', map);
  const handles = await save(bob, '#bob-links', 'handles.csv');
  await alice.setInputFiles('#l-handles', handles);
  await alice.setInputFiles('#l-report', report);
  const links = readFileSync(await save(alice, '#alice-links', 'links.csv'), 'utf8').trim().split('\n');
  assert.equal(links[0], 'a_id,b_id');
  for (const l of links.slice(1)) {
    const [x, y] = l.split(',');
    assert.equal(truth.get(x), y, `${l} is not a true pair`);
  }
  // the rule's decisions in the clear: three of the six duplicates lost a name (θ 0.6 is not reached)
  assert.deepEqual(links.slice(1).map((l) => l.split(',')[0]).sort(), ['rec-122-org', 'rec-294-org', 'rec-373-org']);
  for (const p of [c, alice, bob]) {
    assert.deepEqual(p.errors, []);
    await p.context().close();
  }
});

test('Kuzu page: a long encryption can be cancelled, and runs again after', async () => {
  const page = await h.page();
  const { model, pub } = await charlie(page, '2');
  await page.setInputFiles('#a-file', path.join(root, 'data/febrl/dataset1-a.csv'));
  await page.setInputFiles('#a-model', model);
  await page.setInputFiles('#a-key', pub);
  // the defaults (ε 0.3, w_n 5000) add hundreds of fakes: minutes of work
  await page.click('#encrypt');
  await page.waitForSelector('#a-cancel:not([hidden])');
  await page.click('#a-cancel');
  await page.waitForFunction(() => document.querySelector('#a-progress-text').textContent.startsWith('cancelled'));
  assert.equal(await page.isHidden('#a-out'), true);
  // the cancelled release keeps its ε (its progress followed the noisy sizes): a second
  // one of the same file past the total is refused before it starts
  assert.match(await page.textContent('#a-ledger-text'), /0\.3000 of 1\.0000/);
  await page.fill('#epsilon', '0.8');
  await page.click('#encrypt');
  await page.waitForSelector('#epsilon-error:not(:empty)');
  assert.match(await page.textContent('#epsilon-error'), /BUDGET_EXCEEDED/);
  assert.match(await page.textContent('#a-ledger-text'), /0\.3000 of 1\.0000/);
  // the fresh worker works: a small encryption now
  await page.setInputFiles('#a-file', h.file('a2.csv', lines('dataset1-a.csv').slice(0, 3).join('\n') + '\n'));
  await page.fill('#a-budget', '100');
  await page.fill('#epsilon', '50');
  await page.fill('#wn', '10');
  await page.click('#encrypt');
  await page.waitForSelector('#a-out:not([hidden])', { timeout: 300_000 });
  assert.match(await page.textContent('#a-summary'), /^2 records/);
  assert.deepEqual(page.errors, []);
  await page.context().close();
});
