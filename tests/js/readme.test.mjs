// The README's JavaScript example runs verbatim, against the installed package
// (scripts/check-pkg.mjs runs this file in a fresh project that installed the
// tarball, so the README read here is the one that ships in it).
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { test } from 'node:test';

const readme = readFileSync(new URL('./node_modules/gramlink/README.md', import.meta.url), 'utf8');
const blocks = [...readme.matchAll(/```js\n([\s\S]*?)```/g)].map((m) => m[1]);

test('the README has a JavaScript example', () => {
  assert.ok(blocks.length >= 1, 'no ```js block in README.md');
});

blocks.forEach((code, i) => {
  test(`README example ${i + 1} runs as written`, () => {
    const file = new URL(`./readme-example-${i + 1}.mjs`, import.meta.url);
    writeFileSync(file, code);
    const out = execFileSync(process.execPath, [file.pathname], { encoding: 'utf8' });
    const lines = out.trim().split('\n');
    // the ranked rule links the two records that are the same person
    assert.match(lines[0], /^ranked /, out);
    assert.ok(lines[0].includes('2-8') && lines[0].includes('4-9'), `JOHNSON-Jonson and BROWN-Browne linked: ${out}`);
    assert.equal(lines[1], 'all');
  });
});

// the CommonJS example: a .cjs file loads the ES module with a dynamic import()
const cjs = [...readme.matchAll(/```cjs\n([\s\S]*?)```/g)].map((m) => m[1]);
test('the README has a CommonJS example', () => assert.equal(cjs.length, 1));
cjs.forEach((code, i) => {
  test(`README CommonJS example ${i + 1} runs as written in a .cjs file`, () => {
    const file = new URL(`./readme-example-${i + 1}.cjs`, import.meta.url);
    writeFileSync(file, code);
    const out = execFileSync(process.execPath, [file.pathname], { encoding: 'utf8' });
    assert.equal(out.trim(), '64');
  });
});
