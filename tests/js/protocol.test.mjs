// The whole protocol through the installed npm package (scripts/check-pkg.mjs packs it,
// installs the tarball into a fresh project and runs this there with node --test):
// two data owners on data/cities.txt and a corrupted copy made here, mine, merge,
// embed, match; refusals by error code.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { DataOwner, Matcher, RecordReader, defaults, fingerprint, unmapPairs } from 'gramlink';
import { defaults as labDefaults, runScenario } from 'gramlink/lab';
import { mulberry32 } from './fixtures.mjs';

const cities = readFileSync(new URL('./cities.txt', import.meta.url), 'utf8').split('\n').filter((s) => s.length > 0);

// One random edit (substitution, insertion or deletion) for three records in four;
// every fourth is left as it is. Returns B's rows [id, text] in a shuffled order.
function corruptedCopy(records, seed) {
  const rnd = mulberry32(seed);
  const letters = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';
  const rows = records.map((s, i) => {
    if (i % 4 === 0) return [String(i + 1), s];
    const chars = [...s];
    const at = Math.floor(rnd() * chars.length);
    const c = letters[Math.floor(rnd() * letters.length)];
    const kind = Math.floor(rnd() * 3);
    if (kind === 0) chars[at] = c;
    else if (kind === 1) chars.splice(at, 0, c);
    else if (chars.length > 1) chars.splice(at, 1);
    return [String(i + 1), chars.join('')];
  });
  for (let i = rows.length - 1; i > 0; i--) {
    const j = Math.floor(rnd() * (i + 1));
    [rows[i], rows[j]] = [rows[j], rows[i]];
  }
  return rows;
}

const csv = (rows) => 'id,city\n' + rows.map((r) => r.map((f) => `"${f.replaceAll('"', '""')}"`).join(',')).join('\n') + '\n';

function expectCode(fn, code) {
  assert.throws(fn, (e) => {
    assert.ok(e instanceof Error, `not an Error: ${e}`);
    assert.equal(e.code, code, `code of: ${e.message}`);
    assert.ok(e.message.length > 0);
    return true;
  });
}

const MINE = { miner: 'fpm', epsilon: 1, k: 75 };

// The matcher's pairs (of pseudonyms) mapped back to both owners' ids with their maps,
// through the core's unmap: { aIds, bIds } of the owners' own ids. A batch carries each
// distinct record once, so a pair of rows gives every pair of their records: at least
// one pair of ids a pair of rows
function ownIds(out, a, b) {
  const pairs = 'a_id,b_id\n' + out.aIds.map((x, i) => `${x},${out.bIds[i]}\n`).join('');
  const rows = unmapPairs(pairs, a.idMapCsv(), b.idMapCsv()).trim().split('\n').slice(1).map((l) => l.split(','));
  assert.ok(rows.length >= out.count, `${rows.length} pairs of ids for ${out.count} pairs of rows`);
  return { aIds: rows.map((r) => r[0]), bIds: rows.map((r) => r[1]) };
}

