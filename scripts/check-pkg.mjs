// Smoke check of the built npm package (npm test; `npm run build` first): both builds
// instantiate their wasm in Node, and export the same API. Not a test of the API itself.
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';

const root = new URL('../', import.meta.url);
for (const dir of ['pkg/node', 'pkg/web']) {
  const wasm = new URL(`${dir}/gramlink_bg.wasm`, root);
  assert.ok(existsSync(wasm), `${dir}/gramlink_bg.wasm is missing: run npm run build`);
}

// pkg/node instantiates its wasm on import
const node = await import(new URL('pkg/node/gramlink.js', root));

// pkg/web is instantiated by its caller; here from the bytes, as a worker could
const web = await import(new URL('pkg/web/gramlink.js', root));
assert.equal(typeof web.default, 'function', 'pkg/web has a default init function');
assert.equal(typeof web.initSync, 'function', 'pkg/web has initSync');
web.initSync({ module: readFileSync(new URL('pkg/web/gramlink_bg.wasm', root)) });

const api = (m) => Object.keys(m).filter((k) => k !== 'default' && k !== 'initSync').sort();
assert.deepEqual(api(node), api(web), 'pkg/node and pkg/web export the same API');

console.log(`ok: pkg/node and pkg/web load in Node ${process.version}; exports: [${api(node).join(', ')}]`);
