// The matcher page: two vector batches → linked pairs (sortable, paged, CSV); three or
// more → clusters (matcher-clusters.js).
import { $, WorkerClient, showError, clearErrors, describe, download, fmt, showFileNames } from './common.js';
import { verifyOptions, signatureError } from './signing.js';
import { clusterControls } from './matcher-clusters.js';

showFileNames();

const worker = new WorkerClient(new URL('./matcher-worker.js', import.meta.url));
const el = (id) => document.getElementById(id);
let result = null;
let order = null; // permutation of pair indices
let sort = { key: 'd', dir: 1 };
let page = 0;

const info = { 'batch-a': null, 'batch-b': null };
const ready = () => (el('match').disabled = !(info['batch-a'] && info['batch-b'] && ['none', 'ok'].includes(clusters.state())));
const clusters = clusterControls(worker, ready);

/** Checks a chosen batch on its own, so an error names the file that caused it. */
async function check(id) {
  const input = el(id);
  const slot = el(`${id}-error`);
  slot.textContent = '';
  input.removeAttribute('aria-invalid');
  el('match-error').textContent = '';
  info[id] = null;
  ready();
  const f = input.files[0];
  if (!f) return;
  const hint = el(`${id}-info`);
  hint.textContent = 'checking…';
  try {
    // the page keeps no copy (Match reads the file again): the bytes move to the worker
    const bytes = await f.arrayBuffer();
    const i = await worker.call('info', { bytes }, null, [bytes]);
    const want = id === 'batch-a' ? 'A' : 'B';
    if (want === 'A' && i.thresholdMode === null) {
      throw new Error(`this is party ${i.party}'s batch without thresholds; party A's batch must carry them (embed it as party A)`);
    }
    hint.textContent = `party ${i.party}, ${i.size.toLocaleString('en')} records, ${i.dim} dimensions${i.thresholdMode ? `, ${i.thresholdMode} thresholds for ed ${i.ed}${i.auto ? ' (ed auto: this page fits the cut-off)' : ''}` : ''}; base ${i.fingerprint.slice(0, 12)}…`;
    info[id] = i;
  } catch (e) {
    hint.textContent = '';
    showError(input, `${f.name}: ${describe(e)}`);
  }
  ready();
}
for (const id of ['batch-a', 'batch-b']) el(id).addEventListener('change', () => check(id));