test('two data owners link CITIES with a corrupted copy', () => {
  assert.ok(cities.length === 5000 && cities.some((s) => /[^\x00-\x7f]/.test(s)), 'CITIES with non-ASCII names');
  const a = new DataOwner(cities, { budget: 1 });
  const b = DataOwner.fromBytes(new TextEncoder().encode(csv(corruptedCopy(cities, 7))), { column: 'city', idColumn: 'id' }, { budget: 1 });
  assert.equal(a.size, cities.length);
  assert.ok(a.private && b.private);
  const report = a.normalizationReport();
  assert.equal(report.total, cities.length);
  assert.ok(report.changed > 0, 'accents and case were normalized');

  const phases = new Set();
  const na = a.mine(MINE, (phase, done, total) => { phases.add(phase); assert.ok(done <= total); });
  const nb = b.mine(MINE);
  assert.ok(phases.size > 0, 'progress was reported');
  assert.ok(Math.abs(a.epsilonSpent - 1) < 1e-9, `spent ${a.epsilonSpent}`);
  assert.equal(JSON.parse(na).format, 'gramlink/noisy-base');

  const shared = DataOwner.mergeBases(na, nb, MINE);
  // both parties merge by the same deterministic rule and compare fingerprints
  assert.equal(DataOwner.mergeBases(na, nb, MINE), shared);
  const fp = fingerprint(shared);
  assert.match(fp, /^[0-9a-f]{64}$/);

  const batchA = a.embed(shared, { party: 'A', thresholds: { ed: 1, mode: 'paper' }, noKey: true });
  const batchB = b.embed(shared, { party: 'B', binary: true, noKey: true });
  assert.equal(typeof batchA, 'string');
  assert.ok(batchB instanceof Uint8Array);
  assert.ok(!batchA.includes(cities[0]) && !batchA.includes(cities[0].toUpperCase()), 'no record text in a batch');

  const vectors = a.embedVectors(shared);
  assert.ok(vectors instanceof Float32Array);
  const th = a.thresholds(shared, 1, 'sound');
  assert.ok(th instanceof Float64Array && th.length === cities.length);

  // the batches carry random pseudonyms; each owner keeps its map (never sent)
  const mapA = a.idMapCsv();
  assert.equal(mapA.split('\n')[0], 'pseudonym,id');
  assert.equal(mapA.trim().split('\n').length, 1 + cities.length);
  assert.equal(mapA.split('\n')[1].split(',')[1], '1', 'in record order, to the own ids');
  assert.ok(JSON.parse(batchA).ids.every((id) => /^[0-9a-f]{16}$/.test(id)), 'no row number sent as id');

  const m = new Matcher(batchA, batchB);
  assert.equal(m.fingerprint, fp);
  assert.equal(vectors.length, a.size * m.dim);
  // the sparse rows are the dense vectors' non-zero entries, in coordinate order
  const sparse = a.embedSparse(shared);
  assert.ok(sparse.starts instanceof Uint32Array && sparse.cols instanceof Uint32Array && sparse.vals instanceof Float32Array);
  assert.equal(sparse.dim, m.dim);
  assert.equal(sparse.starts.length, a.size + 1);
  assert.equal(sparse.starts[a.size], sparse.cols.length);
  const rebuilt = new Float32Array(vectors.length);
  for (let r = 0; r < a.size; r++) {
    for (let k = sparse.starts[r]; k < sparse.starts[r + 1]; k++) {
      assert.ok(k === sparse.starts[r] || sparse.cols[k] > sparse.cols[k - 1], 'ascending coordinates');
      rebuilt[r * m.dim + sparse.cols[k]] = sparse.vals[k];
    }
  }
  assert.deepEqual(rebuilt, vectors);
  assert.ok(sparse.cols.length < vectors.length / 10, `sparse: ${sparse.cols.length} entries of ${vectors.length}`);
  assert.ok(m.dim > 750, `the default base has the public 2-grams: dimension ${m.dim}`);
  const ranked = ownIds(m.match(), a, b);
  assert.equal(m.match().rule, 'ranked', 'the default rule');
  assert.match(m.match().aIds[0], /^[0-9a-f]{16}$/, 'the matcher sees pseudonyms');
  // one to one over the rows (each a distinct record)
  const rowPairs = m.match();
  assert.equal(new Set(rowPairs.aIds).size, rowPairs.count);
  assert.equal(new Set(rowPairs.bIds).size, rowPairs.count);
  const r = m.match({ rule: 'all' });
  assert.equal(r.rule, 'all', 'one spelling: options and results');
  assert.ok(r.a instanceof Uint32Array && r.b instanceof Uint32Array && r.distances instanceof Float64Array);
  assert.ok(r.count > 0 && r.a.length === r.count && r.aIds.length === r.count && r.candidates >= r.count);
  // every record B holds unchanged (distance 0) is linked to it
  const own = ownIds(r, a, b);
  const linked = new Set(own.aIds.map((x, i) => `${x}:${own.bIds[i]}`));
  for (let i = 0; i < cities.length; i += 4) {
    assert.ok(linked.has(`${i + 1}:${i + 1}`), `unchanged ${cities[i]} not linked`);
  }
  const sent = m.match({ rule: 'greedy' });
  assert.equal(sent.rule, 'greedy');
  assert.equal(new Set(sent.aIds).size, sent.count);
  assert.equal(new Set(sent.bIds).size, sent.count);
  const one = ownIds(sent, a, b);
  one.count = one.aIds.length;
  const correct = one.aIds.filter((x, i) => x === one.bIds[i]).length;
  const precision = correct / one.count;
  const recall = correct / cities.length;
  console.log(`# CITIES one-to-one: ${one.count} pairs, precision ${precision.toFixed(3)}, recall ${recall.toFixed(3)}; ${r.count} pairs within threshold, ${r.candidates} candidates`);
  assert.ok(recall > 0.25, `recall ${recall}`);
  const message = JSON.parse(m.matchResult({ rule: 'greedy' }));
  assert.equal(message.rule, 'greedy');
  assert.equal(message.pairs.length, sent.count);
  const rankedCorrect = ranked.aIds.filter((x, i) => x === ranked.bIds[i]).length;
  console.log(`# CITIES ranked: ${ranked.aIds.length} pairs, precision ${(rankedCorrect / ranked.aIds.length).toFixed(3)}, recall ${(rankedCorrect / cities.length).toFixed(3)}`);
  assert.ok(rankedCorrect / cities.length > 0.25, `ranked recall ${rankedCorrect / cities.length}`);
  expectCode(() => m.match({ rule: 'bogus' }), 'INVALID_PARAMETER');
  expectCode(() => m.match({ oneToOne: true }), 'INVALID_PARAMETER'); // the older spelling is gone

  // a batch over another shared base is refused
  const c = new DataOwner(cities.slice(0, 500), { budget: 1 });
  const other = DataOwner.mergeBases(c.mine(MINE), nb, { ...MINE, k: 40 });
  assert.notEqual(fingerprint(other), fp);
  expectCode(() => new Matcher(batchA, c.embed(other, { party: 'B', noKey: true })), 'FINGERPRINT_MISMATCH');
  expectCode(() => new Matcher(batchA, batchB.subarray(0, batchB.length - 5)), 'TRUNCATED_MESSAGE');
  expectCode(() => new Matcher(batchA, 42), 'INVALID_PARAMETER');

  // the budget is spent: a second mining is refused
  expectCode(() => a.mine(MINE), 'BUDGET_EXCEEDED');
  expectCode(() => a.mine({ epsilon: 0.001 }), 'BUDGET_EXCEEDED');
  a.free(); b.free(); c.free(); m.free();
});

