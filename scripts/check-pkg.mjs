// npm test (after `npm run build`, its pretest): a smoke check of the built package,
// then the packaging test: `npm pack`, install the tarball into a fresh temporary
// project (offline: the package has no dependencies) and run tests/js/*.test.mjs
// there with node:test, importing `gramlink` as a user would.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = new URL('../', import.meta.url);
const rootPath = fileURLToPath(root);
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

// the hand-written declarations declare every export
const declared = readFileSync(new URL('types/gramlink.d.ts', root), 'utf8');
for (const name of api(node)) {
  assert.match(declared, new RegExp(`export (declare )?(class|function) ${name}\\b`), `types/gramlink.d.ts does not declare ${name}`);
}

// ---- packaging test
const run = (cmd, args, cwd) => execFileSync(cmd, args, { cwd, stdio: ['ignore', 'pipe', 'inherit'], encoding: 'utf8' });
const work = mkdtempSync(join(tmpdir(), 'gramlink-pkg-'));
let failed = false;
try {
  const packed = JSON.parse(run('npm', ['pack', '--json', '--pack-destination', work], rootPath));
  const tarball = join(work, packed[0].filename);
  const files = packed[0].files.map((f) => f.path);
  for (const f of ['package.json', 'pkg/node/gramlink.js', 'pkg/node/gramlink_bg.wasm', 'pkg/web/gramlink.js',
    'pkg/web/gramlink_bg.wasm', 'types/gramlink.d.ts', 'types/gramlink-web.d.ts']) {
    assert.ok(files.includes(f), `the tarball lacks ${f}`);
  }
  console.log(`ok: npm pack: ${packed[0].filename}, ${files.length} files, ${packed[0].size} bytes`);

  const project = join(work, 'project');
  run('mkdir', ['-p', project]);
  writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'gramlink-pkg-test', private: true, type: 'module' }, null, 2));
  run('npm', ['install', '--offline', '--no-audit', '--no-fund', '--ignore-scripts', tarball], project);
  const tests = readdirSync(new URL('tests/js/', root)).filter((f) => f.endsWith('.test.mjs'));
  for (const f of tests) copyFileSync(new URL(`tests/js/${f}`, root), join(project, f));
  copyFileSync(new URL('data/cities.txt', root), join(project, 'cities.txt'));
  for (const f of ['dataset1-a.csv', 'dataset1-b.csv', 'dataset1-truth.csv']) {
    copyFileSync(new URL(`data/febrl/${f}`, root), join(project, `febrl-${f}`));
  }
  console.log(`ok: installed into ${project}; node --test ${tests.join(' ')}`);
  execFileSync(process.execPath, ['--test', '--test-reporter=spec', ...tests], { cwd: project, stdio: 'inherit' });

  // the declarations, through the installed package, with the pinned TypeScript
  // (a devDependency: node_modules/.bin/tsc)
  const tsc = fileURLToPath(new URL('node_modules/.bin/tsc', root));
  assert.ok(existsSync(tsc), 'node_modules/.bin/tsc is missing: npm ci installs the pinned TypeScript');
  copyFileSync(new URL('tests/js/types-check.ts', root), join(project, 'types-check.ts'));
  for (const resolution of [['--module', 'nodenext', '--moduleResolution', 'nodenext'], ['--module', 'esnext', '--moduleResolution', 'bundler']]) {
    execFileSync(tsc, ['--noEmit', '--strict', '--target', 'es2022', '--lib', 'es2022,dom', ...resolution, 'types-check.ts'], { cwd: project, stdio: 'inherit' });
  }
  console.log(`ok: types/*.d.ts type-check real use (tsc ${execFileSync(tsc, ['--version'], { encoding: 'utf8' }).trim()} --strict, node and bundler resolution)`);
} catch (e) {
  failed = true;
  console.error(`packaging test failed (left in ${work}): ${e.message}`);
} finally {
  if (!failed) { try { rmSync(work, { recursive: true, force: true, maxRetries: 10, retryDelay: 200 }); } catch (e) { console.warn(`could not remove ${work}: ${e.message}`); } }
}
process.exit(failed ? 1 : 0);
