// Signed batches in the web app (issue 31): the owner page signs its batch under
// "Sign your batch (optional)", the matcher page checks it under "Check signatures
// (optional)": a signed batch is linked; another key's signature, or none, is refused
// in the page's words. The files are the CLI's formats (checked with the Node package).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { harness, text, open, downloadFrom, ownerFixtures, openAdvanced, audit, root, handKey, loadShared } from './harness.mjs';

const h = harness();

/** An owner page with `csv` loaded and mined (ε 1), its noisy base downloaded (`party` names the files). */
async function owner(csv, party) {
  const p = await h.page();
  await open(p, h.url, 'owner.html');
  // the simple path is unchanged: signing is folded away
  assert.equal(await p.locator('#signing').getAttribute('open'), null);
  await openAdvanced(p);
  await p.evaluate(() => { document.querySelector('#signing').open = false; });
  await p.setInputFiles('#file', h.file(`owner-${party}.csv`, csv));
  await p.selectOption('#column', 'name');
  await p.selectOption('#id-column', 'id');
  await p.fill('#owner-budget', '1');
  await p.click('#load');
  await p.waitForSelector('#preview:not([hidden])');
  await p.fill('#epsilon', '1');
  await p.click('#mine');
  await p.waitForSelector('#base-out:not([hidden])', { timeout: 120_000 });
  p.base = await downloadFrom(p, '#download-base', path.join(h.dir, `${party}.noisy-base.json`));
  return p;
}