test('ids: pseudonyms by default, the own ids with keepIds, and unmapPairs maps pairs back', () => {
  const a = new DataOwner(['SMITH', 'JONES', 'BROWN'], { budget: 1, seed: 3 });
  const b = DataOwner.fromBytes(new TextEncoder().encode('id,name\n=7,SMYTH\n8,BROWNE\n'), { column: 'name', idColumn: 'id' }, { budget: 1, seed: 4 });
  const shared = DataOwner.mergeBases(a.mine({ epsilon: 1 }), b.mine({ epsilon: 1 }), { epsilon: 1 });
  assert.equal(a.idMapCsv(), undefined, 'no map before an embed');
  const kept = JSON.parse(a.embed(shared, { noKey: true, keepIds: true }));
  assert.deepEqual([...kept.ids].sort(), ['1', '2', '3'], 'the own ids, in a shuffled order');
  assert.equal(a.idMapCsv(), undefined, 'no map when the ids are kept');
  const first = JSON.parse(a.embed(shared, { noKey: true }));
  const second = JSON.parse(a.embed(shared, { noKey: true }));
  assert.ok(second.ids.every((p, i) => /^[0-9a-f]{16}$/.test(p) && p !== first.ids[i]), 'fresh pseudonyms each embed');
  const mapA = a.idMapCsv();
  const rows = (csv) => csv.trim().split('\n').slice(1).map((l) => l.split(','));
  // the map lists the records in their own order; the batch's rows are shuffled
  assert.deepEqual(rows(mapA).map((r) => r[1]), ['1', '2', '3']);
  assert.deepEqual(rows(mapA).map((r) => r[0]).sort(), [...second.ids].sort(), 'the last embed\'s map');
  b.embed(shared, { party: 'B', noKey: true });
  const mapB = b.idMapCsv();
  const [a1, a3, b7, b8] = [rows(mapA)[0][0], rows(mapA)[2][0], rows(mapB)[0][0], rows(mapB)[1][0]];
  // a pairs file of the matcher (its columns after the ids are kept); an id a
  // spreadsheet would run is escaped, as the matcher escapes the ids it writes
  const pairs = `a_id,b_id,distance\n${a1},${b7},0.5\n${a3},${b8},0.25\n`;
  assert.equal(unmapPairs(pairs, mapA, mapB), "a_id,b_id,distance\n1,'=7,0.5\n3,8,0.25\n");
  assert.equal(unmapPairs(new TextEncoder().encode(pairs), mapA, null), `a_id,b_id,distance\n1,${b7},0.5\n3,${b8},0.25\n`);
  assert.equal(unmapPairs(pairs, undefined, mapB).split('\n')[2], `${a3},8,0.25`);
  // the map's bytes (what the page's worker hands over) are its CSV's, and unmap as it does
  const bytesA = a.idMapBytes();
  assert.ok(bytesA instanceof Uint8Array && new TextDecoder().decode(bytesA) === mapA);
  assert.equal(unmapPairs(pairs, bytesA, b.idMapBytes()), unmapPairs(pairs, mapA, mapB));
  const fresh = new DataOwner(['X'], { seed: 1 });
  assert.equal(fresh.idMapBytes(), undefined, 'no bytes before an embed');
  fresh.free();
  expectCode(() => unmapPairs(pairs), 'INVALID_PARAMETER');
  expectCode(() => unmapPairs(pairs, mapB, null), 'INVALID_FORMAT'); // another owner's map
  expectCode(() => unmapPairs('x,y\n1,2\n', mapA, null), 'INVALID_FORMAT');
  expectCode(() => unmapPairs(pairs, 42, null), 'INVALID_PARAMETER');
  expectCode(() => unmapPairs(pairs, new TextEncoder().encode('a,b\n'), null), 'INVALID_FORMAT');
  expectCode(() => unmapPairs(pairs, 'a,b\n', null), 'INVALID_FORMAT');
  expectCode(() => a.embed(shared, { noKey: true, keepIds: 'yes' }), 'INVALID_PARAMETER');
  expectCode(() => a.embed(shared, { noKey: true, keepID: true }), 'INVALID_PARAMETER');
  // an id column that is the linked column would send the records as ids
  expectCode(() => DataOwner.fromBytes(new TextEncoder().encode('name\nSMITH\n'), { column: 'name', idColumn: 'name' }), 'ID_IS_LINKED_COLUMN');
  a.free(); b.free();
});

