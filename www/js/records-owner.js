// The records data-owner page: a CSV and a schema → noisy bases, shared bases, a record batch.
// The simple path: choose a file; the schema is FEBRL's bundled one when the columns are
// FEBRL's, else guessed from the columns (or the partner's file, under "Advanced"); one
// button checks the file and mines.
import { WorkerClient, showError, clearErrors, describe, download, downloadChecked, numberField, keyControls } from './common.js';
import { PageLedger, fileLedgerKey } from './ledger.js';
import { FEBRL } from './febrl-schema.js';

const worker = new WorkerClient(new URL('./records-worker.js', import.meta.url));
const el = (id) => document.getElementById(id);
const KINDS = ['id', 'name', 'string', 'date', 'number', 'keyed', 'clear', 'suppress'];
// the CSV: the File itself goes to the worker, which streams it (never read whole
// here); the page holds only its head, for the columns, the kind guesses and the preview
let file = null;
let head = null; // its first 64 KiB
let fileName = 'records.csv';
let columns = [];
let partnerSchema = null; // a schema file, used as it is
let loaded = null; // what the worker read

/** A kind from a column's name and first values (the user can change it). */
function guess(name, values) {
  const n = name.toLowerCase();
  const v = values.filter((x) => x.trim() !== '');
  if (/^(rec_?)?id$|_id$/.test(n) && !/soc|ssn|sec/.test(n)) return 'id';
  if (/given|first|surname|last|family|^name$/.test(n)) return 'name';
  if (/birth|dob|date/.test(n)) return 'date';
  if (/^(sex|gender|state)$/.test(n)) return 'keyed';
  if (v.length && v.every((x) => /^[\d\s-]+$/.test(x.trim()))) return 'number';
  return 'string';
}

/** Whether the file has every column the bundled FEBRL schema reads. */
const febrlFits = () => [FEBRL.id, ...FEBRL.field.map((f) => f.name)].every((c) => columns.includes(c));

/** Shows what the schema choice means, and the columns table only for a guessed schema. */
function showChoice() {
  const choice = el('schema-choice').value;
  el('schema-choice').querySelector('option[value=febrl]').disabled = !!head && !febrlFits();
  el('schema-choice').querySelector('option[value=partner]').disabled = !partnerSchema;
  el('columns').hidden = choice !== 'guessed' || !head;
  el('schema-hint').textContent = !head
    ? 'Both parties must use the same schema. Choose your file first.'
    : choice === 'febrl'
      ? `Your columns are FEBRL's: the bundled schema (${FEBRL.field.length} fields, id ${FEBRL.id}) is used. Both parties must use the same schema.`
      : choice === 'partner'
        ? 'Your partner\'s schema file is used as it is.'
        : `${febrlFits() ? '' : 'Your columns are not all FEBRL\'s, so '}the schema is guessed from your columns' names and values: check each column's kind under "Advanced", then send the schema to your partner (Download the schema).`;
}

/** The schema chosen: FEBRL's, the partner's as it is, or the one from the table. */
function schema() {
  const choice = el('schema-choice').value;
  if (choice === 'partner') {
    if (partnerSchema) return partnerSchema;
    throw Object.assign(new Error('choose the schema file your partner sent (under "Advanced")'), { code: 'FIELD' });
  }
  const epsilon = numberField(el('epsilon'), { above: 0, max: 1000 });
  if (choice === 'febrl') return { ...FEBRL, epsilon };
  const rows = [...el('columns').querySelectorAll('tbody tr')];
  const kinds = rows.map((r) => [r.dataset.column, r.querySelector('select').value]);
  const block = rows
    .filter((r) => r.querySelector('input[type=checkbox]').checked && !['id', 'suppress'].includes(r.querySelector('select').value))
    .map((r) => ({ field: r.dataset.column }));
  const ids = kinds.filter(([, k]) => k === 'id');
  if (ids.length > 1) throw Object.assign(new Error(`two id columns: ${ids.map(([c]) => c).join(' and ')}`), { code: 'FIELD' });
  const field = kinds
    .filter(([, k]) => k !== 'id')
    .map(([name, kind]) => (kind === 'date' ? { name, kind, invalid: 'missing' } : { name, kind }));
  return { version: 1, ...(ids.length ? { id: ids[0][0] } : {}), epsilon, field, ...(block.length ? { block } : {}) };
}

