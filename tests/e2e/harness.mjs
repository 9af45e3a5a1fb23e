// The e2e harness: the app's server on a free port, Debian's Chromium driven by
// playwright-core (no browser download), fixtures, screenshots.
import { before, after } from 'node:test';
import assert from 'node:assert/strict';
import { chromium } from 'playwright-core';
import { mkdirSync, mkdtempSync, writeFileSync, readFileSync, existsSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { serve } from '../../scripts/serve.mjs';

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const shots = path.join(root, 'target/e2e-screenshots');
export const CHROMIUM = process.env.CHROMIUM ?? '/usr/bin/chromium';

export const LAPTOP = { width: 1366, height: 900 };
export const NARROW = { width: 375, height: 780 };

/** Server, browser and a scratch directory for one test file; `close()` ends all three. */
export async function start() {
  for (const name of ['gramlink', 'gramlink_lab']) {
    if (!existsSync(path.join(root, `pkg/web/${name}_bg.wasm`))) throw new Error(`pkg/web/${name}_bg.wasm is not built: npm run build`);
  }
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} not found (Debian package chromium; scripts/setup.sh installs it)`);
  const { server, url } = await serve({ port: 0 });
  const args = ['--disable-gpu', '--disable-dev-shm-usage'];
  // Chromium refuses to run as root with its sandbox
  if (process.getuid?.() === 0) args.push('--no-sandbox');
  const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args });
  const dir = mkdtempSync(path.join(tmpdir(), 'gramlink-e2e-'));
  mkdirSync(shots, { recursive: true });
  return {
    url,
    browser,
    dir,
    file: (name, content) => {
      const p = path.join(dir, name);
      writeFileSync(p, content);
      return p;
    },
    async page(viewport = LAPTOP, { bypassCSP = false } = {}) {
      // bypassCSP only for the accessibility audit, which injects axe-core into the page
      const context = await browser.newContext({ viewport, acceptDownloads: true, bypassCSP });
      const page = await context.newPage();
      page.errors = [];
      page.on('pageerror', (e) => page.errors.push(e.message));
      page.on('console', (m) => m.type() === 'error' && page.errors.push(m.text()));
      return page;
    },
    async close() {
      await browser.close().catch(() => {});
      await new Promise((ok) => server.close(ok));
      server.closeAllConnections?.();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * The harness of the test file that calls it: `start()`ed before the file's tests and
 * closed after them. The object returned is filled in by the `before` hook, so the tests
 * use it as they would `start()`'s.
 */
export function harness() {
  const h = {};
  before(async () => {
    Object.assign(h, await start());
  });
  after(async () => {
    await h.close?.();
  });
  return h;
}

/** The text of the first element of `page` that `sel` selects. */
export const text = (page, sel) => page.locator(sel).textContent();

/** Opens a page of the app and waits until its worker answered (body[data-ready]). */
export async function open(page, url, name) {
  const response = await page.goto(url + name);
  await page.waitForSelector('body[data-ready="true"]', { timeout: 60_000 });
  return response;
}

/** Clicks `button` and saves the download it starts; returns its path. */
export async function downloadFrom(page, button, to) {
  const [dl] = await Promise.all([page.waitForEvent('download', { timeout: 300_000 }), page.click(button)]);
  await dl.saveAs(to);
  page.lastDownload = dl.suggestedFilename();
  return to;
}

/** Full-page screenshots at the laptop and the narrow size. */
export async function screenshots(page, name) {
  const out = [];
  for (const [tag, vp] of [['laptop', LAPTOP], ['narrow', NARROW]]) {
    await page.setViewportSize(vp);
    await page.waitForTimeout(150); // let charts and layout follow the resize
    const p = path.join(shots, `${name}-${tag}.png`);
    await page.screenshot({ path: p, fullPage: true });
    out.push(p);
  }
  await page.setViewportSize(LAPTOP);
  return out;
}

/** A seeded generator (xorshift32), so fixtures are the same on every run. */
export function rng(seed) {
  let s = seed >>> 0 || 1;
  return () => {
    s ^= s << 13;
    s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5;
    s >>>= 0;
    return s / 2 ** 32;
  };
}

const LETTERS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';
/** One random substitution, insertion or deletion of a letter. */
export function edit(s, r) {
  const i = Math.floor(r() * s.length);
  const c = LETTERS[Math.floor(r() * 26)];
  const kind = Math.floor(r() * 3);
  if (kind === 0) return s.slice(0, i) + c + s.slice(i + 1);
  if (kind === 1) return s.slice(0, i) + c + s.slice(i);
  return s.length > 1 ? s.slice(0, i) + s.slice(i + 1) : s + c;
}

export const csvField = (s) => (/[",\n\r]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s);

/** Two CSVs from the first `n` lines of a dataset: A's originals, B's one-edit copies in a shuffled order. */
export function ownerFixtures(dataset, n, seed = 7) {
  const lines = readFileSync(path.join(root, 'data', dataset), 'utf8').split('\n').filter(Boolean).slice(0, n);
  const r = rng(seed);
  const a = ['id,name', ...lines.map((s, i) => `A${i + 1},${csvField(s)}`)].join('\n') + '\n';
  const order = lines.map((_, i) => i);
  for (let i = order.length - 1; i > 0; i--) {
    const j = Math.floor(r() * (i + 1));
    [order[i], order[j]] = [order[j], order[i]];
  }
  const b = ['id,name', ...order.map((i) => `B${i + 1},${csvField(edit(lines[i].toUpperCase(), r))}`)].join('\n') + '\n';
  return { a, b, n: lines.length };
}

/** axe-core's violations on `page` (its context must bypass the page's CSP: see page()). */
export async function audit(page) {
  await page.addScriptTag({ path: path.join(root, 'node_modules/axe-core/axe.min.js') });
  return page.evaluate(async () => {
    const r = await globalThis.axe.run(document, { resultTypes: ['violations'] });
    return r.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.slice(0, 3).map((n) => n.target.join(' ')) }));
  });
}

/** The serious and critical ones of `audit`'s violations. */
export const serious = (violations) => violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');

/**
 * Fills each of `values`' fields (selector → value), clicks `button`, and checks that
 * the error slot `slot` says `pattern` (waited for: the core's refusals come from the
 * worker, the page's own at once).
 */
export async function refused(page, values, button, slot, pattern) {
  for (const [field, value] of Object.entries(values)) await page.fill(field, value);
  await page.click(button);
  await page.waitForSelector(`${slot}:not(:empty)`);
  assert.match(await text(page, slot), pattern);
}

/** Opens every "Advanced" disclosure of a page (the expert settings; folded by default). */
export async function openAdvanced(page) {
  await page.evaluate(() => {
    for (const d of document.querySelectorAll('details.advanced')) d.open = true;
  });
}

/** Party A's owner page makes the key and downloads it to `to`; B's page loads
 * that file (as A hands it over, never to the matcher). Returns the path. */
export async function handKey(pa, pb, to) {
  const key = await downloadFrom(pa, '#new-key', to);
  await pb.setInputFiles('#key-file', key);
  await pb.waitForFunction(() => document.querySelector('#key').value.length === 64);
  return key;
}

/** Each records-owner page loads the shared bases file, up to its fingerprint. */
export async function loadShared(pages, shared) {
  for (const p of pages) {
    await p.setInputFiles('#shared', shared);
    await p.waitForFunction(() => /^Fingerprint: /.test(document.querySelector('#shared-fingerprint').textContent));
  }
}

/** Loads a CSV on an owner page, mines with ε (budget the same), returns nothing. */
export async function ownerLoadAndMine(page, csvPath, { epsilon = '1' } = {}) {
  await openAdvanced(page);
  await page.setInputFiles('#file', csvPath);
  await page.selectOption('#column', 'name');
  await page.selectOption('#id-column', 'id');
  await page.fill('#owner-budget', epsilon);
  await page.click('#load');
  await page.waitForSelector('#preview:not([hidden])');
  await page.fill('#epsilon', epsilon);
  await page.click('#mine');
  await page.waitForSelector('#base-out:not([hidden])', { timeout: 120_000 });
}