test('a data owner reads a file\'s bytes through the core\'s reader', () => {
  const bytes = new TextEncoder().encode('id,name,born\n7,Mary Smith,1970\n9,"O\'Neil, Jr",1982\n');
  expectCode(() => DataOwner.fromBytes(bytes), 'MISSING_COLUMN');
  try { DataOwner.fromBytes(bytes); } catch (e) { assert.match(e.message, /"id", "name", "born"/); }
  const o = DataOwner.fromBytes(bytes, { column: 'name', idColumn: 'id' });
  assert.deepEqual(o.ids, ['7', '9']);
  const addresses = new TextEncoder().encode('id,address\n1,12 Main St\n2,7 Oak Rd\n');
  const addr = DataOwner.fromBytes(addresses, { column: 'address' });
  assert.match(addr.normalizationReport().warning, /3 digits.*"letters\+digits"/);
  const text = DataOwner.fromBytes(new TextEncoder().encode('PARIS\nROME\n'), { name: 'cities.txt' });
  assert.equal(text.size, 2);
  expectCode(() => DataOwner.fromBytes(new Uint8Array([0x50, 0xff, 0xfe])), 'NOT_TEXT');
  expectCode(() => DataOwner.fromBytes('PARIS'), 'INVALID_PARAMETER');
});

