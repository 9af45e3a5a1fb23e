// The twin page: a file (and a schema for records) → a synthetic twin and its report.
import { WorkerClient, showError, clearErrors, describe, download, numberField, fmt, jsonFile } from './common.js';

const worker = new WorkerClient(new URL('./twin-worker.js', import.meta.url));
const el = (id) => document.getElementById(id);
let bytes = null;
let schema = null;
let made = null;

el('file').addEventListener('change', async () => {
  clearErrors();
  const f = el('file').files[0];
  bytes = f ? await f.arrayBuffer() : null;
  el('make').disabled = !bytes;
});

el('schema-file').addEventListener('change', async () => {
  clearErrors();
  schema = null;
  // a file that is not JSON is refused next to it
  schema = await jsonFile(el('schema-file')).catch(() => null);
});

el('make').addEventListener('click', async () => {
  clearErrors();
  try {
    const twin = {
      condense: {
        k: numberField(el('k'), { min: 1, integer: true }),
        lengthEpsilon: numberField(el('length-epsilon'), { min: 0 }),
        reassign: el('reassign').checked,
      },
      krimp: { minSup: numberField(el('min-sup'), { min: 1, integer: true }) },
      categorical: el('categorical').value.split(',').map((s) => s.trim()).filter(Boolean),
    };
    el('make').disabled = true;
    made = await worker.call('twin', { bytes: bytes.slice(0), schema, twin });
    show(made.report);
  } catch (e) {
    if (!e.shown) showError(el('make'), describe(e));
  } finally {
    el('make').disabled = !bytes;
  }
});

function show(r) {
  el('report-section').hidden = false;
  el('banner').textContent = `SYNTHETIC: ${r.twinRows.toLocaleString('en')} made-up rows from ${r.sourceRows.toLocaleString('en')}; not differentially private${r.seeded ? '; seeded' : ''}.`;
  const tbody = el('fields').querySelector('tbody');
  tbody.replaceChildren();
  for (const f of r.fields) {
    const tr = document.createElement('tr');
    const cells = [f.name, `${f.groups} (${f.minGroup})`, f.suppressed, fmt(f.compositionL1, 4), `${fmt(100 * f.equalToReal, 1)} %`, fmt(f.nearestNeighbour.mean, 2)];
    cells.forEach((c, i) => {
      const td = document.createElement(i === 0 ? 'th' : 'td');
      if (i === 0) td.scope = 'row';
      td.textContent = String(c);
      tr.append(td);
    });
    tbody.append(tr);
  }
  const c = r.categorical;
  el('categorical-out').textContent = c
    ? `Categorical fields ${c.columns.join(', ')} by KRIMP: ${c.codeTableSize} value combinations in the code table, compression ${fmt(c.compressionRatio)}, dissimilarity ${fmt(c.dissimilarity)}, NAS ${fmt(c.normalizedAnonymityScore)}.`
    : '';
  const ul = el('guarantees');
  ul.replaceChildren(...r.guarantees.map((g) => Object.assign(document.createElement('li'), { textContent: g })));
}

el('save-twin').addEventListener('click', () => {
  if (!made) return;
  const text = Array.isArray(made.records) ? made.records.join('\n') + '\n' : made.records;
  download(Array.isArray(made.records) ? 'twin.txt' : 'twin.csv', text, 'text/plain');
});

el('save-report').addEventListener('click', () => {
  if (made) download('twin.report.json', JSON.stringify(made.report, null, 2), 'application/json');
});

// ready once the worker has loaded the package
worker.call('ping').then(
  () => {},
  (e) => showError(el('make'), `gramlink could not start: ${describe(e)}`),
).finally(() => { document.body.dataset.ready = 'true'; });
