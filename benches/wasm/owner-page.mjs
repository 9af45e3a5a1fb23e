// Benchmark: records through the owner page in headless Chromium, in the default
// (recommended) configuration, as a user would, on a first run (a fresh browser):
// choose the file (streamed by the page's worker), load, mine, merge (with a
// partner's noisy base of the same records, mined by the CLI), embed as party A (keyed with a new key
// by default, or unkeyed) and download the batch and the id map.
//
// Reported, per step and in total: the time (from the click to what the page shows:
// the preview, the base, the fingerprint, the batch's download); the batch's size;
// the slowest answer of the page to a script call (a Runtime.evaluate round trip,
// one every 100 ms, from the choice of the file to the download); and the peak memory of
// the page, counted as (CDP, sampled every 100 ms; the worker answers only
// between its tasks):
//   V8 heap in use + ArrayBuffer backing stores (Runtime.getHeapUsage usedSize +
//   backingStorageSize) of the page and of its worker, at their largest sum,
//   + the worker's wasm linear memory (memory.buffer.byteLength) at its largest;
// wasm memory only grows, so its final size is its peak, and the sum is an upper
// bound of the page's memory at any one time. Also shown: the resident set of the
// browser's renderer processes (with Chromium's own code and caches).
// A keyed batch is dense (about 4 bytes per record and dimension): past the wasm
// layer's batch limit the page refuses it before any work, which is reported.
//
// Run (after npm run build and cargo build --release --bin gramlink: the partner's base and the
// two-word data come from the CLI):
//   node benches/wasm/owner-page.mjs --names            NAMES (data/names.txt), keyed
//   node benches/wasm/owner-page.mjs --names --no-key   NAMES, unkeyed (sparse)
//   node benches/wasm/owner-page.mjs --two-words 1000000 --no-key
//     (party A of `gramlink lab corrupt --two-words N --ed 1 --seed 42`)
import { execFileSync } from 'node:child_process';
import { readFileSync, readdirSync, statSync, existsSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { start, open, downloadFrom, root, openAdvanced } from '../../tests/e2e/harness.mjs';

const { values: opt } = parseArgs({
  options: { names: { type: 'boolean' }, 'two-words': { type: 'string' }, 'no-key': { type: 'boolean' } },
  strict: true,
});
if (!opt.names === !opt['two-words']) throw new Error('give --names or --two-words N');

/** Resident set (bytes) of every renderer process below the browser process `browserPid`. */
function rendererRss(browserPid) {
  const parent = new Map();
  const cmd = new Map();
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const stat = readFileSync(`/proc/${d}/stat`, 'utf8');
      parent.set(Number(d), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
      cmd.set(Number(d), readFileSync(`/proc/${d}/cmdline`, 'utf8'));
    } catch {
      // the process ended meanwhile
    }
  }
  const below = (p) => {
    for (let q = p; q > 1; q = parent.get(q) ?? 0) if (q === browserPid) return true;
    return false;
  };
  let total = 0;
  for (const [p, c] of cmd) {
    if (!below(p) || !c.includes('--type=renderer')) continue;
    try {
      const kb = /VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${p}/status`, 'utf8'));
      total += kb ? Number(kb[1]) * 1024 : 0;
    } catch {
      // ended
    }
  }
  return total;
}

const h = await start();
const gramlink = path.join(root, 'target/release/gramlink');
if (!existsSync(gramlink)) throw new Error('target/release/gramlink is not built: cargo build --release --bin gramlink');
let file;
let label;
// the partner's noisy base, mined natively (its own noise: a page's own base given back as the
// partner's is one base twice, refused as BASE_TWICE)
let partner;
if (opt.names) {
  partner = ['--input', path.join(root, 'data/names.txt')];
  file = path.join(root, 'data/names.txt');
  label = 'NAMES (data/names.txt)';
} else {
  const n = Number(opt['two-words']);
  file = path.join(h.dir, 'a.csv');
  execFileSync(gramlink, ['lab', 'corrupt', '--data', path.join(root, 'data/names.txt'), '--two-words', String(n), '--ed', '1', '--seed', '42',
    '--out-a', file, '--out-b', path.join(h.dir, 'b.csv'), '--truth', path.join(h.dir, 't.csv')], { stdio: 'ignore' });
  partner = ['--input', path.join(h.dir, 'b.csv'), '--column', 'name'];
  label = `${n.toLocaleString('en')} two-word records (gramlink lab corrupt --two-words ${n} --ed 1 --seed 42, party A)`;
}
const keyed = !opt['no-key'];
console.log(`${label}, ${(statSync(file).size / 1e6).toFixed(1)} MB, ${keyed ? 'keyed (default)' : 'unkeyed (#no-key)'}; load average ${readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')}`);

// the browser's own process: the one whose children are the renderers
const browserPid = h.browser.process?.()?.pid ?? Number(execFileSync('pgrep', ['-n', '-f', 'chromium.*--remote-debugging-pipe']).toString());
const p = await h.page();
await open(p, h.url, 'owner.html');
await openAdvanced(p);
const cdp = await p.context().newCDPSession(p);
// the worker's heap through the browser's CDP session (Playwright opens none on a worker)
const bcdp = await h.browser.newBrowserCDPSession();
const workerTarget = (await bcdp.send('Target.getTargets')).targetInfos.find((x) => x.type === 'worker' && x.url.endsWith('/owner-worker.js'));
if (!workerTarget) throw new Error('the owner page has no worker');
const { sessionId } = await bcdp.send('Target.attachToTarget', { targetId: workerTarget.targetId, flatten: false });
const waiting = new Map();
let nextId = 1;
bcdp.on('Target.receivedMessageFromTarget', (m) => {
  const r = JSON.parse(m.message);
  waiting.get(r.id)?.(r.result);
  waiting.delete(r.id);
});
const inWorker = (method, params = {}) => new Promise((resolve) => {
  const id = nextId++;
  waiting.set(id, resolve);
  bcdp.send('Target.sendMessageToTarget', { sessionId, message: JSON.stringify({ id, method, params }) });
});
/** V8 heap in use plus ArrayBuffer backing stores (the wasm memory is not among them: it is read apart). */
const heap = (u) => u.usedSize + (u.backingStorageSize ?? 0);
/** The worker's wasm memory (bytes): the package's instance (initSync returns the running one). */
const wasmBytes = async () => (await inWorker('Runtime.evaluate', {
  expression: `import(${JSON.stringify(`${h.url}pkg/gramlink.js`)}).then((m) => m.initSync({ module: new Uint8Array(0) }).memory.buffer.byteLength)`,
  awaitPromise: true, returnByValue: true,
})).result.value;

const peak = { sum: 0, page: 0, worker: 0, wasm: 0, rss: 0, samples: 0 };
let worst = 0;
// the step running when the slowest answer came (a lap names the step that ended)
let step = 'load';
let worstStep = step;
let busy = true;
const responsiveness = (async () => {
  while (busy) {
    const s = performance.now();
    await p.evaluate(() => document.querySelector('#progress-text')?.textContent);
    const took = performance.now() - s;
    if (took > worst) [worst, worstStep] = [took, step];
    await new Promise((r) => setTimeout(r, 100));
  }
})();
// apart: the worker answers only between its tasks
const memory = (async () => {
  while (busy) {
    const [pg, wk, wasm] = await Promise.all([cdp.send('Runtime.getHeapUsage').then(heap), inWorker('Runtime.getHeapUsage').then(heap), wasmBytes()]);
    peak.page = Math.max(peak.page, pg);
    peak.worker = Math.max(peak.worker, wk);
    peak.wasm = Math.max(peak.wasm, wasm);
    peak.sum = Math.max(peak.sum, pg + wk);
    peak.rss = Math.max(peak.rss, rendererRss(browserPid));
    peak.samples++;
    await new Promise((r) => setTimeout(r, 100));
  }
})();

const t = {};
let t0 = performance.now();
const next = { load: 'mine', mine: 'merge', merge: 'embed' };
const lap = (k) => {
  t[k] = performance.now() - t0;
  t0 = performance.now();
  step = next[k] ?? 'download';
};
await p.setInputFiles('#file', file);
if (!opt.names) {
  await p.waitForSelector('#column:enabled');
  await p.selectOption('#column', 'name');
  await p.selectOption('#id-column', 'id');
}
t0 = performance.now();
await p.click('#load');
await p.waitForSelector('#preview:not([hidden])', { timeout: 600_000 });
lap('load');
await p.click('#mine');
await p.waitForSelector('#base-out:not([hidden])', { timeout: 600_000 });
lap('mine');
const base = path.join(h.dir, 'partner-base.json');
execFileSync(gramlink, ['mine', ...partner, '--ledger', path.join(h.dir, 'partner.ledger.json'), '--out', base], { stdio: 'ignore' });
await p.setInputFiles('#partner', base);
t0 = performance.now();
await p.click('#merge');
await p.waitForSelector('#merge-out:not([hidden])', { timeout: 600_000 });
lap('merge');
await p.selectOption('#party', 'A');
if (keyed) await downloadFrom(p, '#new-key', path.join(h.dir, 'key.txt'));
else await p.check('#no-key');
t0 = performance.now();
// the batch comes as a download, or (above 100 MB) after the page's size warning, or not at all
const dl = p.waitForEvent('download', { timeout: 600_000 }).catch(() => null);
await p.click('#embed');
const outcome = await Promise.race([
  dl.then(() => 'download'),
  p.waitForSelector('.download-anyway', { timeout: 600_000 }).then(() => 'warning'),
  p.waitForFunction(() => document.querySelector('#embed-error').textContent, null, { timeout: 600_000 }).then(() => 'refused'),
]);
let batchBytes = null;
let refusal = null;
if (outcome === 'refused') {
  refusal = await p.locator('#embed-error').textContent();
  lap('embed (refused)');
} else {
  if (outcome === 'warning') await p.click('.download-anyway');
  const d = await dl;
  // the page offered the batch: the saving to disk is the browser's, not timed
  lap('embed+thresholds');
  const batch = path.join(h.dir, 'a.vectors.bin');
  step = 'saving the batch';
  await d.saveAs(batch);
  step = 'the id map download';
  batchBytes = statSync(batch).size;
  await downloadFrom(p, '#download-ids', path.join(h.dir, 'a.ids.csv'));
}
busy = false;
await responsiveness;
await memory;
const wasm = await wasmBytes();
peak.rss = Math.max(peak.rss, rendererRss(browserPid));

const mb = (b) => `${(b / 1e6).toFixed(1)} MB`;
const total = Object.values(t).reduce((a, b) => a + b, 0);
console.log(Object.entries(t).map(([k, v]) => `${k} ${(v / 1000).toFixed(2)} s`).join(', ') + `; total ${(total / 1000).toFixed(2)} s`);
if (refusal) console.log(`refused before the work: ${refusal}`);
else console.log(`batch ${mb(batchBytes)} (${batchBytes.toLocaleString('en')} bytes)`);
const wasmPeak = Math.max(peak.wasm, wasm);
console.log(`peak memory ${mb(peak.sum + wasmPeak)}: page + worker heaps ${mb(peak.sum)} (page ${mb(peak.page)}, worker ${mb(peak.worker)} at most) + wasm memory ${mb(wasmPeak)} (${peak.samples} samples); renderer RSS ${mb(peak.rss)}`);
console.log(`slowest page answer ${worst.toFixed(0)} ms (during ${worstStep}); load average ${readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')}`);
if (p.errors.length) console.log(`page errors: ${p.errors.join('; ')}`);
await h.close();