test('a record reader takes a file in chunks, cut anywhere, and gives what fromBytes gives', () => {
  const text = 'id,name\n' + cities.slice(0, 300).map((c, i) => `${i + 1},"${c}, é"`).join('\n') + '\n';
  const bytes = new TextEncoder().encode(text);
  const whole = DataOwner.fromBytes(bytes, { column: 'name', idColumn: 'id' }, { seed: 1 });
  for (const step of [1, 7, 4096]) {
    const r = new RecordReader({ name: 'cities.csv', column: 'name', idColumn: 'id' });
    for (let at = 0; at < bytes.length; at += step) r.push(bytes.subarray(at, at + step));
    assert.equal(r.bytesRead, bytes.length);
    const o = DataOwner.fromReader(r, { seed: 1 });
    assert.deepEqual(o.ids, whole.ids);
    assert.deepEqual(o.normalizationReport(), whole.normalizationReport());
    expectCode(() => r.push(bytes), 'INVALID_FORMAT');
    o.free();
  }
  const noColumn = new RecordReader({ name: 'cities.csv' });
  expectCode(() => noColumn.push(bytes), 'MISSING_COLUMN');
  const bad = new RecordReader({ name: 'x.txt' });
  bad.push(new TextEncoder().encode('PARIS\n'));
  bad.push(new Uint8Array([0x50, 0xff, 0xfe, 0x0a]));
  // records are parsed a megabyte at a time: a bad byte is named by then, or at the end
  expectCode(() => DataOwner.fromReader(bad), 'NOT_TEXT');
  expectCode(() => DataOwner.fromReader(bad), 'INVALID_FORMAT');
  expectCode(() => new RecordReader({ name: 'x.txt' }).push('PARIS'), 'INVALID_PARAMETER');
  whole.free();
});

test('errors are JS Errors with a stable code', () => {
  expectCode(() => new DataOwner([]), 'EMPTY_INPUT');
  expectCode(() => new DataOwner('Paris'), 'INVALID_PARAMETER');
  expectCode(() => new DataOwner(['Paris', 7]), 'INVALID_PARAMETER');
  expectCode(() => new DataOwner(['Paris'], { budgett: 1 }), 'INVALID_PARAMETER');
  expectCode(() => DataOwner.fromBytes(new TextEncoder().encode('id,name\n1,Paris\n'), { column: 'city' }), 'MISSING_COLUMN');
  const o = new DataOwner(cities.slice(0, 200), { budget: 0.5 });
  expectCode(() => o.mine({ miner: 'magic' }), 'INVALID_PARAMETER');
  expectCode(() => o.mine({ epsilon: NaN }), 'INVALID_EPSILON');
  expectCode(() => o.mine({ epsilon: 0 }), 'INVALID_EPSILON');
  expectCode(() => o.mine({ k: 0 }), 'INVALID_PARAMETER');
  expectCode(() => o.mine({ epsilon: 0.6 }), 'BUDGET_EXCEEDED');
  expectCode(() => o.mine(undefined, () => false), 'CANCELLED');
  expectCode(() => DataOwner.mergeBases('{', '{'), 'TRUNCATED_MESSAGE');
  // merge options must say how the noisy bases were mined (padding)
  const p = new DataOwner(cities.slice(0, 200), { budget: 1, seed: 5 });
  const padded = p.mine({ miner: 'fpm', epsilon: 0.3 });
  const plain = p.mine({ ...defaults().presets.paper.mine, miner: 'fpm', epsilon: 0.3 });
  const paperMine = { ...defaults().presets.paper.mine, k: 20 };
  expectCode(() => DataOwner.mergeBases(padded, padded, paperMine), 'INCOMPATIBLE_BASES');
  expectCode(() => DataOwner.mergeBases(plain, plain, { k: 20 }), 'INCOMPATIBLE_BASES');
  expectCode(() => DataOwner.mergeBases(padded, plain, { k: 20 }), 'INCOMPATIBLE_BASES');
  expectCode(() => DataOwner.mergeBases(padded, padded, { publicQ: 2, padding: true, extra: 1 }), 'INVALID_PARAMETER');
  const paperBase = JSON.parse(DataOwner.mergeBases(plain, plain, paperMine));
  assert.ok(paperBase.grams.length <= 20, 'the paper\'s base: mined grams only');
  assert.ok(JSON.parse(DataOwner.mergeBases(padded, padded, { k: 20 })).grams.length > 783, 'the public 2-grams and boundary grams');
  expectCode(() => fingerprint('not json'), 'MALFORMED_MESSAGE');
  expectCode(() => o.embed('{"format":"gramlink/shared-base","version":2}'), 'UNSUPPORTED_VERSION');
});

