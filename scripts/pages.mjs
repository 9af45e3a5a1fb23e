#!/usr/bin/env node
// The web app's pages from one layout: every page's head, navigation and
// Content-Security-Policy are written here once; www/pages/<name>.html holds only what
// a page shows below the navigation, and a block that several places show is written
// once in www/partials/<name>.html and included (see `expand`). scripts/serve.mjs
// serves the pages rendered from here (and the same policy as a header), so `npm start`,
// the end-to-end tests and the benches all see them; `node scripts/pages.mjs --out DIR`
// writes them as files, with www/js and www/css beside them, for a static server of
// one's own (it must still map /pkg/, with its wasm as the module
// /pkg/gramlink_bg.wasm.js and the lab build's as /pkg/gramlink_lab_bg.wasm.js,
// /vendor/uplot/ and /data/ as scripts/serve.mjs does).
import { cpSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const BODIES = path.join(root, 'www/pages');
export const PARTIALS = path.join(root, 'www/partials');

const UPLOT = 'vendor/uplot/uPlot.min.css';

/**
 * Every page, in the navigation's order: its file, its title, the label of its link
 * (none: not linked, the brand links it), its stylesheets in cascade order, its module
 * script, and what it may connect to (only the demo fetches: public datasets).
 */
export const PAGES = [
  { file: 'index.html', title: 'gramlink', nav: null, script: null },
  { file: 'owner.html', title: 'Data owner', nav: 'Data owner', script: 'js/owner.js' },
  { file: 'matcher.html', title: 'Matcher', nav: 'Matcher', script: 'js/matcher.js' },
  { file: 'records-owner.html', title: 'Records: data owner', nav: 'Records: owner', script: 'js/records-owner.js' },
  { file: 'records-matcher.html', title: 'Records: matcher', nav: 'Records: matcher', script: 'js/records-matcher.js', styles: ['css/app.css', UPLOT] },
  { file: 'kuzu.html', title: 'Three parties: DP blocking and encrypted comparison', nav: 'Three parties', script: 'js/kuzu.js' },
  { file: 'twin.html', title: 'Synthetic twin', nav: 'Twin', script: 'js/twin.js' },
  { file: 'demo.html', title: 'Demo', nav: 'Demo', script: 'js/demo.js', styles: [UPLOT, 'css/app.css'], connect: "'self'" },
].map((p) => ({ styles: ['css/app.css'], connect: "'none'", ...p }));

/** The page served at `/<file>`, or undefined. */
export function pageFor(file) {
  return PAGES.find((p) => p.file === file);
}

/**
 * The policy of a page: `connect` is its connect-src. Pages that handle a party's data
 * get `'none'`: the browser itself refuses any fetch, XHR, WebSocket or beacon, so
 * records cannot leave the page even by a bug. `meta`: the form a <meta> element may
 * carry (browsers ignore frame-ancestors there, and say so in the console).
 */
export function csp(connect = "'none'", { meta = false } = {}) {
  return [
    "default-src 'none'",
    // 'wasm-unsafe-eval' lets the page compile WebAssembly, and nothing else (no eval)
    "script-src 'self' 'wasm-unsafe-eval'",
    "worker-src 'self'",
    "style-src 'self'",
    "img-src 'self' data: blob:",
    `connect-src ${connect}`,
    "base-uri 'none'",
    "form-action 'none'",
    ...(meta ? [] : ["frame-ancestors 'none'"]),
    "object-src 'none'",
  ].join('; ');
}

/** The navigation of every page, with `current` marked as the page shown. */
function nav(current) {
  return PAGES.filter((p) => p.nav)
    .map((p) => `    <a href="${p.file}"${p === current ? ' aria-current="page"' : ''}>${p.nav}</a>\n`)
    .join('');
}

/** The whole document of `page` around its body (www/pages/<file>). */
export function render(page, body) {
  const title = page.file === 'index.html' ? page.title : `${page.title} · gramlink`;
  const styles = page.styles.map((s) => `  <link rel="stylesheet" href="${s}">\n`).join('');
  const script = page.script ? `  <script type="module" src="${page.script}"></script>\n` : '';
  return `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <!-- the policy the server sends as a header (scripts/pages.mjs, csp) -->
  <meta http-equiv="Content-Security-Policy" content="${csp(page.connect, { meta: true })}">
  <link rel="icon" href="data:,">
  <title>${title}</title>
${styles}${script}</head>
<body>
<header class="site">
  <a class="brand" href="index.html">gramlink</a>
  <nav aria-label="Pages">
${nav(page)}  </nav>
</header>
${body}</body>
</html>
`;
}

// A line `{{> name key="value" other='value'}}`, alone on its line: the partial
// www/partials/<name>.html with each `{{key}}` replaced by its value, every line indented
// as the include line is. A partial may include others.
const INCLUDE = /^([ \t]*)\{\{> *([a-z0-9-]+)((?: +[a-z0-9-]+=(?:"[^"]*"|'[^']*'))*) *\}\}[ \t]*$/gm;
const PARAM = /([a-z0-9-]+)=(?:"([^"]*)"|'([^']*)')/g;
const PLACEHOLDER = /\{\{([a-z0-9-]+)\}\}/g;

/**
 * `html` with its includes replaced by their partials, recursively. `where` names the
 * file for errors: a missing partial, a placeholder without its value, a value without
 * its placeholder, a stray `{{`, or includes nested past any sensible depth.
 */
export function expand(html, where, depth = 0) {
  if (depth > 8) throw new Error(`${where}: includes nested more than 8 deep (a partial including itself?)`);
  const out = html.replace(INCLUDE, (_, indent, name, params) => {
    const file = path.join(PARTIALS, `${name}.html`);
    let text;
    try {
      text = readFileSync(file, 'utf8');
    } catch {
      throw new Error(`${where}: includes ${name}, but www/partials/${name}.html is missing`);
    }
    const values = new Map([...params.matchAll(PARAM)].map((m) => [m[1], m[2] ?? m[3]]));
    const used = new Set();
    text = text.replace(PLACEHOLDER, (_, key) => {
      if (!values.has(key)) throw new Error(`${where}: includes ${name} without ${key}="…"`);
      used.add(key);
      return values.get(key);
    });
    for (const key of values.keys()) {
      if (!used.has(key)) throw new Error(`${where}: gives ${name} a ${key}, which www/partials/${name}.html does not use`);
    }
    text = expand(text, `www/partials/${name}.html`, depth + 1);
    return text.replace(/\n$/, '').replace(/^(?=.)/gm, indent);
  });
  const stray = out.indexOf('{{');
  if (depth === 0 && stray >= 0) {
    throw new Error(`${where}: an include or placeholder it cannot read: ${out.slice(stray).split('\n')[0]}`);
  }
  return out;
}

/** The body of the page at `file` (www/pages/<file>), its includes expanded. */
export function bodyOf(file) {
  return expand(readFileSync(path.join(BODIES, file), 'utf8'), `www/pages/${file}`);
}

/** The page at `file` (e.g. `owner.html`) rendered from its body file, or null. */
export function renderFile(file) {
  const page = pageFor(file);
  return page ? render(page, bodyOf(page.file)) : null;
}

/** Writes every page, and www/js and www/css, into `dir`. */
export function writeSite(dir) {
  mkdirSync(dir, { recursive: true });
  for (const page of PAGES) writeFileSync(path.join(dir, page.file), renderFile(page.file));
  for (const sub of ['js', 'css']) cpSync(path.join(root, 'www', sub), path.join(dir, sub), { recursive: true });
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const i = process.argv.indexOf('--out');
  if (i < 0 || !process.argv[i + 1]) {
    console.error('usage: node scripts/pages.mjs --out DIR   (the pages, www/js and www/css, written into DIR)');
    process.exit(2);
  }
  writeSite(path.resolve(process.argv[i + 1]));
  console.log(`wrote ${PAGES.length} pages, js/ and css/ into ${process.argv[i + 1]}`);
}
