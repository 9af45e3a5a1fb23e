// Whole records through the installed npm package (scripts/check-pkg.mjs runs this in a
// fresh project): FEBRL data set 1 as two parties, every role in JS, the tool's own
// thresholds; moving the thresholds; refusals by error code.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { RecordOwner, RecordMatcher, RecordTableReader, keygen, unmapPairs } from 'gramlink';

const file = (name) => readFileSync(new URL(`./febrl-${name}`, import.meta.url), 'utf8');
const truth = new Set(file('dataset1-truth.csv').trim().split('\n').slice(1).map((l) => l.trim()));

// the FEBRL schema (data/febrl/schema.toml) as a JS object
const schema = {
  version: 1,
  id: 'rec_id',
  epsilon: 0.1,
  field: [
    { name: 'given_name', kind: 'name' },
    { name: 'surname', kind: 'name' },
    { name: 'street_number', kind: 'number' },
    { name: 'address_1', kind: 'string' },
    { name: 'address_2', kind: 'string' },
    { name: 'suburb', kind: 'string' },
    { name: 'postcode', kind: 'number' },
    { name: 'state', kind: 'keyed' },
    { name: 'date_of_birth', kind: 'date', invalid: 'missing' },
    { name: 'soc_sec_id', kind: 'number' },
  ],
  block: [{ field: 'given_name' }, { field: 'surname' }, { field: 'soc_sec_id', ed: 1 }, { field: 'postcode', ed: 0 }],
};

const febrlSchema = schema;

// keyed: the default (vectors rotated); unkeyed: the key only hashes the keyed field and
// the vectors go unrotated (noKey), which keeps the q-gram filter: fast, for the other tests
function link({ keyed = false, schema = febrlSchema } = {}) {
  const a = new RecordOwner(file('dataset1-a.csv'), schema);
  const b = new RecordOwner(new TextEncoder().encode(file('dataset1-b.csv')), JSON.stringify(schema));
  assert.equal(a.schemaFingerprint, b.schemaFingerprint);
  const split = a.budgetSplit();
  assert.deepEqual(split.find((s) => s.space === 'names').fields, ['given_name', 'surname']);
  assert.ok(Math.abs(split.reduce((t, s) => t + s.epsilon, 0) - 0.1) < 1e-9, 'the split spends ε = 0.1');
  const shared = RecordOwner.mergeBases(a.mine(), b.mine(), schema);
  const key = keygen();
  const ba = a.embed(shared, { party: 'A', key, noKey: !keyed });
  const bb = b.embed(shared, { party: 'B', key, noKey: !keyed });
  return { a, b, shared, key, m: new RecordMatcher(schema, ba, bb), ba, bb };
}

test('FEBRL 1 links at F1 >= 0.99 with the proposed thresholds, every pair with its levels (keyed, the default)', () => {
  const { a, b, m } = link({ keyed: true });
  assert.equal(m.private, true);
  const out = m.link();
  const { pairs } = out;
  // the batches carry random pseudonyms: the matcher's pairs name no record id
  assert.ok([...pairs.aIds, ...pairs.bIds].every((id) => /^[0-9a-f]{16}$/.test(id)), 'pseudonyms, not rec_id');
  // each owner's map gives the pairs of its own ids back (the pairs file's other columns kept)
  const own = unmapPairs(m.pairsCsv(), a.idMapCsv(), b.idMapCsv()).trim().split('\n').slice(1).map((l) => l.split(','));
  assert.equal(own.length, pairs.classes.length);
  let tp = 0;
  for (const [aId, bId, cls] of own) {
    if (cls === 'M' && truth.has(`${aId},${bId}`)) tp++;
  }
  const precision = tp / out.matches;
  const recall = tp / truth.size;
  const f1 = (2 * precision * recall) / (precision + recall);
  assert.ok(f1 >= 0.99, `F1 ${f1}`);
  assert.equal(out.fields.length, 10);
  assert.equal(pairs.levels.length, pairs.a.length * 10);
  assert.equal(out.fit.fields[0].name, 'given_name');
  assert.ok(out.fit.iterations >= 1);
  assert.equal(m.weights().length, out.candidates);
  assert.equal(out.matches + out.possible + out.nonMatches, out.candidates);
  const csv = m.pairsCsv().trim().split('\n');
  assert.equal(csv.length, 1 + out.matches + out.possible);
  assert.match(csv[0], /^a_id,b_id,class,weight,probability,swapped,given_name,surname/);
});

