// Synthetic twins through the installed npm package (scripts/check-pkg.mjs runs this in a
// fresh project): a twin of place names and of FEBRL records, each with its report;
// refusals by error code.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { makeTwin } from 'gramlink/lab';

const cities = readFileSync(new URL('./cities.txt', import.meta.url), 'utf8').split('\n').filter((s) => s).slice(0, 500);

test('a twin of strings is marked synthetic and keeps groups of k', () => {
  const t = makeTwin(cities, { seed: 1, twin: { condense: { k: 5 }, nnSample: 50 } });
  assert.equal(t.synthetic, true);
  assert.equal(t.report.synthetic, true);
  assert.equal(t.report.differentiallyPrivate, false);
  assert.equal(t.records.length, t.report.twinRows);
  assert.ok(t.report.fields[0].minGroup >= 5);
  // same seed, same twin
  assert.deepEqual(makeTwin(cities, { seed: 1, twin: { condense: { k: 5 }, nnSample: 50 } }).records, t.records);
});

test('a twin of records reads under its schema', () => {
  const csv = readFileSync(new URL('./febrl-dataset1-a.csv', import.meta.url), 'utf8');
  const schema = {
    version: 1, id: 'rec_id',
    field: [{ name: 'given_name', kind: 'name' }, { name: 'surname', kind: 'name' }, { name: 'state', kind: 'keyed' }],
  };
  const t = makeTwin(csv, { schema, seed: 2, twin: { condense: { k: 5, lengthEpsilon: 0.5 }, nnSample: 20 } });
  const lines = t.records.trim().split('\n');
  assert.equal(lines[0], 'rec_id,given_name,surname,state');
  assert.ok(lines[1].startsWith('synthetic-1,'));
  assert.equal(lines.length, 501);
  assert.deepEqual(t.report.categorical.columns, ['state']);
});

test('bad input is refused by code', () => {
  assert.throws(() => makeTwin(['SMITH', 'JONES'], { twin: { condense: { k: 3 } } }), { code: 'TOO_FEW_RECORDS' });
  assert.throws(() => makeTwin(cities, { twin: { condense: { k: 0 } } }), { code: 'INVALID_PARAMETER' });
  assert.throws(() => makeTwin(cities, { twin: { condense: { kk: 3 } } }), { code: 'INVALID_PARAMETER' });
  assert.throws(() => makeTwin([], {}), { code: 'EMPTY_INPUT' });
});