/** Which control an error is about: the batch it names, else both are involved. */
function target(e) {
  if (e.code === 'FINGERPRINT_MISMATCH' || /dimension|different keys/.test(e.message)) return el('batch-b');
  if (/party B's/.test(e.message)) return el('batch-b');
  if (/party A's/.test(e.message)) return el('batch-a');
  return el('match');
}

el('match').addEventListener('click', async () => {
  el('match-error').textContent = '';
  clearErrors(el('verify'));
  if (clusters.state() === 'ok') {
    el('match').disabled = true;
    return clusters.run().finally(ready);
  }
  const fa = el('batch-a').files[0];
  const fb = el('batch-b').files[0];
  let a, b, verify;
  try {
    [a, b] = await Promise.all([fa.arrayBuffer(), fb.arrayBuffer()]);
    verify = await verifyOptions();
  } catch (e) {
    if (e.control) return showError(el(e.control), e.message);
    return showError(el('match'), `a file could not be read: ${describe(e)}`);
  }
  el('match').disabled = true;
  el('status').textContent = 'matching…';
  const t0 = performance.now();
  try {
    result = await worker.call('match', { a, b, rule: el('rule').value, verify }, null, [a, b]);
    const t = performance.now() - t0;
    el('status').textContent = '';
    el('summary').textContent = `${result.count.toLocaleString('en')} linked pairs (${result.rule} rule) between ${result.sizeA.toLocaleString('en')} A records and ${result.sizeB.toLocaleString('en')} B records; ${result.candidates.toLocaleString('en')} candidate distances computed; ${result.dim} dimensions; ${Math.round(t)} ms.${result.cutoff ? ` ${result.cutoff}.` : ''}`;
    el('summary').dataset.count = String(result.count);
    el('fingerprint').textContent = result.fingerprint;
    order = Array.from({ length: result.count }, (_, i) => i);
    sort = { key: 'd', dir: 1 };
    applySort();
    el('results').hidden = false;
    el('clusters').hidden = true;
  } catch (e) {
    el('status').textContent = '';
    const signed = signatureError(e);
    if (signed) {
      showError(signed.control, signed.text);
    } else if (e.code === 'FINGERPRINT_MISMATCH') {
      showError(target(e), `These batches were made with different shared bases, so they cannot be linked: ${describe(e)}. Both owners must merge the same two noisy bases and compare the fingerprint.`);
    } else {
      showError(target(e), describe(e));
    }
    el('results').hidden = true;
  } finally {
    ready();
  }
});

const collator = new Intl.Collator('en', { numeric: true });
function applySort() {
  const { key, dir } = sort;
  const r = result;
  const cmp = key === 'd' ? (i, j) => r.distances[i] - r.distances[j] : key === 'a' ? (i, j) => collator.compare(r.aIds[i], r.aIds[j]) : (i, j) => collator.compare(r.bIds[i], r.bIds[j]);
  order.sort((i, j) => dir * cmp(i, j) || i - j);
  for (const th of $('#pairs thead').querySelectorAll('th')) {
    const k = th.querySelector('button').dataset.key;
    th.setAttribute('aria-sort', k === key ? (dir > 0 ? 'ascending' : 'descending') : 'none');
  }
  page = 0;
  render();
}

function render() {
  const size = Number(el('page-size').value);
  const pages = Math.max(1, Math.ceil(order.length / size));
  page = Math.min(Math.max(0, page), pages - 1);
  const rows = order.slice(page * size, (page + 1) * size).map((i) => {
    const tr = document.createElement('tr');
    tr.append(Object.assign(document.createElement('td'), { textContent: result.aIds[i] }));
    tr.append(Object.assign(document.createElement('td'), { textContent: result.bIds[i] }));
    tr.append(Object.assign(document.createElement('td'), { textContent: fmt(result.distances[i], 4), className: 'num' }));
    return tr;
  });
  $('#pairs tbody').replaceChildren(...rows);
  el('page-info').textContent = `page ${page + 1} of ${pages}`;
  el('prev').disabled = page === 0;
  el('next').disabled = page >= pages - 1;
}

for (const b of document.querySelectorAll('button.sort')) {
  b.addEventListener('click', () => {
    const key = b.dataset.key;
    sort = { key, dir: sort.key === key ? -sort.dir : 1 };
    applySort();
  });
}
el('prev').addEventListener('click', () => { page--; render(); });
el('next').addEventListener('click', () => { page++; render(); });
el('page-size').addEventListener('change', () => { page = 0; render(); });

// a value a spreadsheet would run as a formula gets a leading ' (OWASP; as the core's dataset::csv_cell)
const csvSafe = (s) => (/^[=+\-@\t\r]/.test(s) ? `'${s}` : s);
const csvField = (v) => { const s = csvSafe(v); return /[",\n\r]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s; };
el('download').addEventListener('click', () => {
  const lines = ['a_id,b_id,distance'];
  for (const i of order) lines.push(`${csvField(result.aIds[i])},${csvField(result.bIds[i])},${result.distances[i]}`);
  download('linked-pairs.csv', lines.join('\n') + '\n', 'text/csv');
});

// the rule the core recommends (the select lists them all)
worker.call('defaults').then(
  (d) => { el('rule').value = d.config.rule; },
  (e) => showError(el('rule'), `gramlink could not start: ${describe(e)}`),
).finally(() => { document.body.dataset.ready = 'true'; });
