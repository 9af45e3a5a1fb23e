// The matcher page with three parties' batches in headless Chromium: the owners' batches are
// made here with the Node package (pkg/node: A and B mine, every party embeds under one key,
// with thresholds), the page links them into clusters, clusters.csv is downloaded and checked
// against the known truth after each owner mapped its rows back (unmapClusters). A batch sent
// twice by one party, and A's batch with another batch's signature, are refused next to their
// inputs; the accessibility audit finds nothing serious.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { harness, text, open, downloadFrom, screenshots, root, rng, edit, csvField, audit, serious } from './harness.mjs';

const h = harness();

const PARTIES = ['A', 'B', 'C'];

/**
 * Three owners' CSVs over the first `n` places of CITIES: each party holds each place with
 * probability 0.7, B's and C's copies upper-cased with one edit in two; the own ids name the
 * party and the place (`C17`), so the truth is in the ids.
 */
function partyFixtures(n, seed = 11) {
  const places = readFileSync(path.join(root, 'data/cities.txt'), 'utf8').split('\n').filter(Boolean).slice(0, n);
  const r = rng(seed);
  return PARTIES.map((p) => {
    const rows = places.flatMap((s, i) => {
      if (r() >= 0.7) return [];
      const copy = p === 'A' ? s : r() < 0.5 ? edit(s.toUpperCase(), r) : s.toUpperCase();
      return [`${p}${i},${csvField(copy)}`];
    });
    return { party: p, csv: ['id,name', ...rows].join('\n') + '\n', size: rows.length };
  });
}

