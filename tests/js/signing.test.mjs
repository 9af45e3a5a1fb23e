// Signed batches through the installed npm package (issue 31): a key pair and
// signatures as the CLI's file texts, the matchers' {verifyA, signatureA, verifyB,
// signatureB}, and refusals by the CLI's codes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { DataOwner, Matcher, RecordMatcher, RecordOwner, signBatch, signKeygen, verifyBatch } from 'gramlink';

const cities = readFileSync(new URL('./cities.txt', import.meta.url), 'utf8').split('\n').filter((s) => s.length > 0);

const refusedWith = (code, f) => assert.throws(f, (e) => e instanceof Error && e.code === code, `expected ${code}`);

test('a key pair signs and verifies batches as the CLI files them', () => {
  const { signingKey, publicKey } = signKeygen();
  assert.match(signingKey, /^gramlink signing key v1 [0-9a-f]{64}\n$/);
  assert.match(publicKey, /^gramlink signing public key v1 [0-9a-f]{64}\n$/);
  const batch = new TextEncoder().encode('any batch bytes');
  const sig = signBatch(signingKey, batch);
  assert.match(sig, /^gramlink batch signature v1 [0-9a-f]{128}\n$/);
  // deterministic, and the same for the key's file bytes and the batch as text
  assert.equal(signBatch(new TextEncoder().encode(signingKey), 'any batch bytes'), sig);
  assert.equal(verifyBatch(publicKey, batch, sig), undefined);
  refusedWith('SIGNATURE_MISSING', () => verifyBatch(publicKey, batch));
  refusedWith('SIGNATURE_INVALID', () => verifyBatch(publicKey, 'any batch bytes!', sig));
  refusedWith('SIGNATURE_INVALID', () => verifyBatch(signKeygen().publicKey, batch, sig));
  refusedWith('INVALID_KEY', () => verifyBatch(signingKey, batch, sig));
  refusedWith('INVALID_KEY', () => signBatch(publicKey, batch));
});

test('both matchers link signed batches and refuse unsigned or wrongly signed ones', () => {
  const records = cities.slice(0, 200);
  const a = new DataOwner(records, { seed: 1 });
  const b = new DataOwner(records, { seed: 2 });
  const shared = DataOwner.mergeBases(a.mine(), b.mine());
  const ba = a.embed(shared, { noKey: true });
  const bb = b.embed(shared, { party: 'B', noKey: true, binary: true });
  const ka = signKeygen();
  const kb = signKeygen();
  const sa = signBatch(ka.signingKey, ba);
  const sb = signBatch(kb.signingKey, bb);
  const all = { verifyA: ka.publicKey, signatureA: sa, verifyB: kb.publicKey, signatureB: sb };
  assert.ok(new Matcher(ba, bb, all).match().count > 0);
  assert.ok(new Matcher(ba, bb).match().count > 0, 'no keys: nothing checked, as before');
  refusedWith('SIGNATURE_MISSING', () => new Matcher(ba, bb, { verifyB: kb.publicKey }));
  refusedWith('SIGNATURE_INVALID', () => new Matcher(ba, bb, { ...all, verifyA: kb.publicKey }));
  refusedWith('INVALID_PARAMETER', () => new Matcher(ba, bb, { signatureA: sa }));

  const schema = { version: 1, id: 'id', epsilon: 0.1, field: [{ name: 'city', kind: 'name' }] };
  const csv = 'id,city\n' + records.map((c, i) => `${i + 1},"${c}"`).join('\n') + '\n';
  const ra = new RecordOwner(csv, schema, { seed: 1 });
  const rb = new RecordOwner(csv, schema, { seed: 2 });
  const sharedRecords = RecordOwner.mergeBases(ra.mine(), rb.mine(), schema);
  const rba = ra.embed(sharedRecords, { party: 'A', noKey: true });
  const rbb = rb.embed(sharedRecords, { party: 'B', noKey: true });
  const rsa = signBatch(ka.signingKey, rba);
  const m = new RecordMatcher(schema, rba, rbb, { verifyA: ka.publicKey, signatureA: rsa });
  assert.equal(m.sizeA, 200);
  refusedWith('SIGNATURE_MISSING', () => new RecordMatcher(schema, rba, rbb, { verifyA: ka.publicKey }));
  refusedWith('SIGNATURE_INVALID', () => new RecordMatcher(schema, rba, rbb, { verifyB: kb.publicKey, signatureB: rsa }));
});