el('file').addEventListener('change', async () => {
  clearErrors();
  el('columns').hidden = true;
  el('split-out').hidden = true;
  el('quick').disabled = true;
  const f = el('file').files[0];
  if (!f) return;
  try {
    head = await f.slice(0, 65536).arrayBuffer();
    file = f;
    fileName = f.name;
    // the core's peek reads only the head's complete lines
    const peek = await worker.call('peek', { bytes: head.slice(0) });
    columns = peek.columns ?? [];
    const tbody = el('columns').querySelector('tbody');
    tbody.replaceChildren();
    // the first rows, for the kind guesses and the preview (a rough split: the core reads the file)
    const lines = new TextDecoder().decode(head.slice(0, 16384)).split(/\r?\n/).slice(1, 6).filter(Boolean);
    const sep = /\t/.test(lines[0] ?? '') && !/,/.test(lines[0] ?? '') ? '\t' : ',';
    const rows = lines.map((line) => line.split(sep).map((x) => x.trim().replace(/^"|"$/g, '')));
    columns.forEach((c, i) => {
      const tr = document.createElement('tr');
      tr.dataset.column = c;
      const values = rows.map((r) => r[i] ?? '');
      const sel = document.createElement('select');
      sel.setAttribute('aria-label', `kind of column ${c}`);
      sel.id = `kind-${i}`;
      for (const k of KINDS) sel.append(new Option(k, k));
      sel.value = guess(c, values);
      const th = document.createElement('th');
      th.scope = 'row';
      th.textContent = c;
      const td = document.createElement('td');
      td.textContent = values.slice(0, 3).join(' · ');
      const tk = document.createElement('td');
      tk.append(sel);
      // candidates: pairs that agree (within one edit) on a checked column; names and
      // identifier-like numbers by default (a postcode or a state would admit too many)
      const tb = document.createElement('td');
      const box = document.createElement('input');
      box.type = 'checkbox';
      box.id = `block-${i}`;
      box.setAttribute('aria-label', `block on ${c}`);
      box.checked = sel.value === 'name' || (sel.value === 'number' && /id|ssn|sec|passport|nhs|insurance/i.test(c));
      tb.append(box);
      tr.append(th, td, tk, tb);
      tbody.append(tr);
    });
    el('schema-choice').value = partnerSchema ? 'partner' : febrlFits() ? 'febrl' : 'guessed';
    showChoice();
    el('check').disabled = false;
    el('quick').disabled = false;
    el('save-schema').disabled = false;
  } catch (e) {
    showError(el('file'), `${f.name}: ${describe(e)}`);
  }
});

el('schema-file').addEventListener('change', async () => {
  clearErrors();
  const f = el('schema-file').files[0];
  partnerSchema = null;
  if (!f) return;
  try {
    partnerSchema = JSON.parse(await f.text());
    el('schema-choice').querySelector('option[value=partner]').disabled = false;
    el('schema-choice').value = 'partner';
  } catch (e) {
    showError(el('schema-file'), `${f.name}: not JSON (${describe(e)})`);
  }
  showChoice();
});

el('schema-choice').addEventListener('change', () => {
  clearErrors();
  el('split-out').hidden = true;
  el('mine').disabled = true;
  showChoice();
});

/** Reads the file under the chosen schema and shows the budget split; false on an error (shown). */
async function check() {
  clearErrors();
  el('split-out').hidden = true;
  el('mine').disabled = true;
  try {
    const s = schema();
    el('loaded').textContent = `reading ${fileName}…`;
    loaded = await worker.call('load', { file, schema: s }, (p) => {
      el('loaded').textContent = `reading ${fileName}: ${Math.round((100 * p.done) / Math.max(1, p.total))} %`;
    });
    loaded.schema = s;
    el('loaded').textContent = `${loaded.size.toLocaleString('en')} records; ${loaded.fields.map((f) => `${f.name} (${f.kind}, ${f.present} present)`).join(', ')}; schema fingerprint ${loaded.fingerprint.slice(0, 16)}…`;
    const tbody = el('split').querySelector('tbody');
    tbody.replaceChildren();
    for (const sp of loaded.split) {
      const tr = document.createElement('tr');
      for (const t of [sp.space, sp.fields.join(', '), sp.epsilon === 0 ? '0 (public grams)' : sp.epsilon.toFixed(4)]) {
        const td = document.createElement('td');
        td.textContent = t;
        tr.append(td);
      }
      tbody.append(tr);
    }
    el('split-out').hidden = false;
    el('mine').disabled = false;
    el('embed').disabled = !el('shared').files[0];
    return true;
  } catch (e) {
    el('loaded').textContent = '';
    if (e.code === 'FIELD' && el('schema-choice').value === 'partner') showError(el('schema-choice'), describe(e));
    else if (!e.shown) showError(el('check'), describe(e));
    return false;
  }
}

