// npm test (after `npm run build`, its pretest): a smoke check of the built packages
// (both load, the core within its size budget),
// then the packaging test: `npm pack`, install the tarball into a fresh temporary
// project (offline: the package has no dependencies) and run tests/js/*.test.mjs
// there with node:test, importing `gramlink` as a user would.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { fileURLToPath } from 'node:url';

const root = new URL('../', import.meta.url);
const rootPath = fileURLToPath(root);

// The two builds of scripts/build-wasm.sh: the core ("gramlink") and the lab
// ("gramlink/lab": the core's API and the features eval, twin, kuzu).
const ENTRIES = [
  { name: 'gramlink', types: ['types/gramlink.d.ts', 'types/gramlink-records.d.ts'] },
  { name: 'gramlink_lab', types: ['types/gramlink-lab.d.ts'] },
];
for (const { name } of ENTRIES) {
  for (const dir of ['pkg/node', 'pkg/web']) {
    const wasm = new URL(`${dir}/${name}_bg.wasm`, root);
    assert.ok(existsSync(wasm), `${dir}/${name}_bg.wasm is missing: run npm run build`);
  }
}

// The core package's budget: its wasm, gzipped at level 9 as a server would send it. The
// goal of the issue "One linkage stack" is 300 KB; the core is about 474 KB (485,523 bytes
// by gzip -9) at opt-level "s", chosen over "z" (435 KB) for speed: "z" embedded NAMES
// 2.4x slower and missed the owner page's 2 s (docs/PERFORMANCE.md). The public name
// tables each party applies before encoding (src/record/names.rs) added 12 KB, and the
// joint comparison of fields with the names' code 11 KB (511,314 bytes). The budget holds
// what was reached until the rest is cut (docs/PERFORMANCE.md lists where it goes): the
// date parts of src/record/date_parts.rs added 15 KB (526,327 bytes), and the last direct
// sorts of the product code, moved to the shared sort of src/sorting.rs, took 27 KB off
// (496,812 bytes by gzip -9, 500,557 by this check's zlib; tests/layout.rs keeps them
// out). It fails past 500 KB (512,000 bytes by this check). The lab has no budget.
const CORE_BUDGET = 500 * 1024;
const sizes = (name) => {
  const bytes = readFileSync(new URL(`pkg/web/${name}_bg.wasm`, root));
  return { raw: bytes.length, gzipped: gzipSync(bytes, { level: 9 }).length };
};
for (const { name } of ENTRIES) {
  const { raw, gzipped } = sizes(name);
  console.log(`ok: pkg/web/${name}_bg.wasm: ${raw} bytes, ${gzipped} gzipped`);
}
// checked last (the other checks still run and report), and fails the test
const core = sizes('gramlink').gzipped;
const overBudget = core > CORE_BUDGET
  ? `the core wasm (pkg/web/gramlink_bg.wasm) is ${core} bytes gzipped, over its budget of ${CORE_BUDGET} (500 KB)` : null;

const api = (m) => Object.keys(m).filter((k) => k !== 'default' && k !== 'initSync').sort();
const coreApi = [];
for (const { name, types } of ENTRIES) {
  // pkg/node instantiates its wasm on import
  const node = await import(new URL(`pkg/node/${name}.js`, root));
  // pkg/web is instantiated by its caller; here from the bytes, as a worker could
  const web = await import(new URL(`pkg/web/${name}.js`, root));
  assert.equal(typeof web.default, 'function', `pkg/web/${name}.js has a default init function`);
  assert.equal(typeof web.initSync, 'function', `pkg/web/${name}.js has initSync`);
  web.initSync({ module: readFileSync(new URL(`pkg/web/${name}_bg.wasm`, root)) });
  assert.deepEqual(api(node), api(web), `pkg/node and pkg/web export the same API (${name})`);
  console.log(`ok: pkg/node and pkg/web (${name}) load in Node ${process.version}; exports: [${api(node).join(', ')}]`);

  // the hand-written declarations declare every export: the lab's own in its file,
  // the core's (re-exported by the lab's) in the core's
  const declared = types.map((t) => readFileSync(new URL(t, root), 'utf8')).join('\n');
  for (const k of api(node)) {
    if (coreApi.includes(k)) continue;
    assert.match(declared, new RegExp(`export (declare )?(class|function) ${k}\\b`), `${types.join(' or ')} does not declare ${k}`);
  }
  if (coreApi.length === 0) coreApi.push(...api(node));
  else for (const k of coreApi) assert.ok(api(node).includes(k), `${name} lacks the core's ${k}`);
}

// ---- packaging test
const run = (cmd, args, cwd) => execFileSync(cmd, args, { cwd, stdio: ['ignore', 'pipe', 'inherit'], encoding: 'utf8' });
const work = mkdtempSync(join(tmpdir(), 'gramlink-pkg-'));
let failed = false;
try {
  const packed = JSON.parse(run('npm', ['pack', '--json', '--pack-destination', work], rootPath));
  const tarball = join(work, packed[0].filename);
  const files = packed[0].files.map((f) => f.path);
  for (const f of ['package.json', 'types/gramlink.d.ts', 'types/gramlink-records.d.ts', 'types/gramlink-web.d.ts', 'types/gramlink-lab.d.ts',
    'types/gramlink-lab-web.d.ts', ...ENTRIES.flatMap(({ name }) => ['pkg/node', 'pkg/web'].flatMap((d) => [`${d}/${name}.js`, `${d}/${name}_bg.wasm`]))]) {
    assert.ok(files.includes(f), `the tarball lacks ${f}`);
  }
  console.log(`ok: npm pack: ${packed[0].filename}, ${files.length} files, ${packed[0].size} bytes`);

  const project = join(work, 'project');
  run('mkdir', ['-p', project]);
  writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'gramlink-pkg-test', private: true, type: 'module' }, null, 2));
  run('npm', ['install', '--offline', '--no-audit', '--no-fund', '--ignore-scripts', tarball], project);
  const tests = readdirSync(new URL('tests/js/', root)).filter((f) => f.endsWith('.test.mjs'));
  for (const f of [...tests, 'fixtures.mjs']) copyFileSync(new URL(`tests/js/${f}`, root), join(project, f));
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
if (overBudget) console.error(`FAILED: ${overBudget}`);
else console.log(`ok: the core wasm is ${core} bytes gzipped, within its budget of ${CORE_BUDGET}`);
process.exit(failed || overBudget ? 1 : 0);
