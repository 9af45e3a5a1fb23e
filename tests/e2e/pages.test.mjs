// The pages come from one layout (scripts/pages.mjs): each page served by
// scripts/serve.mjs carries the one head, navigation and Content-Security-Policy, the
// policy in its <meta> is the header's, and no page body repeats any of them. Needs no
// browser and no built package: it reads the pages over HTTP as the browser would.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { serve } from '../../scripts/serve.mjs';
import { PAGES, BODIES, PARTIALS, bodyOf, csp, expand, writeSite } from '../../scripts/pages.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
let server;
let url;
before(async () => {
  ({ server, url } = await serve({ port: 0 }));
});
after(() => server?.close());

/** The page's status, its policy header and its text. */
async function get(name) {
  const res = await fetch(url + name);
  return { status: res.status, policy: res.headers.get('content-security-policy'), html: await res.text() };
}

const all = (html, re) => [...html.matchAll(re)].map((m) => m[1]);

test('every page body has its entry in the one list, and no page stands outside it', () => {
  const bodies = readdirSync(BODIES).filter((f) => f.endsWith('.html')).sort();
  assert.deepEqual(bodies, PAGES.map((p) => p.file).sort());
  const strays = readdirSync(path.join(root, 'www')).filter((f) => f.endsWith('.html'));
  assert.deepEqual(strays, [], 'a whole page in www/ would bypass the layout');
});

test('no page body repeats the head, the navigation or the policy', () => {
  for (const { file } of PAGES) {
    const body = bodyOf(file);
    for (const part of ['<!doctype', '<html', '<head', '<meta', '<title', '<nav', '<header', 'http-equiv', '<body', '</html>']) {
      assert.ok(!body.toLowerCase().includes(part.toLowerCase()), `www/pages/${file}, its includes expanded, holds ${part}`);
    }
  }
});

test('every partial is included by some page, and the page bodies include them whole', () => {
  const raw = [...PAGES.map((p) => path.join(BODIES, p.file)), ...readdirSync(PARTIALS).map((f) => path.join(PARTIALS, f))]
    .map((f) => readFileSync(f, 'utf8'))
    .join('\n');
  for (const f of readdirSync(PARTIALS)) {
    assert.ok(f.endsWith('.html'), `www/partials/${f} is not a partial`);
    assert.ok(raw.includes(`{{> ${f.replace(/\.html$/, '')}`), `www/partials/${f} is included nowhere`);
  }
  for (const { file } of PAGES) assert.ok(!bodyOf(file).includes('{{'), `${file} keeps an include or a placeholder`);
});

test('an include is expanded with its values and indented as its line; a mistake in one is named', () => {
  const field = expand('  <div class="grid">\n    {{> file-field id="x" label="X\'s file" accept=".json"}}\n  </div>\n', 'test');
  assert.match(field, /^ {6}<label for="x">X's file<\/label>$/m);
  assert.match(field, /^ {6}<input type="file" id="x" accept=".json" aria-describedby="x-error">$/m);
  assert.throws(() => expand('{{> no-such-partial}}\n', 'test'), /www\/partials\/no-such-partial\.html is missing/);
  assert.throws(() => expand('{{> file-field id="x" label="X"}}\n', 'test'), /without accept=/);
  assert.throws(() => expand('{{> file-field id="x" label="X" accept="a" colour="red"}}\n', 'test'), /colour/);
  assert.throws(() => expand('<p>{{> file-field id="x"}} inline</p>\n', 'test'), /cannot read/);
});

for (const page of PAGES) {
  test(`${page.file}: the layout's head, navigation and policy`, async () => {
    const { status, policy, html } = await get(page.file);
    assert.equal(status, 200);
    assert.equal(policy, csp(page.connect));
    // one policy in the page, the header's without frame-ancestors (ignored in <meta>)
    const metas = all(html, /<meta http-equiv="Content-Security-Policy" content="([^"]*)">/g);
    assert.deepEqual(metas, [policy.replace("; frame-ancestors 'none'", '')]);
    assert.match(policy, page.file === 'demo.html' ? /connect-src 'self'/ : /connect-src 'none'/);
    assert.equal(all(html, /<title>([^<]*)<\/title>/g).length, 1);
    assert.equal(all(html, /<nav aria-label="Pages">/g).length, 1);
    // the navigation links every other page once, in the list's order, and marks this one
    const links = all(html, /<nav aria-label="Pages">([\s\S]*?)<\/nav>/g)[0];
    assert.deepEqual(all(links, /href="([^"]+)"/g), PAGES.filter((p) => p.nav).map((p) => p.file));
    assert.deepEqual(all(links, /href="([^"]+)" aria-current="page"/g), page.nav ? [page.file] : []);
    assert.deepEqual(all(html, /<script type="module" src="([^"]+)"/g), page.script ? [page.script] : []);
    for (const s of [page.script, ...page.styles].filter((s) => s && !s.startsWith('vendor/'))) {
      assert.ok(existsSync(path.join(root, 'www', s)), `${page.file} names www/${s}, which is missing`);
    }
    // the body follows the navigation, whole
    const body = bodyOf(page.file);
    assert.ok(html.endsWith(`</header>\n${body}</body>\n</html>\n`), `${page.file} does not end with its body`);
  });
}

test('a page body alone, or a partial, is not served', async () => {
  assert.equal((await get('pages/owner.html')).status, 404);
  assert.equal((await get('partials/file-field.html')).status, 404);
});

test('the pages written as files are the pages served', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'gramlink-pages-'));
  try {
    writeSite(dir);
    for (const { file } of PAGES) assert.equal(readFileSync(path.join(dir, file), 'utf8'), (await get(file)).html, file);
    assert.ok(existsSync(path.join(dir, 'js/owner.js')) && existsSync(path.join(dir, 'css/app.css')));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