el('check').addEventListener('click', check);

el('save-schema').addEventListener('click', () => {
  clearErrors();
  try {
    download('schema.json', JSON.stringify(schema(), null, 2), 'application/json');
  } catch (e) {
    if (!e.shown) showError(el('save-schema'), describe(e));
  }
});

/** Mines once (spends ε) and downloads the noisy bases; errors shown at `control`. */
async function mine(control) {
  el('mine').disabled = true;
  let ok = false;
  // the file's privacy ledger in this browser (ledger.js): a second Check and Mine, or a
  // reload, finds what was spent; its total is the schema's ε unless raised on record
  let ledger = null;
  let spend = null;
  try {
    ledger = new PageLedger(await fileLedgerKey(file, fileName), fileName, loaded.schema.epsilon);
    ledger.save();
    spend = ledger.charge('page: mine --schema', loaded.schema.epsilon, 'noisy bases (mining not finished)');
    const noisy = await worker.call('mine');
    ledger.settle(spend, `noisy bases -> noisy-bases-${el('party').value}.json`);
    download(`noisy-bases-${el('party').value}.json`, noisy, 'application/json');
    ok = true;
  } catch (e) {
    if (spend && /^(INVALID_|BUDGET_EXCEEDED)/.test(e.code ?? '')) ledger.refund(spend);
    showError(control, describe(e));
  }
  if (ledger) el('ledger-text').textContent = `ε spent so far on this file in this browser: ${ledger.spent.toFixed(4)} of ${ledger.total.toFixed(4)}`;
  return ok;
}

el('mine').addEventListener('click', () => {
  clearErrors();
  return mine(el('mine'));
});

// the simple path: check with the chosen schema, then mine and download, in one press
el('quick').addEventListener('click', async () => {
  el('quick').disabled = true;
  // mined once: a second press would spend ε again (the ledger refuses it)
  const done = (await check()) && (await mine(el('quick')));
  el('quick').disabled = done;
});

const mergeReady = () => (el('merge').disabled = !(el('noisy-a').files[0] && el('noisy-b').files[0] && loaded));
for (const id of ['noisy-a', 'noisy-b']) el(id).addEventListener('change', mergeReady);
el('merge').addEventListener('click', async () => {
  clearErrors();
  try {
    const [a, b] = await Promise.all([el('noisy-a').files[0].text(), el('noisy-b').files[0].text()]);
    download('shared-bases.json', await worker.call('merge', { a, b, schema: loaded.schema }), 'application/json');
  } catch (e) {
    showError(/party B/.test(e.message) ? el('noisy-b') : /party A/.test(e.message) ? el('noisy-a') : el('merge'), describe(e));
  }
});

const keyChoice = keyControls(worker);
/** The last embed's map from the batch's pseudonyms to the own ids: `{name, csv}`, or null. */
let idMap = null;
el('download-ids').addEventListener('click', () => {
  if (idMap) download(idMap.name, idMap.bytes, 'text/csv');
});

el('shared').addEventListener('change', () => (el('embed').disabled = !(loaded && el('shared').files[0])));
el('embed').addEventListener('click', async () => {
  clearErrors();
  el('status').textContent = 'embedding…';
  try {
    const shared = await el('shared').files[0].text();
    const party = el('party').value;
    el('id-map').hidden = true;
    idMap = null;
    const { batch, idMap: map } = await worker.call('embed', { shared, party, keepIds: el('keep-ids').checked, ...keyChoice() });
    idMap = map && { name: `records-${party.toLowerCase()}.ids.csv`, bytes: map };
    el('id-map').hidden = !idMap;
    el('status').textContent = `record batch: ${batch.byteLength.toLocaleString('en')} bytes${idMap ? ', ids replaced by random codes' : ', with your own ids'}`;
    await downloadChecked(el('embed-warning'), `records-${party.toLowerCase()}.glrb`, batch);
  } catch (e) {
    el('status').textContent = '';
    showError(/^(INVALID_KEY|KEY_REQUIRED)$/.test(e.code ?? '') || /keyed|key/.test(e.message) ? el('key') : el('embed'), describe(e));
  }
});

worker.call('keygen').then(
  () => (document.body.dataset.ready = 'true'),
  (e) => showError(el('file'), describe(e)),
);