test('moving the thresholds moves pairs between M, P and U', () => {
  const { m } = link();
  const proposed = m.link();
  // the upper threshold at the median weight of the proposed matches: the lower half of
  // them (above the old threshold) become possible matches
  const mw = [...proposed.pairs.weight].filter((_, i) => proposed.pairs.classes[i] === 'M').sort((x, y) => x - y);
  const upper = mw[Math.floor(mw.length / 2)];
  const wide = m.link({ upper, lower: proposed.upper - 30 });
  assert.ok(wide.matches < proposed.matches, 'a higher upper threshold leaves fewer matches');
  assert.ok(wide.possible > 0, 'the pairs between the thresholds are possible matches');
  assert.equal(wide.upper, upper);
  assert.throws(() => m.link({ upper: Number.NaN }), { code: 'INVALID_PARAMETER', message: /upper must be a finite number/ });
  assert.throws(() => m.link({ top: 1 }), { code: 'INVALID_PARAMETER', message: /top/ });
});

test('bad schemas, files, keys and batches are refused by code', () => {
  const csv = file('dataset1-a.csv');
  assert.throws(() => new RecordOwner(csv, { ...schema, field: [{ name: 'x', kind: 'blob' }] }), { message: /blob/ });
  assert.throws(() => new RecordOwner(csv, { ...schema, field: [{ name: 'nope', kind: 'string' }], block: [] }), { message: /nope/ });
  assert.throws(() => new RecordOwner(csv, { ...schema, version: 9 }), { code: 'UNSUPPORTED_VERSION' });
  assert.throws(() => new RecordOwner(csv, 42), { code: 'INVALID_PARAMETER', message: /schema/ });
  const { a, shared, ba, bb } = link();
  assert.throws(() => a.mine(), { code: 'BUDGET_EXCEEDED' });
  assert.throws(() => a.embed(shared, { party: 'A', noKey: true, keepIds: 1 }), { code: 'INVALID_PARAMETER', message: /keepIds/ });
  // an id column that is a field's column would send that field as ids
  assert.throws(() => new RecordOwner(csv, { ...schema, id: 'surname' }), { code: 'ID_IS_LINKED_COLUMN' });
  // embedded fields leave keyed: no key is refused by the export policy; with noKey the keyed field still needs it
  assert.throws(() => a.embed(shared, { party: 'A' }), { code: 'KEY_REQUIRED', message: /noKey: true/ });
  assert.throws(() => a.embed(shared, { party: 'A', noKey: true }), { message: /state/ });
  const other = new RecordOwner(file('dataset1-b.csv'), schema);
  const bOther = other.embed(shared, { party: 'B', key: keygen(), noKey: true });
  assert.throws(() => new RecordMatcher(schema, ba, bOther), { message: /different keys/ });
  // a passphrase (salted with the schema) is a key as in DataOwner.embed: another key than A's
  // (with noKey, as A's batch here: the key then hashes the keyed fields only)
  const bPass = other.embed(shared, { party: 'B', passphrase: 'correct horse battery staple', noKey: true });
  assert.throws(() => new RecordMatcher(schema, ba, bPass), { message: /different keys/ });
  assert.throws(() => new RecordMatcher(schema, bb, ba), { message: /party A/ });
  assert.throws(() => new RecordMatcher(schema, ba, bb.subarray(0, bb.length - 3)), { code: 'TRUNCATED_MESSAGE' });
  assert.throws(() => new RecordMatcher({ ...schema, epsilon: 0.2 }, ba, bb), { code: 'FINGERPRINT_MISMATCH' });
});

test('a CSV streamed from a Blob into RecordTableReader is the whole file\'s owner; a cut-off one is refused', async () => {
  // as the records page's worker reads a File: its stream, chunk by chunk
  const streamed = async (text, chunk) => {
    const reader = new RecordTableReader(schema);
    try {
      const bytes = new TextEncoder().encode(text);
      for (let at = 0; at < bytes.length; at += chunk) {
        reader.push(bytes.subarray(at, at + chunk));
        assert.equal(reader.bytesRead, Math.min(at + chunk, bytes.length));
      }
      return RecordOwner.fromReader(reader, { seed: 4 });
    } finally {
      reader.free();
    }
  };
  const csv = file('dataset1-a.csv');
  const whole = new RecordOwner(csv, schema, { seed: 4 });
  const wholeBases = whole.mine();
  for (const chunk of [5, 65536]) {
    const owner = await streamed(csv, chunk);
    assert.equal(owner.size, whole.size);
    assert.deepEqual(owner.fields(), whole.fields());
    assert.equal(owner.mine(), wholeBases, 'the same table: the same seeded noisy bases');
  }
  // a Blob's own stream, as the page hands it over
  const reader = new RecordTableReader(JSON.stringify(schema));
  for await (const value of new Blob([csv]).stream()) reader.push(value);
  assert.equal(RecordOwner.fromReader(reader).size, whole.size);
  assert.throws(() => RecordOwner.fromReader(reader), { code: 'INVALID_FORMAT', message: /used up/ });
  // cut off inside a quoted field: named at the end, no owner
  await assert.rejects(streamed(`${csv}rec-9-org,"open`, 4096), { code: 'MALFORMED_CSV', message: /line 502 is never closed/ });
  await assert.rejects(streamed(csv.replace('rec_id', 'record'), 4096), { code: 'MISSING_COLUMN' });
});

