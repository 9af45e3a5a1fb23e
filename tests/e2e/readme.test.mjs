// The README's browser example runs verbatim: its page, served from a project folder
// whose node_modules/gramlink is this package, in headless Chromium (init() fetches the wasm).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync, mkdtempSync, mkdirSync, symlinkSync, rmSync, existsSync, createReadStream } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { chromium } from 'playwright-core';
import { root, CHROMIUM } from './harness.mjs';

const TYPES = { '.html': 'text/html', '.js': 'text/javascript', '.wasm': 'application/wasm' };

test('the README\'s browser example runs as written', async () => {
  const readme = readFileSync(path.join(root, 'README.md'), 'utf8');
  const blocks = [...readme.matchAll(/```html\n([\s\S]*?)```/g)].map((m) => m[1]);
  assert.equal(blocks.length, 1, 'one ```html block in README.md');
  assert.ok(existsSync(path.join(root, 'pkg/web/gramlink_bg.wasm')), 'pkg/web is not built: npm run build');
  // a user's project: the page, and the package under node_modules/gramlink
  const dir = mkdtempSync(path.join(tmpdir(), 'gramlink-readme-'));
  writeFileSync(path.join(dir, 'index.html'), blocks[0]);
  mkdirSync(path.join(dir, 'node_modules'));
  symlinkSync(root, path.join(dir, 'node_modules/gramlink'));
  const server = createServer((req, res) => {
    const file = path.join(dir, decodeURIComponent(new URL(req.url, 'http://x').pathname));
    if (!file.startsWith(dir) || !existsSync(file)) return res.writeHead(404).end();
    res.writeHead(200, { 'content-type': TYPES[path.extname(file)] ?? 'application/octet-stream' });
    createReadStream(file).pipe(res);
  });
  await new Promise((ok) => server.listen(0, '127.0.0.1', ok));
  const args = ['--disable-gpu', '--disable-dev-shm-usage', ...(process.getuid?.() === 0 ? ['--no-sandbox'] : [])];
  const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args });
  try {
    const page = await browser.newPage();
    const errors = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(`http://127.0.0.1:${server.address().port}/index.html`);
    await page.waitForFunction(() => document.getElementById('out').textContent.length > 0, null, { timeout: 60_000 });
    const out = await page.locator('#out').textContent();
    // the ranked rule links the records that are the same person: Johnson–Jonson, Brown–Browne
    assert.match(out, /^ranked /);
    assert.ok(out.includes('2-2') && out.includes('4-3'), out);
    assert.deepEqual(errors, []);
  } finally {
    await browser.close();
    server.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

// The README's Python install (a fresh venv of the user's, `pip install ./python`), then its
// Python example in that venv: both blocks as written. pip builds the Rust core (minutes).
test('the README\'s Python install and example run as written in a fresh venv', async () => {
  const { execFileSync } = await import('node:child_process');
  const readme = readFileSync(path.join(root, 'README.md'), 'utf8');
  const python = readme.slice(readme.indexOf('## In Python'));
  const sh = [...python.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1])[0];
  const example = [...python.matchAll(/```python\n([\s\S]*?)```/g)].map((m) => m[1])[0];
  assert.ok(sh && example, 'the Python section has a ```sh install and a ```python example');
  // the user's project folder: a copy of nothing but a link to the checkout's python/
  const dir = mkdtempSync(path.join(tmpdir(), 'gramlink-pip-'));
  symlinkSync(path.join(root, 'python'), path.join(dir, 'python'));
  writeFileSync(path.join(dir, 'example.py'), example);
  try {
    const out = execFileSync('bash', ['-euo', 'pipefail', '-c', `${sh}\npython example.py`], { cwd: dir, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], timeout: 1_500_000 });
    // pip's own lines first, then the README's four prints
    const lines = out.trim().split('\n').slice(-4);
    assert.equal(lines[0], '64', out);
    assert.match(lines[1], /^ranked .*2-8.*4-9|^ranked .*4-9.*2-8/, out);
    assert.equal(lines.at(-1), 'TRUNCATED_MESSAGE', out);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