test('the matcher page links three parties\' batches into clusters; clusters.csv holds each record once, the true clusters found', async () => {
  const gl = await import(path.join(root, 'pkg/node/gramlink.js'));
  const fx = partyFixtures(400);
  // seeded mining and a fixed key: the clusters are the same each run (pseudonyms and row
  // order stay random, as always)
  const owners = fx.map((f, i) => gl.DataOwner.fromBytes(new TextEncoder().encode(f.csv), { column: 'name', idColumn: 'id' }, { budget: 1, seed: i + 1 }));
  const mine = { miner: 'fpm', epsilon: 1, k: 75 };
  const shared = gl.DataOwner.mergeBases(owners[0].mine(mine), owners[1].mine(mine), mine);
  const key = '5e'.repeat(32);
  const embed = (o, party) => o.embed(shared, { party, key, thresholds: { ed: 2, mode: 'sound' }, binary: true });
  const files = owners.map((o, i) => h.file(`party-${PARTIES[i]}.vectors.bin`, embed(o, PARTIES[i])));
  const maps = owners.map((o) => o.idMapCsv());
  // C's records embedded again as party B, and B's batch without thresholds (B's default)
  const twice = h.file('c-as-b.vectors.bin', embed(owners[2], 'B'));
  const silent = h.file('b-silent.vectors.bin', owners[1].embed(shared, { party: 'B', key, binary: true }));

  const pm = await h.page(undefined, { bypassCSP: true });
  await open(pm, h.url, 'matcher.html');
  const requests = [];
  pm.on('request', (r) => requests.push(r.url()));
  await pm.setInputFiles('#batch-a', files[0]);
  await pm.setInputFiles('#batch-b', files[1]);
  await pm.waitForSelector('#match:enabled');
  assert.equal(await text(pm, '#match'), 'Match', 'two batches: the pairs flow');

  // a further batch without thresholds is refused next to its input, before any linkage
  await pm.setInputFiles('#batch-more', silent);
  await pm.waitForSelector('#batch-more-error:not(:empty)');
  assert.match(await text(pm, '#batch-more-error'), /^b-silent\.vectors\.bin: this is party B's batch without thresholds/);
  assert.equal(await pm.locator('#match').isDisabled(), true);

  // party B twice: refused by name, next to the further batches' input
  await pm.setInputFiles('#batch-more', twice);
  await pm.waitForSelector('#match:enabled');
  assert.equal(await text(pm, '#match'), 'Link into clusters');
  await pm.click('#match');
  await pm.waitForSelector('#batch-more-error:not(:empty)');
  assert.match(await text(pm, '#batch-more-error'), /party B sent two batches.*c-as-b\.vectors\.bin.*PARTY_TWICE/);
  assert.equal(await pm.locator('#clusters').isHidden(), true);

  // the three parties; A's batch signed: first with the signature of another batch, refused next to it
  await pm.setInputFiles('#batch-more', files[2]);
  await pm.waitForFunction(() => /party C, [\d,]+ records/.test(document.querySelector('#batch-more-info').textContent));
  const signer = gl.signKeygen();
  await pm.setInputFiles('#pub-a', h.file('signing-key-A.pub', signer.publicKey));
  await pm.setInputFiles('#sig-a', h.file('wrong.sig', gl.signBatch(signer.signingKey, readFileSync(files[1]))));
  await pm.waitForSelector('#match:enabled');
  await pm.click('#match');
  await pm.waitForSelector('#sig-a-error:not(:empty)');
  assert.match(await text(pm, '#sig-a-error'), /^Party A's batch is not signed by the key you were given.*SIGNATURE_INVALID/);
  assert.equal(await pm.locator('#clusters').isHidden(), true);
  await pm.setInputFiles('#sig-a', h.file('party-A.vectors.bin.sig', gl.signBatch(signer.signingKey, readFileSync(files[0]))));
  await pm.waitForSelector('#match:enabled');
  await pm.click('#match');
  await pm.waitForSelector('#clusters:not([hidden])', { timeout: 120_000 });
  assert.equal(await pm.locator('#results').isHidden(), true);
  const summary = await text(pm, '#clusters-summary');
  const records = fx.reduce((x, f) => x + f.size, 0);
  console.log(`# ${summary}`);
  const count = Number(await pm.locator('#clusters-summary').getAttribute('data-count'));
  const spans = (await pm.locator('#clusters-summary').getAttribute('data-spans')).split(',').map(Number);
  assert.ok(summary.startsWith(`${records.toLocaleString('en')} records of 3 parties (A: ${fx[0].size}, B: ${fx[1].size}, C: ${fx[2].size}) form ${count.toLocaleString('en')} clusters. ${spans[3]} hold a record of each of the 3 parties, ${spans[2]} hold a record of 2 parties; ${spans[1]} records were linked to no other party's.`), summary);
  assert.equal(await pm.locator('#spans tbody tr').count(), 3);
  assert.equal(await text(pm, '#spans tbody tr:first-child td:nth-child(2)'), String(spans[3]));
  assert.deepEqual(serious(await audit(pm)), []);
  await screenshots(pm, 'matcher-clusters');

  // clusters.csv: the CLI's form, one row per record, with the batches' random codes
  const got = readFileSync(await downloadFrom(pm, '#download-clusters', path.join(h.dir, 'clusters.csv')), 'utf8');
  assert.equal(pm.lastDownload, 'clusters.csv');
  assert.equal(got.split('\n')[0], 'party,id,cluster');
  const sent = got.trim().split('\n').slice(1).map((l) => l.split(','));
  assert.equal(sent.length, records);
  assert.ok(sent.every((r) => /^[0-9a-f]{16}$/.test(r[1])), 'the matcher sees random codes');
  const pairs = readFileSync(await downloadFrom(pm, '#download-cluster-pairs', path.join(h.dir, 'pairs.csv')), 'utf8');
  assert.equal(pairs.split('\n')[0], 'party_a,id_a,party_b,id_b');
  assert.deepEqual(requests, [], 'no network request');
  assert.deepEqual(pm.errors, []);

  // each owner maps its own rows back (as with gramlink unmap --party), then the truth: the ids' places
  let mapped = got;
  for (const [i, p] of PARTIES.entries()) mapped = gl.unmapClusters(mapped, p, maps[i]);
  const rows = mapped.trim().split('\n').slice(1).map((l) => l.split(','));
  const ids = rows.map((r) => r[1]);
  assert.equal(new Set(ids).size, records, 'each record once');
  assert.deepEqual([...ids].sort(), fx.flatMap((f) => f.csv.trim().split('\n').slice(1).map((l) => l.split(',')[0])).sort());
  const members = new Map();
  for (const [party, id, cluster] of rows) {
    assert.equal(id[0], party, 'mapped back to its own party\'s id');
    const m = members.get(cluster) ?? [];
    assert.ok(!m.some((x) => x[0] === party), `two records of party ${party} in cluster ${cluster}`);
    members.set(cluster, [...m, id]);
  }
  assert.equal(members.size, count);
  // the true clusters: the places held by two parties or more
  const place = (id) => id.slice(1);
  const truth = new Map();
  for (const id of ids) truth.set(place(id), [...(truth.get(place(id)) ?? []), id]);
  const found = new Set([...members.values()].map((m) => [...m].sort().join(' ')));
  const real = [...truth.values()].filter((m) => m.length > 1);
  const exact = real.filter((m) => found.has([...m].sort().join(' '))).length;
  const linked = [...members.values()].filter((m) => m.length > 1);
  const pure = linked.filter((m) => m.every((id) => place(id) === place(m[0]))).length;
  console.log(`# ${exact} of ${real.length} true clusters found exactly; ${pure} of ${linked.length} linked clusters are one place`);
  assert.ok(exact >= 0.8 * real.length, `${exact} of ${real.length} true clusters found`);
  assert.ok(pure >= 0.95 * linked.length, `${pure} of ${linked.length} clusters are one place`);

  // an owner page as party C: its step 5 maps the clusters back with C's saved id map, as
  // unmapClusters does; a pairs file names A and B only
  const po = await h.page();
  await open(po, h.url, 'owner.html');
  assert.equal(await po.locator('#party option[value="C"]').count(), 1, 'parties C to Z offered');
  // a tab opened for this step: the saved map's name says party C
  writeFileSync(path.join(h.dir, 'places.party-C.ids.csv'), maps[2]);
  await po.setInputFiles('#pairs', path.join(h.dir, 'clusters.csv'));
  await po.setInputFiles('#id-map-file', path.join(h.dir, 'places.party-C.ids.csv'));
  await po.waitForFunction(() => !document.querySelector('#unmap').disabled);
  const ownC = readFileSync(await downloadFrom(po, '#unmap', path.join(h.dir, 'own-c.csv')), 'utf8');
  assert.equal(ownC, gl.unmapClusters(got, 'C', maps[2]));
  writeFileSync(path.join(h.dir, 'ab-pairs.csv'), 'a_id,b_id\n');
  await po.setInputFiles('#pairs', path.join(h.dir, 'ab-pairs.csv'));
  await po.click('#unmap');
  await po.waitForFunction(() => /parties A and B only/.test(document.querySelector('#pairs-error').textContent));
  assert.deepEqual(po.errors, []);

  // back to two parties: the pairs flow as before
  await pm.setInputFiles('#batch-more', []);
  await pm.waitForFunction(() => document.querySelector('#match').textContent === 'Match');
  await pm.click('#match');
  await pm.waitForSelector('#results:not([hidden]), .error:not(:empty)', { timeout: 120_000 });
  const errs = await pm.locator('.error:not(:empty)').allTextContents();
  assert.deepEqual(errs, [], 'no error');
  assert.equal(await pm.locator('#clusters').isHidden(), true);
  assert.match(await text(pm, '#summary'), /linked pairs \(ranked rule\) between [\d,]+ A records and [\d,]+ B records/);
});
