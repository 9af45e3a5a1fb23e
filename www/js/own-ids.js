// The owner pages' last step: the matcher's pairs (or clusters) file with this party's random codes
// replaced by its own ids (the core's unmapPairs, in the page's worker), from the id map
// the page kept after embedding, or a saved copy. The map never leaves the browser.
// Elements: #pairs, #id-map-file, #unmap, #unmap-out (and their -error slots).
import { showError, clearErrors, describe, download } from './common.js';

const el = (id) => document.getElementById(id);

/**
 * Wires the step. `worker` serves `unmap({pairs, party, map})`; `party()` is the party chosen
 * (A, B, C, …), unless a saved map's file name names it;
 * `keptMap()` the id map kept in this tab (bytes) or null; `outName(party)` the file name.
 * Returns `ready()`, to call when the kept map changes.
 */
export function ownIdsStep({ worker, party, keptMap, outName }) {
  let saved = null;
  // a saved map's name carries its party (….party-C.ids.csv, as step 4 names it): a tab
  // opened only for this step has no party chosen
  let savedParty = null;
  const map = () => keptMap() ?? saved;
  const who = () => (keptMap() ? party() : savedParty ?? party());
  const ready = () => {
    el('unmap').disabled = !(el('pairs').files[0] && map());
    el('unmap-out').textContent = !el('unmap').disabled
      ? ''
      : !map()
        ? 'This step needs your id map: embed in this tab first, or load a saved id map under "Advanced".'
        : 'Choose the pairs file the matcher sent you.';
  };
  el('pairs').addEventListener('change', ready);
  el('id-map-file').addEventListener('change', async () => {
    const f = el('id-map-file').files[0];
    saved = f ? new Uint8Array(await f.arrayBuffer()) : null;
    savedParty = /party-([A-Z])\.ids\.csv$/.exec(f?.name ?? '')?.[1] ?? null;
    ready();
  });
  el('unmap').addEventListener('click', async () => {
    clearErrors();
    const p = who();
    try {
      const pairs = await el('pairs').files[0].text();
      const csv = await worker.call('unmap', { pairs, party: p, map: map().slice() });
      const rows = csv.trim().split('\n').length - 1;
      const name = outName(p);
      download(name, csv, 'text/csv');
      el('unmap-out').textContent = `${rows.toLocaleString('en')} pairs with your own ids saved as ${name}. This file stays with you: there is nothing more to send.`;
    } catch (e) {
      showError(
        el('pairs'),
        /is not in its id map/.test(e.message)
          ? `These pairs name records that are not in your id map. Is this the pairs file for your last batch, and are you party ${p}? (${describe(e)})`
          : describe(e),
      );
    }
  });
  ready();
  return ready;
}
