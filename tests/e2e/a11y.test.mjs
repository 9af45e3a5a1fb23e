// The accessibility audit: axe-core (pinned devDependency) in headless Chromium on every
// page of the web app, at the laptop and the narrow size; no serious or critical
// violation may remain. The pages' own policy forbids injected scripts, so this audit's
// context bypasses it (the other tests keep it).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { harness, open, audit, serious, LAPTOP, NARROW } from './harness.mjs';
import { PAGES as LAYOUT } from '../../scripts/pages.mjs';

const h = harness();

// every page of the app, from its one list
const PAGES = LAYOUT.map((p) => p.file);

for (const name of PAGES) {
  test(`${name}: no serious or critical accessibility violation (axe-core)`, async () => {
    for (const viewport of [LAPTOP, NARROW]) {
      const page = await h.page(viewport, { bypassCSP: true });
      if (name === 'index.html') await page.goto(h.url + name);
      else await open(page, h.url, name);
      const result = await audit(page);
      const bad = serious(result);
      console.log(`# ${name} ${viewport.width}px: ${result.length} violations (${bad.length} serious or critical)${result.map((v) => `; ${v.impact} ${v.id}`).join('')}`);
      assert.deepEqual(bad, [], `${name} at ${viewport.width}px`);
      await page.context().close();
    }
  });
}

test('the audit finds a violation when there is one', async () => {
  const page = await h.page(LAPTOP, { bypassCSP: true });
  await open(page, h.url, 'owner.html');
  // an unlabelled field and an image without text: both serious or critical in axe's rules
  await page.evaluate(() => {
    const i = document.createElement('input');
    i.type = 'text';
    document.querySelector('main').append(i);
    const img = document.createElement('img');
    img.src = 'data:,';
    document.querySelector('main').append(img);
  });
  const ids = serious(await audit(page)).map((v) => v.id);
  assert.ok(ids.includes('label') && ids.includes('image-alt'), ids.join(', '));
  await page.context().close();
});
