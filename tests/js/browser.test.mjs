// Packaging test in a browser: the installed package's web build, imported as an ES
// module (through an import map, as a site would) by a page served from 127.0.0.1,
// runs the protocol in headless Chromium (Debian's /usr/bin/chromium). Runs in the
// temporary project scripts/check-pkg.mjs installs the tarball into.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { spawn } from 'node:child_process';
import { createServer } from 'node:http';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { extname, join, normalize } from 'node:path';

const here = process.cwd();
const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';

const PAGE = `<!doctype html><meta charset="utf-8"><title>gramlink in a page</title>
<script type="importmap">{ "imports": { "gramlink": "/node_modules/gramlink/pkg/web/gramlink.js" } }</script>
<script type="module">
  const report = (r) => fetch('/result', { method: 'POST', body: JSON.stringify(r) });
  try {
    const { default: init, DataOwner, Matcher, unmapPairs } = await import('gramlink');
    await init();
    const cities = (await (await fetch('/cities.txt')).text()).split('\\n').filter((s) => s).slice(0, 1500);
    const corrupted = cities.map((s) => s.length > 4 ? s.slice(0, 2) + s.slice(3) : s + 'X');
    const a = new DataOwner(cities, { budget: 1 });
    const b = new DataOwner(corrupted, { budget: 1 });
    const shared = DataOwner.mergeBases(a.mine({ epsilon: 1, hMax: 8 }), b.mine({ epsilon: 1, hMax: 8 }));
    // every option at its default: the recommended configuration, the ranked rule
    const va = a.embed(shared, { party: 'A', binary: true, noKey: true });
    const vb = b.embed(shared, { party: 'B', binary: true, noKey: true });
    const out = new Matcher(va, vb).match();
    // the batches carry pseudonyms: each owner's map gives its ids back
    const sent = 'a_id,b_id\\n' + out.aIds.map((x, i) => x + ',' + out.bIds[i] + '\\n').join('');
    const own = unmapPairs(sent, a.idMapCsv(), b.idMapCsv()).trim().split('\\n').slice(1).map((l) => l.split(','));
    let same = 0;
    for (const [x, y] of own) if (x === y) same++;
    let code = null;
    // a party that mined another base: its batch is refused by fingerprint
    const c = new DataOwner(corrupted, { budget: 1 });
    const other = DataOwner.mergeBases(c.mine({ epsilon: 0.5, k: 40, hMax: 8 }), c.mine({ epsilon: 0.5, k: 40, hMax: 8 }), { k: 40 });
    try { new Matcher(va, c.embed(other, { party: 'B', noKey: true })); } catch (e) { code = e.code; }
    report({ private: a.private, rule: out.rule, count: out.count, same, code, crypto: typeof crypto.getRandomValues });
  } catch (e) {
    report({ error: String(e && e.stack || e) });
  }
</script>`;

const TYPES = { '.js': 'text/javascript', '.mjs': 'text/javascript', '.wasm': 'application/wasm', '.txt': 'text/plain' };

test('the packaged web build runs the protocol in headless Chromium', { timeout: 240_000 }, async () => {
  assert.ok(existsSync(CHROMIUM), `${CHROMIUM} is missing (scripts/setup.sh installs Debian's chromium)`);
  const profile = mkdtempSync(join(tmpdir(), 'gramlink-chromium-'));
  let browser;
  const result = await new Promise((resolve, reject) => {
    const server = createServer((req, res) => {
      const url = req.url.split('?')[0];
      if (req.method === 'POST' && url === '/result') {
        let body = '';
        req.on('data', (c) => (body += c));
        req.on('end', () => { res.end('ok'); server.close(); resolve(JSON.parse(body)); });
        return;
      }
      if (url === '/' || url === '/index.html') {
        res.setHeader('content-type', 'text/html');
        res.end(PAGE);
        return;
      }
      const path = normalize(join(here, decodeURIComponent(url)));
      if (!path.startsWith(here) || !existsSync(path)) { res.statusCode = 404; res.end(); return; }
      res.setHeader('content-type', TYPES[extname(path)] ?? 'application/octet-stream');
      res.end(readFileSync(path));
    });
    server.listen(0, '127.0.0.1', () => {
      browser = spawn(CHROMIUM, [
        '--headless=new', '--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--disable-quic',
        '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run',
        `--user-data-dir=${profile}`, `http://127.0.0.1:${server.address().port}/`,
      ], { stdio: 'ignore', detached: true });
      browser.on('error', reject);
    });
    setTimeout(() => { server.close(); reject(new Error('no result from the page within 200 s')); }, 200_000).unref();
  }).finally(async () => {
    // Chromium runs in its own process group (detached): end the whole group, so no
    // helper process (zygote, crashpad) is still writing into the profile when it is removed.
    if (browser && browser.exitCode === null) {
      const exited = new Promise((r) => browser.once('exit', r));
      try { process.kill(-browser.pid, 'SIGTERM'); } catch { browser.kill(); }
      await exited;
    }
    if (browser) { try { process.kill(-browser.pid, 'SIGKILL'); } catch { /* group already gone */ } }
    // The profile is scratch space: failing to remove it is reported, not a test failure.
    try {
      rmSync(profile, { recursive: true, force: true, maxRetries: 20, retryDelay: 250 });
    } catch (e) {
      console.warn(`# could not remove the Chromium profile ${profile}: ${e.message}`);
    }
  });
  assert.equal(result.error, undefined, result.error);
  assert.equal(result.crypto, 'function');
  assert.equal(result.private, true, 'no seed: the browser run is private (crypto.getRandomValues)');
  assert.equal(result.rule, 'ranked', 'the default rule');
  assert.ok(result.count > 1000, `ranked (one-to-one) linked ${result.count} of 1500`);
  assert.ok(result.same / result.count > 0.8, `${result.same} of ${result.count} pairs are true`);
  assert.equal(result.code, 'FINGERPRINT_MISMATCH');
});
