#!/usr/bin/env node
// `npm start`: builds the browser package if it is missing or older than the Rust
// sources, then serves the web app (scripts/serve.mjs) on localhost.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
// both builds of scripts/build-wasm.sh: the core and the lab
const wasms = ['gramlink', 'gramlink_lab'].map((name) => path.join(root, `pkg/web/${name}_bg.wasm`));

/** The newest modification time under `dir` (Rust sources and manifests). */
function newest(dir) {
  let t = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    t = Math.max(t, e.isDirectory() ? newest(p) : statSync(p).mtimeMs);
  }
  return t;
}

const sourcesTime = Math.max(newest(path.join(root, 'src')), statSync(path.join(root, 'Cargo.toml')).mtimeMs);
if (wasms.some((wasm) => !existsSync(wasm) || statSync(wasm).mtimeMs < sourcesTime)) {
  console.log('[start] pkg/web is missing or older than src/: npm run build');
  const r = spawnSync('bash', ['scripts/build-wasm.sh'], { cwd: root, stdio: 'inherit' });
  if (r.status !== 0) {
    console.error('[start] the build failed (scripts/setup.sh installs its tools)');
    process.exit(r.status ?? 1);
  }
}
if (!existsSync(path.join(root, 'node_modules/uplot/dist/uPlot.esm.js'))) {
  console.warn('[start] uPlot is not installed (npm install): the demo page will have no charts');
}
await import('./serve.mjs').then(({ serve }) => {
  const port = Number(process.env.PORT ?? 8080);
  return serve({ port }).then(({ url }) =>
    console.log(`gramlink web app: ${url}  (data owner: ${url}owner.html, matcher: ${url}matcher.html, demo: ${url}demo.html)`),
  );
});