test('RecordTableReader reads a file\'s own date format (dateFormats); the schema\'s fingerprint stays; blocking counts come before linking', () => {
  const csv = file('dataset1-a.csv');
  const iso = csv.replace(/, (\d{4})(\d\d)(\d\d),/g, ', $1-$2-$3,');
  assert.notEqual(iso, csv);
  const read = (text, options) => {
    const reader = new RecordTableReader(schema, options);
    reader.push(new TextEncoder().encode(text));
    return RecordOwner.fromReader(reader, { seed: 4 });
  };
  const whole = new RecordOwner(csv, schema, { seed: 4 });
  const own = read(iso, { dateFormats: { date_of_birth: 'YYYY-MM-DD' } });
  assert.equal(own.schemaFingerprint, whole.schemaFingerprint);
  assert.deepEqual(own.fields(), whole.fields());
  assert.throws(() => read(iso, { dateFormats: { date_of_birth: 'DD MM YYYY' } }), { code: 'INVALID_FORMAT', message: /is not one of YYYYMMDD/ });
  assert.throws(() => read(iso, { dateFormats: { surname: 'YYYY-MM-DD' } }), { code: 'INVALID_FORMAT', message: /not a date field/ });
  // the rules' pair counts without a link
  const shared = RecordOwner.mergeBases(whole.mine(), own.mine(), schema);
  const key = keygen();
  const ba = whole.embed(shared, { party: 'A', key });
  const bb = own.embed(shared, { party: 'B', key });
  const info = RecordMatcher.blocking(schema, ba, bb);
  assert.equal(info.pairs, 500 * 500);
  assert.equal(info.rules.length, schema.block.length);
  assert.ok(info.candidates > 0 && info.candidates <= info.rules.reduce((s, r) => s + r.pairs, 0));
  assert.equal(info.candidates, new RecordMatcher(schema, ba, bb).link({}).candidates);
});

test("a party's own date format: detected and said in notes, or named in dateFormats", () => {
  const schema = { version: 1, id: 'id', field: [{ name: 'surname', kind: 'name' }, { name: 'dob', kind: 'date', format: 'YYYYMMDD' }] };
  // month first: 25 cannot be a month, so the file's dates are MM/DD/YYYY, not the schema's YYYYMMDD
  const csv = 'id,surname,dob\n1,SMITH,03/25/1980\n2,JONES,11/30/1975\n3,BROWN,01/02/1990\n';
  const detected = new RecordOwner(csv, schema);
  assert.equal(detected.notes.length, 1);
  assert.match(detected.notes[0], /dob.*MM\/DD\/YYYY.*YYYYMMDD/);
  const named = new RecordOwner(csv, schema, { dateFormats: { dob: 'MM/DD/YYYY' } });
  assert.deepEqual(named.notes, []);
  assert.equal(named.size, 3);
  // a format the party names is never replaced: these dates are not day first with day 25 as month
  assert.throws(() => new RecordOwner(csv, schema, { dateFormats: { dob: 'DD/MM/YYYY' } }), (e) => typeof e.code === 'string');
});

test('blocking: "auto" designs rules from the batches: fewer candidates, every true pair found', () => {
  const auto = { ...schema, block: undefined, blocking: 'auto' };
  delete auto.block;
  const { m, ba, bb } = link({ keyed: true, schema: auto });
  const designed = RecordMatcher.blocking(auto, ba, bb);
  const bundled = link({ keyed: true }).m.link();
  assert.ok(designed.candidates > 0 && designed.candidates < bundled.candidates / 2, `${designed.candidates} against ${bundled.candidates}`);
  assert.ok(designed.rules.length > 0 && designed.rules.every((r) => r.pairs > 0), JSON.stringify(designed.rules));
  const out = m.link();
  assert.equal(out.candidates, designed.candidates, 'the linkage blocks with the designed rules');
  let tp = 0;
  for (let i = 0; i < out.pairs.classes.length; i++) if (out.pairs.classes[i] === 'M') tp++;
  assert.ok(tp >= 495, `${tp} matches of 500 people`);
  // rules written beside "auto" are refused by name
  assert.throws(() => new RecordOwner(file('dataset1-a.csv'), { ...schema, blocking: 'auto' }), /remove the \[\[block\]\] rules/);
});
