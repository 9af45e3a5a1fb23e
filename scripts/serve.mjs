#!/usr/bin/env node
// Serves the web app on localhost (no dependency): the pages (scripts/pages.mjs: one
// layout around each www/pages/<name>.html) and www/ at /, the browser package pkg/web/
// at /pkg/, uPlot at /vendor/uplot/, the bundled public datasets at /data/.
//
//   node scripts/serve.mjs [--port 8080] [--host 127.0.0.1]   (PORT=0: any free port)
//
// Every response carries a strict Content-Security-Policy (scripts/pages.mjs, csp).
// Pages that handle a party's data (owner, matcher) and every script get
// `connect-src 'none'`. The wasm therefore cannot be fetched either: it is served
// as a JS module (/pkg/gramlink_bg.wasm.js, the bytes in base64) that script-src
// allows; the lab build's (gramlink/lab, for the demo, twin and three-party pages) as
// /pkg/gramlink_lab_bg.wasm.js. Only the demo page (public data) may fetch from its own origin.
import { createServer } from 'node:http';
import { readFile, stat } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import { csp, pageFor, renderFile } from './pages.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

const MOUNTS = [
  ['/pkg/', path.join(root, 'pkg/web')],
  ['/vendor/uplot/', path.join(root, 'node_modules/uplot/dist')],
  ['/data/', path.join(root, 'data')],
  ['/', path.join(root, 'www')],
];

const TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.wasm': 'application/wasm',
  '.json': 'application/json; charset=utf-8',
  '.txt': 'text/plain; charset=utf-8',
  '.md': 'text/plain; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
};

function headersFor(urlPath, type) {
  const h = {
    'Content-Type': type,
    'Cache-Control': 'no-store',
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'no-referrer',
    'Cross-Origin-Resource-Policy': 'same-origin',
    'Content-Security-Policy': csp(pageFor(urlPath.slice(1))?.connect),
  };
  return h;
}

/** The builds in pkg/web whose wasm is served as a module: the core and the lab. */
const WASM_MODULES = new Map(['gramlink', 'gramlink_lab'].map((name) => [`/pkg/${name}_bg.wasm.js`, name]));
const wasmModuleCache = new Map();
/** pkg/web's wasm of build `name` as an ES module exporting its bytes in base64 (see the header). */
async function wasmAsModule(name) {
  const file = path.join(root, `pkg/web/${name}_bg.wasm`);
  const s = await stat(file);
  const cached = wasmModuleCache.get(name);
  if (cached && cached.mtimeMs === s.mtimeMs) return cached.body;
  const b64 = (await readFile(file)).toString('base64');
  const body = `// pkg/web/${name}_bg.wasm, base64 (served by scripts/serve.mjs)\nexport default ${JSON.stringify(b64)};\n`;
  wasmModuleCache.set(name, { mtimeMs: s.mtimeMs, body });
  return body;
}

function resolve(urlPath) {
  for (const [prefix, dir] of MOUNTS) {
    if (urlPath.startsWith(prefix)) {
      const rel = urlPath.slice(prefix.length) || 'index.html';
      const file = path.resolve(dir, rel);
      // refuse any path that escapes its mount (../, encoded or not)
      if (file !== dir && !file.startsWith(dir + path.sep)) return null;
      return file;
    }
  }
  return null;
}

async function handle(req, res) {
  let urlPath;
  try {
    urlPath = decodeURIComponent(new URL(req.url, 'http://localhost').pathname);
  } catch {
    res.writeHead(400, { 'Content-Type': 'text/plain' }).end('bad request\n');
    return;
  }
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    res.writeHead(405, { Allow: 'GET, HEAD', 'Content-Type': 'text/plain' }).end('method not allowed\n');
    return;
  }
  if (urlPath === '/') urlPath = '/index.html';
  try {
    let body;
    let type;
    const page = pageFor(urlPath.slice(1));
    if (WASM_MODULES.has(urlPath)) {
      body = await wasmAsModule(WASM_MODULES.get(urlPath));
      type = TYPES['.js'];
    } else if (page) {
      body = renderFile(page.file);
      type = TYPES['.html'];
    } else if (urlPath.startsWith('/pages/') || urlPath.startsWith('/partials/')) {
      // a page's body, or a block of one (www/partials), alone is no page: it is served only inside its layout
      throw Object.assign(new Error('a page body'), { code: 'ENOENT' });
    } else {
      const file = resolve(urlPath);
      if (!file) throw Object.assign(new Error('outside'), { code: 'ENOENT' });
      body = await readFile(file);
      type = TYPES[path.extname(file)] ?? 'application/octet-stream';
    }
    res.writeHead(200, headersFor(urlPath, type));
    res.end(req.method === 'HEAD' ? undefined : body);
  } catch (e) {
    const missing = e.code === 'ENOENT' || e.code === 'EISDIR' || e.code === 'ENOTDIR';
    res.writeHead(missing ? 404 : 500, { 'Content-Type': 'text/plain; charset=utf-8', 'Content-Security-Policy': csp() });
    res.end(missing ? `not found: ${urlPath}\n` : `server error: ${e.message}\n`);
  }
}

/** Starts the server; resolves to `{server, url}`. */
export function serve({ port = 8080, host = '127.0.0.1' } = {}) {
  return new Promise((ok, fail) => {
    const server = createServer((req, res) => {
      handle(req, res).catch(() => res.destroy());
    });
    server.once('error', fail);
    server.listen(port, host, () => {
      const { port: p } = server.address();
      ok({ server, url: `http://${host === '0.0.0.0' ? '127.0.0.1' : host}:${p}/` });
    });
  });
}

function arg(name, fallback) {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && process.argv[i + 1] ? process.argv[i + 1] : fallback;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const port = Number(arg('port', process.env.PORT ?? 8080));
  const host = arg('host', '127.0.0.1');
  serve({ port, host }).then(
    ({ url }) => console.log(`gramlink web app: ${url}  (data owner: ${url}owner.html, matcher: ${url}matcher.html, records: ${url}records-owner.html and ${url}records-matcher.html, demo: ${url}demo.html)`),
    (e) => {
      console.error(`cannot listen on ${host}:${port}: ${e.message}`);
      process.exit(1);
    },
  );
}