test('gramlink/lab is the core API and the lab functions; the core has none of them', async () => {
  const core = Object.keys(await import('gramlink'));
  const lab = Object.keys(await import('gramlink/lab'));
  for (const k of core) assert.ok(lab.includes(k), `gramlink/lab lacks the core's ${k}`);
  assert.deepEqual(lab.filter((k) => !core.includes(k)).sort(),
    ['KuzuOwner', 'kuzuBlockModel', 'kuzuDecide', 'kuzuFinalLinks', 'kuzuKeygen', 'kuzuLinksForA', 'makeTwin', 'runScenario']);
  assert.equal(defaults().scenario, undefined, 'the core has no scenario');
  assert.deepEqual(labDefaults().scenario.config, defaults().config, 'the scenario runs the default configuration');
  const { scenario, ...rest } = labDefaults();
  assert.deepEqual(rest, defaults(), 'the lab\'s other defaults are the core\'s');
});

test('runScenario returns the evaluation as a plain object', () => {
  const r = runScenario(cities.slice(0, 1000), { config: { thresholds: { ed: 1 } }, seed: 42 });
  assert.equal(r.n, 1000);
  assert.equal(Object.getPrototypeOf(r.timingsMs), Object.prototype);
  assert.ok(r.timingsMs['mine A'] >= 0 && r.timingsMs.match >= 0);
  for (const k of ['precision', 'recall', 'f1']) assert.ok(r[k] >= 0 && r[k] <= 1, k);
  const c = r.options.config;
  assert.equal(c.thresholds.mode, 'sound');
  assert.equal(c.mine.k, 75, 'defaults filled in');
  const rec = defaults().presets.recommended;
  assert.equal(rec.thresholds.ed, 'auto', 'ed auto by default');
  assert.deepEqual(c, { ...rec, thresholds: { ...rec.thresholds, ed: 1 } }, 'the recommended configuration, ed 1');
  assert.equal(r.cutoff, undefined, 'a fixed ed fits no cut-off');
  // ed auto (the default): the matcher's fit says what it kept
  const auto = runScenario(cities.slice(0, 1000), { seed: 42, corruptEd: 2 });
  assert.equal(auto.options.config.thresholds.ed, 'auto');
  assert.equal(auto.cutoff.bound, 2);
  assert.ok(auto.cutoff.kept > 0 && auto.cutoff.kept <= auto.cutoff.candidates);
  assert.ok(auto.f1 > 0.8, `F1 ${auto.f1}`);
  // the paper's configuration, as a whole
  const paper = runScenario(cities.slice(0, 1000), { config: defaults().presets.paper });
  assert.deepEqual(paper.options.config, defaults().presets.paper);
  assert.deepEqual([paper.options.config.mine.publicQ, paper.options.config.mine.padding, paper.options.config.rule], [null, false, 'all']);
  console.log(`# runScenario CITIES[..1000] ed 1 seed 42: F1 recommended ${r.f1.toFixed(3)}, paper ${paper.f1.toFixed(3)}`);
  assert.ok(r.f1 > paper.f1, `recommended F1 ${r.f1}, paper ${paper.f1}`);
  assert.ok(Array.isArray(r.sample) && r.sample.length <= 20);
  expectCode(() => runScenario(cities.slice(0, 10), { config: { thresholds: { mode: 'lenient' } } }), 'INVALID_PARAMETER');
  expectCode(() => runScenario(cities.slice(0, 10), { ed: 1 }), 'INVALID_PARAMETER');
  expectCode(() => runScenario(cities.slice(0, 10), { alphabet: 'AAB' }), 'INVALID_ALPHABET');
  assert.equal(runScenario(['ABBA', 'BAAB', 'ABAB'], { alphabet: 'AB', config: { mine: { k: 4, qMin: 1, qMax: 2, miner: 'exact', padding: false, publicQ: null } } }).n, 3);
});

test('the browser builds load from bytes and export the same API', async () => {
  const dir = new URL('./node_modules/gramlink/pkg/web/', import.meta.url);
  for (const [name, entry] of [['gramlink', 'gramlink'], ['gramlink_lab', 'gramlink/lab']]) {
    const web = await import(new URL(`${name}.js`, dir));
    web.initSync({ module: readFileSync(new URL(`${name}_bg.wasm`, dir)) });
    const owner = new web.DataOwner(['Zürich', 'Kīhei'], { seed: 1 });
    assert.equal(owner.size, 2);
    assert.deepEqual(Object.keys(web).filter((k) => k !== 'default' && k !== 'initSync').sort(),
      Object.keys(await import(entry)).sort(), entry);
  }
});