test('owner page signs its batch; the matcher page links it with the key, refuses another key\'s signature or none', async () => {
  const fx = ownerFixtures('cities.txt', 200);
  const pa = await owner(fx.a, 'A');
  const pb = await owner(fx.b, 'B');
  await pa.setInputFiles('#partner', pb.base);
  await pb.setInputFiles('#partner', pa.base);
  await pa.click('#merge');
  await pb.click('#merge');
  await pa.waitForSelector('#merge-out:not([hidden])');
  await pb.waitForSelector('#merge-out:not([hidden])');
  await pa.selectOption('#party', 'A');
  await pb.selectOption('#party', 'B');
  await handKey(pa, pb, path.join(h.dir, 'shared-key.txt'));

  // without a key, the embed offers no signature
  await downloadFrom(pa, '#embed', path.join(h.dir, 'unsigned-a.vectors.bin'));
  assert.equal(await pa.locator('#sig-out').isHidden(), true);

  // each owner makes a signing key; both files are named with its party
  const keys = {};
  for (const [p, party] of [[pa, 'A'], [pb, 'B']]) {
    await p.click('#signing summary');
    await p.click('#sign-new');
    await p.waitForSelector('#sign-keys:not([hidden])');
    const secret = await downloadFrom(p, '#download-sign-key', path.join(h.dir, `dl-secret-${party}`));
    assert.equal(p.lastDownload, `signing-key-${party}.txt`);
    const pub = await downloadFrom(p, '#download-sign-pub', path.join(h.dir, `signing-key-${party}.pub`));
    assert.equal(p.lastDownload, `signing-key-${party}.pub`);
    keys[party] = { secret, pub };
  }
  assert.match(readFileSync(keys.A.pub, 'utf8'), /^gramlink signing public key v1 /);
  assert.match(readFileSync(keys.A.secret, 'utf8'), /^gramlink signing key v1 /);

  // the embed step offers the batch's signature, <batch>.sig, with the sentence on what to send
  const batchA = await downloadFrom(pa, '#embed', path.join(h.dir, 'a.vectors.bin'));
  const nameA = pa.lastDownload;
  await pa.waitForSelector('#sig-out:not([hidden])');
  const sigA = await downloadFrom(pa, '#download-sig', path.join(h.dir, 'a.vectors.bin.sig'));
  assert.equal(pa.lastDownload, `${nameA}.sig`);
  assert.match(await text(pa, '#sig-hint'), /Send the batch and its \.sig to the matcher, and give your public key \(signing-key-A\.pub\) to the matcher out of band: compare it by phone/);
  const batchB = await downloadFrom(pb, '#embed', path.join(h.dir, 'b.vectors.bin'));
  const sigB = await downloadFrom(pb, '#download-sig', path.join(h.dir, 'b.vectors.bin.sig'));

  // the files are the package's (and so the CLI's) texts: the Node package verifies them
  const gl = await import(path.join(root, 'pkg/node/gramlink.js'));
  gl.verifyBatch(readFileSync(keys.A.pub), new Uint8Array(readFileSync(batchA)), readFileSync(sigA));
  assert.throws(() => gl.verifyBatch(readFileSync(keys.B.pub), new Uint8Array(readFileSync(batchA)), readFileSync(sigA)), /SIGNATURE_INVALID|invalid/);

  // a loaded secret key signs as the made one did (Ed25519 is deterministic: the same signature)
  await pa.setInputFiles('#sign-key-file', keys.A.secret);
  await pa.waitForFunction(() => /Signing with the key in/.test(document.querySelector('#sign-status').textContent));
  await downloadFrom(pa, '#embed', path.join(h.dir, 'a2.vectors.bin'));
  const sigA2 = await downloadFrom(pa, '#download-sig', path.join(h.dir, 'a2.vectors.bin.sig'));
  gl.verifyBatch(readFileSync(keys.A.pub), new Uint8Array(readFileSync(path.join(h.dir, 'a2.vectors.bin'))), readFileSync(sigA2));
  // the public key is not a secret key: refused next to its input
  await pa.setInputFiles('#sign-key-file', keys.A.pub);
  await pa.waitForSelector('#sign-key-file-error:not(:empty)');
  assert.match(await text(pa, '#sign-key-file-error'), /signing-key-A\.pub is not a secret signing key .*INVALID_KEY/);

  // the matcher: both keys and signatures given, the batches are linked
  // (its policy bypassed only for the accessibility audit at the end, which injects axe-core)
  const pm = await h.page(undefined, { bypassCSP: true });
  await open(pm, h.url, 'matcher.html');
  assert.equal(await pm.locator('#verify').getAttribute('open'), null);
  await pm.setInputFiles('#batch-a', batchA);
  await pm.setInputFiles('#batch-b', batchB);
  await pm.waitForSelector('#match:enabled');
  await pm.click('#verify summary');
  await pm.setInputFiles('#pub-a', keys.A.pub);
  await pm.setInputFiles('#sig-a', sigA);
  await pm.setInputFiles('#pub-b', keys.B.pub);
  await pm.setInputFiles('#sig-b', sigB);
  await pm.click('#match');
  await pm.waitForSelector('#results:not([hidden])', { timeout: 120_000 });
  const count = Number(await pm.locator('#summary').getAttribute('data-count'));
  assert.ok(count > 0, `signed batches linked: ${count} pairs`);

  // B's signature given as A's (another key's): refused in the page's words, next to A's signature
  await pm.setInputFiles('#sig-a', sigB);
  await pm.click('#match');
  await pm.waitForSelector('#sig-a-error:not(:empty)');
  assert.match(await text(pm, '#sig-a-error'), /^Party A's batch is not signed by the key you were given: ask A to send the batch and its \.sig again\. \(Details: .*SIGNATURE_INVALID\)\)$/);
  assert.equal(await pm.locator('#results').isHidden(), true);
  // B's public key given as A's: the same refusal (A's signature is not B's key's)
  await pm.setInputFiles('#sig-a', sigA);
  await pm.setInputFiles('#pub-a', keys.B.pub);
  await pm.click('#match');
  await pm.waitForSelector('#sig-a-error:not(:empty)');
  assert.match(await text(pm, '#sig-a-error'), /^Party A's batch is not signed by the key you were given/);
  // no signature for B while B's key is given: SIGNATURE_MISSING, in words
  await pm.setInputFiles('#pub-a', keys.A.pub);
  await pm.setInputFiles('#sig-b', []);
  await pm.click('#match');
  await pm.waitForSelector('#sig-b-error:not(:empty)');
  assert.match(await text(pm, '#sig-b-error'), /^Party B's batch came without its signature, but you gave party B's public key.*SIGNATURE_MISSING\)\)$/);
  // a signature without its key: the page asks for the key
  await pm.setInputFiles('#pub-b', []);
  await pm.setInputFiles('#sig-b', sigB);
  await pm.click('#match');
  await pm.waitForSelector('#pub-b-error:not(:empty)');
  assert.match(await text(pm, '#pub-b-error'), /You gave party B's signature but not party B's public key/);
  // a file that is not a public key (the secret one), named with its party
  await pm.setInputFiles('#pub-b', keys.B.secret);
  await pm.click('#match');
  await pm.waitForSelector('#pub-b-error:not(:empty)');
  assert.match(await text(pm, '#pub-b-error'), /^This is not party B's public key: choose signing-key-B\.pub.*INVALID_KEY\)\)$/);
  // and with the right files again, the batches link
  await pm.setInputFiles('#pub-b', keys.B.pub);
  await pm.click('#match');
  await pm.waitForSelector('#results:not([hidden])', { timeout: 120_000 });

  for (const p of [pa, pb, pm]) assert.deepEqual(p.errors, []);
  // with the disclosures open, a key made and an error shown: no accessibility violation at all
  await pm.setInputFiles('#sig-a', sigB);
  await pm.click('#match');
  await pm.waitForSelector('#sig-a-error:not(:empty)');
  assert.deepEqual(await audit(pm), [], 'matcher.html, a signature refused');
  const po = await h.page(undefined, { bypassCSP: true });
  // (the records owner page: the one-string page enables its embed step only after a merge)
  await open(po, h.url, 'records-owner.html');
  await openAdvanced(po);
  await po.click('#sign-new');
  await po.waitForSelector('#sign-keys:not([hidden])');
  assert.deepEqual(await audit(po), [], 'records-owner.html, a signing key made');
});

test('records pages: A signs its record batch; the matcher links it with A\'s key, refuses a signature of another batch', async () => {
  const [pa, pb] = [await h.page(), await h.page()];
  for (const [p, party, file] of [[pa, 'A', 'dataset1-a.csv'], [pb, 'B', 'dataset1-b.csv']]) {
    await open(p, h.url, 'records-owner.html');
    await p.selectOption('#party', party);
    await p.setInputFiles('#file', path.join(root, 'data/febrl', file));
    await p.waitForFunction(() => !document.querySelector('#quick').disabled);
  }
  const noisyA = await downloadFrom(pa, '#quick', path.join(h.dir, 'noisy-bases-A.json'));
  const noisyB = await downloadFrom(pb, '#quick', path.join(h.dir, 'noisy-bases-B.json'));
  await pa.setInputFiles('#noisy-a', noisyA);
  await pa.setInputFiles('#noisy-b', noisyB);
  const shared = await downloadFrom(pa, '#merge', path.join(h.dir, 'shared-bases.json'));
  await handKey(pa, pb, path.join(h.dir, 'records-key.txt'));
  await loadShared([pa, pb], shared);
  // A signs (a new key, named with its party); B does not
  await pa.click('#signing summary');
  await pa.click('#sign-new');
  await pa.waitForSelector('#sign-keys:not([hidden])');
  const pub = await downloadFrom(pa, '#download-sign-pub', path.join(h.dir, 'records-signing-key-A.pub'));
  assert.equal(pa.lastDownload, 'signing-key-A.pub');
  const batchA = await downloadFrom(pa, '#embed', path.join(h.dir, 'records-a.glrb'));
  const sigA = await downloadFrom(pa, '#download-sig', path.join(h.dir, 'records-a.glrb.sig'));
  assert.equal(pa.lastDownload, 'records-a.glrb.sig');
  assert.match(await pa.locator('#sig-hint').textContent(), /^Send the batch and its \.sig to the matcher, and give your public key \(signing-key-A\.pub\)/);
  const batchB = await downloadFrom(pb, '#embed', path.join(h.dir, 'records-b.glrb'));
  assert.equal(await pb.locator('#sig-out').isHidden(), true, 'B set no key: no signature offered');
  // A embeds again: fresh codes in a fresh order, so another batch and another signature
  await downloadFrom(pa, '#embed', path.join(h.dir, 'records-a2.glrb'));
  const sigA2 = await downloadFrom(pa, '#download-sig', path.join(h.dir, 'records-a2.glrb.sig'));

  const pm = await h.page();
  await open(pm, h.url, 'records-matcher.html');
  await pm.setInputFiles('#batch-a', batchA);
  await pm.setInputFiles('#batch-b', batchB);
  await pm.click('#verify summary');
  await pm.setInputFiles('#pub-a', pub);
  await pm.setInputFiles('#sig-a', sigA);
  await pm.click('#link');
  await pm.waitForSelector('#results:not([hidden])', { timeout: 300_000 });
  assert.match(await pm.locator('#summary').textContent(), /^[\d,]+ pairs linked/);
  // the second batch's signature with the first batch: refused before the blocking counts
  await pm.setInputFiles('#sig-a', sigA2);
  await pm.click('#link');
  await pm.waitForSelector('#sig-a-error:not(:empty)');
  assert.match(await pm.locator('#sig-a-error').textContent(), /^Party A's batch is not signed by the key you were given: ask A to send the batch and its \.sig again\. \(Details: .*SIGNATURE_INVALID\)\)$/);
  // a signature without its key: the page asks for the key (the disclosure opened on the error)
  await pm.setInputFiles('#pub-a', []);
  await pm.evaluate(() => { document.querySelector('#verify').open = false; });
  await pm.click('#link');
  await pm.waitForSelector('#pub-a-error:not(:empty)');
  assert.match(await pm.locator('#pub-a-error').textContent(), /You gave party A's signature but not party A's public key/);
  assert.equal(await pm.locator('#verify').getAttribute('open'), '', 'the error opens the disclosure');
  for (const p of [pa, pb, pm]) assert.deepEqual(p.errors, []);
});
