// Benchmark: N records (default a million two-word names) through the owner page
// in headless Chromium, in the default (recommended) configuration, as a user
// would: choose the file (streamed by the page's worker), load, mine, merge (with
// the page's own noisy base as the partner's), embed as party A and download the
// batch. Reported: each step's time, the slowest answer of the page to a script
// call while it works (sampled every 100 ms), and the peak memory (resident set)
// of the page's renderer processes (the page and its worker's wasm memory).
// Run: npm run build && cargo build --release && node benches/wasm/owner-page.mjs
// (N=150000 for a smaller run).
import { execFileSync } from 'node:child_process';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { start, open, downloadFrom, root } from '../../tests/e2e/harness.mjs';

const n = Number(process.env.N ?? 1_000_000);

/** Resident set (bytes) of every process below `pid`, renderers only. */
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
const csv = path.join(h.dir, 'records.csv');
execFileSync(gramlink, ['corrupt', '--data', path.join(root, 'data/names.txt'), '--two-words', String(n), '--ed', '1',
  '--out-a', csv, '--out-b', path.join(h.dir, 'b.csv'), '--truth', path.join(h.dir, 't.csv')], { stdio: 'ignore' });
console.log(`${n.toLocaleString('en')} records, ${(statSync(csv).size / 1e6).toFixed(1)} MB of CSV`);

// the browser's own process: the one whose children are the renderers
const browserPid = h.browser.process?.()?.pid ?? Number(execFileSync('pgrep', ['-n', '-f', 'chromium.*--remote-debugging-pipe']).toString());
const p = await h.page();
await open(p, h.url, 'owner.html');
let peak = 0;
let worst = 0;
let busy = true;
const watch = (async () => {
  while (busy) {
    peak = Math.max(peak, rendererRss(browserPid));
    const s = Date.now();
    await p.evaluate(() => document.querySelector('#load-status').textContent);
    worst = Math.max(worst, Date.now() - s);
    await new Promise((r) => setTimeout(r, 100));
  }
})();

const t = {};
let t0 = Date.now();
const lap = (k) => {
  t[k] = Date.now() - t0;
  t0 = Date.now();
};
await p.setInputFiles('#file', csv);
await p.selectOption('#column', 'name');
await p.selectOption('#id-column', 'id');
lap('choose file');
await p.click('#load');
await p.waitForSelector('#preview:not([hidden])', { timeout: 600_000 });
lap('load (stream, normalize)');
await p.click('#mine');
await p.waitForSelector('#base-out:not([hidden])', { timeout: 600_000 });
lap('mine');
const base = await downloadFrom(p, '#download-base', path.join(h.dir, 'base.json'));
await p.setInputFiles('#partner', base);
t0 = Date.now();
await p.click('#merge');
await p.waitForSelector('#merge-out:not([hidden])', { timeout: 600_000 });
lap('merge');
await p.selectOption('#party', 'A');
const batch = await downloadFrom(p, '#embed', path.join(h.dir, 'a.vectors.bin'));
lap('embed + thresholds + download');
busy = false;
await watch;
const total = Object.values(t).reduce((a, b) => a + b, 0);
console.log(Object.entries(t).map(([k, v]) => `${k} ${v} ms`).join(', '));
console.log(`total ${total} ms; batch ${(statSync(batch).size / 1e6).toFixed(1)} MB; peak renderer memory ${(peak / 1e6).toFixed(0)} MB; slowest page answer ${worst} ms`);
if (p.errors.length) console.log(`page errors: ${p.errors.join('; ')}`);
await h.close();
